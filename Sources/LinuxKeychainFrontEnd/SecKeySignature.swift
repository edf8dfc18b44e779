public import Foundation
import KeychainCore

// Apple's signature functions (SecKey.h): ECDSA X9.62 for EC keys (DER signatures, as Apple
// makes and takes them), PKCS #1 v1.5 and PSS for RSA keys. A private key signs, a public key
// verifies.

/// Whether `key` can do `operation` with `algorithm`: signing with a private key or verifying
/// with a public one, with a signature algorithm of `SecKeyAlgorithm` for the key's type; or,
/// for RSA keys, encrypting with a public key or decrypting with a private one.
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    switch operation {
    case .sign, .verify:
        guard let scheme = algorithm.signature, scheme.fits(key.kind) else { return false }
        return key.isPrivate == (operation == .sign)
    case .encrypt, .decrypt:
        switch key.kind {
        case .rsa: guard algorithm.encryption != nil else { return false }
        case .ec: guard algorithm.ecies != nil else { return false }
        }
        return key.isPrivate == (operation == .decrypt)
    case .keyExchange:
        guard algorithm.keyExchange != nil, case .ec = key.kind else { return false }
        return key.isPrivate
    }
}

/// The scheme of `algorithm` for `operation`, or the CFError Apple gives when the key or the
/// data does not fit: `errSecUnimplemented` for an algorithm or key class not supported,
/// `errSecParam` for a digest of the wrong length.
private func scheme(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm,
                    _ data: CFData) throws(NSError) -> SignatureScheme {
    guard SecKeyIsAlgorithmSupported(key, operation, algorithm), let scheme = algorithm.signature else {
        throw NSError.keychainError(errSecUnimplemented, "\(algorithm.rawValue) is not supported by \(key) for "
            + (operation == .sign ? "signing." : "verifying."))
    }
    if !scheme.isMessage && data.length != scheme.digestLength {
        throw NSError.keychainError(errSecParam, "\(algorithm.rawValue) takes a \(scheme.digestLength)-byte digest, not \(data.length) bytes.")
    }
    return scheme
}

/// Signs `dataToSign` (the message, or its digest for the digest algorithms) with the private
/// key `key`, as on Apple platforms. Returns the signature (DER for ECDSA), or nil with the
/// error set (`errSecUnimplemented`, `errSecParam`; see `SecKeyIsAlgorithmSupported`).
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in
        let scheme = try scheme(key, .sign, algorithm, dataToSign)
        let data = dataToSign as Data
        switch key.kind {
        case .ec(let curve):
            return NSData(data: try Libcrypto.sign(key.representation, curve, digest: scheme.isMessage ? scheme.digest : nil, data))
        case .rsa:
            return NSData(data: try Libcrypto.signRSA(key.representation, digest: scheme.digest, pss: scheme.family == .rsaPSS, data))
        }
    }
}

/// Checks the `signature` of `signedData` with the public key `key`, as on Apple platforms.
/// False with the error set: `errSecVerifyFailed` when the signature does not match (or, for
/// ECDSA, is not DER), `errSecUnimplemented` or `errSecParam` as `SecKeyCreateSignature` gives them.
public func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool {
    answering(error) { () throws(NSError) -> Bool in
        let scheme = try scheme(key, .verify, algorithm, signedData)
        let verified = switch key.kind {
        case .ec(let curve):
            try Libcrypto.verify(key.publicRepresentation, curve, digest: scheme.isMessage ? scheme.digest : nil,
                                 signedData as Data, signature as Data)
        case .rsa:
            try Libcrypto.verifyRSA(key.publicRepresentation, digest: scheme.digest, pss: scheme.family == .rsaPSS,
                                    signedData as Data, signature as Data)
        }
        guard verified else {
            throw NSError.keychainError(errSecVerifyFailed, "The signature does not verify with this key.")
        }
        return true
    } ?? false
}
