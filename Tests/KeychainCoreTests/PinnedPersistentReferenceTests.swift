import Foundation
import KeychainCore
import Testing

/// `kSecValuePersistentRef` is `PrimaryKey.encoded`, and programs store those bytes (in a
/// database, a config file) to find their item again later. The encoding is pinned here byte
/// for byte: a reference handed out by this release must name the same item in every later
/// one, so a change needs a new, distinguishable encoding that still decodes these.
@Suite("persistent references: pinned bytes")
struct PinnedPersistentReferenceTests {
    static let references: [(PrimaryKey, String)] = [
        (PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("pinned-app"), .account: .string("alice"),
         ])),
         "genp0:10:pinned-app5:alice1:0"),
        (PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("a:b"), .account: .string("ñ"), .accessGroup: .string("team.shared"), .synchronizable: .bool(true),
         ])),
         "genp11:team.shared3:a:b2:ñ1:1"),
        (PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([:])),
         "genp0:0:0:1:0"),
        (PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("git.example.com"), .account: .string("carol"), .protocol: .string("htps"),
            .port: .integer(8443), .path: .string("/repo"), .authenticationType: .string("dflt"),
            .securityDomain: .string("realm"),
         ])),
         "inet0:5:carol15:git.example.com4:htps4:84435:/repo4:dflt5:realm1:0"),
    ]

    @Test(arguments: 0..<references.count)
    func eachKeyEncodesToItsPinnedBytesAndBack(_ index: Int) throws {
        let (key, text) = Self.references[index]
        #expect(key.encoded == Data(text.utf8))
        let decoded = try #require(PrimaryKey(encoded: Data(text.utf8)), "today's code no longer decodes '\(text)'")
        #expect(decoded == key)
        #expect(decoded.components == key.components)
    }
}
