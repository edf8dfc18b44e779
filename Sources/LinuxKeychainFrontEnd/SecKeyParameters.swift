import Foundation
import KeychainCore

/// The attribute dictionary given to `SecKeyCreateRandomKey` or `SecKeyCreateWithData`, read
/// as those functions need it. Every reader throws the `CFError` the function hands out.
struct SecKeyParameters {
    private var values: [String: SecItemValue] = [:]

    init(_ dictionary: NSDictionary) {
        SecItemDictionary.forEachEntry(of: dictionary) { key, value in
            if let name = SecItemDictionary.name(ofKey: key) { values[name] = value }
        }
    }

    private subscript(key: CFString) -> SecItemValue? { values[key as String] }

    /// `kSecAttrKeyType`, which must be EC (`kSecAttrKeyTypeECSECPrimeRandom`); RSA is not yet supported.
    func requireECKeyType() throws(NSError) {
        guard let type = self[kSecAttrKeyType]?.text else {
            throw NSError.keychainError(errSecParam, "kSecAttrKeyType is missing or not a key type string.")
        }
        guard type == kSecAttrKeyTypeECSECPrimeRandom as String else {
            let rsa = type == kSecAttrKeyTypeRSA as String
            throw NSError.keychainError(errSecUnimplemented, (rsa ? "RSA keys are not supported yet; only" : "Only")
                + " EC keys (kSecAttrKeyTypeECSECPrimeRandom) are supported.")
        }
    }

    /// `kSecAttrKeySizeInBits` (a number or its decimal string), nil when absent.
    func keySize() throws(NSError) -> Int? {
        guard let value = self[kSecAttrKeySizeInBits] else { return nil }
        guard let size = value.integer.flatMap({ Int(exactly: $0) }) ?? value.text.flatMap({ Int($0) }) else {
            throw NSError.keychainError(errSecParam, "kSecAttrKeySizeInBits must be a number.")
        }
        return size
    }

    /// The curve of `kSecAttrKeySizeInBits`, which must be 256, 384 or 521.
    func curve() throws(NSError) -> ECCurve {
        guard let size = try keySize() else { throw NSError.keychainError(errSecParam, "kSecAttrKeySizeInBits is missing.") }
        guard let curve = ECCurve(rawValue: size) else {
            throw NSError.keychainError(errSecParam, "EC keys are 256, 384 or 521 bits, not \(size).")
        }
        return curve
    }

    /// Whether `kSecAttrKeyClass` says private (`kSecAttrKeyClassPrivate`) or public.
    func isPrivateKeyClass() throws(NSError) -> Bool {
        let keyClass = self[kSecAttrKeyClass]?.text
        guard keyClass == kSecAttrKeyClassPrivate as String || keyClass == kSecAttrKeyClassPublic as String else {
            throw NSError.keychainError(errSecParam, "kSecAttrKeyClass must be kSecAttrKeyClassPublic or kSecAttrKeyClassPrivate.")
        }
        return keyClass == kSecAttrKeyClassPrivate as String
    }

    /// Refuses what this slice cannot do yet: storing the key (`kSecAttrIsPermanent` true, at the
    /// top or in `kSecPrivateKeyAttrs`/`kSecPublicKeyAttrs`) and hardware tokens (`kSecAttrTokenID`).
    func refuseStorageAndTokens() throws(NSError) {
        if self[kSecAttrTokenID] != nil {
            throw NSError.keychainError(errSecUnimplemented, "kSecAttrTokenID needs a hardware token (Secure Enclave), which Linux lacks.")
        }
        let nested = [kSecPrivateKeyAttrs, kSecPublicKeyAttrs].compactMap { self[$0].flatMap(Self.dictionary) }
        let permanent = ([self] + nested.map(SecKeyParameters.init)).contains { $0[kSecAttrIsPermanent]?.flag == true }
        if permanent {
            throw NSError.keychainError(errSecUnimplemented, "Keys cannot be stored yet: kSecAttrIsPermanent must be false.")
        }
    }

    private static func dictionary(_ value: SecItemValue) -> NSDictionary? {
        if let dictionary = value.object(NSDictionary.self) { return dictionary }
        if case .other(let other) = value, let dictionary = other as? [AnyHashable: Any] { return NSDictionary(dictionary: dictionary) }
        return nil
    }
}
