import FoundationEssentials
import Glibc
import KeychainCore

/// How keychain items are written as Secret Service items, and read back.
///
/// - `kSecAttrService` is `service` and `kSecAttrAccount` is `username`, as Python's `keyring`,
///   go-keyring and Rust's `keyring` crate write them; internet passwords use the names of
///   libsecret's network schema (`user`, `server`, `protocol`, `port`, `object`, `authtype`,
///   `domain`), so other programs find what this library stores and the other way round.
/// - `kSecAttrLabel` is the item's label, the name Seahorse shows. An item added without one,
///   or with an empty one (which KWallet refuses), gets a readable label, marked so that
///   reading it back reports no label, as an empty label reads back on every provider.
/// - Every other attribute is an extra attribute `keychain:NAME`, stored losslessly as text.
/// - Our items carry `xdg:schema` = `SecretServiceAttributeMapping.schemaName(for:)`, which is
///   how a class-wide query keeps its hands off everyone else's items.
enum SecretServiceAttributeMapping {
    static let schemaAttribute = "xdg:schema"
    /// Present on our items whose label this library made up because none was given.
    static let defaultLabelMarker = "keychain:default-label"
    /// Where `kSecAttrModificationDate` is kept, in items of either class.
    static let modificationDateAttribute = "keychain:modified"

    static func schemaName(for itemClass: ItemClass) -> String {
        switch itemClass {
        case .genericPassword: return "org.linuxkeychain.GenericPassword"
        case .internetPassword: return "org.linuxkeychain.InternetPassword"
        case .key: return "org.linuxkeychain.Key"
        case .certificate: return "org.linuxkeychain.Certificate"
        }
    }

    /// The Secret Service attribute that holds `key` in items of `itemClass`; nil for the label,
    /// which is the item label instead.
    static func attributeName(_ key: AttributeKey, in itemClass: ItemClass) -> String? {
        if let shared = sharedName(key, in: itemClass) { return shared }
        switch key {
        case .label: return nil
        case .accessGroup: return "keychain:access-group"
        case .service: return "keychain:service"
        case .account: return "keychain:account"
        case .server: return "keychain:server"
        case .protocol: return "keychain:protocol"
        case .port: return "keychain:port"
        case .path: return "keychain:path"
        case .authenticationType: return "keychain:authentication-type"
        case .securityDomain: return "keychain:security-domain"
        case .itemDescription: return "keychain:description"
        case .comment: return "keychain:comment"
        case .generic: return "keychain:generic"
        case .creator: return "keychain:creator"
        case .type: return "keychain:type"
        case .accessible: return "keychain:accessible"
        case .synchronizable: return "keychain:synchronizable"
        case .isInvisible: return "keychain:invisible"
        case .isNegative: return "keychain:negative"
        case .creationDate: return "keychain:created"
        case .modificationDate: return modificationDateAttribute
        case .valueTypes: return "keychain:value-types"
        case .keyClass: return "keychain:key-class"
        case .applicationLabel: return "keychain:application-label"
        case .applicationTag: return "keychain:application-tag"
        case .keySizeInBits: return "keychain:key-size"
        case .effectiveKeySize: return "keychain:effective-key-size"
        case .certificateType: return "keychain:certificate-type"
        case .certificateEncoding: return "keychain:certificate-encoding"
        case .issuer: return "keychain:issuer"
        case .serialNumber: return "keychain:serial-number"
        case .subject: return "keychain:subject"
        case .publicKeyHash: return "keychain:public-key-hash"
        }
    }

    /// The names other programs use too: the only attributes read from items we did not write.
    static func sharedName(_ key: AttributeKey, in itemClass: ItemClass) -> String? {
        switch (itemClass, key) {
        case (.genericPassword, .service): return "service"
        case (.genericPassword, .account): return "username"
        case (.internetPassword, .account): return "user"
        case (.internetPassword, .server): return "server"
        case (.internetPassword, .protocol): return "protocol"
        case (.internetPassword, .port): return "port"
        case (.internetPassword, .path): return "object"
        case (.internetPassword, .authenticationType): return "authtype"
        case (.internetPassword, .securityDomain): return "domain"
        default: return nil
        }
    }

    /// The attributes that say which item another program means: a query naming one of them
    /// (non-empty) also finds items other programs wrote.
    static func identityKeys(for itemClass: ItemClass) -> [AttributeKey] {
        switch itemClass {
        case .genericPassword: return [.service, .account]
        case .internetPassword: return [.server, .account]
        // Only this library writes keys and certificates: a query for them never reaches other programs' items.
        case .key, .certificate: return []
        }
    }

    // MARK: - Writing

    /// The complete attribute set of a new item of ours.
    static func attributes(of item: KeychainItem) -> [String: String] {
        var result = mappedAttributes(item.itemClass, item.attributes)
        result[schemaAttribute] = schemaName(for: item.itemClass)
        if givenLabel(item.attributes) == nil { result[defaultLabelMarker] = "1" }
        return result
    }

    /// An existing item's attributes with everything this mapping owns replaced by `attributes`;
    /// whatever else another program put there, its `xdg:schema` included, is kept.
    static func attributes(replacingIn existing: [String: String], itemClass: ItemClass, with attributes: ItemAttributes,
                           isOurs: Bool) -> [String: String] {
        let owned = Set(AttributeKey.allCases.compactMap { attributeName($0, in: itemClass) } + [defaultLabelMarker])
        var result = existing.filter { !owned.contains($0.key) }
        result.merge(mappedAttributes(itemClass, attributes)) { _, new in new }
        if isOurs && givenLabel(attributes) == nil { result[defaultLabelMarker] = "1" }
        return result
    }

    /// The Secret Service label: the given one, else a readable one made from the item's names.
    static func label(of itemClass: ItemClass, _ attributes: ItemAttributes) -> String {
        givenLabel(attributes) ?? defaultLabel(itemClass, attributes)
    }

    /// The label `attributes` give, nil for none or an empty one.
    static func givenLabel(_ attributes: ItemAttributes) -> String? {
        guard let label = attributes.string(.label), !label.isEmpty else { return nil }
        return label
    }

    static func defaultLabel(_ itemClass: ItemClass, _ attributes: ItemAttributes) -> String {
        let account = attributes.string(.account) ?? ""
        let label: String
        switch itemClass {
        case .genericPassword:
            let service = attributes.string(.service) ?? ""
            label = account.isEmpty ? service : "\(service) (\(account))"
        case .internetPassword:
            let server = attributes.string(.server) ?? ""
            label = account.isEmpty ? server : "\(account)@\(server)"
        case .key, .certificate:
            label = PrimaryKey(itemClass: itemClass, attributes: attributes).readableName
        }
        // Never empty: KWallet refuses an empty label.
        return label.isEmpty ? "linux-keychain item" : label
    }

    private static func mappedAttributes(_ itemClass: ItemClass, _ attributes: ItemAttributes) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in attributes {
            guard let name = attributeName(key, in: itemClass) else { continue }
            result[name] = value.encoded
        }
        return result
    }

    // MARK: - Searching

    /// The attributes a native search must match for `query`, and whether items of other
    /// programs may be among the results.
    ///
    /// Only constraints whose stored form is certain narrow the search: a flag (absent equals
    /// false) and a primary-key default (absent equals "" or 0) are left to `ItemQuery.matches`.
    static func searchAttributes(for query: ItemQuery) -> (attributes: [String: String], includesOthers: Bool) {
        let includesOthers = query.itemClass.holdsPasswords && query.includesOtherProgramsItems || identityKeys(for: query.itemClass).contains { key in
            if let text = query.constraints.string(key) { return !text.isEmpty }
            return false
        }
        var result: [String: String] = [:]
        for (key, value) in query.constraints {
            if value.kind == .bool { continue }
            // A default (empty name, port 0) is not stored, so asking for it would miss the item.
            if value.isMissingPrimaryKeyValue, query.itemClass.primaryKeyAttributes.contains(key) { continue }
            guard let name = attributeName(key, in: query.itemClass) else { continue }
            // Other programs' items only have the shared names; asking for more excludes them,
            // which `matches` would do anyway.
            result[name] = value.encoded
        }
        if !includesOthers { result[schemaAttribute] = schemaName(for: query.itemClass) }
        return (result, includesOthers)
    }

    // MARK: - Reading

    /// The keychain attributes of a stored item read as `itemClass`, or nil when it is one of
    /// our items of the other class. Throws `errSecDecode` for one of our items with a
    /// malformed attribute; other programs' attributes that do not parse are left out.
    static func decode(_ stored: [String: String], label: String, as itemClass: ItemClass) throws -> ItemAttributes? {
        let schema = stored[schemaAttribute]
        let isOurs = schema == schemaName(for: itemClass)
        if !isOurs && (!itemClass.holdsPasswords || ourSchemas.contains(schema ?? "")) { return nil }
        var attributes = ItemAttributes()
        for key in AttributeKey.allCases {
            let name = isOurs ? attributeName(key, in: itemClass) : sharedName(key, in: itemClass)
            guard let name, let text = stored[name] else { continue }
            guard let value = AttributeValue(encoded: text, kind: key.valueKind) else {
                if isOurs {
                    throw KeychainError(errSecDecode, "A Secret Service item has a malformed attribute '\(name)'.",
                                        backend: SecretServiceErrors.backend)
                }
                continue
            }
            attributes[key] = value
        }
        let madeUp = isOurs && stored[defaultLabelMarker] == "1" && label == defaultLabel(itemClass, attributes)
        if !madeUp && !label.isEmpty { attributes[.label] = .string(label) }
        return attributes
    }

    /// Whether another program's item, read as `itemClass`, is one a keychain user can name:
    /// it has the class's service (or server). Other items in the keyring (a browser's, a
    /// desktop's) are not keychain items of that class and stay out of every result.
    static func namesItem(_ attributes: ItemAttributes, of itemClass: ItemClass) -> Bool {
        guard let key = identityKeys(for: itemClass).first, let text = attributes.string(key) else { return false }
        return !text.isEmpty
    }

    private static let ourSchemas = Set(ItemClass.allCases.map(schemaName(for:)))

    /// Whether a stored item was written by this library.
    static func isOurs(_ stored: [String: String], _ itemClass: ItemClass) -> Bool {
        stored[schemaAttribute] == schemaName(for: itemClass)
    }
}
