#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls

/// The per-user lock that makes check-then-create one step for every process and thread using
/// this library: the Secret Service has no compare-and-set, and gnome-keyring stores two items
/// with the same attributes without complaint.
///
/// It is the `UserLockFile` `secret-service.lock`.
/// Programs that do not use this library do not take it: see docs/secret-service.md, "Atomic add, and the window that remains".
enum SecretServiceWriteLock {
    static let fileName = "secret-service.lock"

    /// The directory holding the lock file, given `XDG_RUNTIME_DIR`.
    static func directory(runtimeDirectory: String?) -> String {
        UserLockFile(named: fileName, runtimeDirectory: runtimeDirectory).directory
    }

    /// Takes the lock in this process's line (`UserLockFile.acquireInTurn`) and returns it
    /// with the deadline of the rest of the call: `timeoutSeconds` from when it was taken.
    static func acquire(runtimeDirectory: String?, timeoutSeconds: Double) throws -> (lock: HeldLock, deadline: DispatchTime) {
        let lockFile = UserLockFile(named: fileName, runtimeDirectory: runtimeDirectory)
        do {
            return try lockFile.acquireInTurn(timeout: timeoutSeconds)
        } catch .timedOut {
            throw KeychainError(errSecNotAvailable,
                "The Secret Service write lock \(lockFile.path) was held for longer than \(timeoutSeconds) s, by another process or a stuck call of this one. If a keychain process is stuck, end it; or allow more time with \(SecretServiceSettings.timeoutVariable).",
                backend: SecretServiceErrors.backend, failedCall: "flock")
        } catch .directoryNotPrivate {
            throw KeychainError(errSecIO,
                "The lock directory \(lockFile.directory) is not a private directory of this user; remove it or set XDG_RUNTIME_DIR.",
                backend: SecretServiceErrors.backend, failedCall: "lstat")
        } catch .systemCall(let failure) {
            // Any failure to take the lock is errSecIO: whatever the errno, the item was not
            // touched and the store itself may be fine.
            throw KeychainError(errSecIO, "The Secret Service write lock could not be taken: \(failure.errno).",
                                backend: SecretServiceErrors.backend, failedCall: "\(failure.call)(\(lockFile.path))")
        }
    }
}
