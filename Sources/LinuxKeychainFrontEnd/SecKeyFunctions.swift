public import Foundation
import KeychainCore

// Apple's functions that make, import, export and describe keys (SecKey.h), for EC keys on
// P-256, P-384 and P-521. Errors are CFErrors in kCFErrorDomainOSStatus, as on Apple platforms.

/// Runs `body`, handing the error it throws out through a Security function's error
/// parameter, retained as Apple's are; nil then.
func answering<Result>(_ error: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws(NSError) -> Result) -> Result? {
    do {
        return try body()
    } catch let failure {
        error?.pointee = Unmanaged.passRetained(failure)
        return nil
    }
}

/// Makes a new key pair and returns its private key, as on Apple platforms.
///
/// `parameters` needs `kSecAttrKeyType` and `kSecAttrKeySizeInBits`: `kSecAttrKeyTypeECSECPrimeRandom`
/// (or `kSecAttrKeyTypeEC`) with 256, 384 or 521, or `kSecAttrKeyTypeRSA` with 2048 to 4096 in
/// whole bytes; other sizes are `errSecParam`, other types `errSecUnimplemented`.
/// `kSecAttrTokenID` is refused with `errSecUnimplemented`.
///
/// With `kSecAttrIsPermanent` true (at the top or in `kSecPrivateKeyAttrs`) the private key is
/// stored as a `kSecClassKey` item, with the tag, label and other attributes given at the top
/// and in `kSecPrivateKeyAttrs`; the public key is stored too when `kSecPublicKeyAttrs` holds
/// `kSecAttrIsPermanent` true. A failure to store (`errSecDuplicateItem` for a key of the same
/// tag and label) returns nil and stores nothing.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    answering(error) { () throws(NSError) -> SecKey in
        let parameters = SecKeyParameters(parameters)
        let kind = try parameters.kind()
        try parameters.refuseTokens()
        let key: SecKey
        switch kind {
        case .ec(let curve):
            key = SecKey(curve: curve, isPrivate: true, representation: try Libcrypto.generate(curve))
        case .rsa(let bits):
            let (privateKey, publicKey) = try Libcrypto.generateRSA(bits: bits)
            key = SecKey(kind, isPrivate: true, representation: privateKey, publicRepresentation: publicKey)
        }
        try SecKeyPermanence.store(key, as: parameters)
        return key
    }
}

/// Makes a key from Apple's external representation, as on Apple platforms: for EC, ANSI
/// X9.63 (04 || X || Y for a public key, 04 || X || Y || K for a private one, each part as long
/// as the curve's size in bytes); for RSA, PKCS #1 DER (RSAPublicKey, RSAPrivateKey).
///
/// `attributes` needs `kSecAttrKeyType` and `kSecAttrKeyClass` (public or private);
/// `kSecAttrKeySizeInBits`, if given, must match the data. Data of another length or not DER, a
/// point not on the curve, private parts that do not agree, or an RSA modulus outside 2048 to
/// 4096 bits is `errSecParam`.
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary,
                                 _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    answering(error) { () throws(NSError) -> SecKey in
        let parameters = SecKeyParameters(attributes)
        let representation = SecretBytes(copying: UnsafeRawBufferPointer(start: keyData.bytes, count: keyData.length))
        return try SecKey(representation: representation, isRSA: try parameters.isRSAKeyType(),
                          isPrivate: try parameters.isPrivateKeyClass(), size: try parameters.keySize())
    }
}

extension SecKey {
    /// The key `representation` holds, checked as `SecKeyCreateWithData` checks it; `size`,
    /// when given, must match.
    convenience init(representation: SecretBytes, isRSA: Bool, isPrivate: Bool, size: Int?) throws(NSError) {
        let className = isPrivate ? "private" : "public"
        if isRSA {
            guard let (bits, publicKey) = try Libcrypto.checkRSA(representation, isPrivate: isPrivate),
                  SecKeyKind.rsaSizes.contains(bits), size == nil || size == bits else {
                throw NSError.keychainError(errSecParam, "The data is not a PKCS #1 RSA \(className) key of 2048 to 4096 bits "
                    + "and of the size given.")
            }
            self.init(.rsa(bits: bits), isPrivate: isPrivate, representation: representation, publicRepresentation: publicKey)
            return
        }
        guard let curve = ECCurve.of(representationLength: representation.count, isPrivate: isPrivate),
              size == nil || size == curve.rawValue else {
            throw NSError.keychainError(errSecParam, "The data is not an ANSI X9.63 EC \(className) key "
                + "of the size given (\(representation.count) bytes).")
        }
        guard try Libcrypto.isValid(representation, curve, isPrivate: isPrivate) else {
            throw NSError.keychainError(errSecParam, "The data is not a valid EC P-\(curve.rawValue) key.")
        }
        self.init(curve: curve, isPrivate: isPrivate, representation: representation)
    }
}

/// The key's external representation, as on Apple platforms (see `SecKeyCreateWithData`). For
/// a private key it holds the private bytes: the caller should clear it after use.
public func SecKeyCopyExternalRepresentation(_ key: SecKey,
                                             _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    key.representation.withUnsafeBytes { NSData(bytes: $0.baseAddress!, length: $0.count) }
}

/// The public key of a private key, or the public key itself.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    guard key.isPrivate else { return key }
    return SecKey(key.kind, isPrivate: false, representation: SecretBytes(key.publicRepresentation),
                  publicRepresentation: key.publicRepresentation)
}

/// The key's attributes, as on Apple platforms: `kSecAttrKeyClass`, `kSecAttrKeyType`,
/// `kSecAttrKeySizeInBits`, `kSecAttrEffectiveKeySize`, `kSecAttrApplicationLabel` (the SHA-1
/// of the public key's external representation, which identifies a key pair), `kSecAttrCanSign`
/// and `kSecAttrCanVerify`. Unlike Apple's, it never holds `kSecValueData`: a private key's bytes
/// are read only through `SecKeyCopyExternalRepresentation`. Nil when libcrypto cannot be loaded.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    guard let label = try? Libcrypto.sha1(key.publicRepresentation) else { return nil }
    let attributes = NSMutableDictionary()
    attributes[kSecAttrKeyClass] = key.isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic
    if case .rsa = key.kind {
        attributes[kSecAttrKeyType] = kSecAttrKeyTypeRSA
    } else {
        attributes[kSecAttrKeyType] = kSecAttrKeyTypeECSECPrimeRandom
    }
    attributes[kSecAttrKeySizeInBits] = NSNumber(value: key.kind.bits)
    attributes[kSecAttrEffectiveKeySize] = NSNumber(value: key.kind.bits)
    attributes[kSecAttrApplicationLabel] = NSData(data: label)
    attributes[kSecAttrCanSign] = NSNumber(value: key.isPrivate)
    attributes[kSecAttrCanVerify] = NSNumber(value: !key.isPrivate)
    return attributes
}
