import FoundationEssentials
import Glibc
import KeychainCore

/// Where each item lives in the KV mount: a readable path under the prefix, one subtree per
/// item class, one folder per service (or server, or key tag), one entry per account (or key
/// label).
///
///     <prefix>/generic/<service>/<account>[;<qualifier>=<value>...]
///     <prefix>/internet/<server>/<account>[;<qualifier>=<value>...]
///     <prefix>/keys/<tag>/<label>[;<qualifier>=<value>...]
///     <prefix>/certificates/<issuer>/<serial number>[;<qualifier>=<value>...]
///
/// A tag or label is written as its text when it is UTF-8 (`AttributeValue.nameText`).///
/// The qualifiers are the class's other primary-key attributes, only those that differ from
/// their defaults, in a fixed order (`;access_group=team`, `;port=8443`, ...), so an ordinary
/// item's path is just `generic/<service>/<account>` and every primary key has exactly one
/// path. Every name is encoded by `VaultPathSegment`, which leaves no `/`, `;`, `=` or
/// dot-only segment in it: no two primary keys share a path and no name leaves its folder.
struct VaultItemLayout: Sendable {
    /// The folder all items live under, without leading or trailing slashes.
    let prefix: String

    /// The attribute that names an item's folder within its class.
    static func groupAttribute(of itemClass: ItemClass) -> AttributeKey {
        itemClass.nameAttributes.group
    }

    /// The attribute that begins the leaf: the account, or a key's label.
    static func leafAttribute(of itemClass: ItemClass) -> AttributeKey {
        itemClass.nameAttributes.name
    }

    /// The path component of each class's subtree.
    static func classFolderName(_ itemClass: ItemClass) -> String {
        switch itemClass {
        case .genericPassword: return "generic"
        case .internetPassword: return "internet"
        case .key: return "keys"
        case .certificate: return "certificates"
        }
    }

    /// The attributes written as leaf qualifiers: the primary key minus the folder and leaf names.
    static func qualifierAttributes(of itemClass: ItemClass) -> [AttributeKey] {
        itemClass.primaryKeyAttributes.filter { $0 != groupAttribute(of: itemClass) && $0 != leafAttribute(of: itemClass) }
    }

    /// The folder holding one class's group folders.
    func classFolder(_ itemClass: ItemClass) -> String {
        "\(prefix)/\(Self.classFolderName(itemClass))"
    }

    /// The one path of the item with `key`.
    func path(of key: PrimaryKey) -> String {
        let attributes = key.attributes
        let group = attributes[Self.groupAttribute(of: key.itemClass)]?.nameText ?? ""
        var leaf = VaultPathSegment.encode(attributes[Self.leafAttribute(of: key.itemClass)]?.nameText ?? "")
        for qualifier in Self.qualifierAttributes(of: key.itemClass) {
            guard let value = attributes[qualifier], !value.isMissingPrimaryKeyValue else { continue }
            leaf += ";\(VaultItemFields.fieldName(qualifier))=\(VaultPathSegment.encode(value.encoded))"
        }
        return "\(classFolder(key.itemClass))/\(VaultPathSegment.encode(group))/\(leaf)"
    }

    /// The primary key named by a group folder entry and a leaf entry of a listing, or nil
    /// when the names are not exactly what this layout writes for that key.
    func primaryKey(_ itemClass: ItemClass, groupSegment: String, leaf: String) -> PrimaryKey? {
        guard let group = VaultPathSegment.decode(groupSegment) else { return nil }
        let parts = leaf.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard let account = VaultPathSegment.decode(parts[0]) else { return nil }
        let (groupKey, leafKey) = (Self.groupAttribute(of: itemClass), Self.leafAttribute(of: itemClass))
        var attributes = ItemAttributes([groupKey: AttributeValue(nameText: group, kind: groupKey.valueKind),
                                         leafKey: AttributeValue(nameText: account, kind: leafKey.valueKind)])
        var allowed = Self.qualifierAttributes(of: itemClass)[...]
        for qualifier in parts.dropFirst() {
            guard let equals = qualifier.firstIndex(of: "=") else { return nil }
            let name = String(qualifier[..<equals])
            // Qualifiers come in the fixed order, each at most once.
            guard let position = allowed.firstIndex(where: { VaultItemFields.fieldName($0) == name }),
                  let text = VaultPathSegment.decode(String(qualifier[qualifier.index(after: equals)...])),
                  let value = AttributeValue(encoded: text, kind: allowed[position].valueKind) else { return nil }
            attributes[allowed[position]] = value
            allowed = allowed[(position + 1)...]
        }
        // Only the one path `path(of:)` gives a key is accepted (no default written out), so
        // two entries never name one item.
        let key = PrimaryKey(itemClass: itemClass, attributes: attributes)
        guard path(of: key) == "\(classFolder(itemClass))/\(groupSegment)/\(leaf)" else { return nil }
        return key
    }
}

/// The encoding of one name as one path segment.
///
/// Letters, digits and `- _ . @ : , ~` stay as they are, so ordinary names read plainly.
/// Every other byte of the name's exact UTF-8 becomes `%XX`: names compare as exact Unicode
/// scalars, so `café` composed (NFC) and decomposed (NFD) are two names with two paths. A
/// name made only of dots has its dots encoded too (`..` becomes `%2E%2E`), and the empty name
/// is written `%empty`, which no other name encodes to.
enum VaultPathSegment {
    static let emptyName = "%empty"

    static func encode(_ name: String) -> String {
        if name.isEmpty { return emptyName }
        let onlyDots = name.utf8.allSatisfy { $0 == UInt8(ascii: ".") }
        var encoded = ""
        for byte in name.utf8 {
            if !onlyDots && isKeptAsIs(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    /// The name a segment encodes, or nil when `encode` would not have written it: a malformed
    /// escape, bytes that are not UTF-8, or a character left raw that should be escaped. Only
    /// canonical segments are accepted, so a name has one path and a listing that shows an
    /// entry always finds it again by name; an operator writing items by hand uses the same
    /// encoding (`my%20app`, not `my app`).
    static func decode(_ segment: String) -> String? {
        guard let name = decodeEscapes(segment), encode(name).utf8.elementsEqual(segment.utf8) else { return nil }
        return name
    }

    private static func decodeEscapes(_ segment: String) -> String? {
        if segment == emptyName { return "" }
        var bytes: [UInt8] = []
        var utf8 = segment.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.popFirst().flatMap(hexDigit), let low = utf8.popFirst().flatMap(hexDigit) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isKeptAsIs(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: ":"),
             UInt8(ascii: ","), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
