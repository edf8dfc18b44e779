import Foundation
import KeychainTestSupport
import LinuxKeychain
import Testing

/// SecKey for RSA keys: PKCS #1 keys, PKCS #1 v1.5 and PSS signatures, checked against
/// themselves and the openssl command.
@Suite("SecKey: RSA keys")
struct SecKeyRSATests {
    static let pkcs1: [(SecKeyAlgorithm, String)] = [
        (.rsaSignatureMessagePKCS1v15SHA256, "-sha256"), (.rsaSignatureMessagePKCS1v15SHA384, "-sha384"),
        (.rsaSignatureMessagePKCS1v15SHA512, "-sha512"),
    ]
    static let pss: [(SecKeyAlgorithm, String)] = [
        (.rsaSignatureMessagePSSSHA256, "-sha256"), (.rsaSignatureMessagePSSSHA384, "-sha384"), (.rsaSignatureMessagePSSSHA512, "-sha512"),
    ]

    static func randomRSAKey(bits: Int) throws -> SecKey {
        let outcome = secKeyCall {
            SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: bits] as CFDictionary, $0)
        }
        return try #require(outcome.value, "SecKeyCreateRandomKey(RSA \(bits)) failed: \(outcome.message ?? "")")
    }

    static func rsaAttributes(_ keyClass: CFString) -> CFDictionary {
        [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: keyClass] as CFDictionary
    }

    @Test(arguments: [2048, 3072, 4096])
    func aNewKeyRoundTripsAndSigns(bits: Int) throws {
        let key = try Self.randomRSAKey(bits: bits)
        let privateBytes = try externalRepresentation(key)
        #expect(privateBytes.first == 0x30, "PKCS #1 RSAPrivateKey DER")
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let publicBytes = try externalRepresentation(publicKey)
        let imported = try #require(secKeyCall { SecKeyCreateWithData(privateBytes as CFData, Self.rsaAttributes(kSecAttrKeyClassPrivate), $0) }.value)
        #expect(imported == key)
        let importedPublic = try #require(secKeyCall { SecKeyCreateWithData(publicBytes as CFData, Self.rsaAttributes(kSecAttrKeyClassPublic), $0) }.value)
        #expect(importedPublic == publicKey)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == kSecAttrKeyTypeRSA as String)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == bits)
        #expect((attributes[kSecAttrApplicationLabel as String] as? Data)?.count == 20)

        let message = Data("a message to sign".utf8)
        for (algorithm, _) in Self.pkcs1 + Self.pss {
            #expect(SecKeyIsAlgorithmSupported(key, .sign, algorithm) && SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm))
            let signature = try #require(secKeyCall { SecKeyCreateSignature(imported, algorithm, message as CFData, $0) }.value) as Data
            #expect(signature.count == bits / 8)
            let verified = secKeyCall { SecKeyVerifySignature(importedPublic, algorithm, message as CFData, signature as CFData, $0) ? true : nil }
            #expect(verified.value == true, "\(algorithm.rawValue): \(verified.message ?? "")")
            let tampered = secKeyCall { SecKeyVerifySignature(publicKey, algorithm, Data("another".utf8) as CFData, signature as CFData, $0) ? true : nil }
            #expect(tampered.value == nil && tampered.status == errSecVerifyFailed)
        }
        let pkcs1Signature = try #require(secKeyCall { SecKeyCreateSignature(key, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, $0) }.value)
        let asPSS = secKeyCall { SecKeyVerifySignature(publicKey, .rsaSignatureMessagePSSSHA256, message as CFData, pkcs1Signature, $0) ? true : nil }
        #expect(asPSS.status == errSecVerifyFailed, "a PKCS #1 v1.5 signature is not a PSS one")
        #expect(!SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA256))
    }

    @Test func badRSAKeyDataIsErrSecParam() throws {
        let key = try Self.randomRSAKey(bits: 2048)
        let privateBytes = try externalRepresentation(key)
        let publicBytes = try externalRepresentation(try #require(SecKeyCopyPublicKey(key)))
        var wrongPrime = privateBytes
        wrongPrime[wrongPrime.count - 200] ^= 1
        let cases: [(Data, CFDictionary)] = [
            (Data(), Self.rsaAttributes(kSecAttrKeyClassPublic)),
            (publicBytes.dropLast(), Self.rsaAttributes(kSecAttrKeyClassPublic)),
            (publicBytes + Data([0]), Self.rsaAttributes(kSecAttrKeyClassPublic)),
            (publicBytes, Self.rsaAttributes(kSecAttrKeyClassPrivate)),
            (wrongPrime, Self.rsaAttributes(kSecAttrKeyClassPrivate)),
            (publicBytes, [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeyClass: kSecAttrKeyClassPublic, kSecAttrKeySizeInBits: 4096] as CFDictionary),
            (SecKeyTests.openSSLKey, Self.rsaAttributes(kSecAttrKeyClassPrivate)),
        ]
        for (index, (data, attributes)) in cases.enumerated() {
            let outcome = secKeyCall { SecKeyCreateWithData(data as CFData, attributes, $0) }
            #expect(outcome.value == nil && outcome.status == errSecParam, "case \(index): \(outcome.message ?? "no error")")
        }
    }

    @Test func opensslVerifiesOursAndWeVerifyOpensslsWithItsKey() throws {
        let directory = try makeScratchDirectory("seckey-rsa-openssl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = { (name: String) in directory.appendingPathComponent(name).path }
        // openssl's key, as PKCS #1 DER both ways, imported here.
        try #require(try SecKeyOpenSSLTests.openssl(["genrsa", "-out", file("private.pem"), "2048"]) == 0)
        try #require(try SecKeyOpenSSLTests.openssl(["rsa", "-in", file("private.pem"), "-traditional", "-outform", "DER", "-out", file("private.der")]) == 0)
        try #require(try SecKeyOpenSSLTests.openssl(["rsa", "-in", file("private.pem"), "-RSAPublicKey_out", "-outform", "DER", "-out", file("public.der")]) == 0)
        var privateBytes = try Data(contentsOf: URL(fileURLWithPath: file("private.der")))
        defer { privateBytes.resetBytes(in: privateBytes.startIndex..<privateBytes.endIndex) }
        let key = try #require(secKeyCall { SecKeyCreateWithData(privateBytes as CFData, Self.rsaAttributes(kSecAttrKeyClassPrivate), $0) }.value)
        let publicBytes = try Data(contentsOf: URL(fileURLWithPath: file("public.der")))
        let publicKey = try #require(secKeyCall { SecKeyCreateWithData(publicBytes as CFData, Self.rsaAttributes(kSecAttrKeyClassPublic), $0) }.value)
        #expect(SecKeyCopyPublicKey(key) == publicKey)
        #expect(try externalRepresentation(publicKey) == publicBytes)

        let message = Data("signed on one side, checked on the other".utf8)
        try message.write(to: URL(fileURLWithPath: file("message")))
        let pssOptions = ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:digest"]
        for (algorithm, hash) in Self.pkcs1 + Self.pss {
            let options = algorithm.rawValue.contains("PSS") ? pssOptions : []
            let ours = try #require(secKeyCall { SecKeyCreateSignature(key, algorithm, message as CFData, $0) }.value) as Data
            try ours.write(to: URL(fileURLWithPath: file("ours")))
            let verify = ["dgst", hash] + options + ["-prverify", file("private.pem"), "-signature", file("ours"), file("message")]
            #expect(try SecKeyOpenSSLTests.openssl(verify) == 0, "openssl verifies \(algorithm.rawValue)")

            try #require(try SecKeyOpenSSLTests.openssl(["dgst", hash] + options + ["-sign", file("private.pem"), "-out", file("theirs"), file("message")]) == 0)
            let theirs = try Data(contentsOf: URL(fileURLWithPath: file("theirs")))
            let verified = secKeyCall { SecKeyVerifySignature(publicKey, algorithm, message as CFData, theirs as CFData, $0) ? true : nil }
            #expect(verified.value == true, "we verify openssl's \(algorithm.rawValue): \(verified.message ?? "")")
        }
    }

    static let encryptions: [(SecKeyAlgorithm, [String])] = [
        (.rsaEncryptionPKCS1, ["rsa_padding_mode:pkcs1"]),
        (.rsaEncryptionOAEPSHA1, ["rsa_padding_mode:oaep", "rsa_oaep_md:sha1", "rsa_mgf1_md:sha1"]),
        (.rsaEncryptionOAEPSHA256, ["rsa_padding_mode:oaep", "rsa_oaep_md:sha256", "rsa_mgf1_md:sha256"]),
        (.rsaEncryptionOAEPSHA384, ["rsa_padding_mode:oaep", "rsa_oaep_md:sha384", "rsa_mgf1_md:sha384"]),
        (.rsaEncryptionOAEPSHA512, ["rsa_padding_mode:oaep", "rsa_oaep_md:sha512", "rsa_mgf1_md:sha512"]),
    ]

    @Test func encryptionRoundTripsAndRefusesWhatDoesNotFit() throws {
        let key = try Self.randomRSAKey(bits: 2048)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let plaintext = Data("a secret to encrypt".utf8)
        for (algorithm, _) in Self.encryptions {
            #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm) && SecKeyIsAlgorithmSupported(key, .decrypt, algorithm))
            let ciphertext = try #require(secKeyCall { SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, $0) }.value) as Data
            #expect(ciphertext.count == 256)
            let decrypted = secKeyCall { SecKeyCreateDecryptedData(key, algorithm, ciphertext as CFData, $0) }
            #expect(decrypted.value as Data? == plaintext, "\(algorithm.rawValue): \(decrypted.message ?? "")")
            var tampered = ciphertext
            tampered[100] ^= 1
            // OpenSSL 3.2 and later answer a bad PKCS #1 v1.5 ciphertext with random bytes (implicit
            // rejection, against Bleichenbacher's attack), so only OAEP's is sure to be refused.
            let tamperedOutcome = algorithm == .rsaEncryptionPKCS1 ? [] : [secKeyCall { SecKeyCreateDecryptedData(key, algorithm, tampered as CFData, $0) }]
            let refused = tamperedOutcome + [
                secKeyCall { SecKeyCreateDecryptedData(key, algorithm, ciphertext.dropLast() as CFData, $0) },
                secKeyCall { SecKeyCreateEncryptedData(publicKey, algorithm, Data(count: 256 - 10) as CFData, $0) },
            ]
            for outcome in refused { #expect(outcome.value == nil && outcome.status == errSecParam, "\(algorithm.rawValue)") }
            let withPrivate = secKeyCall { SecKeyCreateEncryptedData(key, algorithm, plaintext as CFData, $0) }
            #expect(withPrivate.value == nil && withPrivate.status == errSecUnimplemented)
        }
        let largest = Data(count: 256 - 66)
        #expect(secKeyCall { SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256, largest as CFData, $0) }.value != nil)
    }

    @Test func opensslDecryptsOursAndWeDecryptOpensslsCiphertexts() throws {
        let directory = try makeScratchDirectory("seckey-rsa-encryption")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = { (name: String) in directory.appendingPathComponent(name).path }
        try #require(try SecKeyOpenSSLTests.openssl(["genrsa", "-out", file("private.pem"), "2048"]) == 0)
        try #require(try SecKeyOpenSSLTests.openssl(["rsa", "-in", file("private.pem"), "-traditional", "-outform", "DER", "-out", file("private.der")]) == 0)
        var privateBytes = try Data(contentsOf: URL(fileURLWithPath: file("private.der")))
        defer { privateBytes.resetBytes(in: privateBytes.startIndex..<privateBytes.endIndex) }
        let key = try #require(secKeyCall { SecKeyCreateWithData(privateBytes as CFData, Self.rsaAttributes(kSecAttrKeyClassPrivate), $0) }.value)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let plaintext = Data("encrypted on one side, decrypted on the other".utf8)
        try plaintext.write(to: URL(fileURLWithPath: file("plaintext")))
        for (algorithm, options) in Self.encryptions {
            let pkeyopts = options.flatMap { ["-pkeyopt", $0] }
            let ours = try #require(secKeyCall { SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, $0) }.value) as Data
            try ours.write(to: URL(fileURLWithPath: file("ours")))
            try #require(try SecKeyOpenSSLTests.openssl(["pkeyutl", "-decrypt", "-inkey", file("private.pem")] + pkeyopts
                + ["-in", file("ours"), "-out", file("decrypted")]) == 0, "openssl decrypts \(algorithm.rawValue)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file("decrypted"))) == plaintext)

            try #require(try SecKeyOpenSSLTests.openssl(["pkeyutl", "-encrypt", "-inkey", file("private.pem")] + pkeyopts
                + ["-in", file("plaintext"), "-out", file("theirs")]) == 0)
            let theirs = try Data(contentsOf: URL(fileURLWithPath: file("theirs")))
            let decrypted = secKeyCall { SecKeyCreateDecryptedData(key, algorithm, theirs as CFData, $0) }
            #expect(decrypted.value as Data? == plaintext, "we decrypt openssl's \(algorithm.rawValue): \(decrypted.message ?? "")")
        }
    }
}
