import Foundation
import KeychainCore

/// ECIES as Apple's Security framework defines it for `SecKeyCreateEncryptedData` with an EC key
/// (its `eciesEncryption…` algorithms), so that what either side encrypts the other decrypts:
///
/// - an ephemeral key pair on the recipient's curve, whose public point E (X9.63) starts the output;
/// - ECDH of the ephemeral private key with the recipient's public key;
/// - the ANSI X9.63 KDF over that shared secret with SharedInfo E, making an AES key of 16 bytes on
///   P-256 and 32 on larger curves, then, for the `VariableIV` algorithms, a 16-byte IV (else the
///   IV is 16 zero bytes, safe as each key encrypts once);
/// - AES-GCM without additional data: output E || ciphertext || 16-byte tag.
enum ECIES {
    static let ivLength = 16

    static func keyLength(_ curve: ECCurve) -> Int { curve.rawValue > 256 ? 32 : 16 }

    /// `plaintext` encrypted to the public key of `curve` whose point is `recipient`.
    static func encrypt(_ plaintext: Data, to recipient: Data, _ curve: ECCurve,
                        digest: String, variableIV: Bool) throws(NSError) -> Data {
        let ephemeral = try Libcrypto.generate(curve)
        let ephemeralPoint = ephemeral.withUnsafeBytes { Data($0[0..<curve.publicLength]) }
        var (key, iv) = try symmetricKey(ephemeral, recipient, ephemeralPoint, curve, digest: digest, variableIV: variableIV)
        defer { SecretBytes.zero(&key) }
        guard let sealed = try Libcrypto.aesGCM(encrypting: true, key: key, iv: iv, plaintext) else {
            throw NSError.keychainError(errSecInternalComponent, "libcrypto could not encrypt with AES-GCM.")
        }
        return ephemeralPoint + sealed
    }

    /// The plaintext of `ciphertext` made by `encrypt` for the private key `key` of `curve`.
    /// `errSecParam` for a ciphertext too short, whose ephemeral point is not on the curve, or
    /// that does not authenticate. The plaintext is the caller's to clear.
    static func decrypt(_ ciphertext: Data, with key: SecretBytes, _ curve: ECCurve,
                        digest: String, variableIV: Bool) throws(NSError) -> Data {
        let tagLength = 16
        guard ciphertext.count >= curve.publicLength + tagLength else {
            throw NSError.keychainError(errSecParam, "The ECIES ciphertext is \(ciphertext.count) bytes, shorter than the "
                + "\(curve.publicLength + tagLength) that an ephemeral P-\(curve.rawValue) key and a tag take.")
        }
        let ephemeralPoint = Data(ciphertext.prefix(curve.publicLength))
        var symmetric: (key: Data, iv: Data)
        do {
            symmetric = try symmetricKey(key, ephemeralPoint, ephemeralPoint, curve, digest: digest, variableIV: variableIV)
        } catch let failure where failure.code == Int(errSecParam) {
            throw NSError.keychainError(errSecParam, "The ECIES ciphertext does not start with a point of P-\(curve.rawValue).")
        }
        defer { SecretBytes.zero(&symmetric.key) }
        guard let plaintext = try Libcrypto.aesGCM(encrypting: false, key: symmetric.key, iv: symmetric.iv,
                                                   Data(ciphertext.dropFirst(curve.publicLength))) else {
            throw NSError.keychainError(errSecParam, "The ECIES ciphertext does not decrypt with this key (its tag does not match).")
        }
        return plaintext
    }

    /// The AES key and IV from ECDH of `privateKey` with `peer`, through the KDF with SharedInfo
    /// `ephemeralPoint`.
    private static func symmetricKey(_ privateKey: SecretBytes, _ peer: Data, _ ephemeralPoint: Data, _ curve: ECCurve,
                                     digest: String, variableIV: Bool) throws(NSError) -> (key: Data, iv: Data) {
        let keyLength = keyLength(curve)
        var derived = try Libcrypto.ecdh(privateKey, peer, curve, kdfDigest: digest, sharedInfo: ephemeralPoint,
                                         length: keyLength + (variableIV ? ivLength : 0))
        defer { SecretBytes.zero(&derived) }
        let iv = variableIV ? Data(derived.suffix(ivLength)) : Data(count: ivLength)
        return (Data(derived.prefix(keyLength)), iv)
    }
}
