#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A child process, started at init: the `keychain` CLI for tests that need a second process,
/// or any other tool a test drives (`keyctl`, `mount`, ...). Its environment is this
/// process's plus `environment`.
public final class KeychainCLIProcess: @unchecked Sendable {
    public struct Result: Sendable {
        public let status: Int32
        public let output: Data
        public let errorText: String
        public var outputText: String { String(decoding: output, as: UTF8.self) }
    }

    private let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private var launchError: Error?
    private let released = NSLock()
    private var inputClosed = false

    /// Starts `executable` with `arguments`, writes `input` (if any) to its stdin and closes it.
    /// With `holdingInput`, stdin stays open until `release(_:)`: the CLI reads its secret only
    /// after it has opened its backend, so releasing several held processes back to back makes
    /// them hit the store at nearly the same moment, which is what a race test needs.
    public init(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                holdingInput: Bool = false) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            launchError = error
            return
        }
        if !holdingInput { release(input) }
    }

    /// Writes `input` (if any) to the process's stdin and closes it. Only the first call
    /// does anything: stdin is closed after it.
    public func release(_ input: Data?) {
        guard launchError == nil else { return }
        let first = released.withLock {
            defer { inputClosed = true }
            return !inputClosed
        }
        guard first else { return }
        if let input { Self.withoutSIGPIPE { try? stdin.fileHandleForWriting.write(contentsOf: input) } }
        try? stdin.fileHandleForWriting.close()
    }

    /// Runs `body` with SIGPIPE blocked on this thread, and drops one it raised: a child that
    /// exits without reading its input must fail its test, not kill the test process.
    private static func withoutSIGPIPE(_ body: () -> Void) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        body()
        var pending = sigset_t()
        if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1, sigismember(&previous, SIGPIPE) == 0 {
            var immediately = timespec()
            _ = sigtimedwait(&pipeSignal, nil, &immediately)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    /// Waits for the process and collects its output.
    public func wait() throws -> Result {
        if let launchError { throw ConformanceFailure("could not start the CLI: \(launchError)") }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errorOutput = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: output,
                      errorText: String(decoding: errorOutput, as: UTF8.self))
    }

    /// Runs the CLI to completion.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           environment: [String: String] = [:]) throws -> Result {
        try KeychainCLIProcess(executable, arguments, input: input, environment: environment).wait()
    }
}
