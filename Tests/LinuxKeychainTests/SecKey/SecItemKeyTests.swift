import Foundation
import KeychainCore
import LinuxKeychain
import Testing

/// `kSecClassKey` through the SecItem functions: what a stored key carries, how it is found,
/// what `SecKeyCreateRandomKey` stores, and what is refused without touching stored keys.
@Suite("SecItem: keys")
struct SecItemKeyTests {
    let tag = Data(MemoryKeychain.uniqueName("key-tag").utf8)

    init() { MemoryKeychain.activate() }

    private func storedKeys() -> [[String: Any]] {
        let found = copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnAttributes: true,
                          kSecMatchLimit: kSecMatchLimitAll])
        return found.result as? [[String: Any]] ?? []
    }

    private func randomKey(_ extra: [CFString: Any] = [:]) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let parameters = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256 as NSNumber]
            .merging(extra) { _, new in new }
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as any Error
        }
        return key
    }

    @Test func aKeyAddedByReferenceCarriesApplesAttributesAndComesBackAsAKey() throws {
        let key = try randomKey()
        #expect(SecItemAdd([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecValueRef: key,
                            kSecAttrLabel: "signing key"] as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecValueRef: key] as CFDictionary, nil)
                == errSecDuplicateItem, "the same key under the same tag")

        let attributes = try #require(storedKeys().first)
        #expect(attributes[kSecClass as String] as? String == kSecClassKey as String)
        #expect(attributes[kSecAttrKeyClass as String] as? Int == 1)
        #expect(attributes[kSecAttrKeyType as String] as? Int == 73)
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
        #expect(attributes[kSecAttrEffectiveKeySize as String] as? Int == 256)
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == tag)
        #expect(attributes[kSecAttrLabel as String] as? String == "signing key")
        let hash = (SecKeyCopyAttributes(key) as? [String: Any])?[kSecAttrApplicationLabel as String] as? Data
        #expect(hash != nil && attributes[kSecAttrApplicationLabel as String] as? Data == hash,
                "the label defaults to the public key's SHA-1")

        let byReference = copyMatching([kSecClass: kSecClassKey, kSecValueRef: key, kSecReturnRef: true])
        #expect(byReference.status == errSecSuccess && byReference.result as? SecKey == key)
        let bytes = copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnData: true])
        var error: Unmanaged<CFError>?
        #expect(bytes.result as? Data == SecKeyCopyExternalRepresentation(key, &error) as Data?)
        // Apple's key type and class constants are strings; they find the numbers stored.
        let typed = copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecAttrKeyType: kSecAttrKeyTypeRSA])
        #expect(typed.status == errSecItemNotFound)
        let classed = copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecAttrKeyClass: kSecAttrKeyClassPrivate])
        #expect(classed.status == errSecSuccess)

        #expect(SecItemDelete([kSecClass: kSecClassKey, kSecValueRef: key] as CFDictionary) == errSecSuccess)
        #expect(storedKeys().isEmpty)
    }

    @Test func keyBytesGivenAsDataAreCheckedAgainstTheirTypeOrKeptOpaque() throws {
        let key = try randomKey()
        var error: Unmanaged<CFError>?
        let bytes = try #require(SecKeyCopyExternalRepresentation(key, &error) as Data?)
        let typed: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag,
                                      kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate]
        #expect(SecItemAdd(typed.merging([kSecValueData: bytes.dropLast()]) { _, new in new } as CFDictionary, nil) == errSecParam,
                "bytes that are no P-256 private key")
        #expect(SecItemAdd(typed.merging([kSecValueData: bytes, kSecAttrKeySizeInBits: 384]) { _, new in new } as CFDictionary, nil)
                == errSecParam, "a size that contradicts the key")
        #expect(storedKeys().isEmpty, "a refused add stored something")
        #expect(SecItemAdd(typed.merging([kSecValueData: bytes]) { _, new in new } as CFDictionary, nil) == errSecSuccess)
        #expect(copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnRef: true]).result as? SecKey == key)
        #expect(SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag] as CFDictionary) == errSecSuccess)

        // Realm's idiom: a 64-byte symmetric key with a tag and a size, nothing more.
        let symmetric = Data((0..<64).map { UInt8($0) })
        #expect(SecItemAdd([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecAttrKeySizeInBits: 512,
                            kSecValueData: symmetric] as CFDictionary, nil) == errSecSuccess)
        #expect(copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecAttrKeySizeInBits: 512,
                      kSecReturnData: true]).result as? Data == symmetric)
        #expect(copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnRef: true]).status == errSecUnimplemented,
                "no SecKey stands for opaque key bytes")
        #expect(SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag] as CFDictionary) == errSecSuccess)
    }

    @Test func badKeyAttributesAreRefused() throws {
        let key = try randomKey()
        let base: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag]
        let refused: [(String, OSStatus, [CFString: Any])] = [
            ("a password's attribute", errSecNoSuchAttr, [kSecAttrService: "s", kSecValueRef: key]),
            ("a reference that is no key", errSecParam, [kSecValueRef: "key"]),
            ("both a reference and data", errSecParam, [kSecValueRef: key, kSecValueData: Data([1])]),
            ("a class that contradicts the key", errSecParam, [kSecValueRef: key, kSecAttrKeyClass: kSecAttrKeyClassPublic]),
            ("a key type as a word", errSecParam, [kSecValueRef: key, kSecAttrKeyType: "elliptic"]),
            ("no key at all", errSecParam, [:]),
        ]
        for (what, status, extra) in refused {
            let outcome = SecItemAdd(base.merging(extra) { _, new in new } as CFDictionary, nil)
            #expect(outcome == status, "\(what): \(outcome)")
        }
        #expect(storedKeys().isEmpty)
        #expect(SecItemAdd([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecAttrAccount: "a",
                            kSecValueRef: key] as CFDictionary, nil) == errSecNoSuchAttr)
        #expect(SecItemUpdate([kSecClass: kSecClassIdentity] as CFDictionary, [kSecAttrLabel: "l"] as CFDictionary) == errSecUnimplemented)
    }

    @Test func aPermanentRandomKeyStoresThePrivateKeyAndThePublicOneOnlyWhenAsked() throws {
        let key = try randomKey([kSecAttrIsPermanent: true, kSecAttrApplicationTag: tag, kSecAttrLabel: "made here"])
        var keys = storedKeys()
        #expect(keys.count == 1 && keys.first?[kSecAttrKeyClass as String] as? Int == 1)
        #expect(keys.first?[kSecAttrLabel as String] as? String == "made here")
        #expect(copyMatching([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnRef: true]).result as? SecKey == key)

        // Public attributes naming the same label as that key's public half: the pair's public
        // key then collides with a public key stored first, and nothing of the pair stays.
        let label = Data("fixed-label".utf8)
        _ = try randomKey([kSecPublicKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: tag,
                                                kSecAttrApplicationLabel: label] as [CFString: Any]])
        keys = storedKeys()
        #expect(keys.count == 2 && keys.contains { $0[kSecAttrKeyClass as String] as? Int == 0 })
        var error: Unmanaged<CFError>?
        let clash = SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                                           kSecAttrApplicationTag: tag, kSecAttrApplicationLabel: label, kSecAttrIsPermanent: true,
                                           kSecPublicKeyAttrs: [kSecAttrIsPermanent: true]] as CFDictionary, &error)
        #expect(clash == nil && error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecDuplicateItem))
        #expect(storedKeys().count == 2, "the pair's private key stayed although its public key could not be stored")
        #expect(SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag] as CFDictionary) == errSecSuccess)
    }
}
