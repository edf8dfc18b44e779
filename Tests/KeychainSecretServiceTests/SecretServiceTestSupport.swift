import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import Testing

/// What the Secret Service tests share: the backend, a check that it can run here, unique
/// names, and a way to run other programs (secret-tool, python3, dbus-run-session, the CLI).
enum SecretServiceTestSupport {
    /// One backend for the whole run, as a process would have.
    static let backend = SecretServiceBackend()

    /// Cancels the test when the Secret Service is not usable here (outside with-services.sh),
    /// or fails it when `KEYCHAIN_REQUIRE_ALL_BACKENDS=1`.
    static func requireAvailable(_ backend: SecretServiceBackend = backend) throws {
        guard case .unavailable(let reason) = backend.availability() else { return }
        let text = "the Secret Service is unavailable here: \(reason.message)"
        if ConformanceCase.unavailableIsFailure { throw ConformanceFailure(text + " (KEYCHAIN_REQUIRE_ALL_BACKENDS=1)") }
        try Test.cancel(Comment(rawValue: text))
    }

    /// The CLI, or a cancelled/failed test when it is missing.
    static func cli() throws -> String {
        if let path = ConformanceContext.locateCLI() { return path }
        if ConformanceCase.unavailableIsFailure { throw ConformanceFailure("the keychain CLI was not found") }
        try Test.cancel("the keychain CLI was not found beside the test binary")
    }

    static func uniqueName(_ purpose: String) -> String {
        "lkc-ss-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    static func genericItem(_ service: String, _ account: String, _ secret: Data,
                            extra: [AttributeKey: AttributeValue] = [:]) -> KeychainItem {
        var values: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
        values.merge(extra) { _, new in new }
        return KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes(values), secret: SecretBytes(secret))
    }

    static func exactQuery(_ service: String, _ account: String, secrets: Bool = true) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword,
                  constraints: ItemAttributes([.service: .string(service), .account: .string(account)]),
                  limit: .one, includeSecrets: secrets)
    }

    /// The secret of (service, account) as the backend reads it, or nil when there is none.
    static func secret(_ service: String, _ account: String,
                       in backend: SecretServiceBackend = backend) throws -> Data? {
        try backend.search(exactQuery(service, account)).first?.secret?.makeData()
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
func runTool(_ executable: String, _ arguments: [String], input: Data? = nil,
             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ToolResult {
    let process = Process()
    if executable.contains("/") {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
    }
    process.environment = environment
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    let start = Date()
    try process.run()
    if let input { stdin.fileHandleForWriting.write(input) }
    try stdin.fileHandleForWriting.close()
    // Read both pipes concurrently so a chatty child cannot block on a full stderr.
    let errorData = ErrorCollector()
    let reader = Thread { errorData.set(stderr.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let errorText = errorData.wait()
    return ToolResult(status: process.terminationStatus, output: output, errorText: errorText,
                      seconds: Date().timeIntervalSince(start))
}

private final class ErrorCollector: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written once before `done` is signalled, read after.
    private var data = Data()
    func set(_ data: Data) { self.data = data; done.signal() }
    func wait() -> String { done.wait(); return String(decoding: data, as: UTF8.self) }
}

/// Whether a program is on PATH.
func toolExists(_ name: String) -> Bool {
    (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
        FileManager.default.isExecutableFile(atPath: "\($0)/\(name)")
    }
}
