import KeychainConformance
import KeychainTestSupport
import Testing

/// Issue #29's many processes on the `secret-service` backend (the provider with-services.sh started).
@Suite("secret-service backend under many processes")
struct SecretServiceManyProcessesTests {
    /// 16 processes of 8 threads each run the thread-pool workload at once, 1 item a thread
    /// and 1 update round (768 calls, as on Vault): every call succeeds with the exact answer,
    /// and after them the write lock is not held, no item is left, and the next write goes through.
    ///
    /// Disabled until the write lock's timeout counts a holder's time, not a waiter's: today a
    /// thread at the head of its process's line may wait at most KEYCHAIN_SECRET_SERVICE_TIMEOUT
    /// (5 s) for the `flock`, and behind 15 other processes' writes to gnome-keyring on a loaded
    /// machine, writes in several processes fail with errSecNotAvailable ("held for longer than
    /// 5.0 s") although every holder is making progress (issue #29).
    @Test(.disabled("the write lock times out waiters behind other processes' progressing writes (#29)"))
    func sixteenProcessesOfEightThreadsLoseNothingAndLeaveNoLock() throws {
        let problems = try problemsOfManyProcesses(ThreadPoolWorkload(threads: 8, itemsPerThread: 1, updateRounds: 1), on: "secret-service")
        #expect(problems.isEmpty, "\(problems)")
    }
}
