import Foundation
import KeychainTestSupport
import LinuxKeychain
import Testing

/// `kSecClassCertificate` through the SecItem functions, on certificates the openssl command
/// made: the attributes Apple derives from the DER, references, duplicates and refusals.
@Suite("SecItem: certificates")
struct SecItemCertificateTests {
    init() { MemoryKeychain.activate() }

    struct Chain {
        let ca: Data
        let leaf: Data
        let leafKeyFile: URL
    }

    /// A CA ("/CN=Test CA …", unique) and a leaf it signed ("/O=Example/CN=api.example.com", serial 0xABCDEF).
    static func makeChain(in directory: URL) throws -> Chain {
        let ca = try SecCertificateTests.make(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
                                              subject: "/CN=Test CA \(MemoryKeychain.uniqueName("ca"))", in: directory, name: "ca")
        let leafKey = directory.appendingPathComponent("leaf.key.pem"), request = directory.appendingPathComponent("leaf.csr")
        let caDER = directory.appendingPathComponent("ca.der"), leaf = directory.appendingPathComponent("leaf.der")
        try #require(try SecKeyOpenSSLTests.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                                                     "-out", leafKey.path]) == 0)
        try #require(try SecKeyOpenSSLTests.openssl(["req", "-new", "-key", leafKey.path, "-subj", "/O=Example/CN=api.example.com",
                                                     "-out", request.path]) == 0)
        try #require(try SecKeyOpenSSLTests.openssl(["x509", "-req", "-in", request.path, "-CA", caDER.path, "-CAform", "DER",
                                                     "-CAkey", ca.privateKeyFile.path, "-set_serial", "0xABCDEF", "-days", "2",
                                                     "-outform", "DER", "-out", leaf.path]) == 0)
        return Chain(ca: ca.der, leaf: try Data(contentsOf: leaf), leafKeyFile: leafKey)
    }

    @Test func aCertificateIsStoredWithTheAttributesItsDERGives() throws {
        let directory = try makeScratchDirectory("secitem-certificate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let chain = try Self.makeChain(in: directory)
        let leaf = try #require(SecCertificateCreateWithData(nil, chain.leaf as CFData))
        let ca = try #require(SecCertificateCreateWithData(nil, chain.ca as CFData))
        #expect(SecItemAdd([kSecClass: kSecClassCertificate, kSecValueRef: leaf] as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd([kSecClass: kSecClassCertificate, kSecValueData: chain.leaf] as CFDictionary, nil) == errSecDuplicateItem)
        #expect(SecItemAdd([kSecClass: kSecClassCertificate, kSecValueData: chain.ca, kSecAttrLabel: "our CA"] as CFDictionary, nil)
                == errSecSuccess)
        defer {
            SecItemDelete([kSecClass: kSecClassCertificate, kSecValueRef: leaf] as CFDictionary)
            SecItemDelete([kSecClass: kSecClassCertificate, kSecValueRef: ca] as CFDictionary)
        }

        let found = copyMatching([kSecClass: kSecClassCertificate, kSecValueRef: leaf, kSecReturnAttributes: true, kSecReturnRef: true])
        let attributes = try #require(found.result as? [String: Any], "status \(found.status)")
        #expect(attributes[kSecValueRef as String] as? SecCertificate == leaf)
        // `openssl x509 -req` without extensions signs a version 1 certificate; `req -x509` a version 3 one.
        #expect(attributes[kSecAttrCertificateType as String] as? Int == 1, "an X.509 v1 certificate")
        #expect(attributes[kSecAttrCertificateEncoding as String] as? Int == 3, "DER")
        #expect(attributes[kSecAttrSerialNumber as String] as? Data == Data([0x00, 0xAB, 0xCD, 0xEF]),
                "the serial's DER content: a leading zero keeps 0xABCDEF positive")
        #expect(attributes[kSecAttrLabel as String] as? String == "api.example.com", "the label defaults to the subject summary")
        let issuer = try #require(attributes[kSecAttrIssuer as String] as? Data)
        let subject = try #require(attributes[kSecAttrSubject as String] as? Data)
        #expect(issuer != subject && subject.range(of: Data("api.example.com".utf8)) != nil)
        let caAttributes = try #require(copyMatching([kSecClass: kSecClassCertificate, kSecValueRef: ca,
                                              kSecReturnAttributes: true]).result as? [String: Any])
        #expect(caAttributes[kSecAttrSubject as String] as? Data == issuer, "the leaf's issuer is the CA's subject, byte for byte")
        #expect(caAttributes[kSecAttrLabel as String] as? String == "our CA")
        #expect(caAttributes[kSecAttrCertificateType as String] as? Int == 3, "an X.509 v3 certificate")
        let keyLabel = try #require(SecCertificateCopyKey(leaf).flatMap { SecKeyCopyAttributes($0) as? [String: Any] })
        #expect(attributes[kSecAttrPublicKeyHash as String] as? Data == keyLabel[kSecAttrApplicationLabel as String] as? Data,
                "the public key hash is the key's application label")

        let byIssuer = copyMatching([kSecClass: kSecClassCertificate, kSecAttrIssuer: issuer, kSecReturnData: true,
                             kSecMatchLimit: kSecMatchLimitAll])
        #expect(Set(byIssuer.result as? [Data] ?? []) == [chain.leaf, chain.ca], "the issuer finds what it signed, itself included")
        #expect(SecItemDelete([kSecClass: kSecClassCertificate, kSecValueRef: leaf] as CFDictionary) == errSecSuccess)
        #expect(copyMatching([kSecClass: kSecClassCertificate, kSecValueRef: leaf]).status == errSecItemNotFound)
    }

    @Test func whatIsNoCertificateIsRefusedAndStoresNothing() throws {
        let directory = try makeScratchDirectory("secitem-certificate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let chain = try Self.makeChain(in: directory)
        let leaf = try #require(SecCertificateCreateWithData(nil, chain.leaf as CFData))
        let refused: [(String, OSStatus, [CFString: Any])] = [
            ("truncated DER", errSecParam, [kSecValueData: chain.leaf.dropLast()]),
            ("a key as the reference", errSecParam, [kSecValueRef: SecCertificateCopyKey(leaf) as Any]),
            ("both a reference and data", errSecParam, [kSecValueRef: leaf, kSecValueData: chain.leaf]),
            ("a key's attribute", errSecNoSuchAttr, [kSecValueRef: leaf, kSecAttrApplicationTag: Data("t".utf8)]),
            ("a password's attribute", errSecNoSuchAttr, [kSecValueRef: leaf, kSecAttrAccount: "a"]),
            ("a serial that contradicts the DER", errSecParam, [kSecValueRef: leaf, kSecAttrSerialNumber: Data([1])]),
            ("no certificate at all", errSecParam, [:]),
        ]
        for (what, status, extra) in refused {
            let attributes = [kSecClass: kSecClassCertificate].merging(extra) { _, new in new }
            #expect(SecItemAdd(attributes as CFDictionary, nil) == status, "\(what)")
        }
        #expect(copyMatching([kSecClass: kSecClassCertificate, kSecValueRef: leaf]).status == errSecItemNotFound)
        #expect(copyMatching([kSecClass: kSecClassIdentity, kSecValueRef: leaf]).status == errSecItemNotFound)
    }
}
