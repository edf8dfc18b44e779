import Foundation
import KeychainCore

/// Stores a new key pair as `SecKeyCreateRandomKey`'s `kSecAttrIsPermanent` asks
/// (`SecKeyParameters.storageAttributes(forPrivateKey:)`), through `SecItemAdd`, so that the
/// items are exactly those an add of the key by `kSecValueRef` would make.
enum SecKeyPermanence {
    static func store(_ privateKey: SecKey, as parameters: SecKeyParameters) throws(NSError) {
        let privateAttributes = parameters.storageAttributes(forPrivateKey: true)
        let publicAttributes = parameters.storageAttributes(forPrivateKey: false)
        var added: [NSDictionary] = []
        for (attributes, key) in [(privateAttributes, privateKey), (publicAttributes, SecKeyCopyPublicKey(privateKey))] {
            guard let attributes, let key else { continue }
            attributes[kSecClass as String] = kSecClassKey
            attributes[kSecValueRef as String] = key
            let status = SecItemAdd(attributes, nil)
            guard status == errSecSuccess else {
                let message = KeychainLastError.current?.message ?? "The key could not be stored."
                // Nothing half-stored: the private key goes if the public one cannot follow.
                for item in added { SecItemDelete(item) }
                throw NSError.keychainError(status, message)
            }
            added.append(query(finding: key, as: attributes))
        }
    }

    /// A query for exactly the item just added: its class, tag, label and group.
    private static func query(finding key: SecKey, as attributes: NSDictionary) -> NSDictionary {
        let query = NSMutableDictionary()
        query[kSecClass as String] = kSecClassKey
        query[kSecAttrKeyClass as String] = key.isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic
        query[kSecAttrApplicationLabel as String] = attributes[kSecAttrApplicationLabel as String]
            ?? (SecKeyCopyAttributes(key) as? NSDictionary)?[kSecAttrApplicationLabel as String]
        for name in [kSecAttrApplicationTag, kSecAttrAccessGroup, kSecAttrSynchronizable] {
            if let value = attributes[name as String] { query[name as String] = value }
        }
        return query
    }
}
