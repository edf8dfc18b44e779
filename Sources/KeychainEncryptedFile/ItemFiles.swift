import FoundationEssentials
import Glibc
import KeychainCore

/// The item files of one unlocked store, for the duration of one operation.
///
/// Every file is replaced by an atomic rename, so a reader sees a whole old or a whole new file.
/// Reads run under the shared lock (`withReadLock`) so that they never see a move half-done.
/// Writes (`write`, `remove`) must run under the exclusive lock, which also makes their
/// check-then-act sequences (is this key free? then write it) atomic.
struct ItemFiles: Sendable {
    let top: StoreDirectory
    let keys: StoreKeys
    /// Secrets read by primary key, kept in the kernel keyring; every writer here invalidates
    /// the entry of a file before it replaces or removes that file.
    let secretCache: ItemSecretCache

    static let directoryName = "items"

    /// The item files in `top`, unlocked with `keys`; read secrets are cached for `cacheLifetime` seconds.
    init(top: StoreDirectory, keys: StoreKeys, cacheLifetime: UInt32) {
        self.top = top
        self.keys = keys
        secretCache = ItemSecretCache(lifetime: cacheLifetime, storeID: keys.storeID)
    }

    /// The identity of the item file at `location`, or nil when there is none (or it is not a
    /// regular file, or cannot be inspected: the caller then reads the files as usual).
    func identity(of location: ItemLocation) -> FileIdentity? {
        identity(atPath: Self.path(of: location))
    }

    /// Like `identity(of:)`, for the item file at `path` (as `path(of:)` makes it).
    func identity(atPath path: String) -> FileIdentity? {
        guard let status = try? top.status(of: path) else { return nil }
        return FileIdentity(status)
    }

    /// The path of the item file at `location`, relative to the store's top directory.
    static func path(of location: ItemLocation) -> String {
        "\(directoryName)/\(location.bucket)/\(location.file)"
    }

    private func invalidateCachedSecret(at location: ItemLocation) {
        if let identity = identity(of: location) { secretCache.invalidate(at: location, identity: identity) }
    }

    /// Every item that matches `query`, decrypted in full (secrets included). Only the query's
    /// bucket is read when it names one; otherwise every bucket. A file that fails to open is an
    /// error naming it, never skipped: "not found" must mean "not there".
    func items(matching query: ItemQuery) throws -> [KeychainItem] {
        try items(matching: query, listingDamaged: false).items
    }

    /// Like `items(matching:)`, but a damaged file (one that does not open under this store's
    /// key) is listed by its path in the store instead of ending the read: what a move needs to
    /// carry the other items. Its primary key is unknown, since it cannot be trusted.
    func itemsAndDamagedFiles(matching query: ItemQuery) throws -> (items: [KeychainItem], damaged: [UnreadableEntry]) {
        try items(matching: query, listingDamaged: true)
    }

    private func items(matching query: ItemQuery, listingDamaged: Bool) throws -> (items: [KeychainItem], damaged: [UnreadableEntry]) {
        guard let items = try top.subdirectory(Self.directoryName, create: false) else { return ([], []) }
        let buckets = try keys.bucket(for: query).map { [$0] } ?? items.entries().filter(ItemLocation.isBucketName)
        var found: [KeychainItem] = []
        var damaged: [UnreadableEntry] = []
        for bucket in buckets {
            // A bucket or file removed since it was listed was deleted by a writer: not there.
            guard let directory = try items.subdirectory(bucket, create: false) else { continue }
            for file in try directory.entries() where ItemLocation.isFileName(file) {
                let location = ItemLocation(bucket: bucket, file: file)
                do {
                    guard let contents = try directory.read(file, limit: StoreKeys.maximumItemFile) else { continue }
                    let item = try keys.openFile(contents, at: location, path: "\(directory.path)/\(file)")
                    if query.matches(item) { found.append(item) }
                } catch let error as KeychainError where listingDamaged && error.status == errSecDecode {
                    damaged.append(UnreadableEntry(place: Self.path(of: location), error: error))
                }
            }
        }
        return (found, damaged)
    }

    /// Whether an item with `key` exists (whether or not its file is readable).
    func contains(_ key: PrimaryKey) throws -> Bool {
        try contains(at: keys.location(of: key))
    }

    private func contains(at location: ItemLocation) throws -> Bool {
        guard let items = try top.subdirectory(Self.directoryName, create: false),
              let bucket = try items.subdirectory(location.bucket, create: false) else { return false }
        return try bucket.contains(location.file)
    }

    /// Writes `item` at its location, replacing any older version atomically and durably.
    func write(_ item: KeychainItem) throws {
        let location = keys.location(of: item.primaryKey)
        let sealed = try keys.sealedFile(for: item)
        let bucket = try writableDirectory(location.bucket)
        try bucket.removeStaleTemporaries()
        invalidateCachedSecret(at: location)
        try bucket.writeAtomically(location.file, sealed)
    }

    /// Writes the sealed files (`StoreKeys.sealedFile`) of items whose locations are known to
    /// be vacant, as `write` would, and returns one result per file, in order: nil once it is in
    /// place and durable, else why not. One flush sequence serves a slice of files instead of
    /// one per file: each goes to a temporary name unsynced, one filesystem sync makes them and
    /// their new buckets durable, each is renamed into place, and one more sync makes the names
    /// durable. A crash before a rename leaves a stale temporary file (readers skip it, the
    /// bucket's next writer removes it); after it, a whole item, synced before it got its name.
    /// The format is `write`'s.
    func writeNew(_ files: [(location: ItemLocation, sealed: Data)]) -> [(any Error)?] {
        var results = [(any Error)?](repeating: nil, count: files.count)
        // A slice's buckets are held open until its renames: few enough for any descriptor limit.
        for start in stride(from: 0, to: files.count, by: Self.filesPerFlush) {
            var buckets: [String: StoreDirectory] = [:]
            var staged: [(index: Int, bucket: StoreDirectory, temporary: String)] = []
            for index in start..<min(start + Self.filesPerFlush, files.count) {
                let location = files[index].location
                do {
                    let bucket: StoreDirectory
                    if let open = buckets[location.bucket] {
                        bucket = open
                    } else {
                        // Once per bucket: a later file of the slice may share it, and its
                        // temporary is not stale.
                        bucket = try writableDirectory(location.bucket, syncing: false)
                        try bucket.removeStaleTemporaries()
                        buckets[location.bucket] = bucket
                    }
                    invalidateCachedSecret(at: location)
                    staged.append((index, bucket, try bucket.writeTemporary(files[index].sealed, syncing: false)))
                } catch {
                    results[index] = error
                }
            }
            do {
                try top.syncFileSystem()
            } catch {
                for entry in staged {
                    _ = try? entry.bucket.remove(entry.temporary)
                    results[entry.index] = error
                }
                continue
            }
            var renamed: [Int] = []
            for entry in staged {
                do {
                    try entry.bucket.rename(entry.temporary, to: files[entry.index].location.file)
                    renamed.append(entry.index)
                } catch {
                    results[entry.index] = error
                }
            }
            do {
                try top.syncFileSystem()
            } catch {
                // As after `write`'s failed final sync: the file is in place but maybe not durable.
                for index in renamed { results[index] = error }
            }
        }
        return results
    }

    /// How many files `writeNew` flushes together.
    static let filesPerFlush = 256

    /// Removes the item with `key`, durably, and its bucket if that became empty.
    func remove(_ key: PrimaryKey) throws {
        try remove(at: keys.location(of: key))
    }

    private func remove(at location: ItemLocation) throws {
        guard let items = try top.subdirectory(Self.directoryName, create: false),
              let bucket = try items.subdirectory(location.bucket, create: false) else { return }
        invalidateCachedSecret(at: location)
        guard try bucket.remove(location.file) else { return }
        try bucket.sync()
        try bucket.removeStaleTemporaries()
        try items.removeSubdirectoryIfEmpty(location.bucket)
        try items.sync()
    }

    // MARK: Locking and moves

    /// Runs `body` holding the store lock, after finishing any update a crash interrupted.
    func withWriteLock<Result>(_ body: () throws -> Result) throws -> Result {
        try top.withExclusiveLock {
            try finishInterruptedMoves()
            return try body()
        }
    }

    /// Runs `body` while no writer runs (the shared lock), so that a reader never sees an item
    /// at both its old and new key, or at neither, while a move is in progress. A journal
    /// found under the shared lock was left by a writer that died; the move is then settled
    /// and `body` runs under the write lock.
    func withReadLock<Result>(_ body: () throws -> Result) throws -> Result {
        let settled = try top.withSharedLock { try top.contains(RenameJournal.fileName) ? nil : Optional(try body()) }
        if let result = settled { return result }
        return try withWriteLock(body)
    }

    /// Applies `plan`, whose new keys are known to be vacant, under the lock: items that keep
    /// their primary key are rewritten in place; items that move do so all-or-nothing through
    /// a `RenameJournal`, so a crash never leaves one at both keys or at neither.
    func apply(_ plan: UpdatePlan) throws {
        let moves = plan.changes.filter { $0.old != $0.new.primaryKey }
            .map { (from: keys.location(of: $0.old), to: keys.location(of: $0.new.primaryKey)) }
        guard moves.count <= RenameJournal.maximumMoves else {
            throw KeychainError.fileBackend(errSecParam,
                "The update would move \(moves.count) items to new primary keys; at most \(RenameJournal.maximumMoves) can move at once. Narrow the query and update in parts.")
        }
        // A crash between the new files and the old ones' removal is settled by the next
        // reader, which may remove the old files: their cached secrets go first.
        for move in moves { invalidateCachedSecret(at: move.from) }
        if !moves.isEmpty {
            try top.removeStaleTemporaries()
            try top.writeAtomically(RenameJournal.fileName, RenameJournal(moves: moves).encoded)
        }
        do {
            for (_, updated) in plan.changes { try write(updated) }
        } catch {
            // Undo the moves now rather than at the next write: the call fails, so the moved
            // items must stay at their old keys. If undoing fails too, the journal stays and
            // the next writer or reader undoes them.
            try? finishInterruptedMoves(undoing: true)
            throw error
        }
        // Every new file is written, so the update is done: from here a crash is completed, not
        // undone. A failed removal therefore must not report it as failed; the journal stays,
        // and the next reader or writer (who must settle it first) finishes the removals.
        do {
            for move in moves { try remove(at: move.from) }
            if !moves.isEmpty { try removeJournal() }
        } catch {}
    }

    /// Completes the journal's moves if every new file exists, else undoes them; `undoing`
    /// forces the undo (for a failed update, which must leave every item where it was).
    private func finishInterruptedMoves(undoing: Bool = false) throws {
        guard let contents = try top.read(RenameJournal.fileName, limit: RenameJournal.maximumSize) else { return }
        let journal = try RenameJournal(parsing: contents, path: "\(top.path)/\(RenameJournal.fileName)")
        let complete = try !undoing && journal.moves.allSatisfy { try contains(at: $0.to) }
        for move in journal.moves { try remove(at: complete ? move.from : move.to) }
        try removeJournal()
    }

    private func removeJournal() throws {
        try top.remove(RenameJournal.fileName)
        try top.sync()
    }

    /// Whether `top` holds item directories, readable or not. Used when the header is missing:
    /// a new header there would orphan them for good.
    static func exist(in top: StoreDirectory) throws -> Bool {
        guard let items = try top.subdirectory(directoryName, create: false) else { return false }
        return try !items.entries().filter(ItemLocation.isBucketName).isEmpty
    }

    private func writableDirectory(_ bucket: String, syncing: Bool = true) throws -> StoreDirectory {
        guard let items = try top.subdirectory(Self.directoryName, create: true, syncing: syncing),
              let directory = try items.subdirectory(bucket, create: true, syncing: syncing) else {
            // Only a writer can remove directories, and writers hold the lock we hold.
            throw KeychainError.fileBackend(errSecIO, "The directory for an item in \(top.path) vanished while it was being written.")
        }
        return directory
    }
}
