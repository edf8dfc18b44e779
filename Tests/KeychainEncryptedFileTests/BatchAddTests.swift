import Foundation
import KeychainCore
import KeychainEncryptedFile
import Testing

/// `EncryptedFileBackend.add(batch:)`, the path a move into the file store takes: each item
/// fares as its own `add` would, the files are those `add` writes, and nothing is left behind.
@Suite("file store batch add")
struct BatchAddTests {
    private func password(_ service: String, _ account: String, group: String? = nil, _ secret: String) -> KeychainItem {
        var attributes: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
        if let group { attributes[.accessGroup] = .string(group) }
        return KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes(attributes), secret: SecretBytes(Data(secret.utf8)))
    }

    private func secret(_ backend: EncryptedFileBackend, _ service: String, _ account: String, group: String? = nil) throws -> String? {
        var constraints: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
        if let group { constraints[.accessGroup] = .string(group) }
        let found = try backend.search(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes(constraints), includeSecrets: true))
        return found.first?.secret.map { String(decoding: $0.makeData(), as: UTF8.self) }
    }

    @Test func eachItemFaresAsItsOwnAddWould() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(password("svc", "present", "old"))
        let results = backend.add(batch: [
            password("svc", "a", "one"),
            password("svc", "present", "clobber"),
            password("svc", "b", "two"),
            password("svc", "a", "again"),
            password("svc", "nul\u{0}name", "bad"),
        ])
        #expect(results.map { $0?.status } == [nil, errSecDuplicateItem, nil, errSecDuplicateItem, errSecParam])
        #expect(try secret(backend, "svc", "a") == "one")
        #expect(try secret(backend, "svc", "b") == "two")
        #expect(try secret(backend, "svc", "present") == "old")
        #expect(try everyItem(backend).count == 3)
    }

    /// Items that differ only in access group share a bucket: the second one's staging must not
    /// take the first one's temporary file for a stale one.
    @Test func itemsSharingABucketAreAllWritten() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        let groups = (0..<5).map { "team.\($0)" }
        let results = backend.add(batch: groups.map { password("shared", "ida", group: $0, "secret of \($0)") })
        #expect(results.allSatisfy { $0 == nil }, "\(results.compactMap { $0?.message })")
        for group in groups { #expect(try secret(backend, "shared", "ida", group: group) == "secret of \(group)") }
        let buckets = Set(store.itemFiles().map { $0.split(separator: "/")[1] })
        #expect(buckets.count == 1, "items differing only in access group were expected in one bucket: \(buckets)")
        #expect(store.itemFiles().count == 5)
        #expect(store.files().filter { $0.contains(".tmp-") }.isEmpty)
    }

    /// More items than one flush takes (`ItemFiles.filesPerFlush`), one of them into a bucket
    /// holding a stale temporary file from an earlier crash: every item lands, the stale file
    /// goes, and another backend on the same store reads them.
    @Test func manyItemsLandAndAStaleTemporaryGoes() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(password("svc", "item-1", group: "other", "first"))
        let bucket = try #require(store.itemFiles().first.map { store.directory + "/" + ($0 as NSString).deletingLastPathComponent })
        #expect(FileManager.default.createFile(atPath: bucket + "/.tmp-0123456789abcdef01234567", contents: Data("junk".utf8)))
        let count = 300
        let results = backend.add(batch: (0..<count).map { password("svc", "item-\($0)", "secret \($0)") })
        #expect(results.allSatisfy { $0 == nil }, "\(results.compactMap { $0?.message }.prefix(3))")
        #expect(store.itemFiles().count == count + 1)
        #expect(store.files().filter { $0.contains(".tmp-") }.isEmpty)
        let reader = store.backend()
        #expect(try secret(reader, "svc", "item-1", group: "other") == "first")
        #expect(try secret(reader, "svc", "item-\(count - 1)") == "secret \(count - 1)")
        #expect(try everyItem(reader).count == count + 1)
    }
}
