import CLibcrypto
import Foundation
import KeychainCore

/// The SecKey functions' calls into libcrypto (CShims/CLibcrypto), which is loaded at the first
/// of them. Each throws the `CFError` the SecKey function hands out.
enum Libcrypto {
    /// Loads libcrypto once; a failure is retried at the next call, as the shim does not remember it.
    static func load() throws(NSError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard clibcrypto_load(nil, &reason, reason.count) != 0 else { return }
        let text = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw NSError.keychainError(errSecInternalComponent, "libcrypto.so.3 cannot be loaded (\(text)); "
            + "install libssl3 (Debian/Ubuntu: apt-get install libssl3)")
    }

    /// A new private key's X9.63 bytes.
    static func generate(_ curve: ECCurve) throws(NSError) -> SecretBytes {
        try load()
        var failed = false
        let key = SecretBytes(count: curve.privateLength) { buffer in
            let bytes = buffer.bindMemory(to: UInt8.self)
            failed = clibcrypto_ec_generate(Int32(curve.rawValue), bytes.baseAddress, bytes.count) != 0
        }
        guard !failed else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not make an EC key.") }
        return key
    }

    /// Whether `key` (X9.63) is a valid key of `curve`: a point on it, and a private scalar that is the point's.
    static func isValid(_ key: SecretBytes, _ curve: ECCurve, isPrivate: Bool) throws(NSError) -> Bool {
        try load()
        return key.withUnsafeBytes { bytes in
            clibcrypto_ec_check(Int32(curve.rawValue), bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count,
                                isPrivate ? 1 : 0) == 0
        }
    }

    /// An ECDSA signature in DER of `data` (hashed with `digest`, or the digest itself when nil).
    static func sign(_ key: SecretBytes, _ curve: ECCurve, digest: String?, _ data: Data) throws(NSError) -> Data {
        try load()
        var signature = [UInt8](repeating: 0, count: Int(CLIBCRYPTO_EC_SIGNATURE_CAPACITY))
        var length = signature.count
        let status = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                clibcrypto_ec_sign(Int32(curve.rawValue), keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count, digest,
                                   dataBytes.bindMemory(to: UInt8.self).baseAddress, dataBytes.count, &signature, &length)
            }
        }
        guard status == 0 else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not sign with the EC key.") }
        return Data(signature[0..<length])
    }

    /// Whether `signature` (DER) verifies `data` under the public point `key`; a malformed one does not.
    static func verify(_ key: Data, _ curve: ECCurve, digest: String?, _ data: Data, _ signature: Data) throws(NSError) -> Bool {
        try load()
        let result = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                signature.withUnsafeBytes { signatureBytes in
                    clibcrypto_ec_verify(Int32(curve.rawValue), keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count, digest,
                                         dataBytes.bindMemory(to: UInt8.self).baseAddress, dataBytes.count,
                                         signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count)
                }
            }
        }
        guard result >= 0 else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not use the EC public key.") }
        return result == 1
    }

    /// A new RSA key of `bits`: its PKCS #1 private and public DER.
    static func generateRSA(bits: Int) throws(NSError) -> (key: SecretBytes, publicKey: Data) {
        try load()
        var publicKey = [UInt8](repeating: 0, count: Int(CLIBCRYPTO_RSA_KEY_CAPACITY))
        var publicLength = publicKey.count
        let key = withWipedScratch(Int(CLIBCRYPTO_RSA_KEY_CAPACITY)) { scratch -> SecretBytes? in
            var length = scratch.count
            let made = clibcrypto_rsa_generate(Int32(bits), scratch.bindMemory(to: UInt8.self).baseAddress, &length,
                                               &publicKey, &publicLength) == 0
            return made ? SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<length])) : nil
        }
        guard let key else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not make an RSA key.") }
        return (key, Data(publicKey[0..<publicLength]))
    }

    /// The modulus size and public DER of `key`, when it is one PKCS #1 DER RSA key of its class
    /// whose parts agree; nil when not.
    static func checkRSA(_ key: SecretBytes, isPrivate: Bool) throws(NSError) -> (bits: Int, publicKey: Data)? {
        try load()
        var bits: Int32 = 0
        var publicKey = [UInt8](repeating: 0, count: Int(CLIBCRYPTO_RSA_KEY_CAPACITY))
        var publicLength = publicKey.count
        let status = key.withUnsafeBytes { bytes in
            clibcrypto_rsa_check(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, isPrivate ? 1 : 0, &bits,
                                 &publicKey, &publicLength)
        }
        return status == 0 ? (Int(bits), Data(publicKey[0..<publicLength])) : nil
    }

    /// An RSA signature of the message `data`, PKCS #1 v1.5 or PSS.
    static func signRSA(_ key: SecretBytes, digest: String, pss: Bool, _ data: Data) throws(NSError) -> Data {
        try load()
        var signature = [UInt8](repeating: 0, count: Int(CLIBCRYPTO_RSA_SIGNATURE_CAPACITY))
        var length = signature.count
        let status = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                clibcrypto_rsa_sign(keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count, digest, pss ? 1 : 0,
                                    dataBytes.bindMemory(to: UInt8.self).baseAddress, dataBytes.count, &signature, &length)
            }
        }
        guard status == 0 else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not sign with the RSA key.") }
        return Data(signature[0..<length])
    }

    /// Whether `signature` verifies the message `data` under the PKCS #1 public key `key`.
    static func verifyRSA(_ key: Data, digest: String, pss: Bool, _ data: Data, _ signature: Data) throws(NSError) -> Bool {
        try load()
        let result = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                signature.withUnsafeBytes { signatureBytes in
                    clibcrypto_rsa_verify(keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count, digest, pss ? 1 : 0,
                                          dataBytes.bindMemory(to: UInt8.self).baseAddress, dataBytes.count,
                                          signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count)
                }
            }
        }
        guard result >= 0 else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not use the RSA public key.") }
        return result == 1
    }

    /// `input` encrypted with the PKCS #1 public key `key` (`encrypting`) or decrypted with the
    /// private one, by PKCS #1 v1.5 or OAEP with `oaepDigest`; nil when it does not decrypt.
    /// The decrypted bytes pass through memory that is zeroed.
    static func cryptRSA(encrypting: Bool, key: UnsafeRawBufferPointer, oaepDigest: String?, _ input: Data) throws(NSError) -> Data? {
        try load()
        return withWipedScratch(Int(CLIBCRYPTO_RSA_SIGNATURE_CAPACITY)) { scratch in
            var length = scratch.count
            let status = input.withUnsafeBytes { bytes in
                clibcrypto_rsa_crypt(encrypting ? 1 : 0, key.bindMemory(to: UInt8.self).baseAddress, key.count, oaepDigest,
                                     bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count,
                                     scratch.bindMemory(to: UInt8.self).baseAddress, &length)
            }
            return status == 0 ? Data(scratch[0..<length]) : nil
        }
    }

    /// ECDH of the private key `key` with the public point `peer`: the shared secret, or `length`
    /// bytes of the X9.63 KDF over it with `kdfDigest` and `sharedInfo`. A point off the curve is
    /// `errSecParam`. The result is the caller's to clear.
    static func ecdh(_ key: SecretBytes, _ peer: Data, _ curve: ECCurve, kdfDigest: String?, sharedInfo: Data,
                     length: Int) throws(NSError) -> Data {
        try load()
        let derived = withWipedScratch(length) { scratch -> Data? in
            var produced = length
            let status = key.withUnsafeBytes { keyBytes in
                peer.withUnsafeBytes { peerBytes in
                    sharedInfo.withUnsafeBytes { infoBytes in
                        clibcrypto_ecdh(Int32(curve.rawValue), keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count,
                                        peerBytes.bindMemory(to: UInt8.self).baseAddress, peerBytes.count, kdfDigest,
                                        infoBytes.bindMemory(to: UInt8.self).baseAddress, infoBytes.count,
                                        scratch.bindMemory(to: UInt8.self).baseAddress, &produced)
                    }
                }
            }
            return status == 0 ? Data(scratch[0..<produced]) : nil
        }
        guard let derived else {
            throw NSError.keychainError(errSecParam, "The key exchange failed: the public key is not a point of P-\(curve.rawValue).")
        }
        return derived
    }

    /// AES-GCM with a 16-byte tag: `input` encrypted, with the tag after it, or decrypted (the tag
    /// being its last 16 bytes), nil when the tag does not match. The plaintext is the caller's to clear.
    static func aesGCM(encrypting: Bool, key: Data, iv: Data, _ input: Data) throws(NSError) -> Data? {
        try load()
        let tagLength = Int(CLIBCRYPTO_GCM_TAG_LENGTH)
        let body = encrypting ? input : input.prefix(input.count - tagLength)
        var tag = encrypting ? Data(count: tagLength) : Data(input.suffix(tagLength))
        var output = Data(count: body.count)
        let status = key.withUnsafeBytes { keyBytes in
            iv.withUnsafeBytes { ivBytes in
                body.withUnsafeBytes { inputBytes in
                    output.withUnsafeMutableBytes { outputBytes in
                        tag.withUnsafeMutableBytes { tagBytes in
                            clibcrypto_aes_gcm(encrypting ? 1 : 0, keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count,
                                               ivBytes.bindMemory(to: UInt8.self).baseAddress, ivBytes.count, nil, 0,
                                               inputBytes.bindMemory(to: UInt8.self).baseAddress, inputBytes.count,
                                               outputBytes.bindMemory(to: UInt8.self).baseAddress,
                                               tagBytes.bindMemory(to: UInt8.self).baseAddress)
                        }
                    }
                }
            }
        }
        guard status == 0 else { return nil }
        return encrypting ? output + tag : output
    }

    /// Runs `body` with `count` bytes of scratch memory for private bytes, zeroed and freed after.
    private static func withWipedScratch<Result>(_ count: Int, _ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        defer {
            SecretBytes.zero(scratch)
            scratch.deallocate()
        }
        return body(scratch)
    }

    /// The SHA-1 of `data`.
    static func sha1(_ data: Data) throws(NSError) -> Data {
        try load()
        var output = [UInt8](repeating: 0, count: Int(CLIBCRYPTO_DIGEST_CAPACITY))
        var length = output.count
        let status = data.withUnsafeBytes { bytes in
            clibcrypto_digest("SHA1", bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &output, &length)
        }
        guard status == 0 else { throw NSError.keychainError(errSecInternalComponent, "libcrypto could not compute a SHA-1.") }
        return Data(output[0..<length])
    }
}
