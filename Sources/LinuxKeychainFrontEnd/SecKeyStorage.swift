import Foundation
import KeychainCore

/// How a `SecKey` is kept as a `kSecClassKey` item, and made again from one.
///
/// The item's secret is the key's external representation (`SecKeyCopyExternalRepresentation`);
/// its attributes are those Apple derives from the key: `kSecAttrKeyClass`, `kSecAttrKeyType`,
/// `kSecAttrKeySizeInBits`, `kSecAttrEffectiveKeySize` (Apple's numbers: type 73 for EC, 42
/// for RSA; class 0 public, 1 private, 2 symmetric) and, unless the caller gives another,
/// `kSecAttrApplicationLabel`, the SHA-1 of the public key, which both keys of a pair share.
enum SecKeyStorage {
    static let ecKeyType: Int64 = 73
    static let rsaKeyType: Int64 = 42
    static let publicKeyClass: Int64 = 0
    static let privateKeyClass: Int64 = 1

    /// The attributes a stored `key` carries whatever the caller gave.
    static func derivedAttributes(of key: SecKey) -> [AttributeKey: AttributeValue] {
        [
            .keyClass: .integer(key.isPrivate ? privateKeyClass : publicKeyClass),
            .type: .integer(key.kind.isRSA ? rsaKeyType : ecKeyType),
            .keySizeInBits: .integer(Int64(key.kind.bits)),
            .effectiveKeySize: .integer(Int64(key.kind.bits)),
        ]
    }

    /// `kSecAttrApplicationLabel` of `key` when the caller gives none.
    static func defaultApplicationLabel(of key: SecKey) throws -> AttributeValue {
        do {
            return .data(try Libcrypto.sha1(key.publicRepresentation))
        } catch {
            throw KeychainError(error)
        }
    }

    /// The attributes that find the stored item of `key` (`kSecValueRef` in a query): its
    /// class and type, and the public key's hash as label. A key stored under a label of the
    /// caller's choosing is found by its tag or label instead.
    static func constraints(finding key: SecKey) throws -> [AttributeKey: AttributeValue] {
        var constraints = derivedAttributes(of: key)
        constraints[.applicationLabel] = try defaultApplicationLabel(of: key)
        return constraints
    }

    /// The key stored data stands for, when its attributes name an EC or RSA public or
    /// private key; nil for another kind (a symmetric key, or bytes stored without a type),
    /// whose data is opaque here. `errSecParam` when the data is not the key they name.
    static func key(from secret: SecretBytes, attributes: ItemAttributes) throws -> SecKey? {
        guard case .integer(let type)? = attributes[.type], type == ecKeyType || type == rsaKeyType,
              case .integer(let keyClass)? = attributes[.keyClass], keyClass == publicKeyClass || keyClass == privateKeyClass
        else { return nil }
        var size: Int?
        if case .integer(let bits)? = attributes[.keySizeInBits], bits != 0 { size = Int(exactly: bits) }
        do {
            return try SecKey(representation: secret, isRSA: type == rsaKeyType, isPrivate: keyClass == privateKeyClass, size: size)
        } catch {
            throw KeychainError(error)
        }
    }

    /// The `SecKey` a stored key item holds, for `kSecReturnRef`.
    static func reference(to item: KeychainItem) throws -> SecKey {
        guard let secret = item.secret else {
            throw KeychainError(errSecDataNotAvailable, "The backend returned the key with \(item.primaryKey.readableName) without its data.")
        }
        guard let key = try key(from: secret, attributes: item.attributes) else {
            throw KeychainError(errSecUnimplemented,
                "The key with \(item.primaryKey.readableName) is not an EC or RSA public or private key, so no SecKey can stand for it here; ask for kSecReturnData instead.")
        }
        return key
    }
}

extension SecKeyKind {
    var isRSA: Bool {
        if case .rsa = self { return true }
        return false
    }
}

extension KeychainError {
    /// The error a Security function's `CFError` carries, as a SecItem status and message.
    init(_ error: NSError) {
        self.init(OSStatus(truncatingIfNeeded: error.code), error.localizedDescription)
    }
}
