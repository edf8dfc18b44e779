public import Foundation
import KeychainCore

// Apple's encryption and key-exchange functions (SecKey.h), declared so that code calling them
// compiles: no algorithm is supported yet (RSA OAEP, ECIES and ECDH are issue 34's next steps),
// so each answers nil with an errSecUnimplemented CFError, which Apple gives for an algorithm a
// key does not support.

private func unsupported(_ operation: String, _ algorithm: SecKeyAlgorithm) throws(NSError) -> CFData {
    throw NSError.keychainError(errSecUnimplemented, "\(operation) is not supported yet (\(algorithm.rawValue)).")
}

/// Nil with an `errSecUnimplemented` error: no encryption algorithm is supported yet.
public func SecKeyCreateEncryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in try unsupported("Encryption", algorithm) }
}

/// Nil with an `errSecUnimplemented` error: no encryption algorithm is supported yet.
public func SecKeyCreateDecryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in try unsupported("Decryption", algorithm) }
}

/// Nil with an `errSecUnimplemented` error: no key-exchange algorithm is supported yet.
public func SecKeyCopyKeyExchangeResult(_ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
                                        _ parameters: CFDictionary,
                                        _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in try unsupported("Key exchange", algorithm) }
}
