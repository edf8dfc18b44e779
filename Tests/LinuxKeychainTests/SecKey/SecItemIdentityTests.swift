import Foundation
import KeychainTestSupport
import LinuxKeychain
import Testing

/// `kSecClassIdentity`: a stored certificate paired with the stored private key of its public
/// key, as a mutual-TLS client finds its credentials; the key and certificate come from the
/// openssl command.
@Suite("SecItem: identities")
struct SecItemIdentityTests {
    init() { MemoryKeychain.activate() }

    @Test func aCertificateAndItsStoredKeyAreAnIdentity() throws {
        let directory = try makeScratchDirectory("secitem-identity")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (privateFile, _, privateKey) = try SecKeyOpenSSLTests.opensslKeyPair(bits: 256, in: directory)
        let certificateFile = directory.appendingPathComponent("client.der")
        let unique = MemoryKeychain.uniqueName("client")
        try #require(try SecKeyOpenSSLTests.openssl(["req", "-x509", "-new", "-key", privateFile.path, "-subj", "/CN=\(unique)",
                                                     "-days", "2", "-outform", "DER", "-out", certificateFile.path]) == 0)
        let certificate = try #require(SecCertificateCreateWithData(nil, try Data(contentsOf: certificateFile) as CFData))
        let stranger = try #require(SecCertificateCreateWithData(nil, try SecCertificateTests.make(
            ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"], subject: "/CN=\(unique)-stranger", in: directory, name: "s").der as CFData))
        let tag = Data(unique.utf8)
        #expect(SecItemAdd([kSecClass: kSecClassCertificate, kSecValueRef: stranger] as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd([kSecClass: kSecClassCertificate, kSecValueRef: certificate] as CFDictionary, nil) == errSecSuccess)
        let byLabel: [CFString: Any] = [kSecClass: kSecClassIdentity, kSecAttrLabel: unique]
        #expect(copyMatching(byLabel).status == errSecItemNotFound, "a certificate without its key is no identity")
        #expect(SecItemAdd([kSecClass: kSecClassKey, kSecValueRef: privateKey, kSecAttrApplicationTag: tag] as CFDictionary, nil) == errSecSuccess)

        let found = copyMatching(byLabel.merging([kSecReturnRef: true, kSecReturnAttributes: true]) { _, new in new })
        let attributes = try #require(found.result as? [String: Any], "status \(found.status)")
        #expect(attributes[kSecClass as String] as? String == kSecClassIdentity as String)
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag, "the key's tag comes with the identity")
        let identity = try #require(attributes[kSecValueRef as String] as? SecIdentity)
        var foundCertificate: SecCertificate?, foundKey: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &foundCertificate) == errSecSuccess && foundCertificate == certificate)
        #expect(SecIdentityCopyPrivateKey(identity, &foundKey) == errSecSuccess && foundKey == privateKey)
        var created: SecIdentity?
        #expect(SecIdentityCreateWithCertificate(nil, certificate, &created) == errSecSuccess && created == identity)
        #expect(SecIdentityCreateWithCertificate(nil, stranger, &created) == errSecItemNotFound && created == nil)

        // The key signs; the certificate's public key verifies.
        let message = Data("client hello".utf8) as CFData
        var error: Unmanaged<CFError>?
        let signingKey = try #require(foundKey), certificateKey = try #require(SecCertificateCopyKey(certificate))
        let signature = try #require(SecKeyCreateSignature(signingKey, .ecdsaSignatureMessageX962SHA256, message, &error))
        #expect(SecKeyVerifySignature(certificateKey, .ecdsaSignatureMessageX962SHA256, message, signature, &error))

        // Deleting the identity deletes the certificate and its key; adding it stores both again.
        #expect(SecItemDelete([kSecClass: kSecClassIdentity, kSecValueRef: identity] as CFDictionary) == errSecSuccess)
        #expect(copyMatching([kSecClass: kSecClassCertificate, kSecValueRef: certificate]).status == errSecItemNotFound)
        #expect(copyMatching([kSecClass: kSecClassKey, kSecValueRef: privateKey]).status == errSecItemNotFound)
        #expect(copyMatching([kSecClass: kSecClassCertificate, kSecValueRef: stranger]).status == errSecSuccess, "another certificate was deleted")
        #expect(SecItemAdd([kSecClass: kSecClassIdentity, kSecValueRef: identity, kSecAttrApplicationTag: tag] as CFDictionary, nil)
                == errSecSuccess)
        #expect(copyMatching(byLabel.merging([kSecReturnRef: true]) { _, new in new }).result as? SecIdentity == identity)
        #expect(copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag]).status == errSecSuccess, "the key kept its tag")
        #expect(SecItemAdd([kSecClass: kSecClassIdentity, kSecValueRef: identity] as CFDictionary, nil) == errSecDuplicateItem)
        #expect(SecItemAdd([kSecClass: kSecClassIdentity, kSecValueRef: certificate] as CFDictionary, nil) == errSecParam)
        #expect(SecItemDelete([kSecClass: kSecClassIdentity, kSecValueRef: identity] as CFDictionary) == errSecSuccess)
        #expect(SecItemDelete([kSecClass: kSecClassCertificate, kSecValueRef: stranger] as CFDictionary) == errSecSuccess)
    }
}
