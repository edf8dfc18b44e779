import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainCLI
import KeychainTestSupport
import Testing

/// The CLI runs without Foundation (docs/performance.md), so it lays out its JSON, dates and
/// columns itself; each must print exactly what Foundation's JSONSerialization,
/// ISO8601DateFormatter and `padding(toLength:withPad:startingAt:)` printed before.
@Suite("CLI output without Foundation")
struct FoundationFreeOutputTests {
    /// Fails once a module the CLI links imports Foundation instead of FoundationEssentials: its
    /// start-up would grow by about a millisecond (docs/performance.md). The test build links the
    /// Swift libraries dynamically, so they show among the needed libraries.
    @Test func theCLIDoesNotLinkFoundation() throws {
        guard toolExists("readelf") else { try Test.cancel("readelf (binutils) is not installed") }
        let dynamic = try KeychainCLIProcess.run("/usr/bin/readelf", ["-d", try builtCLI()])
        #expect(dynamic.status == 0, "readelf failed: \(dynamic.errorText)")
        let needed = dynamic.outputText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("[libFoundationEssentials.so]") }, "readelf listed: \(needed)")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!needed.contains { $0.contains("[\(library)]") }, "the CLI needs \(library)")
        }
    }

    /// Every key the CLI's JSON objects have: an item's (ItemJSON) and the backend report's.
    static let keys = AttributeName.all.map(\.name) + [
        "class", "authentication-type", "synchronizable", "created", "modified",
        "backends", "name", "state", "usable", "explanation", "chosen-by-auto", "warning",
        "auto", "backend", "locked", "in-effect", "source",
    ]

    static let awkwardText = "x/y\"\\\u{0}\u{1}\u{1f}\n\t\r\u{8}\u{c}é😀\u{7f}\u{2028}e\u{301} end"

    static func foundationText(_ object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object,
                                              options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    @Test func everyKeyOfTheCLIsObjectsIsInFoundationsOrder() throws {
        var ours: [String: JSONValue] = [:]
        var theirs: [String: Any] = [:]
        for (index, key) in Self.keys.enumerated() {
            ours[key] = .integer(index)
            theirs[key] = index
        }
        #expect(JSONValue.object(ours).prettyText == (try Self.foundationText(theirs)))
    }

    @Test func valuesAreLaidOutAsJSONSerializationDid() throws {
        let cases: [(ours: JSONValue, theirs: Any)] = [
            (.array([]), [Any]()),
            (.object([:]), [String: Any]()),
            (.array([.object([:]), .array([]), .null, .bool(true), .bool(false), .integer(-443)]),
             [[String: Any](), [Any](), NSNull(), true, false, -443] as [Any]),
            (.object(["service": .string(Self.awkwardText),
                      "account": .array([.string(""), .object(["port": .integer(0)])])]),
             ["service": Self.awkwardText, "account": ["", ["port": 0] as [String: Any]] as [Any]] as [String: Any]),
        ]
        for (ours, theirs) in cases {
            #expect(ours.prettyText == (try Self.foundationText(theirs)))
        }
    }

    @Test func datesAreISO8601AsBefore() {
        for seconds in [0, 1_765_031_463.75, 4_102_444_799.999, -1.5] {
            let date = Date(timeIntervalSince1970: seconds)
            let attributes = ItemAttributes([.creationDate: .date(date)])
            #expect(ItemListing.date(.creationDate, in: attributes) == ISO8601DateFormatter().string(from: date))
        }
    }

    @Test func columnsArePaddedAndCutAsBefore() {
        for (text, width) in [("keyring", 11), ("unavailable", 11), ("much-too-long-state", 11), ("", 3), ("é", 2)] {
            #expect(text.padded(to: width) == (text as NSString).padding(toLength: width, withPad: " ", startingAt: 0))
        }
    }
}
