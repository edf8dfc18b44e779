public import Foundation
import KeychainCore

// Apple's signature functions (SecKey.h) for the ECDSA X9.62 algorithms: a private key signs,
// a public key verifies, and signatures are DER, as Apple makes and takes them.

/// Whether `key` can do `operation` with `algorithm`: signing with a private EC key, or
/// verifying with a public one, with an ECDSA X9.62 algorithm of `SecKeyAlgorithm`.
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    guard algorithm.ecdsa != nil else { return false }
    switch operation {
    case .sign: return key.isPrivate
    case .verify: return !key.isPrivate
    case .encrypt, .decrypt, .keyExchange: return false
    }
}

/// The `algorithm` parameters for `operation`, or the CFError Apple gives when the key or the
/// data does not fit: `errSecUnimplemented` for an algorithm or key class not supported,
/// `errSecParam` for a digest of the wrong length.
private func ecdsa(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm,
                   _ data: CFData) throws(NSError) -> String? {
    guard SecKeyIsAlgorithmSupported(key, operation, algorithm), let ecdsa = algorithm.ecdsa else {
        throw NSError.keychainError(errSecUnimplemented, "\(algorithm.rawValue) is not supported by \(key) for "
            + (operation == .sign ? "signing." : "verifying."))
    }
    if !ecdsa.isMessage && data.length != ecdsa.digestLength {
        throw NSError.keychainError(errSecParam, "\(algorithm.rawValue) takes a \(ecdsa.digestLength)-byte digest, not \(data.length) bytes.")
    }
    return ecdsa.isMessage ? ecdsa.digest : nil
}

/// Signs `dataToSign` (the message, or its digest for the digest algorithms) with the private
/// key `key`, as on Apple platforms. Returns the DER-encoded ECDSA signature, or nil with the
/// error set (`errSecUnimplemented`, `errSecParam`; see `SecKeyIsAlgorithmSupported`).
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in
        let digest = try ecdsa(key, .sign, algorithm, dataToSign)
        return NSData(data: try Libcrypto.sign(key.representation, key.curve, digest: digest, dataToSign as Data))
    }
}

/// Checks the DER-encoded `signature` of `signedData` with the public key `key`, as on Apple
/// platforms. False with the error set: `errSecVerifyFailed` when the signature does not match
/// or is not DER, `errSecUnimplemented` or `errSecParam` as `SecKeyCreateSignature` gives them.
public func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool {
    answering(error) { () throws(NSError) -> Bool in
        let digest = try ecdsa(key, .verify, algorithm, signedData)
        guard try Libcrypto.verify(key.publicPoint, key.curve, digest: digest, signedData as Data, signature as Data) else {
            throw NSError.keychainError(errSecVerifyFailed, "The EC signature does not verify with this key.")
        }
        return true
    } ?? false
}
