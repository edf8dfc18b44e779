import Foundation
import Glibc
import KeychainConformance
import KeychainTestSupport
import Testing

/// A throwaway unprivileged user (made with `useradd`, as the keyring quota tests do), whose
/// every step runs with only the environment the test gives, in a session keyring of its own
/// and with no controlling terminal, as a service or a cron job runs; and whose keys can be
/// wiped the way a reboot wipes them (`simulateReboot`). Its home directory, and with it the
/// file store and the placement record, is on disk and survives that.
///
/// The real quota of an ordinary user applies, and the real kernel keyring and files are used.
/// Keys are per user, so the tests of one user must run one at a time (`.serialized`).
final class RebootableUser {
    let name: String
    /// `HOME`: a fresh directory owned by the user, mode 0700.
    let home: String
    /// A copy of the `linux-keychain` executable the user can run (the build directory may not be).
    let cli: String
    let uid: uid_t
    let gid: gid_t
    private let scratch: String

    /// Makes `name` if it does not exist yet, a fresh home and a copy of the CLI. Cancels the
    /// test where that cannot be done (not root), or fails it under KEYCHAIN_REQUIRE_ALL_BACKENDS=1.
    convenience init(_ name: String) throws {
        let (uid, gid, built) = try Self.prepare(name)
        self.init(name: name, uid: uid, gid: gid, scratch: "/tmp/\(name)-\(UUID().uuidString.prefix(8).lowercased())")
        let files = FileManager.default
        try files.createDirectory(atPath: scratch + "/bin", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch)
        try files.copyItem(atPath: built, toPath: cli)
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cli)
        try makeOwnedDirectory(home)
    }

    private init(name: String, uid: uid_t, gid: gid_t, scratch: String) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.scratch = scratch
        home = scratch + "/home"
        cli = scratch + "/bin/linux-keychain"
    }

    /// The user's ids, made with `useradd` if needed, and the built CLI's path.
    private static func prepare(_ name: String) throws -> (uid_t, gid_t, String) {
        guard getuid() == 0 else { try skipOrFail("creating a throwaway user needs root") }
        if try KeychainCLIProcess.run("/usr/bin/id", ["-u", name]).status != 0 {
            let added = try KeychainCLIProcess.run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
            // Another test run may have made it at the same moment.
            if try KeychainCLIProcess.run("/usr/bin/id", ["-u", name]).status != 0 {
                try skipOrFail("useradd \(name) failed: \(added.errorText)")
            }
        }
        // getpwnam_r: suites of other users run on other threads, and getpwnam's buffer is shared.
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &found) == 0, found != nil else {
            try skipOrFail("no passwd entry for \(name)")
        }
        guard let built = ConformanceContext.locateCLI() else { try skipOrFail("the linux-keychain executable was not built") }
        return (entry.pw_uid, entry.pw_gid, built)
    }

    /// A copy the user can run of `path`, an executable built beside the tests.
    func copyOfExecutable(_ path: String) throws -> String {
        let copy = scratch + "/bin/" + URL(fileURLWithPath: path).lastPathComponent
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
        return copy
    }

    /// Removes the home and the CLI copy (the user stays, for the next run).
    func remove() {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// A directory (and its missing parents under `home`) owned by the user, with `mode`.
    func makeOwnedDirectory(_ path: String, mode: Int = 0o700) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try own(path, mode: mode)
    }

    /// A file owned by the user, with `mode`, holding `contents`.
    func writeOwnedFile(_ path: String, _ contents: Data, mode: Int = 0o600) throws {
        guard FileManager.default.createFile(atPath: path, contents: contents) else {
            throw ConformanceFailure("could not create \(path)")
        }
        try own(path, mode: mode)
    }

    /// Gives `path` to the user, with `mode`.
    func own(_ path: String, mode: Int) throws {
        guard chown(path, uid, gid) == 0 else { throw ConformanceFailure("chown \(path): errno \(errno)") }
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// Runs `arguments` (an executable and its arguments) as the user, with exactly `HOME`,
    /// `PATH` and `environment`, in a new session keyring and with no controlling terminal.
    func run(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        let variables = ["HOME=\(home)", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"]
            + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        // keyctl announces the new session on stderr: that line goes to /dev/null, and the
        // step's own stderr is passed on as descriptor 3.
        let inSession = """
            exec 3>&2 2>/dev/null; exec /usr/bin/keyctl session - /bin/sh -c 'exec 2>&3 3>&-; exec "$@"' sh "$@"
            """
        return try KeychainCLIProcess.run("/usr/sbin/runuser",
            ["-u", name, "--", "/usr/bin/env", "-i"] + variables + ["/usr/bin/setsid", "-w", "/bin/sh", "-c", inSession, "sh"] + arguments,
            input: input, timeout: 120)
    }

    /// `linux-keychain ARGUMENTS` as the user.
    func keychain(_ arguments: [String], environment: [String: String] = [:], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try run([cli] + arguments, environment: environment, input: input)
    }

    /// What a reboot does to the user's keys: every key reachable from the persistent
    /// keyring, the user keyring (`@u`, where the file store's unlock cache lives) and the
    /// user-session keyring is invalidated, and so are those keyrings; each step already runs
    /// in a session of its own. Files are untouched. Fails the test unless the kernel then
    /// hands out a new persistent keyring and an empty `@u`.
    func simulateReboot(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let script = """
        set -u
        wipe() { for k in $(keyctl rlist "$1" 2>/dev/null); do wipe "$k"; keyctl invalidate "$k"; done; }
        keyctl link @u @s >/dev/null
        persistent=$(keyctl get_persistent @s)
        wipe "$persistent"; keyctl invalidate "$persistent"
        wipe @u; keyctl clear @u
        wipe @us; keyctl clear @us
        echo "$persistent"
        """
        let wiped = try run(["/bin/sh", "-c", script])
        let before = wiped.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(wiped.status == 0 && !before.isEmpty, "the reboot's wipe failed: \(wiped.errorText)", sourceLocation: sourceLocation)
        // The kernel collects invalidated keys asynchronously: until it has, the old persistent
        // keyring may still be handed out. Asked again for at most 3 s.
        var after = try run(["/bin/sh", "-c", "keyctl get_persistent @s; keyctl rlist @u"])
        var lines = after.outputText.split(whereSeparator: \.isNewline).map(String.init)
        var tries = 0
        while after.status != 0 || lines.first == before, tries < 30 {
            tries += 1
            Thread.sleep(forTimeInterval: 0.1)
            after = try run(["/bin/sh", "-c", "keyctl get_persistent @s; keyctl rlist @u"])
            lines = after.outputText.split(whereSeparator: \.isNewline).map(String.init)
        }
        #expect(after.status == 0 && lines.first != before,
                "the persistent keyring survived the reboot: \(before) then \(lines) (exit \(after.status): \(after.errorText))",
                sourceLocation: sourceLocation)
        #expect(lines.dropFirst().allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty },
                "@u still holds keys after the reboot: \(lines)", sourceLocation: sourceLocation)
    }

}
