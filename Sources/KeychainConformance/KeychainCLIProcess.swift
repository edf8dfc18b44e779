#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A child process, started at init: the `keychain` CLI for tests that need a second process,
/// or any other tool a test drives (`keyctl`, `mount`, ...). Its environment is this
/// process's plus `environment`.
///
/// Unless `environment` sets `XDG_STATE_HOME`, each process gets a fresh one, removed when it
/// ends, so that the backend `auto` records at a first write never leaks from one test (or
/// one process) into the next; a test that means two processes to share it passes its own.
public final class KeychainCLIProcess: Sendable {
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
    /// What changes after the start: set in init, or by whichever thread releases or waits first.
    private struct State {
        var launchError: (any Error)?
        var inputClosed = false
        var stateDirectory: String?
    }
    private let state = Mutex(State())

    /// Starts `executable` with `arguments`, writes `input` (if any) to its stdin and closes it.
    /// With `holdingInput`, stdin stays open until `release(_:)`: the CLI reads its secret only
    /// after it has opened its backend, so releasing several held processes back to back makes
    /// them hit the store at nearly the same moment, which is what a race test needs.
    public init(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                holdingInput: Bool = false) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if environment["XDG_STATE_HOME"] == nil {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("lkc-state-\(UUID().uuidString.prefix(8))").path
            if (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                          attributes: [.posixPermissions: 0o700])) != nil {
                state.withLock { $0.stateDirectory = directory }
                merged["XDG_STATE_HOME"] = directory
            }
        }
        process.environment = merged
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            state.withLock { $0.launchError = error }
            return
        }
        if !holdingInput { release(input) }
    }

    /// Writes `input` (if any) to the process's stdin and closes it. Only the first call
    /// does anything: stdin is closed after it.
    public func release(_ input: Data?) {
        let first = state.withLock { state in
            defer { state.inputClosed = true }
            return state.launchError == nil && !state.inputClosed
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
        if let launchError = state.withLock({ $0.launchError }) {
            throw ConformanceFailure("could not start the CLI: \(launchError)")
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errorOutput = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        removeStateDirectory()
        return Result(status: process.terminationStatus, output: output,
                      errorText: String(decoding: errorOutput, as: UTF8.self))
    }

    deinit { removeStateDirectory() }

    private func removeStateDirectory() {
        let taken = state.withLock { state in
            defer { state.stateDirectory = nil }
            return state.stateDirectory
        }
        guard let taken else { return }
        try? FileManager.default.removeItem(atPath: taken)
    }

    /// Runs the CLI to completion.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           environment: [String: String] = [:]) throws -> Result {
        try KeychainCLIProcess(executable, arguments, input: input, environment: environment).wait()
    }
}
