import Foundation
import LinuxKeychain
import Testing

/// Project Wycheproof's ECDSA, RSA PKCS #1 v1.5 and RSA PSS verification vectors
/// (Fixtures/Wycheproof, see its README): every valid signature verifies and every invalid one
/// (bad encodings, out-of-range values, edge-case arithmetic) is refused with errSecVerifyFailed.
@Suite("SecKey: Wycheproof signature verification vectors")
struct SecKeyWycheproofTests {
    struct File: Decodable {
        let numberOfTests: Int
        let testGroups: [Group]
    }
    struct Group: Decodable {
        let keySize: Int
        let key: String
        let sha: String
        let sLen: Int?
        let tests: [Vector]
    }
    struct Vector: Decodable {
        let tcId: Int
        let flags: [String]
        let msg: String
        let sig: String
        let result: String
    }

    typealias VectorFile = (name: String, algorithm: SecKeyAlgorithm, isRSA: Bool, sha: String, count: Int)

    static let files: [VectorFile] = [
        ("ecdsa_secp256r1_sha256_test", .ecdsaSignatureMessageX962SHA256, false, "SHA-256", 484),
        ("ecdsa_secp384r1_sha384_test", .ecdsaSignatureMessageX962SHA384, false, "SHA-384", 504),
        ("rsa_signature_2048_sha256_test", .rsaSignatureMessagePKCS1v15SHA256, true, "SHA-256", 259),
        ("rsa_pss_2048_sha256_mgf1_32_test", .rsaSignatureMessagePSSSHA256, true, "SHA-256", 108),
    ]

    @Test(arguments: files)
    func everyVectorGivesWycheproofsResult(file: VectorFile) throws {
        let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Wycheproof/\(file.name).json")
        let vectors = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        var checked = 0
        for group in vectors.testGroups {
            #expect(group.sha == file.sha)
            // Apple's PSS salt is as long as the digest.
            #expect(group.sLen == nil || group.sLen == 32)
            let keyData = try #require(bytes(hex: group.key))
            let keyType = file.isRSA ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom
            let attributes = [kSecAttrKeyType: keyType, kSecAttrKeyClass: kSecAttrKeyClassPublic,
                              kSecAttrKeySizeInBits: group.keySize] as CFDictionary
            let made = secKeyCall { SecKeyCreateWithData(keyData as CFData, attributes, $0) }
            let key = try #require(made.value, "the key of a group: \(made.message ?? "")")
            for vector in group.tests {
                let message = try #require(bytes(hex: vector.msg))
                let signature = try #require(bytes(hex: vector.sig))
                let outcome = secKeyCall { SecKeyVerifySignature(key, file.algorithm, message as CFData, signature as CFData, $0) ? true : nil }
                if vector.result == "acceptable" {
                    // Either answer is right (a legacy form); only a clean one is asked for.
                    #expect(outcome.value == true || outcome.status == errSecVerifyFailed, "tcId \(vector.tcId)")
                } else if vector.result == "valid" {
                    #expect(outcome.value == true, "tcId \(vector.tcId) \(vector.flags) should verify: \(outcome.message ?? "")")
                } else {
                    #expect(vector.result == "invalid")
                    #expect(outcome.value == nil && outcome.status == errSecVerifyFailed, "tcId \(vector.tcId) \(vector.flags) should not verify")
                }
                checked += 1
            }
        }
        #expect(checked == vectors.numberOfTests && checked == file.count)
    }
}
