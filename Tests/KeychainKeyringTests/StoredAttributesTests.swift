import Foundation
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// The attributes key's JSON is written by hand in its pinned spelling (`StoredAttributesJSON`)
/// and read by Foundation: whatever it writes must read back exactly.
@Suite("stored attributes JSON")
struct StoredAttributesTests {
    static let awkwardTexts = [
        "plain", "", "quote \" and back\\slash", "slash / and \\/", "line\nbreak\ttab\r\u{0}nul\u{1F}",
        "\u{7F}del", "ключ-🔑 ünïcødé", "family 👩‍👩‍👧 and \u{2028}", "{\"json\":[1,2]}", "  spaced  ",
    ]

    func stored(_ text: String, keyring: Int32?) -> StoredAttributes {
        StoredAttributes(attributes: ["icmt": text, "labl": "label \(text)", "k\(text)": "v"], keyring: keyring,
                         unset: text.isEmpty ? nil : "agrp")
    }

    @Test(arguments: awkwardTexts)
    func whatItWritesReadsBack(_ text: String) throws {
        for original in [stored(text, keyring: 526362194), stored(text, keyring: nil)] {
            let payload = original.encoded()
            #expect(try StoredAttributes(decoding: Array(payload), item: "the item") == original)
        }
    }

    @Test(arguments: [
        #"{"attributes":{},"format":1,"secretIsEmpty":false}"#,
        #"{"attributes":{"svce":1},"format":2}"#,
        #"{"format":2}"#,
        "not json",
    ])
    func anythingElseIsADecodeError(_ json: String) {
        expectKeychainError(errSecDecode) { try StoredAttributes(decoding: Array(json.utf8), item: "the item") }
    }
}
