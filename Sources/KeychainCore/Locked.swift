#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value that one thread at a time may read or change: the package's one lock, used where
/// the standard library's `Synchronization.Mutex` would be.
///
/// It is a `pthread_mutex_t`, not `Mutex`, so that ThreadSanitizer sees it: on Linux `Mutex`
/// locks through futex calls that the sanitizer cannot observe, so every access it guards is
/// reported as a race, and real races would drown among them. The mutex lives in memory of
/// its own, since a `pthread_mutex_t` must not move while in use.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ initialValue: sending Value) {
        value = initialValue
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; `body` must not call back into this lock.
    package func withLock<Result, Failure: Error>(_ body: (inout sending Value) throws(Failure) -> sending Result) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
