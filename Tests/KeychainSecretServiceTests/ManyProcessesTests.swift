import KeychainConformance
import KeychainTestSupport
import Testing

/// Issue #29's many processes on the `secret-service` backend (the provider with-services.sh started).
@Suite("secret-service backend under many processes")
struct SecretServiceManyProcessesTests {
    /// 16 processes of 8 threads each run the thread-pool workload at once, 1 item a thread
    /// and 1 update round (768 calls, as on Vault): every call succeeds with the exact answer,
    /// and after them the write lock is not held, no item is left, and the next write goes through.
    @Test func sixteenProcessesOfEightThreadsLoseNothingAndLeaveNoLock() throws {
        let problems = try problemsOfManyProcesses(ThreadPoolWorkload(threads: 8, itemsPerThread: 1, updateRounds: 1), on: "secret-service")
        #expect(problems.isEmpty, "\(problems)")
    }
}
