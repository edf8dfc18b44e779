extension KeychainProgramIdentity {
    /// The groups given to the current task and its child tasks, if any (`withAccessGroups`).
    @TaskLocal static var scopedGroups: [String]?

    /// Runs `body` as a program entitled to `groups` (its own first), on this task and its
    /// child tasks only, whatever the process-wide identity is: for tests that run programs of
    /// several identities at once in one process, as `KeychainBackendRegistry.withBackend`
    /// does for backends. Throws `errSecParam`, before running `body`, for an empty list or name.
    public static func withAccessGroups<Result>(_ groups: [String], _ body: () throws -> Result) throws -> Result {
        try $scopedGroups.withValue(validated(groups), operation: body)
    }
}
