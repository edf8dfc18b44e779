import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

/// What the Secret Service tests share: the backend, a check that it can run here, unique
/// names, and a way to run other programs (secret-tool, python3, dbus-run-session, the CLI).
enum SecretServiceTestSupport {
    /// One backend for the whole run, as a process would have.
    static let backend = SecretServiceBackend()

    /// Skips the test, with the reason, when the Secret Service is not usable here (outside
    /// with-services.sh); fails it when `KEYCHAIN_REQUIRE_ALL_BACKENDS=1`.
    static func requireAvailable(_ backend: SecretServiceBackend = backend) throws {
        try KeychainTestSupport.requireAvailable(backend)
    }

    /// The provider with-services.sh started (`--provider=`): "gnome-keyring" or "keepassxc".
    static let provider = ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_TEST_PROVIDER"] ?? "gnome-keyring"

    /// Cancels a test, with the reason, that needs a gnome-keyring feature the running provider
    /// lacks (a second collection made without a prompt, the session collection).
    static func requireGnomeKeyring(_ feature: String) throws {
        guard provider != "gnome-keyring" else { return }
        try Test.cancel(Comment(rawValue: "\(feature) is gnome-keyring's; the provider here is \(provider)"))
    }

    /// The CLI, or a skipped (under KEYCHAIN_REQUIRE_ALL_BACKENDS=1, failed) test when it is missing.
    static func cli() throws -> String {
        guard let path = ConformanceContext.locateCLI() else { try skipOrFail("the linux-keychain CLI was not found beside the test binary") }
        return path
    }

    static func uniqueName(_ purpose: String) -> String {
        "lkc-ss-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// The secret of (service, account) as the backend reads it, or nil when there is none.
    static func secret(_ service: String, _ account: String,
                       in backend: SecretServiceBackend = backend) throws -> Data? {
        try storedSecret(backend, service, account)
    }
}

/// A finished child process.
struct ToolResult {
    let status: Int32
    let output: Data
    let errorText: String
    /// Wall-clock seconds from start to exit.
    let seconds: Double

    var outputText: String { String(decoding: output, as: UTF8.self) }
}

/// Runs `executable` (a path, or a name looked up in PATH) with exactly `environment`.
///
/// The child starts with no blocked signals: the test process blocks some on its threads and
/// children inherit the mask, which would keep `dbus-run-session` from stopping its bus. Output
/// goes to files, not pipes, so that a daemon the child leaves behind cannot hold the test.
func runTool(_ executable: String, _ arguments: [String], input: Data? = nil,
             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ToolResult {
    let scratch = try makeScratchDirectory("lkc-ss-tool")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outputFile = scratch.appendingPathComponent("stdout"), errorFile = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputFile), errors = try FileHandle(forWritingTo: errorFile)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: UnblockedSignals.launcher)
    process.arguments = UnblockedSignals.arguments([executable] + arguments)
    var environment = environment
    if environment["XDG_STATE_HOME"] == ProcessInfo.processInfo.environment["XDG_STATE_HOME"] {
        // A fresh state directory per run, so that auto's recorded choice cannot leak between tests.
        environment["XDG_STATE_HOME"] = scratch.appendingPathComponent("state").path
    }
    process.environment = environment
    let stdin = Pipe()
    process.standardInput = stdin
    process.standardOutput = output
    process.standardError = errors
    let start = Date()
    try process.run()
    try output.close()
    try errors.close()
    if let input { stdin.fileHandleForWriting.write(input) }
    try stdin.fileHandleForWriting.close()
    process.waitUntilExit()
    let seconds = Date().timeIntervalSince(start)
    return ToolResult(status: process.terminationStatus, output: try Data(contentsOf: outputFile),
                      errorText: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self), seconds: seconds)
}
