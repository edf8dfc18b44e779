public import FoundationEssentials
import Glibc

/// The item classes stored: the two that hold passwords, keys (`kSecClassKey`), whose secret
/// is the key's external representation, and certificates (`kSecClassCertificate`), whose
/// secret is the DER. Identities are not stored: they are a certificate and its private key.
///
/// The raw values are Apple's (`kSecClassGenericPassword` is `"genp"`), so they can be stored
/// and compared as Apple stores them.
public enum ItemClass: String, CaseIterable, Hashable, Sendable {
    case genericPassword = "genp"
    case internetPassword = "inet"
    case key = "keys"
    case certificate = "cert"

    /// The attributes that together identify an item of this class, as Apple defines them.
    /// Two items with equal values for all of them are duplicates.
    public var primaryKeyAttributes: [AttributeKey] {
        switch self {
        case .genericPassword: return Self.genericPasswordKey
        case .internetPassword: return Self.internetPasswordKey
        case .key: return Self.keyKey
        case .certificate: return Self.certificateKey
        }
    }

    /// The two attributes that name an item of this class to a person, in the order stores
    /// write them (service and account, server and account, tag and label); each is also in
    /// `primaryKeyAttributes`.
    public var nameAttributes: (group: AttributeKey, name: AttributeKey) {
        switch self {
        case .genericPassword: return (.service, .account)
        case .internetPassword: return (.server, .account)
        case .key: return (.applicationTag, .applicationLabel)
        case .certificate: return (.issuer, .serialNumber)
        }
    }

    /// The class's name in the CLI's output: `generic`, `internet` or `key`.
    package var displayName: String {
        switch self {
        case .genericPassword: return "generic"
        case .internetPassword: return "internet"
        case .key: return "key"
        case .certificate: return "certificate"
        }
    }

    /// Whether the class holds passwords, which other programs (Python's `keyring`,
    /// `secret-tool`) also write; keys and certificates are only ever written by this library.
    public var holdsPasswords: Bool { self == .genericPassword || self == .internetPassword }

    // Stored once: every search and every primary key reads them, and a literal would
    // allocate a new array on each read.
    private static let genericPasswordKey: [AttributeKey] = [.accessGroup, .service, .account, .synchronizable]
    private static let internetPasswordKey: [AttributeKey] = [
        .accessGroup, .account, .server, .protocol, .port, .path, .authenticationType, .securityDomain, .synchronizable,
    ]
    // Apple's primary key of kSecClassKey, less the start and end dates, which are not stored.
    private static let keyKey: [AttributeKey] = [
        .accessGroup, .keyClass, .applicationLabel, .applicationTag, .type, .keySizeInBits, .effectiveKeySize,
        .creator, .synchronizable,
    ]
    private static let certificateKey: [AttributeKey] = [.accessGroup, .certificateType, .issuer, .serialNumber, .synchronizable]
}

/// One attribute an item can carry. Raw values are the strings behind Apple's `kSecAttr*`
/// constants, so they double as stable names in every backend's storage format.
public enum AttributeKey: String, CaseIterable, Hashable, Sendable, Comparable {
    case accessGroup = "agrp"
    case service = "svce"
    case account = "acct"
    case server = "srvr"
    case `protocol` = "ptcl"
    case port = "port"
    case path = "path"
    case authenticationType = "atyp"
    case securityDomain = "sdmn"
    case label = "labl"
    case itemDescription = "desc"
    case comment = "icmt"
    case generic = "gena"
    case creator = "crtr"
    case type = "type"
    case accessible = "pdmn"
    case synchronizable = "sync"
    case isInvisible = "invi"
    case isNegative = "nega"
    case creationDate = "cdat"
    case modificationDate = "mdat"
    /// `kSecAttrKeyClass`: 0 public, 1 private, 2 symmetric (Apple's numbers).
    case keyClass = "kcls"
    /// `kSecAttrApplicationLabel`: for a key pair, the SHA-1 of the public key.
    case applicationLabel = "klbl"
    /// `kSecAttrApplicationTag`: the name a program gives its key.
    case applicationTag = "atag"
    /// `kSecAttrKeySizeInBits`.
    case keySizeInBits = "bsiz"
    /// `kSecAttrEffectiveKeySize`.
    case effectiveKeySize = "esiz"
    /// `kSecAttrCertificateType`: the X.509 version (3 for v3), as Apple's CSSM numbers it.
    case certificateType = "ctyp"
    /// `kSecAttrCertificateEncoding`: 3, DER.
    case certificateEncoding = "cenc"
    /// `kSecAttrIssuer`: the issuer's DER (its whole Name sequence, as in the certificate).
    case issuer = "issr"
    /// `kSecAttrSerialNumber`: the serial number's DER content bytes.
    case serialNumber = "slnr"
    /// `kSecAttrSubject`: the subject's DER.
    case subject = "subj"
    /// `kSecAttrPublicKeyHash`: the SHA-1 of the public key, equal to its private key's
    /// `kSecAttrApplicationLabel`; it pairs a certificate with its key into an identity.
    case publicKeyHash = "pkhh"
    /// Not Apple's: which attributes the caller gave as the other type Apple accepts for them
    /// (a Data account, a String label), so that they come back as given. A backend stores it
    /// like any other string attribute (<doc:StoringAttributes>).
    case valueTypes = "lk-value-types"

    /// The kind of value this attribute holds.
    public var valueKind: AttributeValue.Kind {
        switch self {
        case .port, .creator, .type, .keyClass, .keySizeInBits, .effectiveKeySize, .certificateType, .certificateEncoding:
            return .integer
        case .generic, .applicationLabel, .applicationTag, .issuer, .serialNumber, .subject, .publicKeyHash: return .data
        case .synchronizable, .isInvisible, .isNegative: return .bool
        case .creationDate, .modificationDate: return .date
        default: return .string
        }
    }

    /// The attributes a caller cannot set, because the library maintains them.
    public var isMaintainedByLibrary: Bool {
        self == .creationDate || self == .modificationDate
    }

    /// Orders keys by their Apple names, for stable output.
    public static func < (lhs: AttributeKey, rhs: AttributeKey) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Hashes the case, not the raw value as a `RawRepresentable` would by default: every
    /// search looks attributes up by key several times, and hashing their strings cost more than
    /// the rest of a lookup in memory. A case without a payload is stored as its tag alone, so
    /// equal keys have equal bytes.
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: self) { hasher.combine(bytes: $0) }
    }
}

/// A typed attribute value.
///
/// Strings compare and hash as their exact Unicode scalars, as Apple's Keychain,
/// gnome-keyring and the kernel compare names (as bytes): `café` composed (NFC) and
/// decomposed (NFD) are two values, so two items, on every backend. Swift's own `String`
/// equality, which treats canonically equivalent spellings as equal, is not used here.
public enum AttributeValue: Hashable, Sendable {
    case string(String)
    case data(Data)
    case integer(Int64)
    case bool(Bool)
    case date(Date)

    /// The kinds of value an attribute can hold.
    public enum Kind: Sendable { case string, data, integer, bool, date }

    /// The kind of this value.
    public var kind: Kind {
        switch self {
        case .string: return .string
        case .data: return .data
        case .integer: return .integer
        case .bool: return .bool
        case .date: return .date
        }
    }

    /// A lossless text form, for backends whose storage holds only strings.
    /// Dates keep sub-second precision; data is base64.
    public var encoded: String {
        switch self {
        case .string(let text): return text
        case .data(let data): return data.base64EncodedString()
        case .integer(let number): return String(number)
        case .bool(let flag): return flag ? "1" : "0"
        case .date(let date): return String(date.timeIntervalSince1970)
        }
    }

    /// The stored field `text` of the attribute `key`, as `ItemAttributes(encodedFields:)`
    /// reads each field: `errSecDecode` when it is not of the key's kind.
    package init(storedField text: String, of key: AttributeKey) throws {
        guard let value = AttributeValue(encoded: text, kind: key.valueKind) else {
            throw KeychainError(errSecDecode, "The stored attribute '\(key.rawValue)' is malformed.")
        }
        self = value
    }

    /// Parses what `encoded` produced, or returns nil for text that is not of `kind`.
    public init?(encoded text: String, kind: Kind) {
        switch kind {
        case .string: self = .string(text)
        case .data:
            guard let data = Data(base64Encoded: text) else { return nil }
            self = .data(data)
        case .integer:
            guard let number = Int64(text) else { return nil }
            self = .integer(number)
        case .bool:
            switch text {
            case "1", "true": self = .bool(true)
            case "0", "false": self = .bool(false)
            default: return nil
            }
        case .date:
            guard let seconds = Double(text), seconds.isFinite else { return nil }
            self = .date(Date(timeIntervalSince1970: seconds))
        }
    }
}

/// The attributes of an item, or the constraints of a query: a map from key to typed value.
///
/// Values are checked against `AttributeKey.valueKind` when set through the front end, so a
/// backend may rely on `.port` being an integer, `.generic` being data, and so on.
public struct ItemAttributes: Hashable, Sendable, Sequence {
    /// The attributes, by key.
    public private(set) var values: [AttributeKey: AttributeValue]

    /// Attributes with these `values`.
    public init(_ values: [AttributeKey: AttributeValue] = [:]) {
        self.values = values
    }

    /// The value of `key`, or nil when absent; setting nil removes it.
    public subscript(key: AttributeKey) -> AttributeValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Whether there are no attributes.
    public var isEmpty: Bool { values.isEmpty }

    /// Iterates the (key, value) pairs in no particular order.
    public func makeIterator() -> Dictionary<AttributeKey, AttributeValue>.Iterator { values.makeIterator() }

    /// The string value of `key`, if it holds one.
    public func string(_ key: AttributeKey) -> String? {
        if case .string(let text)? = values[key] { return text }
        return nil
    }

    /// The boolean value of `key`; an absent flag is false, as on Apple platforms.
    public func flag(_ key: AttributeKey) -> Bool {
        if case .bool(let flag)? = values[key] { return flag }
        return false
    }

    /// These attributes with every key of `changes` overwritten. Each attribute `changes` sets
    /// takes its given type from `changes` too (`AttributeKey.valueTypes`).
    public func merging(_ changes: ItemAttributes) -> ItemAttributes {
        var merged = ItemAttributes(values.merging(changes.values) { _, new in new })
        // Nearly every item has no record of value types; then there is nothing to reconcile.
        guard values[.valueTypes] != nil || changes.values[.valueTypes] != nil else { return merged }
        let changedKeys = Set(changes.values.keys)
        let keptSwaps = keysGivenAsOtherType.subtracting(changedKeys)
        merged.keysGivenAsOtherType = keptSwaps.union(changes.keysGivenAsOtherType)
        return merged
    }

    /// Every attribute as lossless text, keyed by the Apple attribute name, for string-only stores.
    public var encodedFields: [String: String] {
        Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value.encoded) })
    }

    /// Rebuilds attributes from `encodedFields`. Unknown names are ignored, so that data written
    /// by a newer version still reads; a known name with a malformed value is an error.
    public init(encodedFields fields: [String: String]) throws {
        var values: [AttributeKey: AttributeValue] = [:]
        for (name, text) in fields {
            guard let key = AttributeKey(rawValue: name) else { continue }
            values[key] = try AttributeValue(storedField: text, of: key)
        }
        self.init(values)
    }
}

extension AttributeValue {
    /// Equal when of the same kind and value; strings compare as exact Unicode scalars (NFC and
    /// NFD spellings differ).
    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)): return left.hasSameScalars(as: right)
        case (.data(let left), .data(let right)): return left == right
        case (.integer(let left), .integer(let right)): return left == right
        case (.bool(let left), .bool(let right)): return left == right
        case (.date(let left), .date(let right)): return left == right
        default: return false
        }
    }

    /// Values of different kinds are never equal, so the kind need not be hashed.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(var text): text.withUTF8 { hasher.combine($0.count); hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .data(let data): hasher.combine(data)
        case .integer(let number): hasher.combine(number)
        case .bool(let flag): hasher.combine(flag)
        case .date(let date): hasher.combine(date)
        }
    }
}

extension String {
    /// Whether both strings are the same sequence of Unicode scalars (the same UTF-8 bytes),
    /// unlike `==`, which also equates canonically equivalent spellings.
    package func hasSameScalars(as other: String) -> Bool {
        // Compared as contiguous bytes: stepping through two `UTF8View`s costs more than the
        // rest of a query's matching. `withUTF8` copies only a string that is not contiguous.
        var left = self, right = other
        return left.withUTF8 { leftBytes in
            right.withUTF8 { rightBytes in leftBytes.count == rightBytes.count && leftBytes.elementsEqual(rightBytes) }
        }
    }
}
