import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// The keyring layout, pinned byte for byte (docs/pinned-formats.md): the names of item keys
/// (users type them into `keyctl search`), of attributes keys and of the marker, the JSON of an
/// attributes key, and an item laid out in the real kernel from literals alone. The records'
/// format is pinned in `ItemRecordsTests`. A change to any literal here needs a new format
/// version and a migration, never an edit of the literal.
@Suite("kernel keyring: pinned names and attributes key format")
struct PinnedKeyringFormatTests {
    static let created = Date(timeIntervalSince1970: 1_700_000_000.125)

    /// Primary keys and the exact description each one has.
    static let descriptions: [(PrimaryKey, String)] = [
        (genericKey([.service: .string("pinned-app"), .account: .string("alice@example.com")]),
         "linux-keychain:genp:pinned-app:alice@example.com"),
        (genericKey([.service: .string("pinned-app"), .account: .string("bob"),
                     .accessGroup: .string("team.shared"), .synchronizable: .bool(true)]),
         "linux-keychain:genp:pinned-app:bob:agrp=team.shared:sync=1"),
        (genericKey([.service: .string("pinned:odd/ñame%2F"), .account: .string("")]),
         "linux-keychain:genp:pinned%3Aodd/ñame%252F:"),
        (genericKey([.service: .string("ctl\u{1}\u{7F}"), .account: .string("line\nfeed")]),
         "linux-keychain:genp:ctl%01%7F:line%0Afeed"),
        (PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("git.example.com"), .account: .string("carol"), .protocol: .string("htps"),
            .port: .integer(8443), .path: .string("/repo"), .authenticationType: .string("dflt"),
            .securityDomain: .string("realm"), .accessGroup: .string("g"), .synchronizable: .bool(true),
         ])),
         "linux-keychain:inet:git.example.com:carol:agrp=g:ptcl=htps:port=8443:path=/repo:atyp=dflt:sdmn=realm:sync=1"),
        (PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("host"), .account: .string("dave"), .port: .integer(0), .protocol: .string(""),
         ])),
         "linux-keychain:inet:host:dave"),
        // A key's tag and label are data: as their text when UTF-8, else U+FDD0 and base64.
        (PrimaryKey(itemClass: .key, attributes: ItemAttributes([
            .applicationTag: .data(Data("com.example.keys.signing".utf8)), .applicationLabel: .data(pinnedKeyLabel),
            .keyClass: .integer(1), .type: .integer(73), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
            .accessGroup: .string("team"),
         ])),
         "linux-keychain:keys:com.example.keys.signing:" + notTextMarker + "UEkNj8BG373QkrTTsoD44ojOvTc=:agrp=team:kcls=1:type=73:bsiz=256:esiz=256"),
        // A certificate's issuer (DER) and serial (DER content): here the issuer is ASCII, the serial is not.
        (PrimaryKey(itemClass: .certificate, attributes: ItemAttributes([
            .issuer: .data(pinnedIssuer), .serialNumber: .data(Data([0x00, 0xAB, 0xCD, 0xEF])), .certificateType: .integer(3),
         ])),
         "linux-keychain:cert:0%121%100%0E%06%03U%04%03%0C%07Test CA:" + notTextMarker + "AKvN7w==:ctyp=3"),
    ]

    /// The DER of the Name "CN=Test CA".
    static let pinnedIssuer = Data([0x30, 0x12, 0x31, 0x10, 0x30, 0x0E, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0C, 0x07]) + Data("Test CA".utf8)

    /// U+FDD0, which a Swift literal may not hold (it is a noncharacter).
    static let notTextMarker = String(Character(Unicode.Scalar(UInt32(0xFDD0))!))

    /// The SHA-1 of a P-256 public key, as a key's `kSecAttrApplicationLabel` is by default.
    static let pinnedKeyLabel = Data([0x50, 0x49, 0x0D, 0x8F, 0xC0, 0x46, 0xDF, 0xBD, 0xD0, 0x92,
                                      0xB4, 0xD3, 0xB2, 0x80, 0xF8, 0xE2, 0x88, 0xCE, 0xBD, 0x37])

    static func genericKey(_ values: [AttributeKey: AttributeValue]) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(values))
    }

    @Test func theFixedNamesOfTheLayout() {
        #expect(ItemKeyDescription.prefix == "linux-keychain")
        #expect(AttributesKey.prefix == "linux-keychain-attributes")
        #expect(StoredAttributes.format == 2)
        #expect(TaggedItemsMarker.description == "linux-keychain:tagged-items")
    }

    @Test(arguments: 0..<descriptions.count)
    func eachPrimaryKeyHasItsPinnedDescription(_ index: Int) throws {
        let (key, text) = Self.descriptions[index]
        #expect(try ItemKeyDescription(key).text == text)
        let parsed = try #require(ItemKeyDescription(parsing: text), "today's code no longer parses '\(text)'")
        #expect(parsed.primaryKey == key)
    }

    @Test(arguments: 0..<descriptions.count)
    func eachItemsAttributesKeyIsNamedAfterItsItemKey(_ index: Int) throws {
        let (key, text) = Self.descriptions[index]
        let description = try ItemKeyDescription(key)
        let attributesName = "linux-keychain-attributes" + text.dropFirst("linux-keychain".count)
        #expect(AttributesKey.description(of: description) == attributesName)
        #expect(AttributesKey.itemDescription(ofKeyNamed: attributesName)?.primaryKey == key)
    }

    /// An item with every attribute kind, as the front end adds it.
    static let fullItem = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
        .service: .string("pinned-app"), .account: .string("alice@example.com"),
        .label: .string("Pinned \"label\"\\"), .comment: .string("tab\there"), .itemDescription: .string("ñ"),
        .generic: .data(Data([0, 1, 2, 254, 255])), .creator: .integer(0x6C6B_6368), .type: .integer(-7),
        .isInvisible: .bool(true), .isNegative: .bool(false), .accessible: .string("ak"),
        .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(0.5)),
    ]), secret: SecretBytes(Data("correct horse".utf8)))

    /// Only the attributes outside the primary key; the modification date because it differs
    /// from the creation date; the target's serial; the primary-key attributes the item did not have.
    static let fullItemPayload = #"{"attributes":{"cdat":"1700000000.125","crtr":"1818977128","desc":"ñ","gena":"AAEC/v8=","icmt":"tab\u0009here","invi":"1","labl":"Pinned \"label\"\\","mdat":"1700000000.625","nega":"0","pdmn":"ak","type":"-7"},"format":2,"keyring":123456789,"unset":"agrp,sync"}"#

    @Test func theAttributesPayloadIsPinned() throws {
        let payload = try AttributesKey.payload(of: Self.fullItem, storedIn: 123_456_789)
        #expect(String(decoding: payload, as: UTF8.self) == Self.fullItemPayload)
    }

    @Test func thePinnedPayloadDecodesToEveryAttribute() throws {
        let item = Self.fullItem
        let stored = try StoredAttributes(decoding: Array(Self.fullItemPayload.utf8), item: "the pinned item")
        #expect(stored.format == 2 && stored.keyring == 123_456_789)
        #expect(try stored.itemAttributes(primaryKey: item.primaryKey) == item.attributes)
    }

    /// What the front end adds: every primary-key attribute given, defaults included, so the
    /// payload holds none of them.
    @Test func anItemWithEveryPrimaryKeyAttributeStoresNoneOfThem() throws {
        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("s"), .account: .string("a"), .accessGroup: .string(""), .synchronizable: .bool(false),
        ]), secret: SecretBytes(Data("x".utf8)))
        let text = #"{"attributes":{},"format":2,"keyring":7}"#
        #expect(String(decoding: StoredAttributes(item, storedIn: 7).encoded(), as: UTF8.self) == text)
        let stored = try StoredAttributes(decoding: Array(text.utf8), item: "the pinned item")
        #expect(try stored.itemAttributes(primaryKey: item.primaryKey) == item.attributes)
    }

    @Test func anUnchangedItemIsPinned() throws {
        let created = Date(timeIntervalSince1970: 1_700_000_000.125)
        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("s"), .account: .string("a"), .creationDate: .date(created), .modificationDate: .date(created),
        ]), secret: SecretBytes(Data()))
        let text = #"{"attributes":{"cdat":"1700000000.125"},"format":2,"keyring":-5,"unset":"agrp,sync"}"#
        #expect(String(decoding: StoredAttributes(item, storedIn: -5).encoded(), as: UTF8.self) == text)
        let stored = try StoredAttributes(decoding: Array(text.utf8), item: "the pinned item")
        #expect(try stored.itemAttributes(primaryKey: item.primaryKey) == item.attributes)
    }

    /// An item laid out in the real kernel from the literals alone, in a keyring of its own: its
    /// item key, and record 0 holding its entry (the name hash of
    /// `linux-keychain:genp:pinned-app:alice`, the item key's serial, no flags, two attributes,
    /// and what it did not have), reads back through the backend exactly.
    @Test func anItemBuiltFromThePinnedLiteralsReadsBack() throws {
        let kernel = KernelKeys()
        let parent = try kernel.resolve(nil).serial
        let target = try kernel.addKeyring(uniqueService("pinned-store"), to: parent)
        defer { try? kernel.unlink(target, from: parent) }
        let itemKey = try Data("pinned secret".utf8).withUnsafeBytes {
            try kernel.addUserKey("linux-keychain:genp:pinned-app:alice", payload: $0, to: target)
        }
        let before = "4c4b520100" + "00f376b8b6475ed7"
        let after = "0002" + "04" + "63646174" + "0e00" + "313730303030303030302e313235" + "04" + "6c61626c" + "0100" + "4c"
            + "0900" + "616772702c73796e63"
        var record = hexBytes(before)
        withUnsafeBytes(of: UInt32(bitPattern: itemKey).littleEndian) { record.append(contentsOf: $0) }
        record += hexBytes(after)
        _ = try record.withUnsafeBytes { try kernel.addUserKey("linux-keychain:records:\(target):0", payload: $0, to: target) }

        let found = try KernelKeyringBackend(testingIn: target).search(exactQuery("pinned-app", "alice", secrets: true))
        #expect(found.count == 1)
        #expect(found.first?.secret?.makeData() == Data("pinned secret".utf8))
        #expect(found.first?.attributes == ItemAttributes([
            .service: .string("pinned-app"), .account: .string("alice"), .label: .string("L"),
            .creationDate: .date(Self.created), .modificationDate: .date(Self.created),
        ]))
    }

    func hexBytes(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
        }
    }
}
