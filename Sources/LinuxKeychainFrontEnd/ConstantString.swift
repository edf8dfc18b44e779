import Foundation

/// The object behind every `kSec…` and `kCF…` string constant: an `NSString` whose
/// `AnyHashable` is its Swift `String`, as bridging makes it on Apple platforms.
///
/// On Linux a plain `NSString` and a `String` of the same text are different `AnyHashable`
/// keys, so a result read as `[AnyHashable: Any]` (whose keys bridge to `String`) would find
/// nothing under `kSecAttrAccount`. With this class both spellings reach the same entry, in
/// `[AnyHashable: Any]`, `[String: Any]` and `[CFString: Any]` alike, and the constants are
/// still `CFString`s for `as String`, `as CFDictionary`, `isEqual` and `hash` (an `NSString`'s,
/// so `NSDictionary` lookups match plain `NSString` keys).
final class ConstantString: NSString {
    private let text: String
    private let units: [unichar]

    required init(string text: String) {
        self.text = text
        units = Array(text.utf16)
        super.init(characters: units, length: units.count)
    }

    required convenience init(stringLiteral value: StaticString) { self.init(string: value.description) }
    required convenience init(unicodeScalarLiteral value: StaticString) { self.init(string: value.description) }
    required convenience init(extendedGraphemeClusterLiteral value: StaticString) { self.init(string: value.description) }
    required init?(coder: NSCoder) { return nil }
    required init(itemProviderData data: Data, typeIdentifier: String) throws {
        throw CocoaError(.coderReadCorrupt)
    }

    override var length: Int { units.count }
    override func character(at index: Int) -> unichar { units[index] }
}

extension ConstantString: _HasCustomAnyHashableRepresentation {
    func _toCustomAnyHashable() -> AnyHashable? { AnyHashable(text) }
}
