#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Lets a case that runs alone (`ConformanceCase.runsAlone`) wait until no other case of this
/// process runs, and keeps the others out meanwhile: a read-write lock, writers first so that
/// a stream of ordinary cases never keeps it waiting.
final class CaseExclusion: @unchecked Sendable {
    static let shared = CaseExclusion()

    // The lock never moves and lives as long as the process; the rwlock is its own thread safety.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    private init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    /// Runs `body` alone, or beside other cases that do not run alone.
    func run<Value>(alone: Bool, _ body: () throws -> Value) rethrows -> Value {
        if alone { pthread_rwlock_wrlock(lock) } else { pthread_rwlock_rdlock(lock) }
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
