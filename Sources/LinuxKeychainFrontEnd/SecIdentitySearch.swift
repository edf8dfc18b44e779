import Foundation
import KeychainCore
import KeychainEntryPoints

/// `kSecClassIdentity` in the SecItem functions. An identity is not an item: a query for one
/// is a query for certificates (it takes their attributes), each paired with the stored
/// private key whose `kSecAttrApplicationLabel` is the certificate's `kSecAttrPublicKeyHash`;
/// certificates without one are no identities. Adding an identity adds its private key (unless
/// that key is already stored) and its certificate; deleting one deletes both. An update is
/// `errSecUnimplemented`: change the certificate or the key.
enum SecIdentitySearch {
    /// One identity found: the stored items and the object made of them.
    struct Found {
        let certificate: KeychainItem
        let key: KeychainItem
        let identity: SecIdentity
    }

    /// Whether `dictionary` names `kSecClassIdentity`.
    static func isIdentity(_ dictionary: CFDictionary) -> Bool {
        (dictionary as NSDictionary)[kSecClass as String] as? String == kSecClassIdentity as String
    }

    /// `dictionary` as the certificate query it stands for: `kSecClassCertificate`, and an
    /// identity given as `kSecValueRef` replaced by its certificate.
    static func asCertificates(_ dictionary: CFDictionary) -> NSDictionary {
        let copy = mutableCopy(of: dictionary as NSDictionary)
        copy[kSecClass as String] = kSecClassCertificate
        if let identity = copy[kSecValueRef as String] as? SecIdentity { copy[kSecValueRef as String] = identity.certificate }
        return copy
    }

    /// The identities among the certificates `search` finds, at most as many as its limit.
    static func identities(_ search: SecItemSearch, in operations: KeychainOperations) throws -> [Found] {
        var query = search.query
        query.limit = .all
        query.includeSecrets = true
        query.includeAttributes = true
        var found: [Found] = []
        for item in try operations.search(query) {
            if let maximum = search.query.limit.maximum, found.count >= maximum { break }
            let certificate = try SecCertificateStorage.reference(to: item)
            guard let keyItem = try privateKeyItem(of: certificate, in: operations) else { continue }
            found.append(Found(certificate: item, key: keyItem,
                               identity: SecIdentity(certificate: certificate, privateKey: try SecKeyStorage.reference(to: keyItem))))
        }
        if found.isEmpty { throw KeychainError.notFound("No stored certificate that matches has its private key stored.") }
        return found
    }

    /// The stored private key of `certificate`'s public key, if any.
    static func privateKey(of certificate: SecCertificate, in operations: KeychainOperations) throws -> SecKey? {
        try privateKeyItem(of: certificate, in: operations).map(SecKeyStorage.reference(to:))
    }

    private static func privateKeyItem(of certificate: SecCertificate, in operations: KeychainOperations) throws -> KeychainItem? {
        guard let publicKey = certificate.publicKey else { return nil }
        let constraints = ItemAttributes([.applicationLabel: try SecKeyStorage.defaultApplicationLabel(of: publicKey),
                                          .keyClass: .integer(SecKeyStorage.privateKeyClass)])
        do {
            return try operations.search(ItemQuery(itemClass: .key, constraints: constraints, limit: .one, includeSecrets: true,
                                                   matchesAnySynchronizable: true)).first
        } catch KeychainError.itemNotFound {
            return nil
        }
    }

    /// What `SecItemCopyMatching` hands back for `found`, in Apple's result shapes: the
    /// `SecIdentity` as the reference, the certificate's attributes (with `kSecClass`
    /// `kSecClassIdentity` and the key's tag and label), the certificate's DER as the data, and
    /// the certificate's persistent reference.
    static func result(for found: [Found], returns: SecItemReturns, limit: MatchLimit) throws -> CFTypeRef? {
        guard !returns.isEmpty else { return nil }
        let each = found.map { result(for: $0, returns: returns) }
        return limit == .one ? each.first : NSArray(array: each)
    }

    private static func result(for found: Found, returns: SecItemReturns) -> AnyObject {
        if returns.count == 1 {
            if returns.reference { return found.identity }
            if returns.data { return NSData(data: found.identity.certificate.der) }
            if returns.persistentReference { return NSData(data: found.certificate.primaryKey.encoded) }
        }
        let dictionary = returns.attributes ? attributes(of: found) : NSMutableDictionary()
        if returns.count == 1 { return dictionary }
        if returns.reference { dictionary[kSecValueRef] = found.identity }
        if returns.data { dictionary[kSecValueData] = NSData(data: found.identity.certificate.der) }
        if returns.persistentReference { dictionary[kSecValuePersistentRef] = NSData(data: found.certificate.primaryKey.encoded) }
        return dictionary
    }

    private static func attributes(of found: Found) -> NSMutableDictionary {
        let dictionary = SecItemResultBuilder.attributes(of: found.certificate)
        dictionary[kSecClass] = kSecClassIdentity
        for key in [AttributeKey.applicationTag, .applicationLabel] {
            if case .data(let data)? = found.key.attributes[key] { dictionary[key.rawValue] = NSData(data: data) }
        }
        return dictionary
    }

    /// Deletes every identity `search` finds: each certificate and its private key.
    static func delete(_ search: SecItemSearch, in operations: KeychainOperations) throws {
        for found in try identities(search, in: operations) {
            try operations.delete(ItemQuery(primaryKey: found.certificate.primaryKey))
            try operations.delete(ItemQuery(primaryKey: found.key.primaryKey))
        }
    }

    /// Adds the identity `kSecValueRef` holds: its private key, then its certificate, each with
    /// the attributes given (the tag and application label go to the key alone). A key
    /// already stored is kept; if the certificate cannot be stored, a key added here is removed.
    static func add(_ attributes: CFDictionary) throws {
        let given = attributes as NSDictionary
        guard let identity = given[kSecValueRef as String] as? SecIdentity else {
            throw KeychainError.badParameter("SecItemAdd of kSecClassIdentity needs the SecIdentity as kSecValueRef.")
        }
        let keyAttributes = mutableCopy(of: given)
        keyAttributes[kSecClass as String] = kSecClassKey
        keyAttributes[kSecValueRef as String] = identity.privateKey
        let certificateAttributes = mutableCopy(of: given)
        certificateAttributes[kSecClass as String] = kSecClassCertificate
        certificateAttributes[kSecValueRef as String] = identity.certificate
        for key in [kSecAttrApplicationTag, kSecAttrApplicationLabel] + returnKeys {
            certificateAttributes.removeObject(forKey: key as String)
            keyAttributes.removeObject(forKey: key as String)
            if key == kSecAttrApplicationTag || key == kSecAttrApplicationLabel { keyAttributes[key as String] = given[key as String] }
        }
        let operations = try KeychainOperations.current()
        var addedKey: PrimaryKey?
        do {
            addedKey = try operations.add(try SecItemParser.addition(keyAttributes).item)
        } catch KeychainError.duplicateItem {
            addedKey = nil
        }
        do {
            _ = try operations.add(try SecItemParser.addition(certificateAttributes).item)
        } catch {
            if let addedKey { _ = try? operations.delete(ItemQuery(primaryKey: addedKey)) }
            throw error
        }
    }

    private static var returnKeys: [CFString] { [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef] }

    private static func mutableCopy(of dictionary: NSDictionary) -> NSMutableDictionary {
        let copy = NSMutableDictionary()
        for (key, value) in dictionary { if let key = key as? AnyHashable { copy.setObject(value, forKey: key) } }
        return copy
    }
}
