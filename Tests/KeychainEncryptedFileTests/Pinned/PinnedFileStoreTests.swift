import CSodium
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// The store in `Fixtures/file-store-v1` was written once, by the release that introduced
/// format version 1, and committed byte for byte. Every later version must open it and decode
/// exactly `PinnedFileStore.items` from it: a change to the header, the item files, the names
/// or the key derivation that breaks this needs a new format version and a migration, and the
/// fixture stays as it is. Never regenerate it.
@Suite("file backend: the committed version-1 store still opens and decodes exactly")
struct PinnedFileStoreTests {
    static let fixture = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/file-store-v1").path

    /// Every file of the fixture with its SHA-256, so an edited or regenerated fixture fails
    /// here rather than passing silently.
    static let files: [String: String] = [
        "lock": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "store-header": "916e4025377c74e91a9657d7bd086862966072c225ac8afddcf390c864b14293",
        "items/02a32fbf2981684e1cd2a2c0329871e0/c1f9debf42f624b398b5b63fac70f1cdc5ff23b92dab4eaafe010c8a5caad482":
            "fbee1a091f08634e7a2bfe01cd3181447fd0534dfcd1f72fcbc813f0cd8dc025",
        "items/4a1cd7078b89a9addfe414802e833a9e/47450db95af397ebb3da74ff6c61ea49ccbd65831ee40f3f8988b04706e9de7d":
            "7634e269cba1a86633fed921b5d626c2eb372e422a83425131049d5fe7e03565",
        "items/938d9edb7b2e72dc031919ab0845c61c/23bb2e6d0a665f30c876254a16475679b005a143d959e353709ec63df4685c7e":
            "22ca78d846533a21d4e1016781793d84cddf711090c4a7bed3f61278774f6abb",
        "items/b8b437fafbb36a8143819941104e814c/8522cf65dfe2adbc9aa4211307d226cb04d0427cd0f99fd4f8744ffecfb0f204":
            "c6968e4c7eec345590b18c8b9bf5f4977df363b13a3e5d4261b2689bd0a5da99",
    ]

    /// Where each of `PinnedFileStore.items` lives, in the same order: the names are keyed
    /// digests of the primary key under the store's name key, so they pin the subkey
    /// derivation and the digest's input encoding too.
    static let locations = [
        "items/02a32fbf2981684e1cd2a2c0329871e0/c1f9debf42f624b398b5b63fac70f1cdc5ff23b92dab4eaafe010c8a5caad482",
        "items/b8b437fafbb36a8143819941104e814c/8522cf65dfe2adbc9aa4211307d226cb04d0427cd0f99fd4f8744ffecfb0f204",
        "items/4a1cd7078b89a9addfe414802e833a9e/47450db95af397ebb3da74ff6c61ea49ccbd65831ee40f3f8988b04706e9de7d",
        "items/938d9edb7b2e72dc031919ab0845c61c/23bb2e6d0a665f30c876254a16475679b005a143d959e353709ec63df4685c7e",
    ]

    @Test func theFixtureIsTheCommittedOne() throws {
        let store = try TemporaryStore()
        try Self.copyFixture(to: store.directory)
        #expect(Set(store.files()) == Set(Self.files.keys))
        for (relative, digest) in Self.files {
            #expect(sha256Hex(try store.contents(relative)) == digest, "\(relative) is not the committed file")
        }
    }

    @Test func theHeaderHasTheVersion1LayoutAndItsValues() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixture + "/store-header"))
        #expect(bytes.count == 191)
        #expect(hex(bytes[0..<4]) == "4c4b4353", "magic LKCS")
        #expect(hex(bytes[4..<6]) == "0001", "format version 1")
        #expect(hex(bytes[6..<7]) == "02", "Argon2id 1.3")
        #expect(hex(bytes[7..<15]) == "0000000000000002", "2 passes")
        #expect(hex(bytes[15..<23]) == "0000000001300000", "19 MiB")
        #expect(hex(bytes[23..<39]) == "c90dbea11c70c0e1538bd4b4fd7cd2db", "salt")
        #expect(hex(bytes[39..<55]) == "baca23e40cf311c57d79b95255f71be3", "store id")

        let header = try StoreHeader(parsing: bytes, path: "fixture")
        #expect(header.kdf == KDFParameters(operations: 2, memoryBytes: 19 * 1024 * 1024))
        #expect(hex(header.storeID) == "baca23e40cf311c57d79b95255f71be3")
        #expect(try header.unwrapMasterKey(with: SecretBytes(Data("not the passphrase".utf8))) == nil)
        #expect(try header.unwrapMasterKey(with: SecretBytes(Data(PinnedFileStore.passphrase.utf8))) != nil)
    }

    @Test func everyItemDecodesExactly() throws {
        let store = try TemporaryStore()
        try Self.copyFixture(to: store.directory)
        let found = try everyItem(store.backend(passphrase: PinnedFileStore.passphrase))
        #expect(found.count == PinnedFileStore.items.count)
        for expected in PinnedFileStore.items {
            let item = try #require(found.first { $0.primaryKey == expected.primaryKey },
                                    "\(expected.primaryKey.readableName) is missing")
            #expect(item.attributes == expected.attributes, "\(expected.primaryKey.readableName)")
            #expect(item.secret?.makeData() == expected.secret?.makeData(), "secret of \(expected.primaryKey.readableName)")
        }
    }

    @Test func eachItemIsAtItsPinnedLocation() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixture + "/store-header"))
        let header = try StoreHeader(parsing: bytes, path: "fixture")
        let masterKey = try #require(try header.unwrapMasterKey(with: SecretBytes(Data(PinnedFileStore.passphrase.utf8))))
        let keys = try StoreKeys(masterKey: masterKey, storeID: header.storeID)
        let computed = PinnedFileStore.items.map { item in
            let location = keys.location(of: item.primaryKey)
            return "items/\(location.bucket)/\(location.file)"
        }
        #expect(computed == Self.locations)
    }

    /// A key (`kSecClassKey`) is named by its tag and label, a certificate by its issuer and
    /// serial, as a password is by its service and account; their locations under the
    /// fixture's keys are pinned beside theirs.
    @Test func aKeyAndACertificateAreAtTheirPinnedLocations() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.fixture + "/store-header"))
        let header = try StoreHeader(parsing: bytes, path: "fixture")
        let masterKey = try #require(try header.unwrapMasterKey(with: SecretBytes(Data(PinnedFileStore.passphrase.utf8))))
        let keys = try StoreKeys(masterKey: masterKey, storeID: header.storeID)
        let key = PrimaryKey(itemClass: .key, attributes: ItemAttributes([
            .applicationTag: .data(Data("com.example.keys.signing".utf8)), .applicationLabel: .data(Data([0x50, 0x49, 0x0D, 0x8F])),
            .keyClass: .integer(1), .type: .integer(73), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
        ]))
        let location = keys.location(of: key)
        #expect("items/\(location.bucket)/\(location.file)" == "items/4cf83506d91f801ca2bf24b8310a912e/3d32700c3ebd9ce3b0bbb25e761e38c4a459ea30d6d9e60a77ed602290c3091b")
        let certificate = PrimaryKey(itemClass: .certificate, attributes: ItemAttributes([
            .issuer: .data(Data([0x30, 0x00])), .serialNumber: .data(Data([0x00, 0xAB, 0xCD, 0xEF])), .certificateType: .integer(3),
        ]))
        let certificateLocation = keys.location(of: certificate)
        #expect("items/\(certificateLocation.bucket)/\(certificateLocation.file)" == "items/31347ab9a7aa611054f1a2dc9b921b7d/6ffd34a88bd40ced9f7845cfd4657b1c22cf7296df08f3e5d43c15af31475f87")
    }

    /// The plaintext encoding inside an item file is deterministic, so it is pinned byte for
    /// byte as well (the sealing around it uses a random nonce).
    @Test func theItemPlaintextEncodingIsPinned() throws {
        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("s"), .account: .string("a"), .port: .integer(-2), .synchronizable: .bool(true),
            .generic: .data(Data([0xFF])), .creationDate: .date(Date(timeIntervalSince1970: 1.5)),
        ]), secret: SecretBytes(Data("pw".utf8)))
        let expected = "0000000467656e70" + "0006"                     // field "genp", 6 attributes
            + "0000000461636374" + "00" + "0000000161"                 // acct: string "a"
            + "0000000463646174" + "04" + "000000083ff8000000000000"   // cdat: date 1.5 (IEEE 754 bits)
            + "0000000467656e61" + "01" + "00000001ff"                 // gena: data ff
            + "00000004706f7274" + "02" + "00000008fffffffffffffffe"   // port: integer -2
            + "0000000473766365" + "00" + "0000000173"                 // svce: string "s"
            + "0000000473796e63" + "03" + "0000000101"                 // sync: bool true
            + "000000027077"                                           // secret "pw"
        #expect(hex(ItemPlaintext.encode(item).makeData()) == expected)
        #expect(try ItemPlaintext.decode(SecretBytes(Data(hexBytes(expected)))).attributes == item.attributes)
    }

    /// A version-1 store keeps working for writes: a new item is added beside the old ones,
    /// which stay byte for byte as they were.
    @Test func writingToTheStoreLeavesTheOldItemsUntouched() throws {
        let store = try TemporaryStore()
        try Self.copyFixture(to: store.directory)
        let backend = store.backend(passphrase: PinnedFileStore.passphrase)
        try backend.add(genericItem("pinned-app", "new", "new secret"))
        for relative in Self.files.keys {
            #expect(sha256Hex(try store.contents(relative)) == Self.files[relative], "\(relative) changed")
        }
        #expect(try everyItem(backend).count == PinnedFileStore.items.count + 1)
    }

    /// The `linux-keychain` CLI, as a separate process through the whole front end, reads the
    /// version-1 store too, byte for byte.
    @Test func theCLIReadsTheStore() throws {
        let cli = try CLIStore(passphrase: PinnedFileStore.passphrase, cacheSeconds: 0)
        try Self.copyFixture(to: cli.directory)
        let alice = try cli.run(["get", "pinned-app", "alice@example.com"])
        #expect(alice.status == 0, "\(alice.errorText)")
        #expect(alice.output == Data("correct horse".utf8))
        let listed = try cli.run(["list", "pinned-app"])
        #expect(listed.status == 0, "\(listed.errorText)")
        #expect(listed.outputText.contains("alice@example.com"))
    }

    /// Copies the fixture into a private directory with the modes a store has (git keeps
    /// neither the 0700 of directories nor the 0600 of files).
    static func copyFixture(to directory: String) throws {
        try FileManager.default.copyItem(atPath: fixture, toPath: directory)
        let walker = FileManager.default.enumerator(atPath: directory)
        while let relative = walker?.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            chmod(path, isDirectory.boolValue ? 0o700 : 0o600)
        }
        chmod(directory, 0o700)
    }
}

private func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    bytes.map { String(format: "%02x", $0) }.joined()
}

private func hexBytes(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

private func sha256Hex(_ data: Data) -> String {
    var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
    data.withUnsafeBytes { raw in
        _ = crypto_hash_sha256(&digest, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(raw.count))
    }
    return hex(digest)
}
