import CSodium
import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// What the files on disk reveal and how they resist being altered, moved or damaged.
@Suite("file backend: format and tampering")
struct FormatTests {
    @Test func namesAttributesAndSecretsNeverAppearOnDisk() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        let marker = "visible\(UInt32.random(in: 0...UInt32.max))"
        try backend.add(genericItem("svc-\(marker)", "acct-\(marker)", "secret-\(marker)", extra: [
            .label: .string("label-\(marker)"), .comment: .string("comment-\(marker)"),
            .generic: .data(Data("generic-\(marker)".utf8)),
        ]))
        let files = store.files()
        #expect(files.contains("store-header"))
        #expect(store.itemFiles().count == 1)
        for relative in files {
            #expect(!relative.contains(marker), "a file name reveals an item name: \(relative)")
            let bytes = try store.contents(relative)
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(relative) holds an item name or secret in plaintext")
        }
        for name in store.itemFiles() {
            let parts = name.split(separator: "/")
            #expect(parts.count == 3 && parts[1].count == 32 && parts[2].count == 64, "unexpected item path \(name)")
        }
    }

    @Test func eachWriteUsesAFreshNonce() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "acct", "same"))
        let path = try #require(store.itemFiles().first)
        let first = try store.contents(path)
        _ = try backend.update(ItemQuery(primaryKey: genericItem("svc", "acct", "").primaryKey),
                               with: ItemChanges(secret: SecretBytes(Data("same".utf8))))
        let second = try store.contents(path)
        #expect(first.count == second.count)
        #expect(first != second, "rewriting the same item produced the same bytes: the nonce was reused")
        #expect(first[6..<30] != second[6..<30], "the nonce did not change")
    }

    @Test func aValueCopiedToAnotherItemFailsToOpen() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "a", "secret-a"))
        let fileOfA = try #require(store.itemFiles().first)
        try backend.add(genericItem("svc", "b", "secret-b"))
        let fileOfB = try #require(store.itemFiles().first { $0 != fileOfA })
        try store.replace(fileOfB, with: try store.contents(fileOfA))

        let error = keychainError { _ = try storedSecret(backend, "svc", "b") }
        #expect(error?.status == errSecDecode)
        #expect(error?.message.contains(fileOfB) == true, "the error does not name the file: \(String(describing: error))")
        #expect(try storedSecret(backend, "svc", "a") == Data("secret-a".utf8))
    }

    @Test func aValueCopiedFromAnotherStoreFailsToOpen() throws {
        let store = try TemporaryStore()
        let other = store.root + "/other"
        try store.backend().add(genericItem("svc", "acct", "mine"))
        try store.backend(directory: other).add(genericItem("svc", "acct", "theirs"))
        let mine = try #require(store.itemFiles().first)
        let theirs = try #require(store.itemFiles(in: other).first)

        // Under our item's name: the store id and keys differ.
        try store.replace(mine, with: try store.contents(theirs, in: other))
        let replaced = keychainError { _ = try storedSecret(store.backend(), "svc", "acct") }
        #expect(replaced?.status == errSecDecode)

        // Under its own name, found by a full scan.
        try FileManager.default.createDirectory(atPath: store.directory + "/" + (theirs as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try store.replace(theirs, with: try store.contents(theirs, in: other))
        let scanned = keychainError { _ = try everyItem(store.backend()) }
        #expect(scanned?.status == errSecDecode)
    }

    @Test func everyBitFlipAndTruncationOfAnItemFileIsDetected() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "acct", "the secret", extra: [.label: .string("label")]))
        let path = try #require(store.itemFiles().first)
        let original = try store.contents(path)

        for bit in 0..<(original.count * 8) {
            var flipped = original
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            try store.replace(path, with: flipped)
            expectDecodeError(naming: path, "bit \(bit) flipped") { _ = try storedSecret(backend, "svc", "acct") }
        }
        for length in 0..<original.count {
            try store.replace(path, with: original.prefix(length))
            expectDecodeError(naming: path, "truncated to \(length) bytes") { _ = try storedSecret(backend, "svc", "acct") }
        }
        try store.replace(path, with: original + Data([0]))
        expectDecodeError(naming: path, "one byte appended") { _ = try storedSecret(backend, "svc", "acct") }

        try store.replace(path, with: original)
        #expect(try storedSecret(backend, "svc", "acct") == Data("the secret".utf8))
    }

    @Test func randomFilesNeverOpenAndNeverCrash() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "acct", "s"))
        let path = try #require(store.itemFiles().first)
        let original = try store.contents(path)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            var garbage = Data((0..<Int.random(in: 0...400, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            // Half keep a valid-looking prefix, so the parser goes past the magic and version.
            if round % 2 == 0 { garbage = original.prefix(6) + garbage }
            try store.replace(path, with: garbage)
            expectDecodeError(naming: path, "random file \(round)") { _ = try storedSecret(backend, "svc", "acct") }
            expectDecodeError(naming: path, "random file \(round), full scan") { _ = try everyItem(backend) }
        }
    }

    @Test func everyBitFlipOfTheHeaderIsDetectedBeforeHashing() throws {
        let store = try TemporaryStore()
        try store.backend().add(genericItem("svc", "acct", "s"))
        let original = try store.contents("store-header")
        #expect(original.count == 191)
        for bit in 0..<(original.count * 8) {
            var flipped = original
            flipped[bit / 8] ^= UInt8(1 << (bit % 8))
            try store.replace("store-header", with: flipped)
            // A fresh backend: nothing unlocked in memory, so the header is really parsed.
            expectDecodeError(naming: "store-header", "header bit \(bit) flipped") {
                _ = try storedSecret(store.backend(), "svc", "acct")
            }
        }
        for length in [0, 1, 5, 6, 40, 100, 190] {
            try store.replace("store-header", with: original.prefix(length))
            expectDecodeError(naming: "store-header", "header truncated to \(length)") { _ = try storedSecret(store.backend(), "svc", "acct") }
        }
    }

    @Test func headerKDFSettingsOutsideTheAcceptedRangeAreRejected() throws {
        let store = try TemporaryStore()
        try store.backend().add(genericItem("svc", "acct", "s"))
        let original = try store.contents("store-header")
        // Passes at offset 7, memory at offset 15; re-sealing the checksum as an attacker could.
        for (passes, memory) in [(UInt64(1), UInt64(64 << 20)), (2, 8 << 20), (2, 1 << 40), (1 << 40, 64 << 20)] {
            try store.replace("store-header", with: Self.header(original, passes: passes, memory: memory))
            let error = keychainError { _ = try storedSecret(store.backend(), "svc", "acct") }
            #expect(error?.status == errSecDecode, "t=\(passes) m=\(memory) was not rejected: \(String(describing: error))")
            #expect(error?.message.contains("outside the accepted range") == true)
        }
        // Acceptable settings that are not the real ones: the unwrap fails (the AEAD covers them).
        try store.replace("store-header", with: Self.header(original, passes: 3, memory: 19 << 20))
        let error = keychainError { _ = try storedSecret(store.backend(), "svc", "acct") }
        #expect(error?.status == errSecAuthFailed)

        try store.replace("store-header", with: original)
        #expect(try storedSecret(store.backend(), "svc", "acct") == Data("s".utf8))
    }

    @Test func aMissingHeaderWithItemsIsDamageNotAnEmptyStore() throws {
        let store = try TemporaryStore()
        try store.backend().add(genericItem("svc", "acct", "s"))
        try FileManager.default.removeItem(atPath: store.directory + "/store-header")
        let search = keychainError { _ = try storedSecret(store.backend(), "svc", "acct") }
        #expect(search?.status == errSecDecode)
        let add = keychainError { try store.backend().add(genericItem("svc", "other", "s")) }
        #expect(add?.status == errSecDecode, "a new header would have orphaned the items")
    }

    @Test func itemNamesNeverBecomePaths() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("../../..", "../../etc/passwd", "s"))
        try backend.add(genericItem("/", "/tmp/x", "t"))
        let everything = FileManager.default.enumerator(atPath: store.root)?.allObjects as? [String] ?? []
        #expect(everything.allSatisfy { $0.hasPrefix("store") }, "files appeared outside the store: \(everything)")
        #expect(try storedSecret(backend, "../../..", "../../etc/passwd") == Data("s".utf8))
        #expect(try storedSecret(backend, "/", "/tmp/x") == Data("t".utf8))
    }

    // MARK: Helpers

    private func expectDecodeError(naming file: String, _ what: String, _ body: () throws -> Void,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("\(what): the damaged file was accepted", sourceLocation: sourceLocation)
        } catch let error as KeychainError {
            #expect(error.status == errSecDecode, "\(what): \(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(file), "\(what): the error does not name \(file): \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(what): unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    /// `header` with other Argon2id settings and a recomputed checksum.
    private static func header(_ header: Data, passes: UInt64, memory: UInt64) -> Data {
        var edited = [UInt8](header)
        withUnsafeBytes(of: passes.bigEndian) { edited.replaceSubrange(7..<15, with: $0) }
        withUnsafeBytes(of: memory.bigEndian) { edited.replaceSubrange(15..<23, with: $0) }
        var checksum = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&checksum, 32, edited, UInt64(edited.count - 32), nil, 0)
        edited.replaceSubrange((edited.count - 32)..., with: checksum)
        return Data(edited)
    }
}

/// Cost that does not grow with the store, shown without timing: a lookup by service and
/// account opens only its own small directory, so it works even when every other item file is
/// unreadable, while a listing, which must open everything, notices them.
@Suite("file backend: lookups touch one item's directory")
struct LocalityTests {
    @Test func aLookupOpensNoOtherItem() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        for index in 0..<60 { try backend.add(genericItem("svc", "acct\(index)", "secret \(index)")) }
        let others = Set(store.itemFiles())
        try backend.add(genericItem("target", "acct", "the target"))
        let targetFile = try #require(store.itemFiles().first { !others.contains($0) })
        let buckets = Set(store.itemFiles().map { ($0 as NSString).deletingLastPathComponent })
        #expect(buckets.count == 61, "items do not have buckets of their own: \(buckets.count)")

        // Damage every other item file.
        for path in store.itemFiles() where path != targetFile { try store.replace(path, with: Data("garbage".utf8)) }
        #expect(try storedSecret(backend, "target", "acct") == Data("the target".utf8))
        _ = try backend.update(ItemQuery(primaryKey: genericItem("target", "acct", "").primaryKey),
                               with: ItemChanges(secret: SecretBytes(Data("updated".utf8))))
        #expect(try storedSecret(backend, "target", "acct") == Data("updated".utf8))
        #expect(keychainError { _ = try everyItem(backend) }?.status == errSecDecode)
    }
}
