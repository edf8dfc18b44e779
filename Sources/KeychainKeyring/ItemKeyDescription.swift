import FoundationEssentials
import Glibc
import KeychainCore

/// The kernel key description that names an item: readable in `keyctl show`, typed by hand
/// in `keyctl search`, and different for every primary key.
///
/// The form is `linux-keychain:genp:SERVICE:ACCOUNT` for a generic password and `linux-keychain:inet:SERVER:ACCOUNT`
/// for an internet password, `linux-keychain:keys:TAG:LABEL` for a key and `linux-keychain:cert:ISSUER:SERIAL` for a
/// certificate (data as its text when UTF-8, else U+FDD0 and base64, as `ValueTypes` writes it), followed by `:TAG=VALUE` for each other primary-key attribute that is not empty, zero or
/// false, in a fixed order, tagged with Apple's attribute name (`agrp`, `ptcl`, `port`, `path`, `atyp`, `sdmn`,
/// `sync`). Inside a value, `%`, `:` and control characters are percent-encoded (`a:b` becomes `a%3Ab`), so a raw `:`
/// only ever separates fields and no two primary keys share a description. Everything else, non-ASCII letters included,
/// stays as it is, for readability.
struct ItemKeyDescription: Hashable, Sendable {
    static let prefix = "linux-keychain"
    /// The kernel's limit on a key description, in bytes (`KEY_MAX_DESC_SIZE` - 1).
    static let maximumLength = 4095

    let text: String
    let primaryKey: PrimaryKey

    /// The description of `primaryKey`; throws `errSecParam` when it exceeds the kernel's limit.
    init(_ primaryKey: PrimaryKey) throws {
        let text = Self.encode(primaryKey)
        guard text.utf8.count <= Self.maximumLength else {
            throw KeychainError.keyring(errSecParam,
                "The names of the item with \(primaryKey.readableName) take \(text.utf8.count) bytes as a kernel key description; the kernel allows \(Self.maximumLength). Use shorter names.")
        }
        self.text = text
        self.primaryKey = primaryKey
    }

    /// Parses a description this type wrote, or returns nil for any other text, including
    /// non-canonical spellings that would let one item go by two names.
    init?(parsing text: String) {
        let fields = Self.fields(of: text)
        guard fields.count >= 4, fields[0] == Self.prefix, let itemClass = ItemClass(rawValue: String(fields[1])) else {
            return nil
        }
        let positional = Self.positionalKeys(itemClass)
        var attributes = ItemAttributes()
        for (key, field) in zip(positional, fields[2...3]) {
            guard let value = Self.unescape(field) else { return nil }
            attributes[key] = AttributeValue(nameText: value, kind: key.valueKind)
        }
        for field in fields.dropFirst(4) {
            guard let equals = field.utf8.firstIndex(of: UInt8(ascii: "=")),
                  let key = AttributeKey(rawValue: String(Substring(field.utf8[..<equals]))),
                  itemClass.primaryKeyAttributes.contains(key), !positional.contains(key),
                  let text = Self.unescape(Substring(field.utf8[field.utf8.index(after: equals)...])),
                  let value = AttributeValue(encoded: text, kind: key.valueKind) else { return nil }
            attributes[key] = value
        }
        let primaryKey = PrimaryKey(itemClass: itemClass, attributes: attributes)
        guard Self.encode(primaryKey).utf8.elementsEqual(text.utf8) else { return nil }
        self.text = text
        self.primaryKey = primaryKey
    }

    /// The text that begins the description of every item `query` can match: the prefix and
    /// class, then the service (or server) and account as far as the query gives them. A
    /// listing skips keys without it before parsing their descriptions.
    static func leadingText(ofMatchesOf query: ItemQuery) -> String {
        var text = "\(prefix):\(query.itemClass.rawValue):"
        let positional = positionalKeys(query.itemClass)
        guard let first = query.constraints[positional[0]].flatMap(\.nameText) else { return text }
        text += escape(first) + ":"
        guard let second = query.constraints[positional[1]].flatMap(\.nameText) else { return text }
        return text + escape(second)
    }


    /// Whether the description of a password names any primary-key attribute beyond service
    /// (or server) and account: an access group, the synchronizable flag, or for internet
    /// passwords a protocol, port, path, authentication type or security domain. See
    /// `TaggedItemsMarker`. Keys and certificates are never looked up as untagged items
    /// (`ItemQuery.untaggedPrimaryKey`), so they do not count: storing one keeps the fast lookup
    /// of passwords.
    var isTagged: Bool {
        // A raw ':' only ever separates fields, and the four first are prefix, class and the two names.
        primaryKey.itemClass.holdsPasswords && Self.fields(of: text).count > 4
    }

    /// The fields between raw `:` bytes. Split by bytes, not by `Character`: a name that
    /// begins with a combining mark forms one `Character` with the `:` before it.
    private static func fields(of text: String) -> [Substring] {
        text.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// The attributes written bare, in this order, right after the class.
    static func positionalKeys(_ itemClass: ItemClass) -> [AttributeKey] {
        switch itemClass {
        case .genericPassword: return genericPasswordPositionalKeys
        case .internetPassword: return internetPasswordPositionalKeys
        case .key: return keyPositionalKeys
        case .certificate: return certificatePositionalKeys
        }
    }

    // Stored once: every lookup by name reads them, and a literal would allocate each time.
    private static let genericPasswordPositionalKeys: [AttributeKey] = [.service, .account]
    private static let internetPasswordPositionalKeys: [AttributeKey] = [.server, .account]
    private static let keyPositionalKeys: [AttributeKey] = [.applicationTag, .applicationLabel]
    private static let certificatePositionalKeys: [AttributeKey] = [.issuer, .serialNumber]

    /// Built as bytes in one buffer rather than from strings joined: every lookup by name pays for it.
    private static func encode(_ primaryKey: PrimaryKey) -> String {
        let itemClass = primaryKey.itemClass
        let keys = itemClass.primaryKeyAttributes
        let positional = positionalKeys(itemClass)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        bytes.append(contentsOf: prefix.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: itemClass.rawValue.utf8)
        for key in positional {
            bytes.append(UInt8(ascii: ":"))
            if let index = keys.firstIndex(of: key), let text = primaryKey.components[index].nameText {
                appendEscaped(text, to: &bytes)
            }
        }
        for (key, value) in zip(keys, primaryKey.components) where !positional.contains(key) {
            guard !value.isMissingPrimaryKeyValue else { continue }
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: key.rawValue.utf8)
            bytes.append(UInt8(ascii: "="))
            appendEscaped(value.encoded, to: &bytes)
        }
        // Only ASCII bytes were replaced by ASCII, so the bytes are still valid UTF-8.
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "%") || byte == UInt8(ascii: ":") || byte < 0x20 || byte == 0x7F
    }

    private static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: needsEscape) else { return text }
        var bytes: [UInt8] = []
        appendEscaped(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 of `text` with `%`, `:` and control characters written `%XX`.
    private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            for byte in utf8 {
                guard needsEscape(byte) else {
                    bytes.append(byte)
                    continue
                }
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func unescape(_ field: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = field.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
