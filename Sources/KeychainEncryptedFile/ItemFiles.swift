import Foundation
import KeychainCore

/// The item files of one unlocked store, for the duration of one operation.
///
/// Reads need no lock: every file is replaced by an atomic rename, so a reader sees a whole old
/// or a whole new file. Writes (`write`, `remove`) must run under the store lock, which also
/// makes their check-then-act sequences (is this key free? then write it) atomic.
struct ItemFiles {
    let top: StoreDirectory
    let keys: StoreKeys

    static let directoryName = "items"

    /// Every item that matches `query`, decrypted in full (secrets included). Only the query's
    /// bucket is read when it names one; otherwise every bucket. A file that fails to open is an
    /// error naming it, never skipped: "not found" must mean "not there".
    func items(matching query: ItemQuery) throws -> [KeychainItem] {
        guard let items = try top.subdirectory(Self.directoryName, create: false) else { return [] }
        let buckets = try keys.bucket(for: query).map { [$0] } ?? items.entries().filter(ItemLocation.isBucketName)
        var found: [KeychainItem] = []
        for bucket in buckets {
            // A bucket or file removed since it was listed was deleted by a writer: not there.
            guard let directory = try items.subdirectory(bucket, create: false) else { continue }
            for file in try directory.entries() where ItemLocation.isFileName(file) {
                guard let contents = try directory.read(file, limit: StoreKeys.maximumItemFile) else { continue }
                let item = try keys.openFile(contents, at: ItemLocation(bucket: bucket, file: file), path: "\(directory.path)/\(file)")
                if query.matches(item) { found.append(item) }
            }
        }
        return found
    }

    /// Whether an item with `key` exists (whether or not its file is readable).
    func contains(_ key: PrimaryKey) throws -> Bool {
        let location = keys.location(of: key)
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
        try bucket.writeAtomically(location.file, sealed)
    }

    /// Removes the item with `key`, durably, and its bucket if that became empty.
    func remove(_ key: PrimaryKey) throws {
        let location = keys.location(of: key)
        guard let items = try top.subdirectory(Self.directoryName, create: false),
              let bucket = try items.subdirectory(location.bucket, create: false) else { return }
        guard try bucket.remove(location.file) else { return }
        try bucket.sync()
        try bucket.removeStaleTemporaries()
        try items.removeSubdirectoryIfEmpty(location.bucket)
        try items.sync()
    }

    /// Whether `top` holds item directories, readable or not. Used when the header is missing:
    /// a new header there would orphan them for good.
    static func exist(in top: StoreDirectory) throws -> Bool {
        guard let items = try top.subdirectory(directoryName, create: false) else { return false }
        return try !items.entries().filter(ItemLocation.isBucketName).isEmpty
    }

    private func writableDirectory(_ bucket: String) throws -> StoreDirectory {
        guard let items = try top.subdirectory(Self.directoryName, create: true),
              let directory = try items.subdirectory(bucket, create: true) else {
            // Only a writer can remove directories, and writers hold the lock we hold.
            throw KeychainError.fileBackend(errSecIO, "The directory for an item in \(top.path) vanished while it was being written.")
        }
        return directory
    }
}
