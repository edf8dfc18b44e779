import Foundation
import KeychainTestSupport
import LinuxKeychain
import Testing

/// SecCertificate's functions on certificates the openssl command made: the DER round trip,
/// the subject summary Apple picks, and a public key that verifies what openssl signed.
@Suite("SecCertificate: certificates made by the openssl command")
struct SecCertificateTests {
    struct Made {
        let der: Data
        let privateKeyFile: URL
    }

    /// A self-signed certificate with `subject`, for a key openssl makes with `keyArguments`.
    static func make(_ keyArguments: [String], subject: String, in directory: URL, name: String) throws -> Made {
        let keyFile = directory.appendingPathComponent("\(name).key.pem")
        let certificateFile = directory.appendingPathComponent("\(name).der")
        try #require(try SecKeyOpenSSLTests.openssl(["genpkey"] + keyArguments + ["-out", keyFile.path]) == 0, "genpkey \(keyArguments)")
        try #require(try SecKeyOpenSSLTests.openssl(["req", "-x509", "-new", "-key", keyFile.path, "-subj", subject, "-days", "2",
                                                     "-outform", "DER", "-out", certificateFile.path]) == 0, "req for \(subject)")
        return Made(der: try Data(contentsOf: certificateFile), privateKeyFile: keyFile)
    }

    @Test(arguments: [
        (["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], "/O=Example/OU=Fleet/CN=api.example.com", "api.example.com",
         SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256),
        (["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"], "/O=Example/emailAddress=ops@example.com", "ops@example.com",
         .ecdsaSignatureMessageX962SHA256),
        (["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], "/C=DE/O=Beispiel GmbH", "Beispiel GmbH",
         .rsaSignatureMessagePKCS1v15SHA256),
    ])
    func theCertificateItsSummaryAndItsKeyAreOpensslsOwn(keyArguments: [String], subject: String, summary: String,
                                                        algorithm: SecKeyAlgorithm) throws {
        let directory = try makeScratchDirectory("seccertificate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try Self.make(keyArguments, subject: subject, in: directory, name: "leaf")
        let certificate = try #require(SecCertificateCreateWithData(nil, made.der as CFData))
        #expect(SecCertificateCopyData(certificate) as Data == made.der)
        #expect(SecCertificateCopySubjectSummary(certificate) as String? == summary)
        #expect(SecCertificateCreateWithData(nil, made.der as CFData) == certificate)

        let key = try #require(SecCertificateCopyKey(certificate), "the certificate's key")
        let message = Data("signed by the certificate's owner".utf8)
        let messageFile = directory.appendingPathComponent("message"), signatureFile = directory.appendingPathComponent("signature")
        try message.write(to: messageFile)
        try #require(try SecKeyOpenSSLTests.openssl(["dgst", "-sha256", "-sign", made.privateKeyFile.path,
                                                     "-out", signatureFile.path, messageFile.path]) == 0)
        let signature = try Data(contentsOf: signatureFile)
        let verified = secKeyCall { SecKeyVerifySignature(key, algorithm, message as CFData, signature as CFData, $0) ? true : nil }
        #expect(verified.value == true, "\(subject): \(verified.message ?? "")")
        let forged = secKeyCall { SecKeyVerifySignature(key, algorithm, Data("other".utf8) as CFData, signature as CFData, $0) ? true : nil }
        #expect(forged.value == nil && forged.status == errSecVerifyFailed)
    }

    @Test func whatIsNotOneDERCertificateIsRefusedAndOtherKeysAreNotKeys() throws {
        let directory = try makeScratchDirectory("seccertificate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try Self.make(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], subject: "/CN=x", in: directory, name: "ec")
        for (bytes, what) in [(made.der.prefix(made.der.count - 1), "a truncated certificate"), (made.der + Data([0]), "a trailing byte"),
                              (Data(), "nothing"), (Data("-----BEGIN CERTIFICATE-----".utf8), "PEM text")] {
            #expect(SecCertificateCreateWithData(nil, Data(bytes) as CFData) == nil, "\(what)")
        }
        let ed25519 = try Self.make(["-algorithm", "ED25519"], subject: "/OU=Signing", in: directory, name: "ed25519")
        let certificate = try #require(SecCertificateCreateWithData(nil, ed25519.der as CFData))
        #expect(SecCertificateCopyKey(certificate) == nil, "Ed25519 is no SecKey here")
        #expect(SecCertificateCopySubjectSummary(certificate) as String? == "Signing")
        #expect("\(certificate)" == "SecCertificate(Signing)")
    }
}
