import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// A temporary store driven through the built `linux-keychain` CLI, each call a separate process.
struct CLIStore {
    let store: TemporaryStore
    let cli: String
    var environment: [String: String]

    /// The cache is on (short) by default, as users have it: only the first process pays Argon2id.
    init(passphrase: String = "cli test passphrase", cacheSeconds: Int = 30) throws {
        store = try TemporaryStore()
        cli = try builtCLI()
        environment = ["KEYCHAIN_BACKEND": "file", "KEYCHAIN_FILE_DIR": store.directory,
                       "KEYCHAIN_FILE_PASSPHRASE": passphrase, "KEYCHAIN_FILE_PASSPHRASE_FILE": "",
                       "KEYCHAIN_FILE_CACHE_SECONDS": String(cacheSeconds)]
    }

    var directory: String { environment["KEYCHAIN_FILE_DIR"]! }

    func start(_ arguments: [String], input: Data? = nil, changing overrides: [String: String] = [:]) -> KeychainCLIProcess {
        KeychainCLIProcess(cli, arguments, input: input, environment: environment.merging(overrides) { _, new in new })
    }

    /// Runs the CLI; one that hangs is killed after `timeout` seconds and its result says so,
    /// so a hang fails the test instead of stalling the suite.
    func run(_ arguments: [String], input: Data? = nil, changing overrides: [String: String] = [:],
             timeout: Double = 120) throws -> KeychainCLIProcess.Result {
        try start(arguments, input: input, changing: overrides).wait(timeout: timeout)
    }

    /// `linux-keychain set`, which must succeed (with `--allow-empty` for an empty `secret`).
    func set(_ service: String, _ account: String, _ secret: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try run(["set"] + (secret.isEmpty ? ["--allow-empty"] : []) + [service, account], input: secret)
        #expect(result.status == 0, "set \(service) \(account) failed: \(result.errorText)", sourceLocation: sourceLocation)
    }
}

/// Runs a helper program (mount, dd, ...) to completion; returns its status and combined output.
@discardableResult
func runTool(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let result = try KeychainCLIProcess.run(executable, arguments)
    return (result.status, result.outputText + result.errorText)
}

/// A tmpfs of `size` mounted at a new directory under `parent`, unmounted on release.
/// Cancels the test, with the reason, where mounting is not allowed.
final class TemporaryMount {
    let path: String

    init(under parent: String, size: String) throws {
        path = parent + "/mnt"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path])
        guard mounted.status == 0 else {
            try Test.cancel(Comment(rawValue: "mounting a tmpfs is not allowed here (needs root or CAP_SYS_ADMIN): \(mounted.output)"))
        }
    }

    func remount(readOnly: Bool) throws {
        let result = try runTool("/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", path])
        #expect(result.status == 0, Comment(rawValue: "remount failed: \(result.output)"))
    }

    deinit { _ = try? runTool("/bin/umount", ["-l", path]) }
}
