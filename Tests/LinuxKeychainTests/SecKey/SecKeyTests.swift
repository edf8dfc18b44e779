import Foundation
import KeychainCore
import LinuxKeychain
import Testing

/// SecKey for EC keys: making, importing, exporting, describing, signing and verifying, and
/// Apple's status codes for what is refused.
@Suite("SecKey: EC keys")
struct SecKeyTests {
    /// A P-256 key made by `openssl ecparam -genkey` for this test: 04 || X || Y || K.
    static let openSSLKey = bytes(hex: "049e9e898af696e244e0393a1ea8e0eaa101a851ccfdda7989fe859f76f157c4012e8704e35174757ca4d7eaefadcf02d2d9d6a7e108e099afd74f73f79df90874aaa5a8d0d729f9ff13ff094063f2bf1bedf92bca4e83c04f966b0a8a47fc1113")!
    /// Python's hashlib.sha1 of its public part, which Apple uses as kSecAttrApplicationLabel.
    static let openSSLKeyLabel = bytes(hex: "50490d8fc046dfbdd092b4d3b280f8e288cebd37")!

    static let algorithms: [SecKeyAlgorithm] = [
        .ecdsaSignatureMessageX962SHA256, .ecdsaSignatureMessageX962SHA384, .ecdsaSignatureMessageX962SHA512,
    ]

    @Test(arguments: [256, 384, 521])
    func aNewKeyRoundTripsAndSigns(bits: Int) throws {
        let key = try randomECKey(bits: bits)
        let field = (bits + 7) / 8
        let privateBytes = try externalRepresentation(key)
        #expect(privateBytes.count == 1 + 3 * field && privateBytes.first == 0x04)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let publicBytes = try externalRepresentation(publicKey)
        #expect(publicBytes == privateBytes.prefix(1 + 2 * field))

        let imported = try #require(secKeyCall { SecKeyCreateWithData(privateBytes as CFData, ecAttributes(kSecAttrKeyClassPrivate), $0) }.value)
        #expect(imported == key)
        #expect(imported != publicKey)
        let importedPublic = try #require(secKeyCall { SecKeyCreateWithData(publicBytes as CFData, ecAttributes(kSecAttrKeyClassPublic), $0) }.value)
        #expect(importedPublic == publicKey && importedPublic.hashValue == publicKey.hashValue)

        let message = Data("a message to sign".utf8)
        for algorithm in Self.algorithms {
            #expect(SecKeyIsAlgorithmSupported(key, .sign, algorithm) && SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm))
            let signature = try #require(secKeyCall { SecKeyCreateSignature(imported, algorithm, message as CFData, $0) }.value) as Data
            #expect(signature.first == 0x30, "a DER SEQUENCE")
            let verified = secKeyCall { SecKeyVerifySignature(importedPublic, algorithm, message as CFData, signature as CFData, $0) ? true : nil }
            #expect(verified.value == true && verified.status == nil)
            let tampered = secKeyCall { SecKeyVerifySignature(publicKey, algorithm, Data("another message".utf8) as CFData, signature as CFData, $0) ? true : nil }
            #expect(tampered.value == nil && tampered.status == errSecVerifyFailed)
        }
    }

    @Test func attributesAreApplesAndHoldNoPrivateBytes() throws {
        let key = try #require(secKeyCall { SecKeyCreateWithData(Self.openSSLKey as CFData, ecAttributes(kSecAttrKeyClassPrivate), $0) }.value)
        let attributes = try #require(SecKeyCopyAttributes(key) as? [CFString: Any])
        #expect(attributes[kSecAttrKeyClass] as? String == kSecAttrKeyClassPrivate as String)
        #expect(attributes[kSecAttrKeyType] as? String == kSecAttrKeyTypeECSECPrimeRandom as String)
        #expect(attributes[kSecAttrKeySizeInBits] as? Int == 256)
        #expect(attributes[kSecAttrApplicationLabel] as? Data == Self.openSSLKeyLabel)
        #expect(attributes[kSecValueData] == nil)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let publicAttributes = try #require(SecKeyCopyAttributes(publicKey) as? [String: Any])
        #expect(publicAttributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPublic as String)
        #expect(publicAttributes[kSecAttrApplicationLabel as String] as? Data == Self.openSSLKeyLabel)
        let secretHex = Self.openSSLKey.suffix(32).map { String(format: "%02x", $0) }.joined()
        for text in [key.description, "\(attributes)", "\(key)"] { #expect(!text.contains(secretHex)) }
    }

    @Test(arguments: [(SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256, SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256,
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
                      (.ecdsaSignatureDigestX962SHA384, .ecdsaSignatureMessageX962SHA384,
                       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
                      (.ecdsaSignatureDigestX962SHA512, .ecdsaSignatureMessageX962SHA512,
                       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")])
    func aDigestSignatureIsTheMessageSignature(digestAlgorithm: SecKeyAlgorithm, messageAlgorithm: SecKeyAlgorithm, digestOfABC: String) throws {
        let key = try randomECKey(bits: 384)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let digest = try #require(bytes(hex: digestOfABC))
        let signature = try #require(secKeyCall { SecKeyCreateSignature(key, digestAlgorithm, digest as CFData, $0) }.value)
        #expect(secKeyCall { SecKeyVerifySignature(publicKey, messageAlgorithm, Data("abc".utf8) as CFData, signature, $0) ? true : nil }.value == true)
        #expect(secKeyCall { SecKeyVerifySignature(publicKey, digestAlgorithm, digest as CFData, signature, $0) ? true : nil }.value == true)
        let short = secKeyCall { SecKeyCreateSignature(key, digestAlgorithm, digest.dropLast() as CFData, $0) }
        #expect(short.value == nil && short.status == errSecParam)
    }

    @Test func badKeyDataIsErrSecParam() throws {
        let publicPoint = Self.openSSLKey.prefix(65)
        var offCurve = publicPoint
        offCurve[64] ^= 1
        var wrongScalar = Self.openSSLKey
        wrongScalar[96] ^= 1
        let cases: [(Data, CFDictionary)] = [
            (Data(), ecAttributes(kSecAttrKeyClassPublic)),
            (publicPoint.dropLast(), ecAttributes(kSecAttrKeyClassPublic)),
            (Data([0x03]) + publicPoint.dropFirst(), ecAttributes(kSecAttrKeyClassPublic)),
            (offCurve, ecAttributes(kSecAttrKeyClassPublic)),
            (wrongScalar, ecAttributes(kSecAttrKeyClassPrivate)),
            (Self.openSSLKey, ecAttributes(kSecAttrKeyClassPublic)),
            (publicPoint, ecAttributes(kSecAttrKeyClassPrivate)),
            (publicPoint, [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom] as CFDictionary),
            (publicPoint, [kSecAttrKeyClass: kSecAttrKeyClassPublic] as CFDictionary),
            (publicPoint, [kSecAttrKeyType: kSecAttrKeyTypeEC, kSecAttrKeyClass: kSecAttrKeyClassPublic,
                           kSecAttrKeySizeInBits: 384] as CFDictionary),
        ]
        for (index, (data, attributes)) in cases.enumerated() {
            let outcome = secKeyCall { SecKeyCreateWithData(data as CFData, attributes, $0) }
            #expect(outcome.value == nil && outcome.status == errSecParam, "case \(index): \(outcome.message ?? "no error")")
            #expect(outcome.message?.contains("f9ff13ff") != true, "no key bytes in the message")
        }
        let sized = secKeyCall {
            SecKeyCreateWithData(publicPoint as CFData, [kSecAttrKeyType: kSecAttrKeyTypeEC, kSecAttrKeyClass: kSecAttrKeyClassPublic,
                                                         kSecAttrKeySizeInBits: 256] as CFDictionary, $0)
        }
        #expect(sized.value != nil)
    }

    @Test func whatIsNotSupportedIsErrSecUnimplementedOrErrSecParam() throws {
        let refused: [(CFDictionary, OSStatus)] = [
            ([kSecAttrKeyType: kSecAttrKeyTypeDSA, kSecAttrKeySizeInBits: 2048] as CFDictionary, errSecUnimplemented),
            ([kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: 1024] as CFDictionary, errSecParam),
            ([kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: 2047] as CFDictionary, errSecParam),
            ([kSecAttrKeyType: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits: 255] as CFDictionary, errSecParam),
            ([kSecAttrKeyType: kSecAttrKeyTypeEC] as CFDictionary, errSecParam),
            ([kSecAttrKeyType: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits: 256, kSecAttrTokenID: kSecAttrTokenIDSecureEnclave] as CFDictionary,
             errSecUnimplemented),
        ]
        for (index, (parameters, status)) in refused.enumerated() {
            let outcome = secKeyCall { SecKeyCreateRandomKey(parameters, $0) }
            #expect(outcome.value == nil && outcome.status == status, "case \(index): \(outcome.message ?? "no error")")
        }
        let sizeAsText = secKeyCall {
            SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits: "384",
                                   kSecAttrIsPermanent: false] as CFDictionary, $0)
        }
        #expect(sizeAsText.value.flatMap { SecKeyCopyAttributes($0) as? [String: Any] }?[kSecAttrKeySizeInBits as String] as? Int == 384)

        let key = try randomECKey(bits: 256)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let rsa = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256" as CFString)
        #expect(!SecKeyIsAlgorithmSupported(key, .sign, rsa) && !SecKeyIsAlgorithmSupported(publicKey, .sign, .ecdsaSignatureMessageX962SHA256))
        #expect(!SecKeyIsAlgorithmSupported(key, .encrypt, .ecdsaSignatureMessageX962SHA256))
        let message = Data("m".utf8) as CFData
        for outcome in [secKeyCall { SecKeyCreateSignature(key, rsa, message, $0) },
                        secKeyCall { SecKeyCreateSignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, $0) }] {
            #expect(outcome.value == nil && outcome.status == errSecUnimplemented)
        }
        let signature = try #require(secKeyCall { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, $0) }.value)
        let withPrivate = secKeyCall { SecKeyVerifySignature(key, .ecdsaSignatureMessageX962SHA256, message, signature, $0) ? true : nil }
        #expect(withPrivate.value == nil && withPrivate.status == errSecUnimplemented)
        let oaep = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA256" as CFString)
        for outcome in [secKeyCall { SecKeyCreateEncryptedData(publicKey, oaep, message, $0) },
                        secKeyCall { SecKeyCreateDecryptedData(key, oaep, message, $0) },
                        secKeyCall { SecKeyCopyKeyExchangeResult(key, oaep, publicKey, [:] as CFDictionary, $0) }] {
            #expect(outcome.value == nil && outcome.status == errSecUnimplemented)
        }
        let garbage = secKeyCall { SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, Data([0x30, 0x00]) as CFData, $0) ? true : nil }
        #expect(garbage.value == nil && garbage.status == errSecVerifyFailed)
    }

    /// One key used from many threads at once, as a signing service does: each call builds its
    /// own libcrypto key, so none shares state with another.
    @Test func oneKeySignsAndVerifiesOnManyThreadsAtOnce() throws {
        let key = try randomECKey(bits: 256)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            let message = Data("message \(index)".utf8) as CFData
            let signature = secKeyCall { SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, $0) }.value
            let verified = signature.map { signature in
                secKeyCall { SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, $0) ? true : nil }.value
            }
            if verified != true { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test func theAlgorithmsAreApplesStrings() {
        #expect(SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256.rawValue as String == "algid:sign:ECDSA:message-X962:SHA256")
        #expect(SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512.rawValue as String == "algid:sign:ECDSA:digest-X962:SHA512")
        #expect(SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA384" as CFString) == .ecdsaSignatureDigestX962SHA384)
        #expect(kSecPrivateKeyAttrs as String == "private" && kSecPublicKeyAttrs as String == "public")
    }
}
