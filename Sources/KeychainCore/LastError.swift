#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc

/// The details of the last failed keychain call on the current thread.
///
/// Apple's SecItem functions return only a status; this keeps the full error (which backend,
/// which underlying call, what to do) for the typed API, the CLI and for logging by the caller.
/// It never holds a secret, because `KeychainError` never does.
public enum KeychainLastError: Sendable {
    /// The last error recorded on this thread, or nil if the last call succeeded.
    public static var current: KeychainError? {
        guard let key = slotKey else { return nil }
        guard let slot = pthread_getspecific(key) else { return nil }
        return Unmanaged<ThreadSlot>.fromOpaque(slot).takeUnretainedValue().error
    }

    /// Records the outcome of a call: the error, or nil for success.
    ///
    /// Every successful call records nil, so that path must cost next to nothing: a thread
    /// that has never failed reads one null slot and stops.
    package static func record(_ error: KeychainError?) {
        // Without a key (glibc's 1,024 all taken) the details are lost; the caller still has the status.
        guard let key = slotKey else { return }
        if let slot = pthread_getspecific(key) {
            Unmanaged<ThreadSlot>.fromOpaque(slot).takeUnretainedValue().error = error
        } else if let error {
            let slot = Unmanaged.passRetained(ThreadSlot(error))
            // Fails only when glibc cannot allocate the slot's memory; the caller still has
            // the status, so losing the details then is better than failing the call.
            if pthread_setspecific(key, slot.toOpaque()) != 0 { slot.release() }
        }
    }

    /// One thread's last error, owned by its thread-specific slot.
    private final class ThreadSlot {
        var error: KeychainError?

        init(_ error: KeychainError) {
            self.error = error
        }
    }

    /// The POSIX thread-specific key of every thread's `ThreadSlot`, or nil in the unlikely
    /// case that the process has used up its keys (`PTHREAD_KEYS_MAX`).
    ///
    /// A thread-specific slot rather than `Thread.current.threadDictionary`, because the
    /// dictionary (bridging and hashing a string key on every call) cost more than a whole
    /// lookup in the memory backend.
    private static let slotKey: pthread_key_t? = {
        var key = pthread_key_t()
        // Runs when a thread that recorded an error exits, so its slot is freed with it.
        let status = pthread_key_create(&key) { slot in
            if let slot { Unmanaged<ThreadSlot>.fromOpaque(slot).release() }
        }
        return status == 0 ? key : nil
    }()
}
