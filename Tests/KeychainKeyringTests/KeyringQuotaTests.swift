import Foundation
import Glibc
import KeychainConformance
import KeychainCore
import Testing

/// The kernel's key quota, as an ordinary user meets it (root's quota is far larger): the
/// test runs the CLI as a throwaway unprivileged user it creates with `useradd`.
@Suite("kernel keyring quota for an unprivileged user", .serialized)
struct KeyringQuotaTests {
    static let userName = "lkc-keyring-quota"

    /// Cancels the test with `reason`, or fails it where every backend must be tested (CI).
    func cannotRun(_ reason: String) throws -> Never {
        if ConformanceCase.unavailableIsFailure {
            Issue.record(Comment(rawValue: reason + " (KEYCHAIN_REQUIRE_ALL_BACKENDS=1)"))
        }
        try Test.cancel(Comment(rawValue: reason))
    }

    func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(executable, arguments, input: input)
    }

    func ensureUser() throws {
        if try run("/usr/bin/id", ["-u", Self.userName]).status == 0 { return }
        let added = try run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", Self.userName])
        // Another test run may have created it at the same moment.
        let exists = try run("/usr/bin/id", ["-u", Self.userName]).status == 0
        guard exists else {
            try cannotRun("useradd \(Self.userName) failed: \(added.errorText)")
        }
    }

    /// A copy of the CLI that the unprivileged user can execute: the build directory may not
    /// be reachable for other users.
    func copyOfCLI() throws -> URL {
        guard let cli = ConformanceContext.locateCLI() else { try cannotRun("the keychain executable was not built") }
        let directory = URL(fileURLWithPath: "/tmp/lkc-keyring-quota-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        let copy = directory.appendingPathComponent("keychain")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: cli), to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        return copy
    }

    func asUser(_ cli: URL, _ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try run("/usr/sbin/runuser", ["-u", Self.userName, "--", cli.path, "--backend", "keyring"] + arguments,
                input: input)
    }

    @Test func aSecretOverTheQuotaFailsNamingTheLimitsAndASmallOneRoundTrips() throws {
        guard getuid() == 0 else { try cannotRun("creating a throwaway user needs root") }
        let maxBytes = (try? String(contentsOfFile: "/proc/sys/kernel/keys/maxbytes", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        guard maxBytes > 0, maxBytes < 25_000 else {
            try cannotRun("/proc/sys/kernel/keys/maxbytes is \(maxBytes), so a 25 KB secret fits in the quota here")
        }
        try ensureUser()
        let cli = try copyOfCLI()
        defer { try? FileManager.default.removeItem(at: cli.deletingLastPathComponent()) }
        let service = uniqueService("quota")

        let small = Data("small secret".utf8)
        let set = try asUser(cli, ["set", service, "small"], input: small)
        #expect(set.status == 0, "set as \(Self.userName) failed: \(set.errorText)")
        let get = try asUser(cli, ["get", service, "small"])
        #expect(get.status == 0 && get.output == small, "get as \(Self.userName): \(get.status) \(get.errorText)")
        #expect(try asUser(cli, ["delete", service, "small"]).status == 0)

        let large = Data(repeating: 0x5A, count: 25_000)
        let refused = try asUser(cli, ["set", service, "large"], input: large)
        #expect(refused.status == 1, "a 25 KB secret as \(Self.userName) exited \(refused.status)")
        #expect(refused.errorText.contains("/proc/sys/kernel/keys/maxbytes") && refused.errorText.contains("maxkeys"),
                "the quota error does not name the limits: \(refused.errorText)")
        let leftover = try asUser(cli, ["get", service, "large"])
        #expect(leftover.status == CLIExit.notFound, "the refused item left something behind: \(leftover.errorText)")
    }
}
