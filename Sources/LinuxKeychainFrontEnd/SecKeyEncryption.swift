public import Foundation
import KeychainCore

// Apple's encryption functions (SecKey.h): PKCS #1 v1.5 and OAEP for RSA keys, ECIES
// (SecKeyECIES.swift) for EC keys. The public key encrypts, the private key decrypts. Key
// exchange is in SecKeyExchange.swift.

/// The encryption parameters of `algorithm` for `operation` with `key`, or the CFError Apple
/// gives: `errSecUnimplemented` for an algorithm or key not supported, `errSecParam` for input
/// of a length the key cannot take.
private func encryption(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm,
                        _ input: CFData) throws(NSError) -> String? {
    guard SecKeyIsAlgorithmSupported(key, operation, algorithm), let encryption = algorithm.encryption else {
        throw NSError.keychainError(errSecUnimplemented, "\(algorithm.rawValue) is not supported by \(key) for "
            + (operation == .encrypt ? "encrypting." : "decrypting."))
    }
    let modulus = key.kind.bits / 8
    if operation == .encrypt ? input.length > modulus - encryption.overhead : input.length != modulus {
        throw NSError.keychainError(errSecParam, "\(algorithm.rawValue) with \(key) takes "
            + (operation == .encrypt ? "at most \(modulus - encryption.overhead)" : "\(modulus)") + " bytes, not \(input.length).")
    }
    return encryption.oaepDigest
}

/// Encrypts `plaintext` with the public key `key`, as on Apple platforms: RSA, or ECIES for an
/// EC key. Nil with the error set: `errSecUnimplemented` (see `SecKeyIsAlgorithmSupported`),
/// `errSecParam` for a plaintext longer than the RSA key and padding allow.
public func SecKeyCreateEncryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in
        if case .ec(let curve) = key.kind, let ecies = algorithm.ecies, SecKeyIsAlgorithmSupported(key, .encrypt, algorithm) {
            return NSData(data: try ECIES.encrypt(plaintext as Data, to: key.publicRepresentation, curve,
                                                  digest: ecies.digest, variableIV: ecies.variableIV))
        }
        let digest = try encryption(key, .encrypt, algorithm, plaintext)
        let encrypted = try key.publicRepresentation.withUnsafeBytes { bytes in
            Result { () throws(NSError) in try Libcrypto.cryptRSA(encrypting: true, key: bytes, oaepDigest: digest, plaintext as Data) }
        }.get()
        guard let ciphertext = encrypted else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not encrypt.") }
        return NSData(data: ciphertext)
    }
}

/// Decrypts `ciphertext` with the private key `key`, as on Apple platforms: RSA, or ECIES for
/// an EC key. Nil with the error set: `errSecParam` for a ciphertext that is not the RSA key's
/// size or does not decrypt, `errSecUnimplemented` (see `SecKeyIsAlgorithmSupported`). The
/// plaintext is the caller's to clear.
public func SecKeyCreateDecryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in
        if case .ec(let curve) = key.kind, let ecies = algorithm.ecies, SecKeyIsAlgorithmSupported(key, .decrypt, algorithm) {
            var plaintext = try ECIES.decrypt(ciphertext as Data, with: key.representation, curve,
                                              digest: ecies.digest, variableIV: ecies.variableIV)
            defer { SecretBytes.zero(&plaintext) }
            return NSData(data: plaintext)
        }
        let digest = try encryption(key, .decrypt, algorithm, ciphertext)
        let decrypted = try key.representation.withUnsafeBytes { bytes in
            Result { () throws(NSError) in try Libcrypto.cryptRSA(encrypting: false, key: bytes, oaepDigest: digest, ciphertext as Data) }
        }.get()
        guard var plaintext = decrypted else { throw NSError.keychainError(errSecParam, "The ciphertext does not decrypt with this key.") }
        defer { SecretBytes.zero(&plaintext) }
        return NSData(data: plaintext)
    }
}
