import Foundation
import KeychainCore
@testable import KeychainKeyring
import Testing

/// Layout 2 as released, pinned byte for byte beside layout 1 (`PinnedKeyringFormatTests`): the
/// names of an item's two keys and the format-2 JSON of its attributes key. A change to any
/// literal here needs a new format version and a migration, never an edit of the literal.
@Suite("kernel keyring: pinned layout 2 (format 2)")
struct PinnedKeyringLayoutTwoTests {
    @Test func theFixedNamesOfTheLayout() {
        #expect(StoredAttributes.currentFormat == 2)
        #expect(ItemKeyrings.attributesPrefix == "linux-keychain-attributes")
        // Its record that no layout-1 item is left; its payload is not read.
        #expect(ItemKeyrings.layoutOneGoneDescription(526362194) == "linux-keychain:layout-1-gone:526362194")
    }

    @Test(arguments: 0..<PinnedKeyringFormatTests.descriptions.count)
    func eachItemsAttributesKeyIsNamedAfterItsSecretKey(_ index: Int) throws {
        let (key, text) = PinnedKeyringFormatTests.descriptions[index]
        let description = try ItemKeyDescription(key)
        let attributesName = "linux-keychain-attributes" + text.dropFirst("linux-keychain".count)
        #expect(ItemKeyrings.attributesDescription(description) == attributesName)
        #expect(ItemKeyrings.itemDescription(ofAttributesKey: attributesName)?.primaryKey == key)
    }

    /// Only the attributes outside the primary key; the modification date because it differs
    /// from the creation date; the serials of the keyring and of the secret key; the primary-key
    /// attributes the item did not have.
    static let fullItemPayload = #"{"attributes":{"cdat":"1700000000.125","crtr":"1818977128","desc":"ñ","gena":"AAEC/v8=","icmt":"tab\u0009here","invi":"1","labl":"Pinned \"label\"\\","mdat":"1700000000.625","nega":"0","pdmn":"ak","type":"-7"},"format":2,"keyring":123456789,"secret":987654321,"unset":"agrp,sync"}"#

    @Test func theAttributesPayloadIsPinned() throws {
        let payload = StoredAttributes(layout2: PinnedKeyringFormatTests.fullItem, storedIn: 123_456_789,
                                       secretKey: 987_654_321).encoded()
        #expect(String(decoding: payload, as: UTF8.self) == Self.fullItemPayload)
    }

    @Test func thePinnedPayloadDecodesToEveryAttribute() throws {
        let item = PinnedKeyringFormatTests.fullItem
        let stored = try StoredAttributes(decoding: Array(Self.fullItemPayload.utf8), item: "the pinned item")
        #expect(stored.format == 2 && stored.keyring == 123_456_789 && stored.secret == 987_654_321)
        #expect(!stored.hasEmptySecret)
        #expect(try stored.itemAttributes(primaryKey: item.primaryKey) == item.attributes)
    }

    /// What the front end adds: every primary-key attribute given, defaults included, so the
    /// payload holds none of them.
    @Test func anItemWithEveryPrimaryKeyAttributeStoresNoneOfThem() throws {
        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("s"), .account: .string("a"), .accessGroup: .string(""), .synchronizable: .bool(false),
        ]), secret: SecretBytes(Data("x".utf8)))
        let text = #"{"attributes":{},"format":2,"keyring":7,"secret":8}"#
        #expect(String(decoding: StoredAttributes(layout2: item, storedIn: 7, secretKey: 8).encoded(), as: UTF8.self) == text)
        let stored = try StoredAttributes(decoding: Array(text.utf8), item: "the pinned item")
        #expect(try stored.itemAttributes(primaryKey: item.primaryKey) == item.attributes)
    }

    @Test func anUnchangedItemAndAnEmptySecretArePinned() throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000.125)
        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("s"), .account: .string("a"), .creationDate: .date(created), .modificationDate: .date(created),
        ]), secret: SecretBytes(Data()))
        let text = #"{"attributes":{"cdat":"1700000000.125"},"format":2,"keyring":-5,"unset":"agrp,sync"}"#
        #expect(String(decoding: StoredAttributes(layout2: item, storedIn: -5, secretKey: nil).encoded(), as: UTF8.self) == text)
        let stored = try StoredAttributes(decoding: Array(text.utf8), item: "the pinned item")
        #expect(stored.hasEmptySecret)
        #expect(try stored.itemAttributes(primaryKey: item.primaryKey) == item.attributes)
    }

    /// An item laid out in the real kernel from the literals alone, as this release writes it,
    /// reads back through the backend exactly.
    @Test func anItemBuiltFromThePinnedLiteralsReadsBack() throws {
        let kernel = KernelKeys()
        let target = try kernel.resolve(nil).serial
        let service = uniqueService("pinned2")
        let secretKey = try Data("pinned secret".utf8).withUnsafeBytes {
            try kernel.addUserKey("linux-keychain:genp:\(service):alice", payload: $0, to: target)
        }
        let payload = #"{"attributes":{"cdat":"1700000000.125","labl":"L"},"format":2,"keyring":\#(target),"secret":\#(secretKey),"unset":"agrp,sync"}"#
        let attributesKey = try Data(payload.utf8).withUnsafeBytes {
            try kernel.addUserKey("linux-keychain-attributes:genp:\(service):alice", payload: $0, to: target)
        }
        defer {
            try? kernel.unlink(secretKey, from: target)
            try? kernel.unlink(attributesKey, from: target)
        }
        let found = try KernelKeyringBackend(keyring: nil).search(exactQuery(service, "alice", secrets: true))
        let created = Date(timeIntervalSince1970: 1_700_000_000.125)
        #expect(found.count == 1)
        #expect(found.first?.secret?.makeData() == Data("pinned secret".utf8))
        #expect(found.first?.attributes == ItemAttributes([
            .service: .string(service), .account: .string("alice"), .label: .string("L"),
            .creationDate: .date(created), .modificationDate: .date(created),
        ]))
    }
}
