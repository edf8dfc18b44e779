import Foundation
import KeychainCore
import Testing

@Suite("primary keys")
struct PrimaryKeyTests {
    private func key(_ service: String, _ account: String) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string(service), .account: .string(account)]))
    }

    @Test func separatorsInNamesDoNotCollide() {
        #expect(key("a:b", "c") != key("a", "b:c"))
        #expect(key("a:b", "c").encoded != key("a", "b:c").encoded)
        #expect(key("1:x", "") .encoded != key("", "1:x").encoded)
    }

    @Test func encodingRoundTrips() throws {
        let internet = PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("host"), .port: .integer(443), .protocol: .string("htps"), .account: .string("ü:ser"),
            .synchronizable: .bool(true),
        ]))
        for original in [key("svc", "acct"), key("", ""), key("ключ", "5:abc"), internet] {
            #expect(PrimaryKey(encoded: original.encoded) == original)
        }
    }

    @Test(arguments: [Data(), Data("genp".utf8), Data("genp999999999999:x".utf8), Data("xxxx0:0:0:0:".utf8),
                      Data("genp0:0:0:1:0extra".utf8), Data((0..<64).map { UInt8($0) })])
    func garbageDoesNotDecode(_ garbage: Data) {
        #expect(PrimaryKey(encoded: garbage) == nil)
    }

    @Test func missingAndEmptyStringsAreTheSameKeyAsOnApple() {
        let bare = PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string("s")]))
        #expect(bare == key("s", ""))
    }

    /// `ItemQuery(primaryKey:)` spells every primary-key attribute out, port 0 included; it
    /// must still find an item that was stored without them, or a backend that checks for a
    /// duplicate with it lets the same internet password be added twice.
    @Test func aPrimaryKeyQueryFindsAnItemStoredWithoutItsDefaults() {
        let bare = KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("host"), .account: .string("alice"),
        ]))
        #expect(ItemQuery(primaryKey: bare.primaryKey).matches(bare))
        var withPort = bare
        withPort.attributes[.port] = .integer(443)
        #expect(!ItemQuery(primaryKey: bare.primaryKey).matches(withPort))
        #expect(!ItemQuery(primaryKey: withPort.primaryKey).matches(bare))
    }
}
