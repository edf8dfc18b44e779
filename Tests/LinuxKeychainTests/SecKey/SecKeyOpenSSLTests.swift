import Foundation
import KeychainTestSupport
import LinuxKeychain
import Testing

/// The `openssl` command checks our signatures, and we check its: the outside truth for the
/// signature format (DER, X9.62) and for the key formats.
@Suite("SecKey: signatures interoperate with the openssl command")
struct SecKeyOpenSSLTests {
    /// The DER SubjectPublicKeyInfo prefix before the X9.63 point, per curve (RFC 5480).
    static let publicKeyInfoPrefix: [Int: String] = [
        256: "3059301306072a8648ce3d020106082a8648ce3d030107034200",
        384: "3076301006072a8648ce3d020106052b81040022036200",
        521: "30819b301006072a8648ce3d020106052b8104002303818600",
    ]
    static let curveNames = [256: "prime256v1", 384: "secp384r1", 521: "secp521r1"]
    static let hashes: [(SecKeyAlgorithm, String)] = [
        (.ecdsaSignatureMessageX962SHA256, "-sha256"), (.ecdsaSignatureMessageX962SHA384, "-sha384"),
        (.ecdsaSignatureMessageX962SHA512, "-sha512"),
    ]

    /// Runs openssl with `arguments`; its exit status.
    @discardableResult
    static func openssl(_ arguments: [String]) throws -> Int32 {
        let path = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            try skipOrFail("the openssl command is not installed (Debian: openssl)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(arguments: [256, 384, 521])
    func opensslVerifiesOurSignatures(bits: Int) throws {
        let directory = try makeScratchDirectory("seckey-openssl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try randomECKey(bits: bits)
        let point = try externalRepresentation(try #require(SecKeyCopyPublicKey(key)))
        let publicKeyInfo = try #require(bytes(hex: Self.publicKeyInfoPrefix[bits]!))
        let publicKeyFile = directory.appendingPathComponent("public.der")
        try (publicKeyInfo + point).write(to: publicKeyFile)
        let message = Data("signed here, checked by openssl".utf8)
        let messageFile = directory.appendingPathComponent("message")
        try message.write(to: messageFile)
        let otherFile = directory.appendingPathComponent("other")
        try Data("another message".utf8).write(to: otherFile)
        for (algorithm, hash) in Self.hashes {
            let signature = try #require(secKeyCall { SecKeyCreateSignature(key, algorithm, message as CFData, $0) }.value) as Data
            let signatureFile = directory.appendingPathComponent("signature")
            try signature.write(to: signatureFile)
            let verify = ["dgst", hash, "-verify", publicKeyFile.path, "-keyform", "DER", "-signature", signatureFile.path]
            #expect(try Self.openssl(verify + [messageFile.path]) == 0, "openssl verifies \(algorithm.rawValue) on P-\(bits)")
            #expect(try Self.openssl(verify + [otherFile.path]) == 1, "openssl refuses it for another message")
        }
    }

    /// A key pair the openssl command made on P-`bits` in `directory`: its PEM private key file
    /// and both keys imported here (which checks the import against openssl's own encoding).
    static func opensslKeyPair(bits: Int, in directory: URL) throws -> (privateFile: URL, publicKey: SecKey, privateKey: SecKey) {
        let privateFile = directory.appendingPathComponent("openssl-private.pem")
        let publicFile = directory.appendingPathComponent("openssl-public.der")
        let privateDERFile = directory.appendingPathComponent("openssl-private.der")
        try #require(try openssl(["ecparam", "-name", curveNames[bits]!, "-genkey", "-noout", "-out", privateFile.path]) == 0)
        try #require(try openssl(["ec", "-in", privateFile.path, "-pubout", "-outform", "DER", "-out", publicFile.path]) == 0)
        try #require(try openssl(["ec", "-in", privateFile.path, "-outform", "DER", "-out", privateDERFile.path]) == 0)
        let field = (bits + 7) / 8
        let point = try Data(contentsOf: publicFile).suffix(1 + 2 * field)
        let publicKey = try #require(secKeyCall { SecKeyCreateWithData(point as CFData, ecAttributes(kSecAttrKeyClassPublic), $0) }.value)

        // SEC 1's ECPrivateKey: the scalar is the OCTET STRING after the version, padded to
        // the field size; the point ends the DER.
        var sec1 = try Data(contentsOf: privateDERFile)
        defer { sec1.resetBytes(in: sec1.startIndex..<sec1.endIndex) }
        let scalarStart = try #require(sec1.range(of: Data([0x02, 0x01, 0x01, 0x04, UInt8(field)]))).upperBound
        var x963 = point + sec1[scalarStart..<(scalarStart + field)]
        defer { x963.resetBytes(in: x963.startIndex..<x963.endIndex) }
        let privateKey = try #require(secKeyCall { SecKeyCreateWithData(x963 as CFData, ecAttributes(kSecAttrKeyClassPrivate), $0) }.value)
        return (privateFile, publicKey, privateKey)
    }

    @Test(arguments: [256, 384, 521])
    func weVerifyOpensslsSignaturesAndImportItsKeys(bits: Int) throws {
        let directory = try makeScratchDirectory("seckey-openssl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (privateFile, publicKey, privateKey) = try Self.opensslKeyPair(bits: bits, in: directory)
        #expect(SecKeyCopyPublicKey(privateKey) == publicKey)

        let message = Data("signed by openssl, checked here".utf8)
        let messageFile = directory.appendingPathComponent("message")
        try message.write(to: messageFile)
        let signatureFile = directory.appendingPathComponent("signature")
        for (algorithm, hash) in Self.hashes {
            try #require(try Self.openssl(["dgst", hash, "-sign", privateFile.path, "-out", signatureFile.path, messageFile.path]) == 0)
            let signature = try Data(contentsOf: signatureFile)
            let verified = secKeyCall { SecKeyVerifySignature(publicKey, algorithm, message as CFData, signature as CFData, $0) ? true : nil }
            #expect(verified.value == true, "\(algorithm.rawValue) on P-\(bits): \(verified.message ?? "")")
            let ours = try #require(secKeyCall { SecKeyCreateSignature(privateKey, algorithm, message as CFData, $0) }.value)
            #expect(secKeyCall { SecKeyVerifySignature(publicKey, algorithm, message as CFData, ours, $0) ? true : nil }.value == true)
        }
    }
}
