#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Foundation
import KeychainCore

/// The per-user lock that makes check-then-create one step for every process and thread using
/// this library: the Secret Service has no compare-and-set, and gnome-keyring stores two items
/// with the same attributes without complaint.
///
/// It is an `flock` on `$XDG_RUNTIME_DIR/linux-keychain/secret-service.lock`, or, without
/// `XDG_RUNTIME_DIR`, on `/tmp/linux-keychain-UID/secret-service.lock` in a directory that must
/// be the user's own and private. Each acquisition opens the file anew, so threads of one
/// process exclude each other as processes do. The kernel drops the lock when its holder dies.
/// Programs that do not use this library do not take it: see the README for that window.
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
        let descriptor = try retryingInterrupts("open(\(path))") { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        let held = HeldLock(descriptor: descriptor)
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return held }
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else { throw systemError("flock(\(path))", code) }
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
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw systemError("mkdir(\(directory))", errno) }
        var status = stat()
        guard lstat(directory, &status) == 0 else { throw systemError("lstat(\(directory))", errno) }
        guard (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == getuid(), (status.st_mode & 0o022) == 0 else {
            throw KeychainError(errSecIO,
                "The lock directory \(directory) is not a private directory of this user; remove it or set XDG_RUNTIME_DIR.",
                backend: SecretServiceErrors.backend, failedCall: "lstat")
        }
    }

    private static func retryingInterrupts(_ call: String, _ body: () -> Int32) throws -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw systemError(call, code) }
        }
    }

    private static func systemError(_ call: String, _ code: Int32) -> KeychainError {
        KeychainError(errSecIO, "The Secret Service write lock could not be taken: \(String(cString: strerror(code))).",
                      backend: SecretServiceErrors.backend, failedCall: call)
    }
}

/// A taken write lock, released when this goes away (closing the file drops the flock).
final class HeldLock: @unchecked Sendable {
    // Immutable; closed exactly once, in deinit.
    private let descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }
}
