#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One object per thread, kept in a thread-specific slot and released when its thread exits:
/// per-thread state to go with the kernel's, which keeps keyrings in each thread's credentials.
struct PerThreadObject<Value: AnyObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key) { stored in
            if let stored { Unmanaged<AnyObject>.fromOpaque(stored).release() }
        }
        self.key = key
    }

    /// The calling thread's object, or a new one from `make` when it has none, or when
    /// `isStillValid` refuses the one it has (which is then released).
    func current(_ make: () -> Value, isStillValid: (Value) -> Bool = { _ in true }) -> Value {
        if let stored = pthread_getspecific(key) {
            let existing = Unmanaged<Value>.fromOpaque(stored).takeUnretainedValue()
            if isStillValid(existing) { return existing }
            Unmanaged<Value>.fromOpaque(stored).release()
        }
        let created = make()
        pthread_setspecific(key, Unmanaged.passRetained(created).toOpaque())
        return created
    }
}
