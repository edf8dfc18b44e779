import Foundation
import LinuxKeychain
import Testing

/// Through Apple's API: the `kSecValuePersistentRef` this release returns for an item is the
/// pinned byte string, and those bytes, stored by a program and passed back later, find the
/// item. (The byte form itself is pinned in KeychainCoreTests' PinnedPersistentReferenceTests.)
@Suite("SecItem: pinned persistent references")
struct PinnedPersistentReferenceSecItemTests {
    // Fixed names, because the reference spells them; no other test uses this service.
    static let service = "pinned-persistent-reference"
    static let pinned = Data("genp12:pinned.group27:pinned-persistent-reference5:alice1:0".utf8)

    init() { MemoryKeychain.activate() }

    @Test func theReturnedReferenceIsThePinnedBytesAndFindsTheItem() throws {
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
                                   kSecAttrAccount as String: "alice", kSecAttrAccessGroup as String: "pinned.group"]
        SecItemDelete(item as CFDictionary)
        defer { SecItemDelete(item as CFDictionary) }
        var added = item
        added[kSecValueData as String] = Data("pinned secret".utf8)
        #expect(SecItemAdd(added as CFDictionary, nil) == errSecSuccess)

        var result: AnyObject?
        var query = item
        query[kSecReturnPersistentRef as String] = true
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        #expect(result as? Data == Self.pinned)

        var secret: AnyObject?
        let byReference: [String: Any] = [kSecValuePersistentRef as String: Self.pinned, kSecReturnData as String: true]
        #expect(SecItemCopyMatching(byReference as CFDictionary, &secret) == errSecSuccess)
        #expect(secret as? Data == Data("pinned secret".utf8))
    }
}
