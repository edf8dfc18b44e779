import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// A private temporary directory holding one or more stores; removed when released.
final class TemporaryStore {
    let root: String
    /// The store directory; made by the backend on first write.
    var directory: String { root + "/store" }

    init() throws {
        root = try makeScratchDirectory("lkc-file-test").path
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A backend on `directory` (or this store's) with a given passphrase. The cache is off
    /// unless asked for, so tests neither depend on nor leave state in the user keyring; the
    /// KDF runs at OWASP's minimum to keep the tests quick (the header records what was used).
    func backend(passphrase: String = "correct horse battery staple", directory: String? = nil,
                 cacheLifetime: UInt32 = 0) -> EncryptedFileBackend {
        EncryptedFileBackend(settings: FileStoreSettings(directory: directory ?? self.directory,
                                                         passphrase: .given(SecretBytes(Data(passphrase.utf8))),
                                                         cacheLifetime: cacheLifetime, kdf: .minimum))
    }

    /// Paths (relative to `directory`) of every regular file in the store, sorted.
    func files(in directory: String? = nil) -> [String] {
        let base = directory ?? self.directory
        guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            var status = stat()
            if lstat(base + "/" + relative, &status) == 0 && status.st_mode & S_IFMT == S_IFREG { found.append(relative) }
        }
        return found.sorted()
    }

    /// The item files (`items/<bucket>/<file>`), sorted.
    func itemFiles(in directory: String? = nil) -> [String] {
        files(in: directory).filter { $0.hasPrefix("items/") }
    }

    func contents(_ relative: String, in directory: String? = nil) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: (directory ?? self.directory) + "/" + relative))
    }

    func replace(_ relative: String, with data: Data, in directory: String? = nil) throws {
        try data.write(to: URL(fileURLWithPath: (directory ?? self.directory) + "/" + relative))
    }
}

/// Every item of every class, as a full scan (no bucket narrowing) sees them.
func everyItem(_ backend: EncryptedFileBackend) throws -> [KeychainItem] {
    try ItemClass.allCases.flatMap {
        try backend.search(ItemQuery(itemClass: $0, limit: .all, includeSecrets: true, matchesAnySynchronizable: true))
    }
}

/// The permission bits of `path` (links not followed).
func mode(of path: String) -> mode_t {
    var status = stat()
    guard lstat(path, &status) == 0 else { return 0o7777 }
    return status.st_mode & 0o7777
}
