import Foundation
import LinuxKeychain
import Testing

/// Project Wycheproof's ECDSA verification vectors (Fixtures/Wycheproof, see its README):
/// every valid signature verifies and every invalid one (bad encodings, out-of-range values,
/// edge-case arithmetic) is refused with errSecVerifyFailed.
@Suite("SecKey: Wycheproof ECDSA verification vectors")
struct SecKeyWycheproofTests {
    struct File: Decodable {
        let numberOfTests: Int
        let testGroups: [Group]
    }
    struct Group: Decodable {
        let publicKey: PublicKey
        let sha: String
        let tests: [Vector]
    }
    struct PublicKey: Decodable {
        let keySize: Int
        let uncompressed: String
    }
    struct Vector: Decodable {
        let tcId: Int
        let flags: [String]
        let msg: String
        let sig: String
        let result: String
    }

    static let files: [(name: String, algorithm: SecKeyAlgorithm, sha: String, count: Int)] = [
        ("ecdsa_secp256r1_sha256_test", .ecdsaSignatureMessageX962SHA256, "SHA-256", 484),
        ("ecdsa_secp384r1_sha384_test", .ecdsaSignatureMessageX962SHA384, "SHA-384", 504),
    ]

    @Test(arguments: files)
    func everyVectorGivesWycheproofsResult(file: (name: String, algorithm: SecKeyAlgorithm, sha: String, count: Int)) throws {
        let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/Wycheproof/\(file.name).json")
        let vectors = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        var checked = 0
        for group in vectors.testGroups {
            #expect(group.sha == file.sha)
            let point = try #require(bytes(hex: group.publicKey.uncompressed))
            let made = secKeyCall { SecKeyCreateWithData(point as CFData, ecAttributes(kSecAttrKeyClassPublic), $0) }
            let key = try #require(made.value, "the key of a group: \(made.message ?? "")")
            for vector in group.tests {
                let message = try #require(bytes(hex: vector.msg))
                let signature = try #require(bytes(hex: vector.sig))
                let outcome = secKeyCall { SecKeyVerifySignature(key, file.algorithm, message as CFData, signature as CFData, $0) ? true : nil }
                if vector.result == "valid" {
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
