import Foundation
import KeychainCore

/// The attribute dictionary given to `SecKeyCreateRandomKey` or `SecKeyCreateWithData`, read
/// as those functions need it. Every reader throws the `CFError` the function hands out.
struct SecKeyParameters {
    private var values: [String: SecItemValue] = [:]
    private let topLevel: NSDictionary

    init(_ dictionary: NSDictionary) {
        topLevel = dictionary
        SecItemDictionary.forEachEntry(of: dictionary) { key, value in
            if let name = SecItemDictionary.name(ofKey: key) { values[name] = value }
        }
    }

    private subscript(key: CFString) -> SecItemValue? { values[key as String] }

    /// `kSecAttrKeyType`: whether the key is RSA (`kSecAttrKeyTypeRSA`) rather than EC
    /// (`kSecAttrKeyTypeECSECPrimeRandom`); any other type is not supported.
    func isRSAKeyType() throws(NSError) -> Bool {
        guard let type = self[kSecAttrKeyType]?.text else {
            throw NSError.keychainError(errSecParam, "kSecAttrKeyType is missing or not a key type string.")
        }
        guard type == kSecAttrKeyTypeECSECPrimeRandom as String || type == kSecAttrKeyTypeRSA as String else {
            throw NSError.keychainError(errSecUnimplemented, "Only EC (kSecAttrKeyTypeECSECPrimeRandom) and RSA keys are supported.")
        }
        return type == kSecAttrKeyTypeRSA as String
    }

    /// `kSecAttrKeySizeInBits` (a number or its decimal string), nil when absent.
    func keySize() throws(NSError) -> Int? {
        guard let value = self[kSecAttrKeySizeInBits] else { return nil }
        guard let size = value.integer.flatMap({ Int(exactly: $0) }) ?? value.text.flatMap({ Int($0) }) else {
            throw NSError.keychainError(errSecParam, "kSecAttrKeySizeInBits must be a number.")
        }
        return size
    }

    /// The key of the type and `kSecAttrKeySizeInBits` given: a curve of 256, 384 or 521 bits,
    /// or an RSA modulus of 2048 to 4096 bits in whole bytes.
    func kind() throws(NSError) -> SecKeyKind {
        let isRSA = try isRSAKeyType()
        guard let size = try keySize() else { throw NSError.keychainError(errSecParam, "kSecAttrKeySizeInBits is missing.") }
        if isRSA {
            guard SecKeyKind.rsaSizes.contains(size), size % 8 == 0 else {
                throw NSError.keychainError(errSecParam, "RSA keys are 2048 to 4096 bits in whole bytes, not \(size).")
            }
            return .rsa(bits: size)
        }
        guard let curve = ECCurve(rawValue: size) else {
            throw NSError.keychainError(errSecParam, "EC keys are 256, 384 or 521 bits, not \(size).")
        }
        return .ec(curve)
    }

    /// Whether `kSecAttrKeyClass` says private (`kSecAttrKeyClassPrivate`) or public.
    func isPrivateKeyClass() throws(NSError) -> Bool {
        let keyClass = self[kSecAttrKeyClass]?.text
        guard keyClass == kSecAttrKeyClassPrivate as String || keyClass == kSecAttrKeyClassPublic as String else {
            throw NSError.keychainError(errSecParam, "kSecAttrKeyClass must be kSecAttrKeyClassPublic or kSecAttrKeyClassPrivate.")
        }
        return keyClass == kSecAttrKeyClassPrivate as String
    }

    /// Refuses hardware tokens (`kSecAttrTokenID`), which Linux lacks.
    func refuseTokens() throws(NSError) {
        if self[kSecAttrTokenID] != nil {
            throw NSError.keychainError(errSecUnimplemented, "kSecAttrTokenID needs a hardware token (Secure Enclave), which Linux lacks.")
        }
    }

    /// The `SecItemAdd` attributes that store the private (or public) key of a new pair, or nil
    /// when it is not to be stored. As on Apple platforms, the private key is stored when
    /// `kSecAttrIsPermanent` is true at the top or in `kSecPrivateKeyAttrs`; the public key only
    /// when `kSecPublicKeyAttrs` says so, since it can always be made from the private one. The
    /// attributes are the top-level ones (tag, label, access group, accessibility) overridden by
    /// the nested dictionary's; the key's own (type, size, class) come from the key.
    func storageAttributes(forPrivateKey isPrivate: Bool) -> NSMutableDictionary? {
        let nested = self[isPrivate ? kSecPrivateKeyAttrs : kSecPublicKeyAttrs].flatMap(Self.dictionary)
        let nestedValues = nested.map(SecKeyParameters.init)?.values ?? [:]
        let permanent = nestedValues[kSecAttrIsPermanent as String]?.flag ?? (isPrivate && self[kSecAttrIsPermanent]?.flag == true)
        guard permanent else { return nil }
        let attributes = NSMutableDictionary()
        for dictionary in [topLevel] + (nested.map { [$0] } ?? []) {
            for (key, value) in dictionary {
                guard let name = SecItemDictionary.name(ofKey: key), !Self.generationOnly.contains(name) else { continue }
                attributes[name] = value
            }
        }
        return attributes
    }

    /// The keys that say how to make a key, not how to store it.
    private static let generationOnly = Set([
        kSecAttrIsPermanent, kSecPrivateKeyAttrs, kSecPublicKeyAttrs, kSecAttrKeyType, kSecAttrKeySizeInBits,
        kSecAttrTokenID, kSecAttrKeyClass,
    ].map { $0 as String })

    /// `SecKeyKeyExchangeParameter.requestedSize`: the bytes a key exchange's KDF makes.
    func requestedSize() throws(NSError) -> Int {
        guard let size = self[SecKeyKeyExchangeParameter.requestedSize.rawValue]?.integer.flatMap({ Int(exactly: $0) }) else {
            throw NSError.keychainError(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize is missing or not a number.")
        }
        return size
    }

    /// `SecKeyKeyExchangeParameter.sharedInfo`, the KDF's shared info, or nil when absent.
    func sharedInfo() throws(NSError) -> Data? {
        guard let value = self[SecKeyKeyExchangeParameter.sharedInfo.rawValue] else { return nil }
        guard let data = value.data else {
            throw NSError.keychainError(errSecParam, "kSecKeyKeyExchangeParameterSharedInfo must be Data.")
        }
        return data
    }

    private static func dictionary(_ value: SecItemValue) -> NSDictionary? {
        if let dictionary = value.object(NSDictionary.self) { return dictionary }
        if case .other(let other) = value, let dictionary = other as? [AnyHashable: Any] { return NSDictionary(dictionary: dictionary) }
        return nil
    }
}
