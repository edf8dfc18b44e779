package import FoundationEssentials
import Glibc

/// Apple's "blob" attributes (account, service, label, generic, ...) accept a String or a Data
/// and compare the two by their UTF-8 bytes; here each attribute keeps its one storage kind
/// (`AttributeKey.valueKind`), the other type is converted on the way in (`storedText(of:)`),
/// and `AttributeKey.valueTypes` records which attributes to turn back on the way out. Why:
/// the "Storing attributes" article of KeychainCore's documentation.
package enum ValueTypes: Sendable {
    /// Bytes that are not UTF-8 (or are UTF-8 beginning with this noncharacter) are kept as
    /// this noncharacter followed by their base64, so every Data value round-trips. Only a
    /// String value that itself begins with U+FDD0 could then match a Data value it differs from.
    /// (Swift refuses a noncharacter in a literal, hence the scalar; U+FDD0 is a valid one.)
    static let notTextMarker = Character(Unicode.Scalar(UInt32(0xFDD0)) ?? "\u{FFFD}")

    /// The text that stands for `data` in a string attribute.
    ///
    /// Bytes with a NUL are kept in the base64 form too: stores whose attributes are C strings
    /// (the Secret Service's) would cut them at the NUL, so that the item could not be found by
    /// its own value and would collide with the shorter one. A String with a NUL then no longer
    /// matches the same bytes given as Data.
    package static func storedText(of data: Data) -> String {
        if !data.contains(0), let text = String(validating: data, as: UTF8.self), !text.hasPrefix(String(notTextMarker)) {
            return text
        }
        return String(notTextMarker) + data.base64EncodedString()
    }

    /// The bytes a string attribute's stored text stands for; the inverse of `storedText(of:)`.
    package static func data(ofStoredText text: String) -> Data {
        if text.first == notTextMarker, let bytes = Data(base64Encoded: String(text.dropFirst())) {
            return bytes
        }
        return Data(text.utf8)
    }
}

extension AttributeKey {
    /// Whether Apple accepts both a String and a Data for this attribute (its blob attributes).
    package var acceptsStringOrData: Bool {
        switch self {
        case .service, .account, .server, .path, .authenticationType, .securityDomain,
             .label, .itemDescription, .comment, .generic, .applicationTag, .applicationLabel:
            return true
        default:
            return false
        }
    }
}

extension ItemAttributes {
    /// The attributes whose value the caller gave as the other type Apple accepts for them.
    package var keysGivenAsOtherType: Set<AttributeKey> {
        get {
            guard let list = string(.valueTypes) else { return [] }
            return Set(list.split(separator: ",").compactMap { AttributeKey(rawValue: String($0)) })
        }
        set {
            let names = newValue.filter(\.acceptsStringOrData).map(\.rawValue).sorted()
            self[.valueTypes] = names.isEmpty ? nil : .string(names.joined(separator: ","))
        }
    }
}

extension AttributeValue {
    /// A name attribute's value (`ItemClass.nameAttributes`) as the text a store writes in an
    /// item's name: a string as it is, data (a key's tag or label) as `ValueTypes.storedText`,
    /// readable when it is UTF-8. Nil for other kinds, which are never names.
    package var nameText: String? {
        switch self {
        case .string(let text): return text
        case .data(let data): return ValueTypes.storedText(of: data)
        default: return nil
        }
    }

    /// The value of a name attribute of `kind` written as `text`; the inverse of `nameText`.
    package init(nameText text: String, kind: Kind) {
        self = kind == .data ? .data(ValueTypes.data(ofStoredText: text)) : .string(text)
    }
}
