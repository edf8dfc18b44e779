#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Foundation
import KeychainCore
import KeychainSystemCalls
import Synchronization

/// The per-user lock that makes check-then-create one step for every process and thread using
/// this library: the Secret Service has no compare-and-set, and gnome-keyring stores two items
/// with the same attributes without complaint.
///
/// It is an `flock` on `$XDG_RUNTIME_DIR/linux-keychain/secret-service.lock`, or, without
/// `XDG_RUNTIME_DIR`, on `/tmp/linux-keychain-UID/secret-service.lock` in a directory that must
/// be the user's own and private. Each acquisition opens the file anew, so threads of one
/// process exclude each other as processes do. The kernel drops the lock when its holder dies.
/// Programs that do not use this library do not take it: see docs/secret-service.md, "Atomic add, and the window that remains".
enum SecretServiceWriteLock {
    static let fileName = "secret-service.lock"

    /// The directory holding the lock file, given `XDG_RUNTIME_DIR`.
    static func directory(runtimeDirectory: String?) -> String {
        if let runtimeDirectory { return runtimeDirectory + "/linux-keychain" }
        return "/tmp/linux-keychain-\(getuid())"
    }

    /// Takes the lock, waiting at most until `deadline`.
    static func acquire(runtimeDirectory: String?, deadline: DispatchTime, timeoutSeconds: Double) throws -> HeldLock {
        let directory = self.directory(runtimeDirectory: runtimeDirectory)
        try preparePrivateDirectory(directory)
        let path = directory + "/" + fileName
        let descriptor = try systemCall("open(\(path))") { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        let held = HeldLock(descriptor: descriptor)
        while true {
            do {
                try syscall("flock") { flock(descriptor, LOCK_EX | LOCK_NB) }
                return held
            } catch Errno.wouldBlock {
                // Held by another process or thread: wait below.
            } catch {
                throw systemError("flock(\(path))", error.errno)
            }
            if DispatchTime.now() >= deadline {
                throw KeychainError(errSecNotAvailable,
                    "Another process held the Secret Service write lock \(path) for longer than \(timeoutSeconds) s. If a keychain process is stuck, end it; or allow more time with \(SecretServiceSettings.timeoutVariable).",
                    backend: SecretServiceErrors.backend, failedCall: "flock")
            }
            usleep(2_000)
        }
    }

    /// Creates `directory` with mode 0700 if needed and refuses one that another user could
    /// tamper with (the /tmp fallback is shared by everyone).
    private static func preparePrivateDirectory(_ directory: String) throws {
        do {
            try syscall("mkdir") { mkdir(directory, 0o700) }
        } catch Errno.fileExists {
            // Made earlier, or by another process just now: checked below like any other.
        } catch {
            throw systemError("mkdir(\(directory))", error.errno)
        }
        var status = stat()
        try systemCall("lstat(\(directory))") { lstat(directory, &status) }
        guard (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == getuid(), (status.st_mode & 0o022) == 0 else {
            throw KeychainError(errSecIO,
                "The lock directory \(directory) is not a private directory of this user; remove it or set XDG_RUNTIME_DIR.",
                backend: SecretServiceErrors.backend, failedCall: "lstat")
        }
    }

    /// `syscall`, with a failure turned into this lock's error, which names `call` (and the path).
    @discardableResult
    private static func systemCall(_ call: String, _ body: () -> Int32) throws -> Int32 {
        do {
            return try syscall(call, body)
        } catch {
            throw systemError(call, error.errno)
        }
    }

    /// Any failure to take the lock is `errSecIO`: whatever the errno, the item was not touched
    /// and the store itself may be fine.
    private static func systemError(_ call: String, _ errno: Errno) -> KeychainError {
        KeychainError(errSecIO, "The Secret Service write lock could not be taken: \(errno).",
                      backend: SecretServiceErrors.backend, failedCall: call)
    }
}

/// A taken write lock, released by `release()` or when this goes away, whichever comes first
/// (closing the file drops the flock).
final class HeldLock: Sendable {
    /// The open lock file; nil once released, so that it is closed exactly once.
    private let descriptor: Locked<Int32?>

    init(descriptor: Int32) { self.descriptor = Locked(descriptor) }

    /// Releases the lock now. Later calls do nothing.
    func release() {
        guard let descriptor = descriptor.withLock({ $0.take() }) else { return }
        // A failed close still releases the descriptor and with it the lock; nothing to report.
        _ = try? closeDescriptor(descriptor)
    }

    deinit { release() }
}
