#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Synchronization

/// An exclusive `flock` on one file of the user's private lock directory: shared by every
/// thread and process of the user that uses this library, for read-modify-write steps the
/// store under them cannot make atomic.
///
/// The directory is `$XDG_RUNTIME_DIR/linux-keychain`, or without `XDG_RUNTIME_DIR`
/// `/tmp/linux-keychain-UID`, which must be the user's own directory and writable by no one
/// else (the /tmp fallback is shared by everyone). Each acquisition opens the file anew, so
/// threads of one process exclude each other as processes do. The kernel drops the lock when
/// its holder dies.
package struct UserLockFile: Sendable {
    /// The directory holding the lock files.
    package let directory: String
    /// The lock file itself.
    package let path: String

    package init(named fileName: String, runtimeDirectory: String?) {
        directory = runtimeDirectory.map { $0 + "/linux-keychain" } ?? "/tmp/linux-keychain-\(getuid())"
        path = directory + "/" + fileName
    }

    /// Why the lock was not taken.
    package enum Failure: Error, Sendable {
        /// Another holder kept it past the deadline.
        case timedOut
        /// The directory exists but is not a private directory of this user.
        case directoryNotPrivate
        /// A system call failed.
        case systemCall(SystemCallError)
    }

    /// Takes the lock, waiting while it changes hands: each holder counts itself in the file's
    /// first 8 bytes, and a waiter gives up only when the count has not moved for `patience`
    /// seconds, since then one holder kept it that long (a busy queue of other processes is not
    /// a stuck one). `progressed` runs whenever the waiter saw it move; `whenReleased` runs once
    /// the lock taken is let go (never when it was not taken).
    package func acquire(patience: Double, progressed: (() -> Void)? = nil,
                         whenReleased: (@Sendable () -> Void)? = nil) throws(Failure) -> HeldLock {
        try preparePrivateDirectory()
        let descriptor: Int32
        do {
            descriptor = try syscall("open") { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600) }
        } catch {
            throw .systemCall(error)
        }
        var holders = Self.holderCount(descriptor)
        var deadline = DispatchTime.now() + patience
        while true {
            do {
                try syscall("flock") { flock(descriptor, LOCK_EX | LOCK_NB) }
                var count = Self.holderCount(descriptor) &+ 1
                // Best effort: a count not written only makes waiters less patient.
                _ = pwrite(descriptor, &count, MemoryLayout<UInt64>.size, 0)
                return HeldLock(descriptor: descriptor, whenReleased: whenReleased)
            } catch where error.errno == .wouldBlock {
                // Held by another process or thread: wait below.
            } catch {
                _ = try? closeDescriptor(descriptor)
                throw .systemCall(error)
            }
            let seen = Self.holderCount(descriptor)
            if seen != holders {
                holders = seen
                deadline = DispatchTime.now() + patience
                progressed?()
            }
            if DispatchTime.now() >= deadline {
                _ = try? closeDescriptor(descriptor)
                throw .timedOut
            }
            usleep(2_000)
        }
    }

    /// The holders counted in the open lock file so far (0 for an empty one).
    private static func holderCount(_ descriptor: Int32) -> UInt64 {
        var count: UInt64 = 0
        return pread(descriptor, &count, MemoryLayout<UInt64>.size, 0) == MemoryLayout<UInt64>.size ? count : 0
    }

    /// Creates the directory with mode 0700 if needed and refuses one that another user could
    /// tamper with.
    private func preparePrivateDirectory() throws(Failure) {
        do {
            try syscall("mkdir") { mkdir(directory, 0o700) }
        } catch where error.errno == .fileExists {
            // Made earlier, or by another process just now: checked below like any other.
        } catch {
            throw .systemCall(error)
        }
        var status = stat()
        do {
            try syscall("lstat") { lstat(directory, &status) }
        } catch {
            throw .systemCall(error)
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR, status.st_uid == getuid(), (status.st_mode & 0o022) == 0 else {
            throw .directoryNotPrivate
        }
    }
}

/// A taken `UserLockFile`, released by `release()` or when this goes away, whichever comes
/// first (closing the file drops the flock).
package final class HeldLock: Sendable {
    /// The open lock file; -1 once released, so that it is closed exactly once.
    private let descriptor: Atomic<Int32>
    private let whenReleased: (@Sendable () -> Void)?

    init(descriptor: Int32, whenReleased: (@Sendable () -> Void)?) {
        self.descriptor = Atomic(descriptor)
        self.whenReleased = whenReleased
    }

    /// Releases the lock now. Later calls do nothing.
    package func release() {
        let descriptor = self.descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        guard descriptor >= 0 else { return }
        // A failed close still releases the descriptor and with it the lock; nothing to report.
        _ = try? closeDescriptor(descriptor)
        whenReleased?()
    }

    deinit { release() }
}
