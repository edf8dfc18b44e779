import Foundation
@testable import KeychainKeyring
import Testing

/// The attributes key's JSON is written and read by hand for speed; Foundation's coder, which
/// earlier versions wrote with, must read and write the same data.
@Suite("stored attributes JSON")
struct StoredAttributesTests {
    static let awkwardTexts = [
        "plain", "", "quote \" and back\\slash", "slash / and \\/", "line\nbreak\ttab\r\u{0}nul\u{1F}",
        "\u{7F}del", "ключ-🔑 ünïcødé", "family 👩‍👩‍👧 and \u{2028}", "{\"json\":[1,2]}", "  spaced  ",
    ]

    func stored(_ text: String, keyring: Int32?) -> StoredAttributes {
        StoredAttributes(format: 1, attributes: ["svce": text, "labl": "label \(text)", "k\(text)": "v"],
                         secretIsEmpty: text.isEmpty, keyring: keyring)
    }

    @Test(arguments: awkwardTexts)
    func whatItWritesFoundationReadsAndItReadsBack(_ text: String) throws {
        for original in [stored(text, keyring: 526362194), stored(text, keyring: nil)] {
            let payload = original.encoded()
            #expect(try JSONDecoder().decode(StoredAttributes.self, from: payload) == original)
            #expect(StoredAttributesJSON.decode(Array(payload)) == original)
        }
    }

    @Test(arguments: awkwardTexts)
    func whatFoundationWroteItReadsAlike(_ text: String) throws {
        let encoder = JSONEncoder()
        // What earlier versions wrote with.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for original in [stored(text, keyring: -7), stored(text, keyring: nil)] {
            #expect(StoredAttributesJSON.decode(Array(try encoder.encode(original))) == original)
        }
    }

    @Test(arguments: [
        #" { "attributes" : { "svce" : "a\/b" } , "format" : 1 , "secretIsEmpty" : false } "#,
        #"{"format":1,"secretIsEmpty":true,"attributes":{},"keyring":null}"#,
        #"{"attributes":{"svce":"\ud83d\udd11 \u00fc \b\f\n\r\t\"\\"},"format":1,"secretIsEmpty":false,"keyring":-1}"#,
    ])
    func otherSpellingsAreReadAsFoundationReadsThem(_ json: String) throws {
        let foundation = try JSONDecoder().decode(StoredAttributes.self, from: Data(json.utf8))
        #expect(StoredAttributesJSON.decode(Array(json.utf8)) == foundation)
    }

    @Test(arguments: [
        #"{"attributes":{"svce":"\ud83d"},"format":1,"secretIsEmpty":false}"#,     // lone surrogate
        #"{"attributes":{},"format":1,"secretIsEmpty":false,"extra":1}"#,          // unknown field
        #"{"attributes":{},"format":1,"format":2,"secretIsEmpty":false}"#,         // field twice
        #"{"attributes":{"a":"x","a":"y"},"format":1,"secretIsEmpty":false}"#,     // attribute twice
        #"{"attributes":{},"format":1,"secretIsEmpty":false} x"#,                  // trailing text
        #"{"attributes":{},"format":1.0,"secretIsEmpty":false}"#,
        #"{"attributes":{},"format":01,"secretIsEmpty":false}"#,
        #"{"attributes":{"svce":1},"format":1,"secretIsEmpty":false}"#,
        #"{"attributes":{},"format":1,"keyring":4294967296,"secretIsEmpty":false}"#,
        "{\"attributes\":{\"svce\":\"raw\ttab\"},\"format\":1,\"secretIsEmpty\":false}",  // raw control character
        #"{"attributes":{"a":"x""#,
        #"{"attributes":{},"format":"#,                                            // ends where a number should be
        #"{"attributes":{},"format":-"#,
        #"{"attributes":{},"format":1,"keyring":-9223372036854775809}"#,           // beyond Int64
        "not json",
    ])
    func anythingElseIsLeftToFoundation(_ json: String) {
        #expect(StoredAttributesJSON.decode(Array(json.utf8)) == nil)
    }
}
