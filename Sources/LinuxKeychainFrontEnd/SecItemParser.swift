import Foundation
import KeychainCore

/// What the `kSecReturn*` keys of a query asked for.
struct SecItemReturns: Equatable, Sendable {
    var data = false
    var attributes = false
    var reference = false
    var persistentReference = false

    /// How many kinds of result were asked for; more than one makes each result a dictionary.
    var count: Int {
        // Added up rather than filtered from an array, which would allocate on every call.
        (data ? 1 : 0) + (attributes ? 1 : 0) + (reference ? 1 : 0) + (persistentReference ? 1 : 0)
    }
    var isEmpty: Bool { !(data || attributes || reference || persistentReference) }

    /// Whether the results must carry secrets: for the data, or for a key's or certificate's
    /// reference, which is made from its bytes.
    func needsSecrets(of itemClass: ItemClass) -> Bool {
        data || (reference && !itemClass.holdsPasswords)
    }
}

/// A parsed query of `SecItemCopyMatching`, `SecItemUpdate` or `SecItemDelete`.
struct SecItemSearch: Sendable {
    var query: ItemQuery
    var returns: SecItemReturns
    /// The query contradicts itself (a reference and an attribute disagree), so no item can match.
    var matchesNothing: Bool
    /// A reference names a shared item (one with no access group). A program's scope must not
    /// widen it to the program's own item of the same name: it reads exactly that item, and
    /// changes nothing, since a program never changes shared items (`AccessScope`).
    var namesSharedItem = false
}

/// A parsed `SecItemAdd` dictionary.
struct SecItemAddition: Sendable {
    var item: KeychainItem
    var returns: SecItemReturns
}

/// Parses Apple's dictionaries, once, into the typed requests that backends take.
///
/// Every problem is a `KeychainError` thrown before any store is touched, so bad input never
/// changes stored data: `errSecParam` for a missing `kSecClass` or a value of the wrong type,
/// `errSecNoSuchAttr` for a key that is no attribute of the item's class,
/// `errSecUnimplemented` for what Linux cannot honour (certificates and identities, access control
/// with user presence, biometry or passcode). Messages name keys and types, never values.
struct SecItemParser {
    /// The calls whose dictionaries are parsed, which differ in the keys they allow.
    enum Purpose {
        case copyMatching, updateQuery, delete
    }

    /// One key of the dictionary with its role, looked up once; nil for an unknown key, which
    /// fails only when the walk reaches it, so that errors keep their order.
    private struct Entry {
        let name: String
        let role: SecItemKeyRole?
        let value: SecItemValue
    }

    private let entries: [Entry]

    private init(_ dictionary: CFDictionary, name: String) throws {
        var entries: [Entry] = []
        entries.reserveCapacity(dictionary.count)
        try SecItemDictionary.forEachEntry(of: dictionary) { key, value in
            guard let keyName = SecItemDictionary.name(ofKey: key) else {
                throw KeychainError.badParameter(
                    "Every key of the \(name) dictionary must be a kSec constant (a string), not \(SecItemValue.typeName(of: key)).")
            }
            entries.append(Entry(name: keyName, role: SecItemKeyRole.of(keyName), value: value))
        }
        self.entries = entries
    }

    // MARK: Entry points

    /// The query of `SecItemCopyMatching`, `SecItemUpdate` or `SecItemDelete`.
    static func search(_ dictionary: CFDictionary, for purpose: Purpose) throws -> SecItemSearch {
        try SecItemParser(dictionary, name: "query").search(for: purpose)
    }

    /// The attributes of `SecItemAdd`.
    static func addition(_ dictionary: CFDictionary) throws -> SecItemAddition {
        try SecItemParser(dictionary, name: "attributes").addition()
    }

    /// The `attributesToUpdate` of `SecItemUpdate`, for items of `itemClass`.
    static func changes(_ dictionary: CFDictionary, for itemClass: ItemClass) throws -> ItemChanges {
        try SecItemParser(dictionary, name: "attributesToUpdate").changes(for: itemClass)
    }

    // MARK: Per purpose

    private func search(for purpose: Purpose) throws -> SecItemSearch {
        var itemClass = try declaredClass()
        var constraints = ItemAttributes(Dictionary(minimumCapacity: entries.count))
        var matchesNothing = false
        var matchesAnySynchronizable = false
        var returns = SecItemReturns()
        var limit = MatchLimit.one
        var referenced: PrimaryKey?
        var keyReference: SecKey?
        var certificateReference: SecCertificate?

        for entry in entries {
            let value = entry.value
            switch try role(of: entry) {
            case .itemClass, .withoutEffect:
                continue
            case .attribute(.synchronizable) where value.text == Self.synchronizableAny:
                matchesAnySynchronizable = true
            case .attribute(let key):
                Self.constrain(&constraints, key, try Self.attribute(value, for: key), conflict: &matchesNothing)
            case .accessControl:
                // No stored item carries constraints (adds refuse them), so a query for one
                // matches nothing, as a search for a protected item that is absent would.
                guard let protection = try Self.protectionIfStorable(value) else {
                    matchesNothing = true
                    continue
                }
                Self.constrain(&constraints, .accessible, .string(protection), conflict: &matchesNothing)
            case .valueData:
                // A secret never narrows a search (it is not an attribute); its type is still checked.
                _ = try Self.secretData(value)
            case .valueReference where value.object(SecKey.self) != nil:
                keyReference = value.object(SecKey.self)
            case .valueReference where value.object(SecCertificate.self) != nil:
                certificateReference = value.object(SecCertificate.self)
            case .valueReference:
                referenced = Self.merge(try Self.reference(value), into: referenced, conflict: &matchesNothing)
            case .valuePersistentReference:
                referenced = Self.merge(try Self.persistentReference(value), into: referenced, conflict: &matchesNothing)
            case .returnData: returns.data = try Self.flag(value, name: "kSecReturnData")
            case .returnAttributes: returns.attributes = try Self.flag(value, name: "kSecReturnAttributes")
            case .returnReference: returns.reference = try Self.flag(value, name: "kSecReturnRef")
            case .returnPersistentReference: returns.persistentReference = try Self.flag(value, name: "kSecReturnPersistentRef")
            case .matchLimit: limit = try Self.limit(value)
            case .unsupported(let reason): throw KeychainError(errSecUnimplemented, reason)
            }
        }

        if let referenced {
            if let itemClass, itemClass != referenced.itemClass { matchesNothing = true }
            itemClass = referenced.itemClass
            for (key, value) in referenced.attributes {
                Self.constrain(&constraints, key, value, conflict: &matchesNothing)
            }
        }
        let objectConstraints: [(ItemClass, [AttributeKey: AttributeValue])] =
            (try keyReference.map { [(.key, try SecKeyStorage.constraints(finding: $0))] } ?? [])
            + (certificateReference.map { [(.certificate, SecCertificateStorage.identifyingAttributes(of: $0))] } ?? [])
        for (objectClass, objectAttributes) in objectConstraints {
            if let itemClass, itemClass != objectClass { matchesNothing = true }
            itemClass = objectClass
            for (key, value) in objectAttributes {
                Self.constrain(&constraints, key, value, conflict: &matchesNothing)
            }
        }
        guard let itemClass else {
            throw KeychainError.badParameter("The query has no kSecClass; add kSecClass: kSecClassGenericPassword, kSecClassInternetPassword or kSecClassKey.")
        }
        try Self.checkBelong(constraints, to: itemClass)
        if purpose != .copyMatching {
            // Updates and deletes act on every match and return nothing, as on Apple platforms.
            limit = .all
            returns = SecItemReturns()
        }
        var query = ItemQuery(itemClass: itemClass, constraints: constraints, limit: limit,
                              includeSecrets: returns.needsSecrets(of: itemClass),
                              matchesAnySynchronizable: matchesAnySynchronizable)
        // A reference is made from the primary key, which every result carries.
        query.includeAttributes = returns.attributes
        let namesSharedItem = referenced.map { ($0.attributes.string(.accessGroup) ?? "").isEmpty } ?? false
        return SecItemSearch(query: query, returns: returns, matchesNothing: matchesNothing,
                             namesSharedItem: namesSharedItem)
    }

    private func addition() throws -> SecItemAddition {
        guard let itemClass = try declaredClass() else {
            throw KeychainError.badParameter("SecItemAdd needs kSecClass: kSecClassGenericPassword, kSecClassInternetPassword or kSecClassKey.")
        }
        // One more than the entries, for the default accessibility added below.
        var attributes = ItemAttributes(Dictionary(minimumCapacity: entries.count + 1))
        var secret: SecretBytes?
        var reference: SecItemValue?
        var returns = SecItemReturns()
        var givenAsOtherType = Set<AttributeKey>()
        for entry in entries {
            let value = entry.value
            switch try role(of: entry) {
            case .itemClass, .withoutEffect, .matchLimit:
                continue
            case .attribute(let key) where key.isMaintainedByLibrary:
                // The library sets creation and modification dates itself.
                continue
            case .attribute(let key):
                try Self.set(&attributes, key, try Self.storedAttribute(value, for: key))
                if value.isOtherType(for: key) { givenAsOtherType.insert(key) }
            case .accessControl:
                try Self.set(&attributes, .accessible, .string(try Self.protection(of: value)))
            case .valueData:
                secret = try Self.secret(value)
            case .valueReference where !itemClass.holdsPasswords:
                reference = value
            case .valueReference, .valuePersistentReference:
                throw KeychainError.badParameter("SecItemAdd takes the secret as kSecValueData; kSecValueRef and kSecValuePersistentRef name items that already exist.")
            case .returnData: returns.data = try Self.flag(value, name: "kSecReturnData")
            case .returnAttributes: returns.attributes = try Self.flag(value, name: "kSecReturnAttributes")
            case .returnReference: returns.reference = try Self.flag(value, name: "kSecReturnRef")
            case .returnPersistentReference: returns.persistentReference = try Self.flag(value, name: "kSecReturnPersistentRef")
            case .unsupported(let reason): throw KeychainError(errSecUnimplemented, reason)
            }
        }
        switch itemClass {
        case .genericPassword, .internetPassword: break
        case .key: secret = try Self.keyData(secret, reference, into: &attributes)
        case .certificate: secret = try Self.certificateData(secret, reference, into: &attributes)
        }
        guard let secret else {
            throw KeychainError.badParameter("SecItemAdd needs the secret as kSecValueData (Data).")
        }
        try Self.checkBelong(attributes, to: itemClass)
        attributes.keysGivenAsOtherType = givenAsOtherType
        if attributes[.accessible] == nil {
            // Apple stores every item with an accessibility class; this is its default.
            attributes[.accessible] = .string(kSecAttrAccessibleWhenUnlocked as String)
        }
        return SecItemAddition(item: KeychainItem(itemClass: itemClass, attributes: attributes, secret: secret),
                               returns: returns)
    }

    private func changes(for itemClass: ItemClass) throws -> ItemChanges {
        if let declared = try declaredClass(), declared != itemClass {
            throw KeychainError.badParameter("kSecClass in attributesToUpdate differs from the query's; an update cannot change an item's class.")
        }
        var changes = ItemChanges()
        var givenAsOtherType = Set<AttributeKey>()
        for entry in entries {
            let value = entry.value
            switch try role(of: entry) {
            case .itemClass:
                continue
            case .withoutEffect where !entry.name.hasPrefix("m_"):
                continue
            case .attribute(let key) where key.isMaintainedByLibrary:
                continue
            case .attribute(let key):
                try Self.set(&changes.attributes, key, try Self.storedAttribute(value, for: key))
                if value.isOtherType(for: key) { givenAsOtherType.insert(key) }
            case .accessControl:
                try Self.set(&changes.attributes, .accessible, .string(try Self.protection(of: value)))
            case .valueData:
                changes.secret = try Self.secret(value)
            case .unsupported(let reason):
                throw KeychainError(errSecUnimplemented, reason)
            case .withoutEffect, .valueReference, .valuePersistentReference, .returnData, .returnAttributes,
                 .returnReference, .returnPersistentReference, .matchLimit:
                throw KeychainError.badParameter("'\(entry.name)' belongs in the query of SecItemUpdate, not in attributesToUpdate; move it to the first dictionary.")
            }
        }
        try Self.checkBelong(changes.attributes, to: itemClass)
        changes.attributes.keysGivenAsOtherType = givenAsOtherType
        return changes
    }

    /// The bytes a new key item stores, with the attributes Apple derives from the key added to
    /// `attributes`: from `kSecValueRef` (a `SecKey`), or from `kSecValueData` read as the key
    /// its `kSecAttrKeyType` and `kSecAttrKeyClass` name. Data of another kind (a symmetric
    /// key, or bytes with no type) is stored as given. A given attribute that contradicts the
    /// key is `errSecParam`.
    private static func keyData(_ data: SecretBytes?, _ referenceValue: SecItemValue?, into attributes: inout ItemAttributes) throws -> SecretBytes? {
        let reference = try Self.reference(referenceValue, of: SecKey.self, givenWith: data, in: "kSecClassKey")
        let key = try reference ?? data.flatMap { try SecKeyStorage.key(from: $0, attributes: attributes) }
        guard let key else { return data }
        for (attribute, value) in SecKeyStorage.derivedAttributes(of: key) {
            try set(&attributes, attribute, value)
        }
        if attributes[.applicationLabel] == nil {
            attributes[.applicationLabel] = try SecKeyStorage.defaultApplicationLabel(of: key)
        }
        return reference?.representation ?? data
    }

    /// The DER a new certificate item stores, from `kSecValueRef` (a `SecCertificate`) or
    /// `kSecValueData`, with the attributes Apple derives from it added to `attributes`.
    private static func certificateData(_ data: SecretBytes?, _ referenceValue: SecItemValue?,
                                        into attributes: inout ItemAttributes) throws -> SecretBytes? {
        let reference = try Self.reference(referenceValue, of: SecCertificate.self, givenWith: data, in: "kSecClassCertificate")
        guard let certificate = try reference ?? data.map({ try SecCertificateStorage.certificate($0.makeData()) }) else { return nil }
        for (attribute, value) in try SecCertificateStorage.derivedAttributes(of: certificate) {
            try set(&attributes, attribute, value)
        }
        if attributes[.label] == nil, let summary = certificate.subjectSummary { attributes[.label] = .string(summary) }
        return SecretBytes(certificate.der)
    }

    /// The object `kSecValueRef` gives for a key or certificate item, which must be of class
    /// `Object`; nil when absent. With `kSecValueData` as well it is a contradiction.
    private static func reference<Object: AnyObject>(_ value: SecItemValue?, of objectClass: Object.Type, givenWith data: SecretBytes?,
                                                     in className: String) throws -> Object? {
        guard let value else { return nil }
        guard data == nil else {
            throw KeychainError.badParameter("A \(className) item takes kSecValueRef or kSecValueData, not both.")
        }
        guard let object = value.object(objectClass) else {
            throw KeychainError.badParameter("kSecValueRef of a \(className) item must be a \(objectClass), not \(value.typeName).")
        }
        return object
    }

    // MARK: Keys

    /// The class named by `kSecClass`, nil when absent; certificates and identities are refused.
    private func declaredClass() throws -> ItemClass? {
        guard let value = entries.last(where: { $0.role == .itemClass })?.value else { return nil }
        guard let name = value.text else {
            throw KeychainError.badParameter("kSecClass must be a kSecClass constant (a string), not \(value.typeName).")
        }
        if let itemClass = ItemClass(rawValue: name) { return itemClass }
        if name == kSecClassIdentity as String {
            // SecIdentitySearch handles identities before any dictionary reaches the parser.
            throw KeychainError(errSecUnimplemented, "kSecClassIdentity is not an item class here; SecIdentitySearch answers for it.")
        }
        throw KeychainError.badParameter("'\(name)' is not a kSecClass value; use kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey or kSecClassCertificate.")
    }

    private func role(of entry: Entry) throws -> SecItemKeyRole {
        guard let role = entry.role else {
            throw KeychainError(errSecNoSuchAttr, "'\(entry.name)' is not a key of Apple's password keychain API; remove it.")
        }
        return role
    }

    private static func checkBelong(_ attributes: ItemAttributes, to itemClass: ItemClass) throws {
        for (key, _) in attributes where !SecItemKeyRole.isAttribute(key, of: itemClass) {
            let className = switch itemClass {
            case .genericPassword: "kSecClassGenericPassword"
            case .internetPassword: "kSecClassInternetPassword"
            case .key: "kSecClassKey"
            case .certificate: "kSecClassCertificate"
            }
            throw KeychainError(errSecNoSuchAttr, "\(key.appleConstantName) is not an attribute of \(className) items; remove it.")
        }
    }

    // MARK: Values

    /// An attribute as a query constraint; `kSecAttrAccessible` must be one of Apple's values.
    private static func attribute(_ value: SecItemValue, for key: AttributeKey) throws -> AttributeValue {
        let parsed = try value.attribute(for: key)
        if key == .accessible, case .string(let name) = parsed, !SecItemKeyRole.accessibilityValues.contains(name) {
            throw KeychainError.badParameter("'\(name)' is not a kSecAttrAccessible value; use e.g. kSecAttrAccessibleWhenUnlocked.")
        }
        return parsed
    }

    /// An attribute to store, which unlike a constraint cannot be `kSecAttrSynchronizableAny`.
    private static func storedAttribute(_ value: SecItemValue, for key: AttributeKey) throws -> AttributeValue {
        if key == .synchronizable, value.text == synchronizableAny {
            throw KeychainError.badParameter("kSecAttrSynchronizableAny is for queries; an item is stored with kSecAttrSynchronizable true or false.")
        }
        return try attribute(value, for: key)
    }

    // Bridged once: `kSecAttrSynchronizableAny as String` converts the NSString on every use.
    private static let synchronizableAny = kSecAttrSynchronizableAny as String

    /// Adds a constraint; a second, different value for the same key means nothing matches.
    private static func constrain(_ constraints: inout ItemAttributes, _ key: AttributeKey, _ value: AttributeValue,
                                  conflict: inout Bool) {
        if let existing = constraints[key], existing != value { conflict = true }
        constraints[key] = value
    }

    /// Sets an attribute to store; two different values (kSecAttrAccessible and the
    /// protection of kSecAttrAccessControl) are a contradiction.
    private static func set(_ attributes: inout ItemAttributes, _ key: AttributeKey, _ value: AttributeValue) throws {
        if let existing = attributes[key], existing != value {
            throw KeychainError.badParameter("\(key.appleConstantName) is given twice with different values (kSecAttrAccessControl's protection counts as kSecAttrAccessible).")
        }
        attributes[key] = value
    }

    /// The secret, copied into zeroed-on-release storage. The caller's `Data` stays the
    /// caller's to clear: zeroing it here would only zero a copy-on-write duplicate.
    private static func secret(_ value: SecItemValue) throws -> SecretBytes {
        SecretBytes(try secretData(value))
    }

    /// The `kSecValueData` value, shared rather than copied.
    private static func secretData(_ value: SecItemValue) throws -> Data {
        guard let data = value.data else {
            throw KeychainError.badParameter("kSecValueData must be Data (CFData), not \(value.typeName).")
        }
        return data
    }

    private static func flag(_ value: SecItemValue, name: String) throws -> Bool {
        guard let flag = value.flag else {
            throw KeychainError.badParameter("\(name) must be a Bool (kCFBooleanTrue or kCFBooleanFalse), not \(value.typeName).")
        }
        return flag
    }

    private static func limit(_ value: SecItemValue) throws -> MatchLimit {
        if let name = value.text {
            if name == kSecMatchLimitOne as String { return .one }
            if name == kSecMatchLimitAll as String { return .all }
        } else if let count = value.integer, count >= 1, let maximum = Int(exactly: count) {
            return maximum == 1 ? .one : .count(maximum)
        }
        throw KeychainError.badParameter("kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a number of at least 1.")
    }

    /// The accessibility class of a `kSecAttrAccessControl` value, or nil when it carries
    /// constraints, which no stored item can have.
    private static func protectionIfStorable(_ value: SecItemValue) throws -> String? {
        guard let control = value.object(SecAccessControl.self) else {
            throw KeychainError.badParameter("kSecAttrAccessControl must be a SecAccessControl from SecAccessControlCreateWithFlags, not \(value.typeName).")
        }
        return control.flags.isEmpty ? control.protection : nil
    }

    /// The accessibility class of a `kSecAttrAccessControl` value to store; refuses
    /// constraints Linux cannot enforce rather than store the item without them.
    private static func protection(of value: SecItemValue) throws -> String {
        if let protection = try protectionIfStorable(value) { return protection }
        let flags = value.object(SecAccessControl.self)?.flags.rawValue ?? 0
        throw KeychainError(errSecUnimplemented,
            "This item's access control demands user presence, biometry, a passcode, an application password or a Secure Enclave key (SecAccessControlCreateFlags \(flags)); Linux cannot enforce that, so the item is refused rather than stored unprotected. Pass no flags, or use kSecAttrAccessible alone.")
    }

    private static func reference(_ value: SecItemValue) throws -> PrimaryKey {
        guard let item = value.object(SecKeychainItem.self) else {
            throw KeychainError.badParameter("kSecValueRef must be a reference returned by kSecReturnRef, not \(value.typeName).")
        }
        return item.primaryKey
    }

    private static func persistentReference(_ value: SecItemValue) throws -> PrimaryKey {
        guard let data = value.data, let key = PrimaryKey(encoded: data) else {
            throw KeychainError.badParameter("kSecValuePersistentRef must be Data returned by kSecReturnPersistentRef.")
        }
        return key
    }

    /// Two references in one query must name the same item.
    private static func merge(_ key: PrimaryKey, into existing: PrimaryKey?, conflict: inout Bool) -> PrimaryKey {
        if let existing, existing != key { conflict = true }
        return key
    }
}
