import Foundation
import KeychainTestSupport
import LinuxKeychain
import Testing

/// `SecKeyCopyKeyExchangeResult` (ECDH, and ECDH through the X9.63 KDF) against the openssl
/// command: `pkeyutl -derive` for the shared secret and `kdf X963KDF` for the derived keys.
@Suite("SecKey: ECDH key exchange agrees with the openssl command")
struct SecKeyExchangeTests {
    static let kdfs: [(SecKeyAlgorithm, SecKeyAlgorithm, String)] = [
        (.ecdhKeyExchangeStandardX963SHA1, .ecdhKeyExchangeCofactorX963SHA1, "SHA1"),
        (.ecdhKeyExchangeStandardX963SHA224, .ecdhKeyExchangeCofactorX963SHA224, "SHA224"),
        (.ecdhKeyExchangeStandardX963SHA256, .ecdhKeyExchangeCofactorX963SHA256, "SHA256"),
        (.ecdhKeyExchangeStandardX963SHA384, .ecdhKeyExchangeCofactorX963SHA384, "SHA384"),
        (.ecdhKeyExchangeStandardX963SHA512, .ecdhKeyExchangeCofactorX963SHA512, "SHA512"),
    ]

    static func exchange(_ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
                         _ parameters: [SecKeyKeyExchangeParameter: Any] = [:]) -> SecKeyOutcome<CFData> {
        let dictionary = Dictionary(uniqueKeysWithValues: parameters.map { ($0.key.rawValue as String, $0.value) })
        return secKeyCall { SecKeyCopyKeyExchangeResult(privateKey, algorithm, publicKey, dictionary as CFDictionary, $0) }
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: [256, 384, 521])
    func theSharedSecretAndTheDerivedKeysAreOpensslsToo(bits: Int) throws {
        let directory = try makeScratchDirectory("seckey-ecdh")
        defer { try? FileManager.default.removeItem(at: directory) }
        let theirs = try SecKeyOpenSSLTests.opensslKeyPair(bits: bits, in: directory)
        let ours = try randomECKey(bits: bits)
        let ourPublicKey = try #require(SecKeyCopyPublicKey(ours))
        #expect(SecKeyIsAlgorithmSupported(ours, .keyExchange, .ecdhKeyExchangeStandard))

        let publicKeyInfo = try #require(bytes(hex: SecKeyOpenSSLTests.publicKeyInfoPrefix[bits]!))
        let ourPublicFile = directory.appendingPathComponent("our-public.der")
        try (publicKeyInfo + (try externalRepresentation(ourPublicKey))).write(to: ourPublicFile)
        let secretFile = directory.appendingPathComponent("secret")
        try #require(try SecKeyOpenSSLTests.openssl(["pkeyutl", "-derive", "-inkey", theirs.privateFile.path,
                                                     "-peerkey", ourPublicFile.path, "-peerform", "DER",
                                                     "-out", secretFile.path]) == 0)
        let opensslSecret = try Data(contentsOf: secretFile)
        #expect(opensslSecret.count == (bits + 7) / 8)

        let secret = try #require(Self.exchange(ours, .ecdhKeyExchangeStandard, theirs.publicKey).value) as Data
        #expect(secret == opensslSecret, "ECDH on P-\(bits)")
        #expect(Self.exchange(ours, .ecdhKeyExchangeCofactor, theirs.publicKey).value as Data? == opensslSecret)
        #expect(Self.exchange(theirs.privateKey, .ecdhKeyExchangeStandard, ourPublicKey).value as Data? == opensslSecret,
                "the other side agrees")

        // 42 bytes: more than one block of SHA-1, SHA-224 and SHA-256.
        let sharedInfo = Data("shared info for P-\(bits)".utf8)
        let derivedFile = directory.appendingPathComponent("derived")
        for (standard, cofactor, digest) in Self.kdfs {
            try #require(try SecKeyOpenSSLTests.openssl(["kdf", "-keylen", "42", "-kdfopt", "digest:\(digest)",
                                                         "-kdfopt", "hexsecret:\(Self.hex(opensslSecret))",
                                                         "-kdfopt", "hexinfo:\(Self.hex(sharedInfo))", "-binary",
                                                         "-out", derivedFile.path, "X963KDF"]) == 0)
            let expected = try Data(contentsOf: derivedFile)
            let parameters: [SecKeyKeyExchangeParameter: Any] = [.requestedSize: 42, .sharedInfo: sharedInfo]
            for algorithm in [standard, cofactor] {
                let derived = Self.exchange(ours, algorithm, theirs.publicKey, parameters)
                #expect(derived.value as Data? == expected, "\(algorithm.rawValue) on P-\(bits): \(derived.message ?? "")")
            }
            let withoutInfo = try #require(Self.exchange(ours, standard, theirs.publicKey, [.requestedSize: 42]).value) as Data
            #expect(withoutInfo != expected && withoutInfo.count == 42, "the shared info is part of the derivation")
        }
    }

    @Test func keysAndParametersThatDoNotFitAreRefusedAsApplesAre() throws {
        let p256 = try randomECKey(bits: 256)
        let p384Public = try #require(SecKeyCopyPublicKey(try randomECKey(bits: 384)))
        let p256Public = try #require(SecKeyCopyPublicKey(try randomECKey(bits: 256)))
        let rsa = try #require(secKeyCall {
            SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: 2048] as CFDictionary, $0)
        }.value)
        let refusals: [(SecKeyOutcome<CFData>, OSStatus, String)] = [
            (Self.exchange(p256Public, .ecdhKeyExchangeStandard, p256Public), errSecUnimplemented, "a public key exchanging"),
            (Self.exchange(rsa, .ecdhKeyExchangeStandard, p256Public), errSecUnimplemented, "an RSA key"),
            (Self.exchange(p256, .ecdsaSignatureMessageX962SHA256, p256Public), errSecUnimplemented, "a signature algorithm"),
            (Self.exchange(p256, SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH:KDFX963:MD5" as CFString), p256Public),
             errSecUnimplemented, "an unknown KDF hash"),
            (Self.exchange(p256, .ecdhKeyExchangeStandard, p384Public), errSecParam, "a public key on another curve"),
            (Self.exchange(p256, .ecdhKeyExchangeStandardX963SHA256, p256Public), errSecParam, "a KDF without requestedSize"),
            (Self.exchange(p256, .ecdhKeyExchangeStandardX963SHA256, p256Public, [.requestedSize: 0]), errSecParam, "requestedSize 0"),
            (Self.exchange(p256, .ecdhKeyExchangeStandardX963SHA256, p256Public, [.requestedSize: 32, .sharedInfo: "text"]),
             errSecParam, "sharedInfo that is not Data"),
        ]
        for (outcome, status, what) in refusals {
            #expect(outcome.value == nil && outcome.status == status, "\(what): \(outcome.status.map(String.init) ?? "no error")")
        }
        #expect(!SecKeyIsAlgorithmSupported(p256Public, .keyExchange, .ecdhKeyExchangeStandard))
        #expect(!SecKeyIsAlgorithmSupported(rsa, .keyExchange, .ecdhKeyExchangeStandard))
        // Without a KDF the parameters do not matter, as on Apple platforms.
        let plain = Self.exchange(p256, .ecdhKeyExchangeStandard, p256Public, [.requestedSize: 7])
        #expect((plain.value as Data?)?.count == 32)
    }
}
