#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// The calling process's id without a system call on each read.
///
/// glibc no longer caches `getpid()`, so every call enters the kernel; the keyring backend asks on every operation
/// whether its records were made in this process (`ThreadKeyringLinks`, `KeyringRecordLock`). The id is read once and read again
/// in the child of every `fork`, by a handler `pthread_atfork` runs there before `fork` returns.
enum CurrentProcess {
    /// This process's id.
    static var id: pid_t {
        _ = forkHandlerInstalled
        return storedID.load(ordering: .relaxed)
    }

    private static let storedID = Atomic<pid_t>(getpid())

    private static let forkHandlerInstalled: Void = {
        pthread_atfork(nil, nil) { CurrentProcess.storedID.store(getpid(), ordering: .relaxed) }
    }()
}
