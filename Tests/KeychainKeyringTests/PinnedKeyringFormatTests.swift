import Foundation
import KeychainCore
@testable import KeychainKeyring
import Testing

/// The keyring layout as released, pinned byte for byte: the key descriptions that name items
/// (users type them into `keyctl search`) and the JSON payload of an item's attributes key.
/// Items written by this release must stay readable by every later one, so a change to any
/// literal here needs a new format version and a migration, never an edit of the literal.
@Suite("kernel keyring: pinned description and payload formats (format 1)")
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
    ]

    static func genericKey(_ values: [AttributeKey: AttributeValue]) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(values))
    }

    @Test func theFixedNamesOfTheLayout() {
        #expect(ItemKeyDescription.prefix == "linux-keychain")
        #expect(StoredAttributes.keyDescription == "linux-keychain-attributes")
        #expect(StoredAttributes.itemKeyringFormat == 1)
        #expect(ItemKeyrings.taggedItemsMarkerDescription == "linux-keychain:tagged-items")
    }

    @Test(arguments: 0..<descriptions.count)
    func eachPrimaryKeyHasItsPinnedDescription(_ index: Int) throws {
        let (key, text) = Self.descriptions[index]
        #expect(try ItemKeyDescription(key).text == text)
        let parsed = try #require(ItemKeyDescription(parsing: text), "today's code no longer parses '\(text)'")
        #expect(parsed.primaryKey == key)
    }

    /// An item with every attribute kind, as the front end adds it.
    static let fullItem = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
        .service: .string("pinned-app"), .account: .string("alice@example.com"),
        .label: .string("Pinned \"label\"\\"), .comment: .string("tab\there"), .itemDescription: .string("ñ"),
        .generic: .data(Data([0, 1, 2, 254, 255])), .creator: .integer(0x6C6B_6368), .type: .integer(-7),
        .isInvisible: .bool(true), .isNegative: .bool(false), .accessible: .string("ak"),
        .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(0.5)),
    ]), secret: SecretBytes(Data("correct horse".utf8)))

    static let fullItemPayload = #"{"attributes":{"acct":"alice@example.com","cdat":"1700000000.125","crtr":"1818977128","desc":"ñ","gena":"AAEC/v8=","icmt":"tab\u0009here","invi":"1","labl":"Pinned \"label\"\\","mdat":"1700000000.625","nega":"0","pdmn":"ak","svce":"pinned-app","type":"-7"},"format":1,"keyring":123456789,"secretIsEmpty":false}"#

    @Test func theAttributesPayloadIsPinned() throws {
        let payload = StoredAttributes(Self.fullItem, storedIn: 123_456_789).encoded()
        #expect(String(decoding: payload, as: UTF8.self) == Self.fullItemPayload)
        #expect(payload == Data(Self.fullItemPayload.utf8))
    }

    @Test func thePinnedPayloadDecodesToEveryAttribute() throws {
        let stored = try StoredAttributes(decoding: Array(Self.fullItemPayload.utf8), item: "the pinned item")
        #expect(stored.format == 1)
        #expect(stored.keyring == 123_456_789)
        #expect(stored.secretIsEmpty == false)
        #expect(try stored.itemAttributes(primaryKey: Self.fullItem.primaryKey) == Self.fullItem.attributes)
    }

    /// Written before the keyring serial was recorded, and as Foundation's encoder spells it
    /// (other key order, escaped slashes, spaces): both must keep reading.
    @Test(arguments: [
        #"{"attributes":{"acct":"a","svce":"s"},"format":1,"secretIsEmpty":true}"#,
        #"{ "secretIsEmpty" : true, "format" : 1, "attributes" : { "svce" : "s", "acct" : "a" }, "keyring" : null }"#,
    ])
    func olderSpellingsOfThePayloadStillDecode(_ text: String) throws {
        let stored = try StoredAttributes(decoding: Array(text.utf8), item: "the pinned item")
        #expect(stored.keyring == nil)
        #expect(stored.secretIsEmpty == true)
        let attributes = ItemAttributes([.service: .string("s"), .account: .string("a")])
        #expect(try stored.itemAttributes(primaryKey: PrimaryKey(itemClass: .genericPassword, attributes: attributes))
                == attributes)
    }

    @Test func anEmptySecretIsRecordedInThePayload() {
        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("s"), .account: .string("a"),
        ]), secret: SecretBytes(Data()))
        #expect(String(decoding: StoredAttributes(item, storedIn: nil).encoded(), as: UTF8.self)
                == #"{"attributes":{"acct":"a","svce":"s"},"format":1,"secretIsEmpty":true}"#)
    }

    /// An item laid out in the real kernel from the literals alone, as this release writes it
    /// (an item keyring named by the description, holding the secret key of the same name and
    /// the attributes key), reads back through the backend exactly.
    @Test func anItemBuiltFromThePinnedLiteralsReadsBack() throws {
        let kernel = KernelKeys()
        // In a keyring of its own: in one where another test's first lookup has proved that no
        // layout-1 item is left (`LayoutThreeRecord.swift`), lookups by name no longer see one.
        let parent = try kernel.resolve(nil).serial
        let target = try kernel.addKeyring(uniqueService("pinned-store"), to: parent)
        defer { try? kernel.unlink(target, from: parent) }
        let backend = KernelKeyringBackend(testingIn: target)
        let service = uniqueService("pinned")
        let description = "linux-keychain:genp:\(service):alice"
        let payload = #"{"attributes":{"acct":"alice","cdat":"1700000000.125","gena":"AAEC/v8=","labl":"L","mdat":"1700000000.625","svce":"\#(service)"},"format":1,"keyring":\#(target),"secretIsEmpty":false}"#
        let keyring = try kernel.addKeyring(description, to: target)
        _ = try Data("pinned secret".utf8).withUnsafeBytes { try kernel.addUserKey(description, payload: $0, to: keyring) }
        _ = try Data(payload.utf8).withUnsafeBytes { try kernel.addUserKey("linux-keychain-attributes", payload: $0, to: keyring) }

        let found = try backend.search(exactQuery(service, "alice", secrets: true))
        #expect(found.count == 1)
        #expect(found.first?.secret?.makeData() == Data("pinned secret".utf8))
        #expect(found.first?.attributes == ItemAttributes([
            .service: .string(service), .account: .string("alice"), .label: .string("L"),
            .generic: .data(Data([0, 1, 2, 254, 255])),
            .creationDate: .date(Self.created), .modificationDate: .date(Self.created.addingTimeInterval(0.5)),
        ]))
    }
}
