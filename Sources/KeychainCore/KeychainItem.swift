package import FoundationEssentials
import Glibc

/// One stored item: its class, its attributes and, when loaded, its secret.
public struct KeychainItem: Sendable, CustomStringConvertible {
    /// Generic or internet password.
    public var itemClass: ItemClass
    /// Its attributes, the primary-key ones included.
    public var attributes: ItemAttributes
    /// The secret. Backends leave it nil in search results unless the query asked for it.
    public var secret: SecretBytes?

    /// An item of `itemClass` with `attributes` and, when given, its secret.
    public init(itemClass: ItemClass, attributes: ItemAttributes, secret: SecretBytes? = nil) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
    }

    /// The identity that makes two items duplicates.
    public var primaryKey: PrimaryKey { PrimaryKey(itemClass: itemClass, attributes: attributes) }

    /// Never shows the secret.
    public var description: String {
        "KeychainItem(\(itemClass), \(primaryKey.readableName), secret: \(secret == nil ? "not loaded" : "redacted"))"
    }
}

/// The identity of an item: its class plus the values of its class's primary-key attributes.
///
/// A missing string counts as the empty string and a missing flag as false, as on Apple
/// platforms, so an item added without an account and one added with `""` are duplicates.
public struct PrimaryKey: Hashable, Sendable, Comparable {
    /// The class the key belongs to: items of different classes are never duplicates.
    public let itemClass: ItemClass
    /// The primary-key attributes in `itemClass.primaryKeyAttributes` order, normalized.
    public let components: [AttributeValue]

    /// The primary key of an item of `itemClass` with `attributes`; other attributes are ignored.
    public init(itemClass: ItemClass, attributes: ItemAttributes) {
        self.itemClass = itemClass
        self.components = itemClass.primaryKeyAttributes.map { key in
            PrimaryKey.normalized(attributes[key], kind: key.valueKind)
        }
    }

    /// A key from values already in `itemClass.primaryKeyAttributes` order, none missing.
    init(itemClass: ItemClass, components: [AttributeValue]) {
        self.itemClass = itemClass
        self.components = components
    }

    private static func normalized(_ value: AttributeValue?, kind: AttributeValue.Kind) -> AttributeValue {
        value ?? .missingPrimaryKeyValue(of: kind)
    }

    /// An unambiguous byte encoding: each component is length-prefixed, so no choice of
    /// names (`a:b` + `c` versus `a` + `b:c`) can make two keys encode alike.
    package var encoded: Data {
        var out = Data(itemClass.rawValue.utf8)
        for component in components {
            let bytes = Data(component.encoded.utf8)
            out.append(contentsOf: "\(bytes.count):".utf8)
            out.append(bytes)
        }
        return out
    }

    /// Decodes what `encoded` produced, or returns nil for anything else.
    package init?(encoded data: Data) {
        guard data.count >= 4, let itemClass = ItemClass(rawValue: String(decoding: data.prefix(4), as: UTF8.self)) else {
            return nil
        }
        var rest = data.dropFirst(4)
        var components: [AttributeValue] = []
        for key in itemClass.primaryKeyAttributes {
            guard let colon = rest.firstIndex(of: UInt8(ascii: ":")), colon - rest.startIndex <= 10,
                  let length = Int(String(decoding: rest[rest.startIndex..<colon], as: UTF8.self)),
                  length >= 0, rest.endIndex - (colon + 1) >= length else { return nil }
            let body = rest[(colon + 1)..<(colon + 1 + length)]
            guard let text = String(data: Data(body), encoding: .utf8),
                  let value = AttributeValue(encoded: text, kind: key.valueKind) else { return nil }
            components.append(value)
            rest = rest[(colon + 1 + length)...]
        }
        guard rest.isEmpty else { return nil }
        self.itemClass = itemClass
        self.components = components
    }

    /// The primary key as attributes, for building a query that finds exactly this item.
    public var attributes: ItemAttributes {
        var attributes = ItemAttributes()
        for (key, value) in zip(itemClass.primaryKeyAttributes, components) { attributes[key] = value }
        return attributes
    }

    /// Service and account (or server) for messages; these are names, never secrets.
    public var readableName: String {
        let attributes = self.attributes
        switch itemClass {
        case .genericPassword:
            return "service '\(attributes.string(.service) ?? "")', account '\(attributes.string(.account) ?? "")'"
        case .internetPassword:
            return "server '\(attributes.string(.server) ?? "")', account '\(attributes.string(.account) ?? "")'"
        case .key:
            // A tag is a name; a label is the public key's hash. Neither is secret.
            return "key tag '\(attributes[.applicationTag]?.readableData ?? "")', label \(attributes[.applicationLabel]?.readableData ?? "")"
        case .certificate:
            return "certificate serial \(attributes[.serialNumber]?.hexData ?? "")"
        }
    }



    /// Orders keys by their `encoded` bytes: a total order, stable across processes.
    public static func < (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool {
        lhs.encoded.lexicographicallyPrecedes(rhs.encoded)
    }
}

extension AttributeValue {
    /// What `PrimaryKey` fills in for a missing attribute of `kind`: empty, zero or false.
    public static func missingPrimaryKeyValue(of kind: Kind) -> AttributeValue {
        switch kind {
        case .string: return .string("")
        case .data: return .data(Data())
        case .integer: return .integer(0)
        case .bool: return .bool(false)
        case .date: return .date(Date(timeIntervalSince1970: 0))
        }
    }

    /// Whether this equals what `PrimaryKey` fills in for a missing attribute, so that a
    /// store's naming scheme can leave it out without two keys colliding.
    public var isMissingPrimaryKeyValue: Bool {
        // Case by case, as `==` against `missingPrimaryKeyValue(of:)` would answer, without
        // building that value: every key name a backend writes asks this of each component.
        switch self {
        case .string(let text): return text.utf8.isEmpty
        case .data(let data): return data.isEmpty
        case .integer(let number): return number == 0
        case .bool(let flag): return !flag
        case .date(let date): return date == Date(timeIntervalSince1970: 0)
        }
    }
}

extension AttributeValue {
    /// Data as its text when it is UTF-8 on one line, else as hex, for messages and listings
    /// of names (a key's tag or label); nil for a value that is not data.
    package var readableData: String? {
        guard case .data(let data) = self else { return nil }
        if let text = String(validating: data, as: UTF8.self), !text.contains(where: \.isNewline) { return text }
        return hexData
    }

    /// Data as lowercase hex; nil for a value that is not data.
    package var hexData: String? {
        guard case .data(let data) = self else { return nil }
        let digits = Array("0123456789abcdef")
        return String(data.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
