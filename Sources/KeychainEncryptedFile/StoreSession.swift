#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc

/// An opened, unlocked store that a backend keeps between calls, so that a call does not
/// re-open the directory, re-parse the header and re-check the key against it each time.
///
/// Before each reuse, `isCurrent(at:)` checks that the path is still the same directory
/// (device and inode, owner, mode) holding byte for byte the same `store-header`; anything else
/// sends the caller down the full open path, which reports what is wrong as a first call would.
/// Immutable, so threads share it; after `fork` the child shares the descriptor harmlessly (it
/// is used only with `*at` calls, and locks are taken on descriptors opened per call).
/// See docs/file.md#durability-and-concurrency.
final class StoreSession: Sendable {
    let files: ItemFiles
    /// The names cached reads of this store need, kept between calls.
    let secretCacheRoutes = SecretCacheRoutes()
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
