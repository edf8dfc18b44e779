extension KeychainBackendRegistry {
    /// The backend chosen for the current task and its child tasks, if any (`withBackend`).
    @TaskLocal static var scopedBackend: (any KeychainBackend)?

    /// Runs `body` with every keychain call made in it, on this task and its child tasks, going
    /// to `backend`, whatever the process-wide choice is. For tests that run the same Apple code
    /// against several backends at once in one process; other tasks are not affected.
    public static func withBackend<Result>(_ backend: any KeychainBackend, _ body: () throws -> Result) rethrows -> Result {
        try $scopedBackend.withValue(backend, operation: body)
    }
}
