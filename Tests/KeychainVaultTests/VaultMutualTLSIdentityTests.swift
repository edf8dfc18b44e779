import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import LinuxKeychain
import Testing

/// A mutual-TLS client keeps its certificate and private key in the keychain and finds them as
/// a `SecIdentity` (`kSecClassIdentity`), as Apple code does. Here they are stored in a real
/// store (the OpenBao dev server), found as an identity, written out as PEM, and used by
/// libcurl to log in over OpenBao's client-certificate listener (`cert` auth).
@Suite("vault: a keychain identity for mutual TLS")
struct VaultMutualTLSIdentityTests {
    let prefix = VaultTestServer.uniquePrefix("identity")

    @Test func anIdentityFoundInTheKeychainLogsInOverMutualTLS() throws {
        let fixture = try VaultTLSServer()
        defer { fixture.stop() }
        try VaultLoginTests.enableCertificateLogin(on: fixture, prefix: prefix)
        let root = try VaultTestServer.root()
        let store = VaultBackend(environment: ["VAULT_ADDR": root.address, "VAULT_TOKEN": root.token, "KEYCHAIN_VAULT_PREFIX": prefix,
                                               "HOME": try makeScratchDirectory("lkc-vault").path, "KEYCHAIN_VAULT_TOKEN_CACHE": "off"])
        let directory = try makeScratchDirectory("lkc-identity")
        defer { try? FileManager.default.removeItem(at: directory) }

        let (certificateDER, keyX963) = try Self.fixtureCredentials(fixture, in: directory)
        let found: SecIdentity = try KeychainBackendRegistry.withBackend(store) {
            let certificate = try #require(SecCertificateCreateWithData(nil, certificateDER as CFData))
            var error: Unmanaged<CFError>?
            let key = try #require(SecKeyCreateWithData(keyX963 as CFData, [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                                                                             kSecAttrKeyClass: kSecAttrKeyClassPrivate] as CFDictionary, &error))
            try #require(SecItemAdd([kSecClass: kSecClassKey, kSecValueRef: key, kSecAttrApplicationTag: Data("mtls".utf8)] as CFDictionary, nil)
                         == errSecSuccess)
            try #require(SecItemAdd([kSecClass: kSecClassCertificate, kSecValueRef: certificate] as CFDictionary, nil) == errSecSuccess)
            var result: CFTypeRef?
            let status = SecItemCopyMatching([kSecClass: kSecClassIdentity, kSecAttrLabel: "linux-keychain test client",
                                              kSecReturnRef: true] as CFDictionary, &result)
            try #require(status == errSecSuccess, "kSecClassIdentity: \(status)")
            return try #require(result as? SecIdentity)
        }

        var certificate: SecCertificate?, key: SecKey?
        try #require(SecIdentityCopyCertificate(found, &certificate) == errSecSuccess && SecIdentityCopyPrivateKey(found, &key) == errSecSuccess)
        var error: Unmanaged<CFError>?
        let privateKey = try #require(key), identityCertificate = try #require(certificate)
        let keyBytes = try #require(SecKeyCopyExternalRepresentation(privateKey, &error) as Data?)
        let certificateFile = directory.appendingPathComponent("identity.pem"), keyFile = directory.appendingPathComponent("identity.key")
        try Self.pem("CERTIFICATE", SecCertificateCopyData(identityCertificate) as Data).write(to: certificateFile)
        try Self.pem("EC PRIVATE KEY", Self.sec1(p256: keyBytes)).write(to: keyFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)

        let client = VaultBackend(environment: try VaultLoginTests.certificateLoginEnvironment(
            fixture, prefix: prefix, certificate: certificateFile.path, key: keyFile.path))
        #expect(client.availability().isAvailable, "\(client.availability().explanation)")
        let account = UUID().uuidString
        try client.add(genericItem("mtls", account, Data("over mutual TLS".utf8)))
        #expect(try storedSecret(client, "mtls", account) == Data("over mutual TLS".utf8))
        _ = try? client.delete(exactQuery("mtls", account))
        _ = try? store.delete(ItemQuery(itemClass: .key, constraints: ItemAttributes([.applicationTag: .data(Data("mtls".utf8))])))
        _ = try? store.delete(ItemQuery(itemClass: .certificate))
    }

    /// The fixture's client certificate as DER and its P-256 private key as X9.63, read with
    /// the openssl command.
    static func fixtureCredentials(_ fixture: VaultTLSServer, in directory: URL) throws -> (certificate: Data, key: Data) {
        let openssl = try VaultTestServer.executable("openssl")
        let certificateDER = directory.appendingPathComponent("client.der"), keyDER = directory.appendingPathComponent("client-key.der")
        for arguments in [["x509", "-in", fixture.clientCertificate, "-outform", "DER", "-out", certificateDER.path],
                          ["ec", "-in", fixture.clientKey, "-outform", "DER", "-out", keyDER.path]] {
            let result = try KeychainCLIProcess.run(openssl, arguments)
            try #require(result.status == 0, "openssl \(arguments[0]): \(result.errorText)")
        }
        // SEC 1's ECPrivateKey: the scalar follows the version, the point ends the DER.
        let sec1 = try Data(contentsOf: keyDER)
        let scalarStart = try #require(sec1.range(of: Data([0x02, 0x01, 0x01, 0x04, 0x20]))).upperBound
        return (try Data(contentsOf: certificateDER), sec1.suffix(65) + sec1[scalarStart..<(scalarStart + 32)])
    }

    /// SEC 1's ECPrivateKey DER of a P-256 key given as X9.63 (04 || X || Y || K).
    static func sec1(p256 x963: Data) -> Data {
        let point = x963.prefix(65), scalar = x963.suffix(32)
        let curve: [UInt8] = [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        return Data([0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20]) + scalar + Data(curve) + Data([0xA1, 0x44, 0x03, 0x42, 0x00]) + point
    }

    static func pem(_ label: String, _ der: Data) -> Data {
        let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Data("-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n".utf8)
    }
}
