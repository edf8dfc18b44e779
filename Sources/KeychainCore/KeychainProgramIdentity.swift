import Foundation

/// The program's identity for the keychain: its own access group, like an Apple app's
/// application access group.
///
/// Items the program adds without `kSecAttrAccessGroup` are stored in this group, and its
/// queries without a group see this group first, then the shared items (those with no group).
/// Its updates and deletes without a group touch this group only (`AccessScope.program`).
///
/// The group is, in order: the one set in code with `use(accessGroup:)`; the environment
/// variable `KEYCHAIN_ACCESS_GROUP`; the file name of the running executable
/// (`/proc/self/exe`), so that two programs get two groups with no configuration and one
/// program keeps its group however it is started. The last two are resolved once, at the
/// process's first keychain call, and kept for its life: a binary upgraded in place while it
/// runs (a new file renamed over it, as dpkg does) keeps its name.
///
/// A program may also be entitled to several groups, as an Apple app is through its
/// `keychain-access-groups` entitlement and app groups: `use(accessGroups:)` in code, or
/// `KEYCHAIN_ACCESS_GROUPS` (comma-separated), either of which wins over the single group.
/// The first is its own (adds without a group go there); searches, updates and deletes that
/// name no group reach every one of them, and searches the shared items after them. There is
/// no entitlement check on Linux: the list says what a program wants to reach, not what it may.
public enum KeychainProgramIdentity: Sendable {
    /// The variable that names the program's access group.
    public static let variable = "KEYCHAIN_ACCESS_GROUP"
    /// The variable that lists every group the program is entitled to, its own first.
    public static let groupsVariable = "KEYCHAIN_ACCESS_GROUPS"

    /// The groups set in code, which win over the environment.
    private static let groupsSetInCode = Locked<[String]?>(nil)

    /// The program's own access group: the first of `accessGroups`.
    public static var accessGroup: String { accessGroups[0] }

    /// Every group the program is entitled to, its own first; never empty. A change made in
    /// code takes effect at once; the environment is read once, at first use, since every
    /// keychain call asks.
    public static var accessGroups: [String] {
        scopedGroups ?? groupsSetInCode.withLock { $0 } ?? fromEnvironment
    }

    private static let fromEnvironment = resolvedGroups(environment: ProcessInfo.processInfo.environment)

    /// Sets the program's access group in code, overriding `KEYCHAIN_ACCESS_GROUP`.
    /// Throws `errSecParam` for an empty name: an empty group is how shared items are stored,
    /// so it cannot be a program's own.
    public static func use(accessGroup: String) throws {
        guard !accessGroup.isEmpty else {
            throw KeychainError.badParameter("A program's access group cannot be empty; items with no group are the shared ones.")
        }
        groupsSetInCode.withLock { $0 = [accessGroup] }
    }

    /// Sets every group the program is entitled to, its own first, overriding the
    /// environment. Throws `errSecParam` for an empty list or an empty name.
    public static func use(accessGroups: [String]) throws {
        let groups = try validated(accessGroups)
        groupsSetInCode.withLock { $0 = groups }
    }

    /// `groups` without repeats; `errSecParam` for an empty list or an empty name.
    static func validated(_ groups: [String]) throws -> [String] {
        guard !groups.isEmpty else {
            throw KeychainError.badParameter("A program needs at least one access group, its own.")
        }
        guard !groups.contains("") else {
            throw KeychainError.badParameter("An access group cannot be empty; items with no group are the shared ones.")
        }
        var unique: [String] = []
        for group in groups where !unique.contains(group) { unique.append(group) }
        return unique
    }

    /// Forgets the groups set in code; the environment or the executable's name applies again.
    public static func reset() {
        groupsSetInCode.withLock { $0 = nil }
    }

    /// The groups `environment` gives (`KEYCHAIN_ACCESS_GROUPS`, else `resolved`'s one).
    package static func resolvedGroups(environment: [String: String]) -> [String] {
        var groups: [String] = []
        for name in (environment[groupsVariable] ?? "").split(separator: ",") {
            let group = name.trimmingCharacters(in: .whitespaces)
            if !group.isEmpty && !groups.contains(group) { groups.append(group) }
        }
        return groups.isEmpty ? [resolved(environment: environment)] : groups
    }

    /// The group `environment` gives, else the executable's file name.
    package static func resolved(environment: [String: String]) -> String {
        if let named = environment[variable], !named.isEmpty { return named }
        return executableName
    }

    /// The running executable's file name; the first argument's when /proc is not mounted.
    package static let executableName: String = {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let name = URL(fileURLWithPath: withoutDeletedMark(path)).lastPathComponent
            if !name.isEmpty { return name }
        }
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
        return name.isEmpty ? "unnamed-program" : name
    }()

    /// The mark the kernel appends to `/proc/self/exe`'s target once the file was removed or
    /// replaced.
    private static let deletedMark = " (deleted)"

    /// `path` without the kernel's deleted mark. A file whose own name ends in the mark still
    /// exists under that name while it runs, so its name is kept.
    private static func withoutDeletedMark(_ path: String) -> String {
        guard path.hasSuffix(deletedMark), !FileManager.default.fileExists(atPath: path) else { return path }
        return String(path.dropLast(deletedMark.count))
    }
}
