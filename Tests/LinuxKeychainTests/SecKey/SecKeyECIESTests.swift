import Foundation
import KeychainTestSupport
import LinuxKeychain
import Testing

/// ECIES through `SecKeyCreateEncryptedData` and `SecKeyCreateDecryptedData` with EC keys,
/// checked against two outside truths: a ciphertext made with Apple's scheme elsewhere, and an
/// independent implementation (Fixtures/ECIES/apple_ecies.py, on Python's `cryptography`) that
/// decrypts what we encrypt and encrypts what we decrypt.
@Suite("SecKey: ECIES interoperates with Apple's scheme")
struct SecKeyECIESTests {
    /// A P-256 key and a ciphertext of "test" under `eciesEncryptionStandardX963SHA256AESGCM`,
    /// from the iOS-compatibility sample of github.com/O2-Czech-Republic/BC-ECIES-for-iOS
    /// (its Main.java, there as PKCS #8 and base64; here as X9.63 and hex).
    static let sampleKey = "040b2a0431b791e646f1164d9f6332f653353d8036c23be30bf653a91d47597b2b102a39c923a606eb5867e62af90e90"
        + "8332d34d6045269f315fd7ea63a4c635e8e1e4a0cf179fbf54c5f0b472dccd0323932443af870aa541c4bb49384a2f5770"
    static let sampleCiphertext = "043a1490db14e110bc4928ebc0eb438bc4c466eab4f59cffabbfd858a6c1b78e1f2ca0c39489bb36ae0e17ae808942"
        + "335ffb17a71bb2b1d087a04b8836dd8b022b1ef136dd773237bdb80b19aa03dadb63d0ef0bb4"

    static let algorithms: [(SecKeyAlgorithm, String, Bool)] = [
        (.eciesEncryptionStandardX963SHA256AESGCM, "SHA256", false),
        (.eciesEncryptionCofactorX963SHA256AESGCM, "SHA256", false),
        (.eciesEncryptionStandardVariableIVX963SHA256AESGCM, "SHA256", true),
        (.eciesEncryptionCofactorVariableIVX963SHA384AESGCM, "SHA384", true),
        (.eciesEncryptionStandardX963SHA1AESGCM, "SHA1", false),
        (.eciesEncryptionStandardVariableIVX963SHA224AESGCM, "SHA224", true),
        (.eciesEncryptionCofactorX963SHA512AESGCM, "SHA512", false),
    ]

    static func encrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> SecKeyOutcome<CFData> {
        secKeyCall { SecKeyCreateEncryptedData(key, algorithm, data as CFData, $0) }
    }

    static func decrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) -> SecKeyOutcome<CFData> {
        secKeyCall { SecKeyCreateDecryptedData(key, algorithm, data as CFData, $0) }
    }

    /// Runs apple_ecies.py with `request`: its output's bytes, or nil when it exited 1.
    static func python(_ request: [String: Any]) throws -> Data? {
        let script = try #require(Bundle.module.resourceURL?.appendingPathComponent("Fixtures/ECIES/apple_ecies.py"))
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import cryptography.hazmat.primitives.kdf.x963kdf"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        if probe.terminationStatus != 0 {
            try skipOrFail("python3 with the cryptography package is missing (scripts/install-deps.sh makes .build/python)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 1 { return nil }
        try #require(process.terminationStatus == 0, "apple_ecies.py exited \(process.terminationStatus)")
        let decoded = bytes(hex: text.trimmingCharacters(in: .whitespacesAndNewlines))
        try #require(decoded != nil, "apple_ecies.py wrote no hex: \(text)")
        return decoded
    }

    @Test func aCiphertextMadeElsewhereWithApplesSchemeDecrypts() throws {
        let key = try #require(secKeyCall {
            SecKeyCreateWithData(bytes(hex: Self.sampleKey)! as CFData, ecAttributes(kSecAttrKeyClassPrivate), $0)
        }.value)
        let plaintext = Self.decrypt(key, .eciesEncryptionStandardX963SHA256AESGCM, try #require(bytes(hex: Self.sampleCiphertext)))
        #expect(plaintext.value as Data? == Data("test".utf8), "\(plaintext.message ?? "")")
        // The same bytes under the variable-IV scheme do not authenticate.
        let other = Self.decrypt(key, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, try #require(bytes(hex: Self.sampleCiphertext)))
        #expect(other.value == nil && other.status == errSecParam)
    }

    @Test(arguments: [256, 384, 521])
    func theIndependentImplementationAndOursReadEachOther(bits: Int) throws {
        let key = try randomECKey(bits: bits)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let privateBytes = try externalRepresentation(key), publicBytes = try externalRepresentation(publicKey)
        let plaintext = Data("a secret for P-\(bits), longer than one AES block".utf8)
        for (algorithm, digest, variableIV) in Self.algorithms {
            #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm) && SecKeyIsAlgorithmSupported(key, .decrypt, algorithm))
            let ours = try #require(Self.encrypt(publicKey, algorithm, plaintext).value) as Data
            #expect(ours.count == 1 + 2 * ((bits + 7) / 8) + plaintext.count + 16)
            let request: [String: Any] = ["bits": bits, "digest": digest, "variable_iv": variableIV]
            let theirReading = try Self.python(request.merging(["op": "decrypt", "key": SecKeyExchangeTests.hex(privateBytes),
                                                                "data": SecKeyExchangeTests.hex(ours)]) { $1 })
            #expect(theirReading == plaintext, "\(algorithm.rawValue) on P-\(bits): python reads ours")
            let theirs = try #require(try Self.python(request.merging(["op": "encrypt", "key": SecKeyExchangeTests.hex(publicBytes),
                                                                       "data": SecKeyExchangeTests.hex(plaintext)]) { $1 }))
            let ourReading = Self.decrypt(key, algorithm, theirs)
            #expect(ourReading.value as Data? == plaintext, "\(algorithm.rawValue) on P-\(bits): \(ourReading.message ?? "")")
            #expect(Self.encrypt(publicKey, algorithm, plaintext).value as Data? != ours, "a fresh ephemeral key each time")
        }
    }

    @Test func ciphertextsThatDoNotFitAreRefused() throws {
        let key = try randomECKey(bits: 256)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let algorithm = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM
        let sealed = try #require(Self.encrypt(publicKey, algorithm, Data("x".utf8)).value) as Data
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        var offCurve = sealed
        offCurve[5] ^= 1
        let otherKey = try randomECKey(bits: 256)
        let refusals: [(SecKeyOutcome<CFData>, OSStatus, String)] = [
            (Self.decrypt(key, algorithm, tampered), errSecParam, "a changed tag"),
            (Self.decrypt(key, algorithm, offCurve), errSecParam, "an ephemeral point off the curve"),
            (Self.decrypt(key, algorithm, sealed.prefix(70)), errSecParam, "a ciphertext too short"),
            (Self.decrypt(otherKey, algorithm, sealed), errSecParam, "another key"),
            (Self.decrypt(publicKey, algorithm, sealed), errSecUnimplemented, "a public key decrypting"),
            (Self.encrypt(key, algorithm, Data("x".utf8)), errSecUnimplemented, "a private key encrypting"),
            (Self.encrypt(publicKey, .rsaEncryptionOAEPSHA256, Data("x".utf8)), errSecUnimplemented, "RSA OAEP with an EC key"),
        ]
        for (outcome, status, what) in refusals {
            #expect(outcome.value == nil && outcome.status == status, "\(what): \(outcome.status.map(String.init) ?? "no error")")
        }
        #expect(Self.decrypt(key, algorithm, sealed).value as Data? == Data("x".utf8))
        // An empty plaintext is allowed, as on Apple platforms.
        let empty = try #require(Self.encrypt(publicKey, algorithm, Data()).value) as Data
        #expect(Self.decrypt(key, algorithm, empty).value as Data? == Data())
    }
}
