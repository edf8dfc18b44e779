import FoundationEssentials
import Glibc

/// The program's identity for the keychain: its own access group, like an Apple app's
/// application access group, and the other groups it is entitled to.
///
/// The own group is the one set with `use(accessGroup:)`, else `KEYCHAIN_ACCESS_GROUP`, else
/// the running executable's file name (resolved once per process); `use(accessGroups:)` or
/// `KEYCHAIN_ACCESS_GROUPS` name several, the own first. How scopes use them is in the
/// "Access groups" article of KeychainCore's documentation.
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
            let group = name.trimmingWhitespace()
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
