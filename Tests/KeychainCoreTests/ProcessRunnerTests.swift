import Foundation
import KeychainConformance
import Testing

/// The suite's process runner, `KeychainCLIProcess`.
@Suite("the suite's process runner")
struct ProcessRunnerTests {
    /// A child that writes more than a pipe holds (64 KB) to stderr before it writes stdout
    /// must not deadlock the runner. The run happens on a thread of its own, so a deadlock
    /// fails this test after a while instead of hanging the suite.
    @Test func aChildThatFillsStderrFirstDoesNotDeadlockTheRunner() throws {
        let script = "head -c 300000 /dev/zero | tr '\\0' e >&2; head -c 300000 /dev/zero | tr '\\0' o"
        let process = KeychainCLIProcess("/bin/sh", ["-c", script])
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: KeychainCLIProcess.Result?
        Thread.detachNewThread {
            result = try? process.wait()
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success else {
            if let pid = process.processIdentifier { kill(pid, SIGKILL) }
            Issue.record("the runner deadlocked on a child that filled stderr before stdout")
            return
        }
        let finished = try #require(result)
        #expect(finished.status == 0)
        #expect(finished.errorText.utf8.count == 300_000)
        #expect(finished.output.count == 300_000)
    }

    @Test func aChildThatOutlivesItsTimeoutIsKilledAndSaysSo() throws {
        let started = Date()
        let result = try KeychainCLIProcess.run("/bin/sleep", ["30"], timeout: 0.5)
        #expect(result.timedOut)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(try KeychainCLIProcess.run("/bin/true", [], timeout: 10).timedOut == false)
    }
}
