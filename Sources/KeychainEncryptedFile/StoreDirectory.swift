#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CFileSystem
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls

/// One directory of the store, held open by descriptor.
///
/// Every file operation is relative to the descriptor (`openat`, `renameat`, ...) and refuses to
/// follow symlinks, so once a directory passed its checks, nothing swapped in afterwards can
/// redirect a read or a write elsewhere. Names given here are always names the store made
/// (hex digests or fixed names), never parts of item names.
final class StoreDirectory: Sendable {
    /// The path, for messages only; it is never used to reach files. Built when asked for:
    /// a get opens several directories and needs none of their paths unless it fails.
    var path: String {
        switch location {
        case .top(let path): return path
        case .inside(let parent, let name): return "\(parent.path)/\(name)"
        }
    }
    private let location: Location
    private let descriptor: Int32
    /// Seconds `withExclusiveLock`/`withSharedLock` wait for another holder (top directory only).
    private let lockTimeout: Double

    private enum Location {
        /// The store's top directory, which a `StoreSession` shares between threads.
        case top(path: String)
        /// A subdirectory, which belongs to the one call that opened it.
        case inside(StoreDirectory, name: String)
    }

    private init(_ location: Location, descriptor: Int32, lockTimeout: Double = FileStoreSettings.defaultLockTimeout) {
        self.location = location
        self.descriptor = descriptor
        self.lockTimeout = lockTimeout
    }

    deinit {
        // Nothing was written through a directory descriptor, so a failed close loses nothing.
        try? closeDescriptor(descriptor)
    }

    /// Prefix of temporary files; readers skip them, writers holding the lock remove stale ones.
    static let temporaryPrefix = ".tmp-"

    // MARK: Opening

    /// Opens the store's top directory, creating it (and missing parents) with mode 0700 if
    /// `create` is true. Returns nil when it does not exist and `create` is false.
    ///
    /// Refuses a directory that is a symlink, is not owned by this user, or is writable by
    /// group or others: any of those would let someone else replace or read the files.
    static func openTop(path: String, create: Bool,
                        lockTimeout: Double = FileStoreSettings.defaultLockTimeout) throws -> StoreDirectory? {
        if create { try makeDirectories(path) }
        let descriptor: Int32
        do {
            descriptor = try syscall("open") { open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        } catch {
            // With O_DIRECTORY, a symlink gives ENOTDIR rather than ELOOP; lstat tells them apart.
            var status = stat()
            let isSymlink = lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
            switch error.errno {
            case .noSuchFileOrDirectory where !create: return nil
            case _ where isSymlink || error.errno == .tooManySymbolicLinkLevels:
                throw KeychainError.fileBackend(errSecNotAvailable,
                    "The keychain store directory \(path) is a symbolic link; refused, because whoever can change the link can redirect the secrets. Point KEYCHAIN_FILE_DIR at the real directory.")
            case .notDirectory:
                throw KeychainError.fileBackend(errSecNotAvailable,
                    "The keychain store path \(path) is not a directory. Set KEYCHAIN_FILE_DIR to a directory.")
            default:
                throw KeychainError.fileStore(error, "open the store directory", path)
            }
        }
        let directory = StoreDirectory(.top(path: path), descriptor: descriptor, lockTimeout: lockTimeout)
        try checkOwnershipAndMode(directory.status(), path: path)
        return directory
    }

    /// Opens (and with `create`, makes) the subdirectory `name`; nil when it does not exist.
    ///
    /// Opens first and makes the directory only when it is missing: nearly every call finds it.
    /// A new directory's entry is synced unless `syncing` is false (the caller syncs later).
    func subdirectory(_ name: String, create: Bool, syncing: Bool = true) throws -> StoreDirectory? {
        if let existing = try openSubdirectory(name) { return existing }
        guard create else { return nil }
        do {
            try syscall("mkdirat") { mkdirat(descriptor, name, 0o700) }
        } catch Errno.fileExists {
            // Made since the open failed, by something not holding the lock we hold: use it.
            return try openSubdirectory(name)
        } catch {
            throw KeychainError.fileStore(error, "create the directory", "\(path)/\(name)")
        }
        guard let directory = try openSubdirectory(name) else {
            throw KeychainError.fileBackend(errSecIO, "The directory \(path)/\(name) vanished right after it was made.")
        }
        // mkdirat's mode passed through the umask; set it exactly, then make the new entry durable.
        do {
            try syscall("fchmod") { fchmod(directory.descriptor, 0o700) }
        } catch {
            throw KeychainError.fileStore(error, "set the mode of", directory.path)
        }
        if syncing { try sync() }
        return directory
    }

    private func openSubdirectory(_ name: String) throws -> StoreDirectory? {
        let opened: Int32
        do {
            opened = try syscall("openat") { openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch Errno.tooManySymbolicLinkLevels, Errno.notDirectory {
            throw KeychainError.damagedFile("\(path)/\(name)", "expected a directory, found a symbolic link or a file")
        } catch {
            throw KeychainError.fileStore(error, "open the directory", "\(path)/\(name)")
        }
        return StoreDirectory(.inside(self, name: name), descriptor: opened)
    }

    private static func makeDirectories(_ path: String) throws {
        guard path.hasPrefix("/") else {
            throw KeychainError.fileBackend(errSecParam, "The keychain store path '\(path)' is not absolute. Set KEYCHAIN_FILE_DIR to an absolute path.")
        }
        let components = path.split(separator: "/")
        var prefix = ""
        for (index, component) in components.enumerated() {
            let parent = prefix.isEmpty ? "/" : prefix
            prefix += "/" + component
            do {
                try syscall("mkdir") { mkdir(prefix, 0o700) }
                // Parents and the store itself are private (the XDG rule for data directories);
                // mkdir's mode passed through the umask, so set it exactly on the store.
                if index == components.count - 1 { try syscall("chmod") { chmod(prefix, 0o700) } }
            } catch Errno.fileExists {
                continue
            } catch {
                throw KeychainError.fileStore(error, "create the directory", prefix)
            }
            // The new entry lives in the parent: unsynced, a power loss could take the new store
            // away, with the first writes already reported durable in it.
            try syncDirectory(atPath: parent)
        }
    }

    private static func syncDirectory(atPath path: String) throws {
        let parent: Int32
        do {
            parent = try syscall("open") { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            throw KeychainError.fileStore(error, "open the directory", path)
        }
        defer { try? closeDescriptor(parent) }  // nothing was written through it
        do {
            try syscall("fsync") { fsync(parent) }
        } catch {
            throw KeychainError.fileStore(error, "flush the directory", path)
        }
    }

    /// Refuses a directory that is not this user's or that group or others can write.
    static func checkOwnershipAndMode(_ status: stat, path: String) throws {
        if status.st_uid != geteuid() {
            throw KeychainError.fileBackend(errSecNotAvailable,
                "The keychain store directory \(path) belongs to user \(status.st_uid), not to you (user \(geteuid())); refused. Use a directory you own (KEYCHAIN_FILE_DIR).")
        }
        if status.st_mode & 0o022 != 0 {
            throw KeychainError.fileBackend(errSecNotAvailable,
                "The keychain store directory \(path) is writable by group or others (mode \(String(status.st_mode & 0o7777, radix: 8))); refused, because they could replace its files. Run: chmod 700 '\(path)'.")
        }
    }

    // MARK: Identity

    /// This directory's own status (`fstat`).
    func status() throws -> stat {
        var status = stat()
        do {
            try syscall("fstat") { fstat(descriptor, &status) }
        } catch {
            throw KeychainError.fileStore(error, "inspect", path)
        }
        return status
    }

    /// The status of `name` in this directory, links not followed; nil if it does not exist.
    func status(of name: String) throws -> stat? {
        var status = stat()
        do {
            try syscall("fstatat") { fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) }
            return status
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch {
            throw KeychainError.fileStore(error, "inspect", "\(path)/\(name)")
        }
    }

    /// The status of `path` itself (`lstat`: a symlink is reported as one), or nil when it
    /// cannot be inspected.
    static func linkStatus(ofPath path: String) -> stat? {
        var status = stat()
        guard (try? syscall("lstat", { lstat(path, &status) })) != nil else { return nil }
        return status
    }

    // MARK: Reading

    /// The whole contents of the regular file `name`, or nil if it does not exist.
    /// Files larger than `limit` are reported as damaged, so a huge file cannot exhaust memory.
    /// Anything but a regular file is damage too; it is opened without blocking
    /// (`O_NONBLOCK`), so a FIFO put in a file's place cannot hang the open before `fstat`
    /// tells what it is.
    func read(_ name: String, limit: Int) throws -> Data? {
        let file: Int32
        do {
            file = try syscall("openat") { openat(descriptor, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) }
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch Errno.tooManySymbolicLinkLevels {
            throw KeychainError.damagedFile("\(path)/\(name)", "it is a symbolic link")
        } catch {
            throw KeychainError.fileStore(error, "open", "\(path)/\(name)")
        }
        defer { try? closeDescriptor(file) }  // read-only: a failed close cannot lose data
        var status = stat()
        do {
            try syscall("fstat") { fstat(file, &status) }
        } catch {
            throw KeychainError.fileStore(error, "inspect", "\(path)/\(name)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw KeychainError.damagedFile("\(path)/\(name)", "it is not a regular file")
        }
        guard Int(status.st_size) <= limit else {
            throw KeychainError.damagedFile("\(path)/\(name)", "it is \(status.st_size) bytes, more than the \(limit) a valid file can have")
        }
        // Store files are never changed in place (every write renames a new file over the old
        // one), so the size fstat gave is final: read that much, without a read to find the end.
        let size = Int(status.st_size)
        var contents = Data(count: size)
        var filled = 0
        while filled < size {
            let count: Int
            do {
                count = try syscall("read") {
                    contents.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress! + filled, size - filled) }
                }
            } catch {
                throw KeychainError.fileStore(error, "read", "\(path)/\(name)")
            }
            // Shorter than fstat said: edited in place by something else; parsing will tell.
            if count == 0 { break }
            filled += count
        }
        contents.count = filled
        return contents
    }

    /// The names in this directory, without `.`, `..` and temporary files. Order is unspecified.
    func entries() throws -> [String] {
        try allNames().filter { !$0.hasPrefix(Self.temporaryPrefix) }
    }

    private func allNames() throws -> [String] {
        // Listing moves the descriptor's file offset. A subdirectory's descriptor is this
        // call's own: rewound, it can be listed again. The top one is shared between threads,
        // so it is listed through an open file description of its own.
        guard case .top = location else {
            do {
                try syscall("lseek") { lseek(descriptor, 0, SEEK_SET) }
            } catch {
                throw KeychainError.fileStore(error, "list", path)
            }
            return try Self.names(listing: descriptor, path: self.path)
        }
        let own: Int32
        do {
            own = try syscall("openat") { openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        } catch {
            throw KeychainError.fileStore(error, "list", path)
        }
        defer { try? closeDescriptor(own) }  // a listing wrote nothing, so a failed close loses nothing
        return try Self.names(listing: own, path: self.path)
    }

    /// The names in the directory open as `listing`, read from its current offset with
    /// getdents64 (opendir would add three system calls to set itself up).
    private static func names(listing: Int32, path: @autoclosure () -> String) throws -> [String] {
        // Records: u64 inode, i64 offset, u16 record length, u8 type, then the NUL-terminated name.
        let nameOffset = 19
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        var names: [String] = []
        while true {
            let filled: Int
            do {
                filled = try syscall("getdents64") { CFileSystem_getdents64(listing, buffer.baseAddress, buffer.count) }
            } catch {
                throw KeychainError.fileStore(error, "list", path())
            }
            if filled == 0 { return names }
            var offset = 0
            while offset + nameOffset < filled {
                let recordLength = Int(buffer.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self))
                guard recordLength > nameOffset, offset + recordLength <= filled else { break }
                let name = String(cString: buffer.baseAddress!.advanced(by: offset + nameOffset).assumingMemoryBound(to: CChar.self))
                if name != "." && name != ".." { names.append(name) }
                offset += recordLength
            }
        }
    }

    // MARK: Writing (callers hold the store lock)

    /// Replaces (or creates) `name` with `contents` so that, whatever happens, the name holds
    /// either its old contents or all of the new ones, and the new ones are on disk on return.
    ///
    /// Steps, each checked: create a temporary file (`O_EXCL|O_NOFOLLOW|O_CLOEXEC`, mode 0600
    /// whatever the umask), write everything, fsync it, close it, rename it over `name`, fsync
    /// the directory. A crash before the rename leaves only a stale temporary file, which the
    /// next writer removes; a crash after it leaves the new file, complete because it was
    /// synced first. On failure before the rename, the temporary file is removed.
    func writeAtomically(_ name: String, _ contents: Data) throws {
        let temporary = try writeTemporary(contents, syncing: true)
        try rename(temporary, to: name)
        try sync()
    }

    /// Writes `contents` to a new temporary file (mode 0600 whatever the umask), synced when
    /// `syncing`, and returns its name; on failure the file is removed. Readers skip it.
    func writeTemporary(_ contents: Data, syncing: Bool) throws -> String {
        let temporary = Self.temporaryPrefix + randomHex(byteCount: 12)
        let file: Int32
        do {
            file = try syscall("openat") {
                openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            }
        } catch {
            throw KeychainError.fileStore(error, "create a file in", path)
        }
        var open = true
        do {
            try syscall("fchmod") { fchmod(file, 0o600) }
            var written = 0
            while written < contents.count {
                written += try syscall("write") {
                    contents.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + written, $0.count - written) }
                }
            }
            if syncing { try syscall("fsync") { fsync(file) } }
            open = false
            try closeDescriptor(file)
        } catch {
            if open { try? closeDescriptor(file) }
            // Best effort: a temporary file that survives holds only ciphertext and is removed
            // by the next writer (`removeStaleTemporaries`).
            _ = unlinkat(descriptor, temporary, 0)
            throw KeychainError.fileStore(error, "write", "\(path)/\(temporary)")
        }
        return temporary
    }

    /// Renames the temporary file `temporary` over `name`; on failure removes it. Not durable
    /// until `sync()`.
    func rename(_ temporary: String, to name: String) throws {
        do {
            try syscall("renameat") { renameat(descriptor, temporary, descriptor, name) }
        } catch {
            _ = unlinkat(descriptor, temporary, 0)
            throw KeychainError.fileStore(error, "write", "\(path)/\(name)")
        }
    }

    /// Makes everything written on this directory's filesystem durable (syncfs(2)): one flush
    /// for many files, where an fsync each would cost a disk flush each.
    func syncFileSystem() throws {
        do {
            try syscall("syncfs") { Int32(CFileSystem_syncfs(descriptor)) }
        } catch {
            throw KeychainError.fileStore(error, "flush the file system of", path)
        }
    }

    /// Removes `name`; returns false if it did not exist. Not durable until `sync()`.
    @discardableResult
    func remove(_ name: String) throws -> Bool {
        do {
            try syscall("unlinkat") { unlinkat(descriptor, name, 0) }
            return true
        } catch Errno.noSuchFileOrDirectory {
            return false
        } catch {
            throw KeychainError.fileStore(error, "remove", "\(path)/\(name)")
        }
    }

    /// Removes the subdirectory `name` if it is empty; anything else leaves it in place.
    func removeSubdirectoryIfEmpty(_ name: String) throws {
        do {
            try syscall("unlinkat") { unlinkat(descriptor, name, AT_REMOVEDIR) }
        } catch Errno.directoryNotEmpty, Errno.fileExists, Errno.noSuchFileOrDirectory {
        } catch {
            throw KeychainError.fileStore(error, "remove the directory", "\(path)/\(name)")
        }
    }

    /// Whether `name` exists (of any type, links not followed).
    func contains(_ name: String) throws -> Bool {
        try status(of: name) != nil
    }

    /// Makes the directory's entries (created, renamed, removed) durable.
    func sync() throws {
        do {
            try syscall("fsync") { fsync(descriptor) }
        } catch {
            throw KeychainError.fileStore(error, "flush the directory", path)
        }
    }

    /// Removes temporary files left by writers that died. Only call with the store lock held:
    /// then no live writer can own one.
    func removeStaleTemporaries() throws {
        for name in try allNames() where name.hasPrefix(Self.temporaryPrefix) { try remove(name) }
    }

    // MARK: Locking

    /// Runs `body` holding an exclusive `flock` on the file `lock` in this directory.
    ///
    /// `flock` locks belong to the open file description, not the process (unlike classic
    /// `fcntl` locks, which any close in the process would drop), so two threads of one
    /// process exclude each other just as two processes do. The kernel releases the lock
    /// when the holder dies, so a `kill -9` never leaves the store locked; a holder that is
    /// stopped instead (SIGSTOP, ^Z, a debugger) is waited for `lockTimeout` seconds at most
    /// (see `acquire`).
    func withExclusiveLock<Result>(_ body: () throws -> Result) throws -> Result {
        try withLock(LOCK_EX, body)
    }

    /// Runs `body` holding a shared `flock` on `lock`: readers share it, writers (exclusive)
    /// wait for them and they for writers. Where the lock file cannot be created (a read-only
    /// copy of a store), no writer can run either, so `body` runs unlocked.
    func withSharedLock<Result>(_ body: () throws -> Result) throws -> Result {
        try withLock(LOCK_SH, body)
    }

    private func withLock<Result>(_ operation: Int32, _ body: () throws -> Result) throws -> Result {
        let lockFile: Int32
        do {
            // Read-only is enough for flock, and keeps working whatever mode the umask gave the
            // file. O_NONBLOCK: a FIFO in the lock's place must not hang the open.
            lockFile = try syscall("openat") {
                openat(descriptor, "lock", O_RDONLY | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0o600)
            }
        } catch where operation == LOCK_SH && [.readOnlyFileSystem, .permissionDenied].contains(error.errno) {
            return try body()
        } catch Errno.tooManySymbolicLinkLevels {
            throw KeychainError.damagedFile("\(path)/lock", "it is a symbolic link")
        } catch {
            throw KeychainError.fileStore(error, "open the lock file in", path)
        }
        defer { try? closeDescriptor(lockFile) }  // closing releases the lock; nothing was written
        var status = stat()
        do {
            try syscall("fstat") { fstat(lockFile, &status) }
        } catch {
            throw KeychainError.fileStore(error, "inspect", "\(path)/lock")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw KeychainError.damagedFile("\(path)/lock", "it is not a regular file")
        }
        try acquire(operation, on: lockFile, status)
        return try body()
    }

    /// Takes the `flock` without blocking, retrying with short sleeps until `lockTimeout`
    /// has passed, like SQLite's busy timeout. Then it fails with an error that says another
    /// process holds the store, naming it where `/proc/locks` can tell. The sleeps stay short
    /// (at most 2 ms): the lock goes to whoever asks first after a release, so a waiter that
    /// naps longer loses every turn to busier ones, and with 16 processes of 8 threads on one
    /// store one waited out the whole timeout.
    private func acquire(_ operation: Int32, on lockFile: Int32, _ status: stat) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(lockTimeout * 1000))
        var pause = Duration.milliseconds(1)
        while true {
            do {
                try syscall("flock") { flock(lockFile, operation | LOCK_NB) }
                return
            } catch Errno.wouldBlock {
                let now = ContinuousClock.now
                guard now < deadline else { break }
                SystemThread.sleep(min(pause, deadline - now))
                pause = min(pause * 2, .milliseconds(2))
            } catch {
                throw KeychainError.fileStore(error, "lock", "\(path)/lock")
            }
        }
        let holder = LockHolders.processes(holding: status).map { "process \($0)" }.joined(separator: ", ")
        let who = holder.isEmpty ? "Another process" : "Another process (\(holder))"
        let advice = holder.isEmpty ? "" : " If it is stopped (^Z, SIGSTOP, a debugger), resume it or end it."
        throw KeychainError.fileBackend(errSecIO,
            "\(who) holds the keychain store \(path); gave up after waiting \(Self.secondsText(lockTimeout)) s for it.\(advice) Set \(FileStoreSettings.lockTimeoutVariable) to wait longer.")
    }

    private static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

/// `byteCount` random bytes from libsodium, as lowercase hex.
func randomHex(byteCount: Int) -> String {
    var bytes = [UInt8](repeating: 0, count: byteCount)
    Sodium.randomBytes(&bytes)
    return hexString(bytes)
}

func hexString<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    // Written straight into the string's storage: item names are made on every get.
    String(unsafeUninitializedCapacity: bytes.count * 2) { text in
        var index = 0
        for byte in bytes {
            text[index] = hexDigit(byte >> 4)
            text[index + 1] = hexDigit(byte & 0x0f)
            index += 2
        }
        return index
    }
}

private func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
}
