import KeychainConformance
import KeychainTestSupport
import Testing

/// Issue #29's many processes on the `vault` backend (the OpenBao server with-services.sh started).
@Suite("vault backend under many processes")
struct VaultManyProcessesTests {
    /// 16 processes of 8 threads each run the thread-pool workload at once, 1 item a thread and
    /// 1 update round (768 calls; the full 5,120 took OpenBao's dev server over 2 minutes on a
    /// loaded 2-core machine, 768 about 15 s): every call succeeds with the exact answer, and
    /// after them the lock of the shared Vault index (`vault-index.lock`) is not held, no item
    /// is left, and the next write goes through.
    @Test func sixteenProcessesOfEightThreadsLoseNothingAndLeaveNoLock() throws {
        let problems = try problemsOfManyProcesses(ThreadPoolWorkload(threads: 8, itemsPerThread: 1, updateRounds: 1), on: "vault")
        #expect(problems.isEmpty, "\(problems)")
    }
}
