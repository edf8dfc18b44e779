import Foundation
import LinuxKeychain
import LinuxKeychainKit
import Testing

/// `KeychainKeys`, the typed API for private keys by tag, on a private memory backend per test;
/// what it stores is what Apple's calls find.
@Suite("typed KeychainKeys API")
struct TypedKeychainKeysTests {
    let backend = MemoryBackend()

    @Test(arguments: [KeychainKeys.Kind.p256, .p384, .rsa(bits: 2048)])
    func aKeyMadeUnderATagIsFoundAgainAndSigns(_ kind: KeychainKeys.Kind) throws {
        let keys = KeychainKeys(backend: backend)
        #expect(try keys.key(tag: "signer") == nil)
        let made = try keys.makeKey(kind, tag: "signer")
        #expect(try keys.key(tag: "signer") == made)
        let error = #expect(throws: KeychainError.self) { try keys.makeKey(kind, tag: "signer") }
        #expect(error?.status == errSecDuplicateItem)

        let algorithm: SecKeyAlgorithm = kind == .rsa(bits: 2048) ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
        let token = Data("header.payload".utf8) as CFData
        var failure: Unmanaged<CFError>?
        let found = try #require(try keys.key(tag: "signer"))
        let signature = try #require(SecKeyCreateSignature(found, algorithm, token, &failure))
        let publicKey = try #require(SecKeyCopyPublicKey(made))
        #expect(SecKeyVerifySignature(publicKey, algorithm, token, signature, &failure))

        // Apple's own query finds the same key.
        var result: CFTypeRef?
        let status = KeychainBackendRegistry.withBackend(backend) {
            SecItemCopyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data("signer".utf8), kSecReturnRef: true] as CFDictionary, &result)
        }
        #expect(status == errSecSuccess && result as? SecKey == made)

        #expect(try keys.remove(tag: "signer"))
        #expect(try keys.key(tag: "signer") == nil)
        #expect(try !keys.remove(tag: "signer"))
    }

    @Test func setReplacesTheKeyUnderATagAndGroupsKeepKeysApart() throws {
        let keys = KeychainKeys(backend: backend), team = KeychainKeys(accessGroup: "team", backend: backend)
        let first = try keys.makeKey(.p256, tag: "client")
        let second = try team.makeKey(.p256, tag: "client")
        #expect(try keys.key(tag: "client") == first && team.key(tag: "client") == second)
        try keys.set(second, tag: "client")
        #expect(try keys.key(tag: "client") == second)
        let publicKey = try #require(SecKeyCopyPublicKey(first))
        let notPrivate = #expect(throws: KeychainError.self) { try keys.set(publicKey, tag: "public") }
        #expect(notPrivate?.status == errSecParam)
        #expect(try keys.key(tag: "public") == nil)
    }
}
