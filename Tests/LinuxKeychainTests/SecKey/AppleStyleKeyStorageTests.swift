// Apple's "Storing CryptoKit Keys in the Keychain" sample for a NIST P-256 key, without
// CryptoKit (the key travels as its X9.63 bytes): only the `import LinuxKeychain` line
// differs from the Apple version (`import Security`).
import Foundation
import LinuxKeychain
import Testing

enum KeyStoreError: Error {
    case unhandled(OSStatus)
    case notAKey
}

/// Stores and reads a P-256 private key by its label, as the sample's `GenericPasswordStore`
/// counterpart for NIST keys (`SecKeyStore`) does.
struct SecKeyStore {
    func storeKey(x963Representation: Data, label: String) throws {
        let attributes = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                          kSecAttrKeyClass: kSecAttrKeyClassPrivate] as [String: Any]
        var error: Unmanaged<CFError>?
        guard let secKey = SecKeyCreateWithData(x963Representation as CFData, attributes as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as any Error
        }
        let query = [kSecClass: kSecClassKey,
                     kSecAttrApplicationLabel: label,
                     kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked,
                     kSecUseDataProtectionKeychain: true,
                     kSecValueRef: secKey] as [String: Any]
        let status = SecItemAdd(query as CFDictionary, nil)
        guard status == errSecSuccess else { throw KeyStoreError.unhandled(status) }
    }

    func readKey(label: String) throws -> Data? {
        let query = [kSecClass: kSecClassKey,
                     kSecAttrApplicationLabel: label,
                     kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                     kSecUseDataProtectionKeychain: true,
                     kSecReturnRef: true] as [String: Any]
        var item: CFTypeRef?
        var secKey: SecKey
        switch SecItemCopyMatching(query as CFDictionary, &item) {
        case errSecSuccess: secKey = item as! SecKey
        case errSecItemNotFound: return nil
        case let status: throw KeyStoreError.unhandled(status)
        }
        var error: Unmanaged<CFError>?
        guard let data = SecKeyCopyExternalRepresentation(secKey, &error) as Data? else {
            throw error!.takeRetainedValue() as any Error
        }
        return data
    }

    func deleteKey(label: String) throws {
        let query = [kSecClass: kSecClassKey,
                     kSecUseDataProtectionKeychain: true,
                     kSecAttrApplicationLabel: label] as [String: Any]
        switch SecItemDelete(query as CFDictionary) {
        case errSecItemNotFound, errSecSuccess: break
        case let status: throw KeyStoreError.unhandled(status)
        }
    }
}

@Suite("SecItem: Apple's P-256 key storage idiom, unchanged")
struct AppleStyleKeyStorageTests {
    init() { MemoryKeychain.activate() }

    @Test func aStoredKeyReadsBackAndSigns() throws {
        let store = SecKeyStore()
        let label = MemoryKeychain.uniqueName("cryptokit-p256")
        try store.storeKey(x963Representation: SecKeyTests.openSSLKey, label: label)
        #expect(throws: KeyStoreError.self, "a second key under the label is a duplicate") {
            try store.storeKey(x963Representation: SecKeyTests.openSSLKey, label: label)
        }
        let read = try #require(try store.readKey(label: label))
        #expect(read == SecKeyTests.openSSLKey)
        let signer = try ES256Signer(x963: read)
        let token = Data("header.payload".utf8)
        #expect(signer.verify(try signer.sign(token), of: token))

        try store.deleteKey(label: label)
        #expect(try store.readKey(label: label) == nil)
    }
}
