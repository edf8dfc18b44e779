import Foundation
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// The key description is what `keyctl search` is given by hand, so its exact form matters.
@Suite("kernel key descriptions of items")
struct ItemKeyDescriptionTests {
    func generic(_ service: String, _ account: String, _ extra: [AttributeKey: AttributeValue] = [:]) -> PrimaryKey {
        var values: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
        values.merge(extra) { _, new in new }
        return PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(values))
    }

    @Test func plainNamesReadAsTheyAre() throws {
        #expect(try ItemKeyDescription(generic("myapp", "alice")).text == "linux-keychain:genp:myapp:alice")
        #expect(try ItemKeyDescription(generic("ключ-🔑", "ünïcødé")).text == "linux-keychain:genp:ключ-🔑:ünïcødé")
    }

    @Test func separatorsInNamesAreEscapedSoPairsStayDistinct() throws {
        let left = try ItemKeyDescription(generic("a:b", "c"))
        let right = try ItemKeyDescription(generic("a", "b:c"))
        #expect(left.text == "linux-keychain:genp:a%3Ab:c")
        #expect(right.text == "linux-keychain:genp:a:b%3Ac")
        #expect(try ItemKeyDescription(generic("100%", "x\ny\u{0}")).text == "linux-keychain:genp:100%25:x%0Ay%00")
    }

    @Test func nonDefaultPrimaryKeyAttributesAreTagged() throws {
        let grouped = try ItemKeyDescription(generic("s", "a", [.accessGroup: .string("team.app"), .synchronizable: .bool(true)]))
        #expect(grouped.text == "linux-keychain:genp:s:a:agrp=team.app:sync=1")
        let internet = PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("host.example"), .account: .string("alice"), .protocol: .string("htps"),
            .port: .integer(8443), .path: .string("/a:b"),
        ]))
        #expect(try ItemKeyDescription(internet).text == "linux-keychain:inet:host.example:alice:ptcl=htps:port=8443:path=/a%3Ab")
    }

    @Test(arguments: [
        ("a:b", "c"), ("a", "b:c"), ("x%3Ay", "z"), ("", ""), ("agrp=x", "sync=1"), ("ключ", "\u{1}\u{7F}%:"),
    ])
    func parsingGivesBackThePrimaryKey(_ service: String, _ account: String) throws {
        let key = generic(service, account, [.accessGroup: .string("g:1")])
        let description = try ItemKeyDescription(key)
        let parsed = try #require(ItemKeyDescription(parsing: description.text))
        #expect(parsed.primaryKey == key)
    }

    @Test(arguments: [
        "linux-keychain:genp:a%41:b",        // needless escape: would give one item two names
        "linux-keychain:genp:a:b:sync=0",    // default value spelled out
        "linux-keychain:genp:a:b:sync=1:agrp=g", // tags out of order
        "linux-keychain:genp:a:b:port=1",    // not a generic-password attribute
        "linux-keychain:genp:a",             // account missing
        "linux-keychain:genp:a:%Z1",         // malformed escape
        "linux-keychain:genp:a:%FF",         // not UTF-8
        "other-tool:genp:a:b",
        "linux-keychain:idnt:a:b",           // identities are never stored items
    ])
    func foreignOrNonCanonicalTextIsNotAnItem(_ text: String) {
        #expect(ItemKeyDescription(parsing: text) == nil)
    }

    @Test func theLeadingTextIsWhatTheDescriptionsOfMatchesBeginWith() throws {
        func leading(_ itemClass: ItemClass, _ constraints: [AttributeKey: AttributeValue]) -> String {
            ItemKeyDescription.leadingText(ofMatchesOf: ItemQuery(itemClass: itemClass, constraints: ItemAttributes(constraints)))
        }
        #expect(leading(.genericPassword, [.service: .string("a:b"), .account: .string("c")]) == "linux-keychain:genp:a%3Ab:c")
        #expect(leading(.genericPassword, [.service: .string("a:b")]) == "linux-keychain:genp:a%3Ab:")
        #expect(leading(.genericPassword, [.account: .string("c")]) == "linux-keychain:genp:")
        #expect(leading(.internetPassword, [.server: .string("host"), .port: .integer(1)]) == "linux-keychain:inet:host:")
        let grouped = try ItemKeyDescription(generic("a:b", "c", [.accessGroup: .string("g")]))
        #expect(grouped.text.hasPrefix(leading(.genericPassword, [.service: .string("a:b"), .account: .string("c")])))
    }

    @Test func namesBeyondTheKernelLimitAreAParameterError() {
        expectKeychainError(errSecParam) {
            try ItemKeyDescription(generic(String(repeating: "s", count: 4000), String(repeating: "a", count: 100)))
        }
    }
}
