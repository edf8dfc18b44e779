import Foundation
import KeychainCore
@testable import KeychainVault
import Testing

/// The Vault layout as released, pinned: the KV path of each primary key and the field names
/// and value spellings of an item. Operators read and write these with `bao kv`, and fleets
/// mix library versions, so a change to any literal here needs a new layout version and a
/// migration, never an edit of the literal.
@Suite("vault: pinned paths and fields")
struct PinnedVaultLayoutTests {
    static let created = Date(timeIntervalSince1970: 1_700_000_000.125)

    static let paths: [(PrimaryKey, String)] = [
        (genericKey([.service: .string("pinned-app"), .account: .string("alice@example.com")]),
         "linux-keychain/generic/pinned-app/alice@example.com"),
        (genericKey([.service: .string("pinned-app"), .account: .string("bob"),
                     .accessGroup: .string("team.shared"), .synchronizable: .bool(true)]),
         "linux-keychain/generic/pinned-app/bob;access_group=team.shared;synchronizable=1"),
        (genericKey([.service: .string("pinned:odd/ñame%2F"), .account: .string("")]),
         "linux-keychain/generic/pinned:odd%2F%C3%B1ame%252F/%empty"),
        (genericKey([.service: .string(".."), .account: .string("a b;c=d")]),
         "linux-keychain/generic/%2E%2E/a%20b%3Bc%3Dd"),
        (PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("git.example.com"), .account: .string("carol"), .protocol: .string("htps"),
            .port: .integer(8443), .path: .string("/repo"), .authenticationType: .string("dflt"),
            .securityDomain: .string("realm"), .accessGroup: .string("g"), .synchronizable: .bool(true),
         ])),
         "linux-keychain/internet/git.example.com/carol;access_group=g;protocol=htps;port=8443;path=%2Frepo;authentication_type=dflt;security_domain=realm;synchronizable=1"),
        // A key's tag and label are data: as their text when UTF-8, else U+FDD0 and base64.
        (PrimaryKey(itemClass: .key, attributes: ItemAttributes([
            .applicationTag: .data(Data("com.example.keys.signing".utf8)), .applicationLabel: .data(pinnedKeyLabel),
            .keyClass: .integer(1), .type: .integer(73), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
            .accessGroup: .string("team"),
         ])),
         "linux-keychain/keys/com.example.keys.signing/%EF%B7%90UEkNj8BG373QkrTTsoD44ojOvTc%3D;access_group=team;key_class=1;type=73;key_size=256;effective_key_size=256"),
        // A certificate's issuer (DER) and serial (DER content): here the issuer is ASCII, the serial is not.
        (PrimaryKey(itemClass: .certificate, attributes: ItemAttributes([
            .issuer: .data(pinnedIssuer), .serialNumber: .data(Data([0x00, 0xAB, 0xCD, 0xEF])), .certificateType: .integer(3),
         ])),
         "linux-keychain/certificates/0%121%100%0E%06%03U%04%03%0C%07Test%20CA/%EF%B7%90AKvN7w%3D%3D;certificate_type=3"),
    ]

    /// The DER of the Name "CN=Test CA".
    static let pinnedIssuer = Data([0x30, 0x12, 0x31, 0x10, 0x30, 0x0E, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0C, 0x07]) + Data("Test CA".utf8)

    /// The SHA-1 of a P-256 public key, as a key's `kSecAttrApplicationLabel` is by default.
    static let pinnedKeyLabel = Data([0x50, 0x49, 0x0D, 0x8F, 0xC0, 0x46, 0xDF, 0xBD, 0xD0, 0x92,
                                      0xB4, 0xD3, 0xB2, 0x80, 0xF8, 0xE2, 0x88, 0xCE, 0xBD, 0x37])

    static func genericKey(_ values: [AttributeKey: AttributeValue]) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(values))
    }

    @Test(arguments: 0..<paths.count)
    func eachPrimaryKeyHasItsPinnedPath(_ index: Int) throws {
        let (key, path) = Self.paths[index]
        let layout = VaultItemLayout(prefix: VaultConfiguration.defaultPrefix)
        #expect(layout.path(of: key) == path)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let decoded = try #require(layout.primaryKey(key.itemClass, groupSegment: segments[2], leaf: segments[3]),
                                   "today's code no longer reads '\(path)'")
        #expect(decoded == key)
    }

    @Test func theDefaultsAreSecretAndLinuxKeychain() {
        #expect(VaultConfiguration.defaultMount == "secret")
        #expect(VaultConfiguration.defaultPrefix == "linux-keychain")
    }

    /// Every attribute's field name and spelling.
    static let fullItem = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
        .service: .string("pinned-app"), .account: .string("alice@example.com"), .accessGroup: .string("team.shared"),
        .label: .string("L \"q\""), .comment: .string("c"), .itemDescription: .string("d"),
        .generic: .data(Data([0, 1, 2, 254, 255])), .creator: .integer(0x6C6B_6368), .type: .integer(-7),
        .isInvisible: .bool(true), .isNegative: .bool(false), .accessible: .string("ak"), .synchronizable: .bool(true),
        .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(0.5)),
    ]), secret: SecretBytes(Data("correct horse".utf8)))

    static let fullItemBody = #"{"password":"correct horse","access_group":"team.shared","accessible":"ak","account":"alice@example.com","comment":"c","created":"1700000000.125","creator":"1818977128","description":"d","generic":"AAEC/v8=","invisible":"1","label":"L \"q\"","modified":"1700000000.625","negative":"0","service":"pinned-app","synchronizable":"1","type":"-7"}"#

    @Test func theFieldsOfAnItemArePinned() throws {
        let body = VaultItemFields.body(of: Self.fullItem, secret: try #require(Self.fullItem.secret))
        #expect(String(decoding: body.serialized().makeData(), as: UTF8.self) == Self.fullItemBody)
    }

    @Test func aSecretThatIsNotPrintableGoesToPasswordBase64() {
        let body = VaultItemFields.body(of: KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes()),
                                        secret: SecretBytes(Data([0, 0xFF, 0x1B])))
        #expect(String(decoding: body.serialized().makeData(), as: UTF8.self) == #"{"password_base64":"AP8b"}"#)
    }

    @Test func thePinnedFieldsDecodeToEveryAttribute() throws {
        let json = try #require(VaultJSON.parse(Data(Self.fullItemBody.utf8)))
        guard case .object(let fields) = json else {
            Issue.record("the pinned body is not an object")
            return
        }
        let key = Self.fullItem.primaryKey
        let item = try VaultItemFields.item(at: "pinned", primaryKey: key, fields: fields, includeSecret: true)
        #expect(item.attributes == Self.fullItem.attributes)
        #expect(item.secret?.makeData() == Data("correct horse".utf8))
    }

    /// Items written into a real OpenBao with `bao kv put` from the literals alone (as this
    /// release lays them out, or as an operator would by hand) read back exactly.
    @Test func itemsPutWithBaoFromThePinnedLiteralsReadBack() throws {
        let prefix = VaultTestServer.uniquePrefix("pinned")
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        let plain = try VaultTestServer.bao(["kv", "put", "-mount=secret", "\(prefix)/generic/pinned-app/alice@example.com",
                                             "password=correct horse", "account=alice@example.com", "service=pinned-app",
                                             "label=L", "generic=AAEC/v8=", "created=1700000000.125", "modified=1700000000.625",
                                             "invisible=1", "type=-7"])
        #expect(plain.status == 0, "\(plain.errorText)")
        let binary = try VaultTestServer.bao(["kv", "put", "-mount=secret", "\(prefix)/generic/pinned-app/bob;access_group=team.shared",
                                              "password_base64=AP8b"])
        #expect(binary.status == 0, "\(binary.errorText)")

        let query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string("pinned-app")]),
                              limit: .all, includeSecrets: true)
        let found = try backend.search(query)
        #expect(found.count == 2)
        let alice = try #require(found.first { $0.attributes.string(.account) == "alice@example.com" })
        #expect(alice.secret?.makeData() == Data("correct horse".utf8))
        #expect(alice.attributes == ItemAttributes([
            .service: .string("pinned-app"), .account: .string("alice@example.com"), .label: .string("L"),
            .generic: .data(Data([0, 1, 2, 254, 255])), .isInvisible: .bool(true), .type: .integer(-7),
            .creationDate: .date(Self.created), .modificationDate: .date(Self.created.addingTimeInterval(0.5)),
        ]))
        let bob = try #require(found.first { $0.attributes.string(.account) == "bob" })
        #expect(bob.secret?.makeData() == Data([0, 0xFF, 0x1B]))
        #expect(bob.attributes == ItemAttributes([
            .service: .string("pinned-app"), .account: .string("bob"), .accessGroup: .string("team.shared"),
        ]))
        _ = try backend.delete(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string("pinned-app")]),
                                         limit: .all, includeSecrets: false, matchesAnySynchronizable: true))
    }
}
