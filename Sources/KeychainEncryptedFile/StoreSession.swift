#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// An opened, unlocked store that a backend keeps between calls, so that a call does not
/// re-open the directory, re-parse the header and re-check the key against it each time
/// (together a large share of what a get costs).
///
/// Before each reuse, `isCurrent(at:)` checks that the store at the path is still this one;
/// anything else sends the caller down the full open path, which makes a new session or
/// reports what is wrong exactly as a first call would:
///
/// - `lstat` of the path: the same directory (device and inode) as the descriptor, still
///   owned by this user and not writable by others. A store moved away, deleted and made
///   anew, replaced by a symlink or opened up with chmod is noticed at the next call.
/// - `store-header`, read through the descriptor, byte for byte the header this session
///   was opened with. A deleted directory has no header left, so a descriptor to it never
///   passes; a new store in the same place has another store id. The bytes are compared
///   rather than the file's inode and times, because file times tick only every few
///   milliseconds: an edit in place within one tick, or a new header that reuses a freed
///   inode, could keep them all.
///
/// A passphrase change by another process rewrites the header but keeps the master key: the
/// full path then finds the same store id and key commitment and keeps the keys without a KDF.
///
/// Immutable, so threads share it freely. After `fork` the child shares the descriptor,
/// which is harmless: it is only used with `*at` calls, never for its file offset, and locks
/// are taken on descriptors opened per call.
final class StoreSession: Sendable {
    let files: ItemFiles
    private let device: UInt64
    private let inode: UInt64
    private let header: Data

    init(files: ItemFiles, header: Data) throws {
        self.files = files
        let status = try files.top.status()
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        self.header = header
    }

    /// Whether `path` still leads to this session's store, unchanged and safe to use.
    func isCurrent(at path: String) -> Bool {
        isSameDirectory(at: path) && (try? files.top.read(StoreHeader.fileName, limit: StoreHeader.size)) == header
    }

    /// The first half of `isCurrent`: `path` is still this directory, yours and not opened up.
    /// Enough for an answer from the secret cache, which uses no key: its entry names the item
    /// file's identity, so no change of header or items can make it answer for another file.
    func isSameDirectory(at path: String) -> Bool {
        guard let directory = StoreDirectory.linkStatus(ofPath: path),
              UInt64(directory.st_dev) == device, UInt64(directory.st_ino) == inode else { return false }
        return (try? StoreDirectory.checkOwnershipAndMode(directory, path: path)) != nil
    }
}
