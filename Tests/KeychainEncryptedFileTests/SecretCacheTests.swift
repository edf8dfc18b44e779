import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// The file backend's secret cache in the real kernel keyring (`ItemSecretCache`): a read of
/// one item's secret alone fills it, `keyctl pipe` prints the raw secret from it, and no write,
/// by this release through another instance or by a writer that knows nothing of the cache, is
/// ever answered from a stale entry. Each backend instance stands for a process: instances
/// share nothing but the store and the keyring.
@Suite("the file backend's secret cache")
struct SecretCacheTests {
    /// The query `SecItemCopyMatching` makes for `kSecReturnData` alone, in the scope of a
    /// program's shared items (the front end names the group; "" is none).
    static func secretOnly(_ service: String, _ account: String) -> ItemQuery {
        var query = ItemQuery(itemClass: .genericPassword,
                              constraints: ItemAttributes([.service: .string(service), .account: .string(account),
                                                           .accessGroup: .string("")]),
                              limit: .one, includeSecrets: true)
        query.includeAttributes = false
        return query
    }

    static func read(_ backend: EncryptedFileBackend, _ service: String, _ account: String) throws -> Data? {
        try backend.search(secretOnly(service, account)).first?.secret?.makeData()
    }

    /// What `keyctl pipe` prints for the cache entry of `itemFile` (`items/<bucket>/<file>`)
    /// as it is on disk now, from a shell with the user keyring in its session, as a login
    /// shell has it; nil when there is no such entry.
    static func keyctlPipe(entryFor itemFile: String, in store: TemporaryStore) throws -> Data? {
        var status = stat()
        guard lstat(store.directory + "/" + itemFile, &status) == 0 else { return nil }
        let identity = [UInt64(status.st_dev), UInt64(status.st_ino), UInt64(status.st_size),
                        UInt64(status.st_ctim.tv_sec), UInt64(status.st_ctim.tv_nsec)].map { String($0, radix: 16) }.joined(separator: ".")
        let file = String(itemFile.split(separator: "/").last!.prefix(32))
        let script = """
        keyctl link @u @s >/dev/null
        for r in $(keyctl rlist @u); do
            case "$(keyctl rdescribe "$r" 2>/dev/null)" in
            keyring\\;*linux-keychain:file:*:items)
                for k in $(keyctl rlist "$r"); do
                    case "$(keyctl rdescribe "$k" 2>/dev/null)" in *":$1:$2") exec keyctl pipe "$k";; esac
                done;;
            esac
        done
        exit 1
        """
        let result = try KeychainCLIProcess.run("/usr/bin/keyctl", ["session", "-", "/bin/sh", "-c", script, "sh", file, identity])
        return result.status == 0 ? result.output : nil
    }

    @Test func aSecretOnlyReadFillsTheCacheAndKeyctlPipePrintsTheRawSecret() throws {
        let store = try TemporaryStore()
        let backend = store.backend(cacheLifetime: 60)
        let secret = Data([0x00, 0xFF, 0x0A, 0x20]) + Data("cached".utf8)
        try backend.add(KeychainItem(itemClass: .genericPassword,
                                     attributes: ItemAttributes([.service: .string("svc"), .account: .string("acct")]),
                                     secret: SecretBytes(secret)))
        let itemFile = try #require(store.itemFiles().first)
        #expect(try Self.keyctlPipe(entryFor: itemFile, in: store) == nil, "a write filled the cache")

        #expect(try Self.read(backend, "svc", "acct") == secret)
        let piped = try Self.keyctlPipe(entryFor: itemFile, in: store)
        try #require(piped != nil, "no cache entry after a secret-only read (is the kernel keyring usable here?)")
        #expect(piped == secret)
        // The second read, from the cache, and a read by another process, the same bytes.
        #expect(try Self.read(backend, "svc", "acct") == secret)
        #expect(try Self.read(store.backend(cacheLifetime: 60), "svc", "acct") == secret)
    }

    @Test func anUpdateOrDeleteByAnotherProcessIsNeverAnsweredFromTheCache() throws {
        let store = try TemporaryStore()
        let reader = store.backend(cacheLifetime: 60)
        let writer = store.backend(cacheLifetime: 60)
        try writer.add(genericItem("svc", "acct", "first"))
        #expect(try Self.read(reader, "svc", "acct") == Data("first".utf8))
        #expect(try Self.read(reader, "svc", "acct") == Data("first".utf8))

        let changes = ItemChanges(secret: SecretBytes(Data("second".utf8)))
        #expect(try writer.update(ItemQuery(primaryKey: genericItem("svc", "acct", "").primaryKey), with: changes) == 1)
        #expect(try Self.read(reader, "svc", "acct") == Data("second".utf8))

        // A move to a new primary key: the old key must be gone, the new one readable.
        #expect(try Self.read(reader, "svc", "acct") == Data("second".utf8))
        let moved = ItemChanges(attributes: ItemAttributes([.account: .string("renamed")]))
        #expect(try writer.update(ItemQuery(primaryKey: genericItem("svc", "acct", "").primaryKey), with: moved) == 1)
        #expect(try Self.read(reader, "svc", "acct") == nil)
        #expect(try Self.read(reader, "svc", "renamed") == Data("second".utf8))

        #expect(try writer.delete(ItemQuery(primaryKey: genericItem("svc", "renamed", "").primaryKey)) == 1)
        #expect(try Self.read(reader, "svc", "renamed") == nil)
    }

    /// A writer that never invalidates (an older release, or one in another keyring
    /// namespace) still replaces the file by a rename: the entry of the old file is not used.
    @Test func aFileReplacedByAWriterThatKnowsNothingOfTheCacheIsReadFromDisk() throws {
        let store = try TemporaryStore()
        let backend = store.backend(cacheLifetime: 60)
        try backend.add(genericItem("svc", "acct", "old"))
        let itemFile = try #require(store.itemFiles().first)
        let oldBytes = try store.contents(itemFile)
        _ = try backend.update(ItemQuery(primaryKey: genericItem("svc", "acct", "").primaryKey),
                               with: ItemChanges(secret: SecretBytes(Data("new".utf8))))
        let newBytes = try store.contents(itemFile)
        // Back to the old file, written as an old release would, then cached by a read.
        try replaceByRename(store.directory + "/" + itemFile, with: oldBytes)
        #expect(try Self.read(backend, "svc", "acct") == Data("old".utf8))
        #expect(try Self.keyctlPipe(entryFor: itemFile, in: store) == Data("old".utf8))

        try replaceByRename(store.directory + "/" + itemFile, with: newBytes)
        #expect(try Self.read(backend, "svc", "acct") == Data("new".utf8))
    }

    /// Reading more items than the cache holds keeps it within its share of the user's quota.
    @Test func theCacheKeepsAtMostSixteenEntriesPerStore() throws {
        let store = try TemporaryStore()
        let backend = store.backend(cacheLifetime: 60)
        for index in 0..<20 { try backend.add(genericItem("svc", "account-\(index)", "secret-\(index)")) }
        for index in 0..<20 { #expect(try Self.read(backend, "svc", "account-\(index)") == Data("secret-\(index)".utf8)) }
        let cached = try store.itemFiles().filter { try Self.keyctlPipe(entryFor: $0, in: store) != nil }
        #expect(!cached.isEmpty && cached.count <= 16, "\(cached.count) entries cached")
        for index in 0..<20 { #expect(try Self.read(backend, "svc", "account-\(index)") == Data("secret-\(index)".utf8)) }
    }

    /// `KEYCHAIN_FILE_CACHE_SECONDS=0` keeps secrets out of the kernel keyring.
    @Test func aZeroLifetimeCachesNothing() throws {
        let store = try TemporaryStore()
        let backend = store.backend(cacheLifetime: 0)
        try backend.add(genericItem("svc", "acct", "kept on disk only"))
        #expect(try Self.read(backend, "svc", "acct") == Data("kept on disk only".utf8))
        let itemFile = try #require(store.itemFiles().first)
        #expect(try Self.keyctlPipe(entryFor: itemFile, in: store) == nil)
    }
}

/// Replaces `path` as every writer does (a new file renamed over it), without the library.
private func replaceByRename(_ path: String, with contents: Data) throws {
    let temporary = path + ".replacement"
    try contents.write(to: URL(fileURLWithPath: temporary))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
    guard rename(temporary, path) == 0 else { throw ConformanceFailure("rename: errno \(errno)") }
}
