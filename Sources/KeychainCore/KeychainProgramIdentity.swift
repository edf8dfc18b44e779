import Foundation
import Synchronization

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
public enum KeychainProgramIdentity: Sendable {
    /// The variable that names the program's access group.
    public static let variable = "KEYCHAIN_ACCESS_GROUP"

    /// The group set in code, which wins over the environment.
    private static let groupSetInCode = Mutex<String?>(nil)

    /// The program's access group. A change made in code takes effect at once; the
    /// environment is read once, at first use, since every keychain call asks.
    public static var accessGroup: String {
        groupSetInCode.withLock { $0 } ?? fromEnvironment
    }

    private static let fromEnvironment = resolved(environment: ProcessInfo.processInfo.environment)

    /// Sets the program's access group in code, overriding `KEYCHAIN_ACCESS_GROUP`.
    /// Throws `errSecParam` for an empty name: an empty group is how shared items are stored,
    /// so it cannot be a program's own.
    public static func use(accessGroup: String) throws {
        guard !accessGroup.isEmpty else {
            throw KeychainError.badParameter("A program's access group cannot be empty; items with no group are the shared ones.")
        }
        groupSetInCode.withLock { $0 = accessGroup }
    }

    /// Forgets the group set in code; the environment or the executable's name applies again.
    public static func reset() {
        groupSetInCode.withLock { $0 = nil }
    }

    /// The group `environment` gives, else the executable's file name.
    public static func resolved(environment: [String: String]) -> String {
        if let named = environment[variable], !named.isEmpty { return named }
        return executableName
    }

    /// The running executable's file name; the first argument's when /proc is not mounted.
    public static let executableName: String = {
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
