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

/// Makes a new EC key pair and returns its private key, as on Apple platforms.
///
/// `parameters` needs `kSecAttrKeyType` (`kSecAttrKeyTypeECSECPrimeRandom` or `kSecAttrKeyTypeEC`)
/// and `kSecAttrKeySizeInBits` (256, 384 or 521); others are `errSecParam`, RSA is
/// `errSecUnimplemented`. Keys are not stored yet: `kSecAttrIsPermanent` true (at the top or in
/// `kSecPrivateKeyAttrs`) and `kSecAttrTokenID` are refused with `errSecUnimplemented`. Other
/// attributes, such as tags and labels, only matter to storage and are ignored.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    answering(error) { () throws(NSError) -> SecKey in
        let parameters = SecKeyParameters(parameters)
        try parameters.requireECKeyType()
        let curve = try parameters.curve()
        try parameters.refuseStorageAndTokens()
        return SecKey(curve: curve, isPrivate: true, representation: try Libcrypto.generate(curve))
    }
}

/// Makes a key from Apple's external representation, as on Apple platforms: ANSI X9.63,
/// 04 || X || Y for a public key and 04 || X || Y || K for a private one, each part as long as
/// the curve's size in bytes.
///
/// `attributes` needs `kSecAttrKeyType` (EC) and `kSecAttrKeyClass` (public or private);
/// `kSecAttrKeySizeInBits`, if given, must match the data. Data of another length, a point not on
/// the curve, or a K that is not the point's is `errSecParam`.
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary,
                                 _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    answering(error) { () throws(NSError) -> SecKey in
        let parameters = SecKeyParameters(attributes)
        try parameters.requireECKeyType()
        let isPrivate = try parameters.isPrivateKeyClass()
        let size = try parameters.keySize()
        guard let curve = ECCurve.of(representationLength: keyData.length, isPrivate: isPrivate),
              size == nil || size == curve.rawValue else {
            throw NSError.keychainError(errSecParam, "The data is not an ANSI X9.63 EC \(isPrivate ? "private" : "public") key "
                + "of the size given (\(keyData.length) bytes).")
        }
        let representation = SecretBytes(copying: UnsafeRawBufferPointer(start: keyData.bytes, count: keyData.length))
        guard try Libcrypto.isValid(representation, curve, isPrivate: isPrivate) else {
            throw NSError.keychainError(errSecParam, "The data is not a valid EC P-\(curve.rawValue) key.")
        }
        return SecKey(curve: curve, isPrivate: isPrivate, representation: representation)
    }
}

/// The key's external representation, as on Apple platforms (see `SecKeyCreateWithData`). For
/// a private key it holds the private scalar: the caller should clear it after use.
public func SecKeyCopyExternalRepresentation(_ key: SecKey,
                                             _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    key.representation.withUnsafeBytes { NSData(bytes: $0.baseAddress!, length: $0.count) }
}

/// The public key of a private key, or the public key itself.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    guard key.isPrivate else { return key }
    return SecKey(curve: key.curve, isPrivate: false, representation: SecretBytes(key.publicPoint))
}

/// The key's attributes, as on Apple platforms: `kSecAttrKeyClass`, `kSecAttrKeyType`,
/// `kSecAttrKeySizeInBits`, `kSecAttrEffectiveKeySize`, `kSecAttrApplicationLabel` (the SHA-1
/// of the public key's X9.63 bytes, which identifies a key pair), `kSecAttrCanSign` and
/// `kSecAttrCanVerify`. Unlike Apple's, it never holds `kSecValueData`: a private key's bytes
/// are read only through `SecKeyCopyExternalRepresentation`. Nil when libcrypto cannot be loaded.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    guard let label = try? Libcrypto.sha1(key.publicPoint) else { return nil }
    let attributes = NSMutableDictionary()
    attributes[kSecAttrKeyClass] = key.isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic
    attributes[kSecAttrKeyType] = kSecAttrKeyTypeECSECPrimeRandom
    attributes[kSecAttrKeySizeInBits] = NSNumber(value: key.curve.rawValue)
    attributes[kSecAttrEffectiveKeySize] = NSNumber(value: key.curve.rawValue)
    attributes[kSecAttrApplicationLabel] = NSData(data: label)
    attributes[kSecAttrCanSign] = NSNumber(value: key.isPrivate)
    attributes[kSecAttrCanVerify] = NSNumber(value: !key.isPrivate)
    return attributes
}
