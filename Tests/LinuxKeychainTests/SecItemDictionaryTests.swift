import Foundation
@testable import LinuxKeychainFrontEnd
import LinuxKeychain
import Testing

/// `SecItemDictionary` reads dictionaries by a shortcut; these compare it, value by value and
/// reader by reader, with plain iteration read through Swift's casts.
@Suite("SecItem dictionary reading")
struct SecItemDictionaryTests {
    @Test func readsRandomDictionariesAsIterationDoes() {
        var generator = FuzzDictionaryGenerator(seed: 11, service: "dictionary-reading")
        for _ in 0..<2_000 {
            expectSameReading(of: generator.dictionary(withSecret: true))
        }
    }

    @Test(arguments: 0..<SecItemDictionaryTests.values.count)
    func readsEveryKindOfValueAsIterationDoes(index: Int) {
        let value = Self.values[index]
        let dictionary = NSMutableDictionary()
        dictionary["a key"] = value
        dictionary[NSString(string: "another key")] = value
        dictionary[NSNumber(value: 7)] = value
        dictionary[kSecReturnData] = kCFBooleanTrue
        expectSameReading(of: dictionary)
        expectSameReading(of: dictionary.copy() as! NSDictionary)
    }

    @Test func anEmptyDictionaryHasNoEntries() {
        #expect(entries(of: NSDictionary()).isEmpty)
    }

    private func entries(of dictionary: NSDictionary) -> [(key: Any, value: SecItemValue)] {
        var entries: [(key: Any, value: SecItemValue)] = []
        SecItemDictionary.forEachEntry(of: dictionary) { entries.append(($0, $1)) }
        return entries
    }

    /// Values of every type a caller might put in a query, Swift and Foundation forms alike;
    /// made afresh for each test, as they are not all Sendable.
    static var values: [Any] { [
        "text", NSString(string: "text"), NSMutableString(string: "text"), Substring("text"), AnyHashable("text"),
        Data([1, 2]), NSData(data: Data([1, 2])), NSMutableData(data: Data([1, 2])), Data(),
        true, false, kCFBooleanTrue!, kCFBooleanFalse!, NSNumber(value: true), NSNumber(value: false),
        0, 1, 2, -1, 443, Int8(5), UInt64.max, Int64.max, Int64.min, 0.5, Double.nan, Double.infinity,
        NSNumber(value: 0), NSNumber(value: 1), NSNumber(value: 2), NSNumber(value: -0.0), NSNumber(value: 0.5),
        NSNumber(value: Double.nan), NSNumber(value: Int64.max), NSNumber(value: UInt64.max), NSDecimalNumber(value: 3),
        Date(timeIntervalSince1970: 5), NSDate(timeIntervalSince1970: 5), NSNull(), NSObject(), [1, 2], ["k": "v"],
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil) as Any,
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil) as Any,
    ] }

    private func expectSameReading(of dictionary: NSDictionary, sourceLocation: SourceLocation = #_sourceLocation) {
        let read = entries(of: dictionary)
        let iterated = dictionary.map { (key: $0.key, value: SecItemValue.other($0.value)) }
        #expect(read.count == iterated.count, sourceLocation: sourceLocation)
        for (entry, expected) in zip(read, iterated) {
            #expect(SecItemDictionary.name(ofKey: entry.key) == expected.key as? String, sourceLocation: sourceLocation)
            #expect(SecItemValue.typeName(of: entry.key) == SecItemValue.typeName(of: expected.key), sourceLocation: sourceLocation)
            #expect(Reading(entry.value) == Reading(expected.value), sourceLocation: sourceLocation)
        }
    }
}

/// Everything the parser can learn from a value.
private struct Reading: Equatable {
    let text: String?
    let data: Data?
    let date: Date?
    let flag: Bool?
    let integer: Int64?
    let typeName: String
    let accessControl: ObjectIdentifier?
    let reference: ObjectIdentifier?

    init(_ value: SecItemValue) {
        text = value.text
        data = value.data
        date = value.date
        flag = value.flag
        integer = value.integer
        typeName = value.typeName
        accessControl = value.object(SecAccessControl.self).map(ObjectIdentifier.init)
        reference = value.object(SecKeychainItem.self).map(ObjectIdentifier.init)
    }
}
