#if canImport(Glibc)
import Glibc
#endif
public import Foundation
import KeychainCore

/// A child process, started at init: the `linux-keychain` CLI for tests that need a second process,
/// or any other tool a test drives (`keyctl`, `mount`, ...). Its environment is this
/// process's plus `environment`.
///
/// Unless `environment` sets `XDG_STATE_HOME`, each process gets a fresh one, removed when it
/// ends, so that the backend `auto` records at a first write never leaks from one test (or
/// one process) into the next; a test that means two processes to share it passes its own.
public final class KeychainCLIProcess: Sendable {
    /// How the process ended and what it wrote.
    public struct Result: Sendable {
        /// The exit status.
        public let status: Int32
        /// Everything it wrote to stdout, byte for byte.
        public let output: Data
        /// Everything it wrote to stderr, as text.
        public let errorText: String
        /// True when the process outlived the `timeout` it was given and was killed.
        public let timedOut: Bool
        /// stdout as UTF-8 text.
        public var outputText: String { String(decoding: output, as: UTF8.self) }
    }

    private let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let stderr = Pipe()
    /// Set at the start, and never after: the reason the process could not be started.
    private let launchError: (any Error)?
    /// What changes after the start, by whichever thread releases or waits first.
    private struct State {
        var inputClosed = false
        var stateDirectory: String?
    }
    private let state: Locked<State>

    /// Starts `executable` with `arguments`, writes `input` (if any) to its stdin and closes it.
    /// With `holdingInput`, stdin stays open until `release(_:)`: the CLI reads its secret only
    /// after it has opened its backend, so releasing several held processes back to back makes
    /// them hit the store at nearly the same moment, which is what a race test needs.
    public init(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                holdingInput: Bool = false) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        var stateDirectory: String?
        if environment["XDG_STATE_HOME"] == nil {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("lkc-state-\(UUID().uuidString.prefix(8))").path
            if (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                          attributes: [.posixPermissions: 0o700])) != nil {
                stateDirectory = directory
                merged["XDG_STATE_HOME"] = directory
            }
        }
        process.environment = merged
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        state = Locked(State(stateDirectory: stateDirectory))
        do {
            try process.run()
            launchError = nil
        } catch {
            launchError = error
            return
        }
        if !holdingInput { release(input) }
    }

    /// The process ID, or nil if the process could not be started.
    public var processIdentifier: Int32? { launchError == nil ? process.processIdentifier : nil }

    /// Writes `input` (if any) to the process's stdin and closes it. Only the first call
    /// does anything: stdin is closed after it.
    public func release(_ input: Data?) {
        guard launchError == nil else { return }
        let first = state.withLock { state in
            defer { state.inputClosed = true }
            return !state.inputClosed
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

    /// Waits for the process and collects its output. stdout and stderr are drained at the
    /// same time (stderr on a thread of its own), so a child that fills one pipe while the
    /// other is being read cannot deadlock the two. With `timeout` (seconds), a process still
    /// running by then is killed (SIGKILL) and its result says `timedOut`.
    public func wait(timeout: Double? = nil) throws -> Result {
        if let launchError { throw ConformanceFailure("could not start the CLI: \(launchError)") }
        let errorDrain = PipeDrain(stderr.fileHandleForReading)
        let finished = DispatchSemaphore(value: 0)
        let killedByTimeout = LockedFlag()
        if let timeout {
            let pid = process.processIdentifier
            Thread.detachNewThread {
                if finished.wait(timeout: .now() + timeout) == .timedOut {
                    killedByTimeout.set()
                    kill(pid, SIGKILL)
                }
            }
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errorOutput = errorDrain.contents()
        process.waitUntilExit()
        finished.signal()
        removeStateDirectory()
        return Result(status: process.terminationStatus, output: output,
                      errorText: String(decoding: errorOutput, as: UTF8.self), timedOut: killedByTimeout.isSet)
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

    /// Runs the CLI to completion (or until `timeout` seconds, then kills it).
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           environment: [String: String] = [:], timeout: Double? = nil) throws -> Result {
        try KeychainCLIProcess(executable, arguments, input: input, environment: environment).wait(timeout: timeout)
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeDrain: Sendable {
    private let data = Locked(Data())
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            let read = handle.readDataToEndOfFile()
            data.withLock { $0 = read }
            done.signal()
        }
    }

    /// Everything the pipe delivered, once its writers have closed it.
    func contents() -> Data {
        done.wait()
        return data.withLock { $0 }
    }
}

/// A flag one thread sets and another reads.
private final class LockedFlag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
