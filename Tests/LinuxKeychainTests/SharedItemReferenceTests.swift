import Foundation
import KeychainCore
import LinuxKeychain
import Testing

/// A reference (`kSecValuePersistentRef`, `kSecValueRef`) names one item. A program that holds
/// the reference of a shared item, next to its own item of the same service and account, must
/// reach exactly that shared item when reading, and no item at all when changing or deleting
/// (a program never changes shared items; docs/placement.md), never its own item instead.
@Suite("references to shared items")
struct SharedItemReferenceTests {
    @Test func aSharedItemsReferenceNeverReachesTheProgramsOwnItem() throws {
        let backend = MemoryBackend()
        let service = MemoryKeychain.uniqueName("shared-ref")
        // As `linux-keychain set` or another tool writes it: no access group.
        try backend.add(KeychainItem(itemClass: .genericPassword,
                                     attributes: ItemAttributes([.service: .string(service), .account: .string("a")]),
                                     secret: SecretBytes(Data("operator".utf8))))
        try KeychainBackendRegistry.withBackend(backend) {
            let own: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                        kSecAttrAccount: "a", kSecValueData: Data("mine".utf8)]
            #expect(SecItemAdd(own as CFDictionary, nil) == errSecSuccess)

            var listed: CFTypeRef?
            let all: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                        kSecMatchLimit: kSecMatchLimitAll, kSecReturnAttributes: true,
                                        kSecReturnPersistentRef: true, kSecReturnRef: true]
            #expect(SecItemCopyMatching(all as CFDictionary, &listed) == errSecSuccess)
            let items = (listed as? [[String: Any]]) ?? []
            #expect(items.count == 2)
            let shared = try #require(items.first { ($0[kSecAttrAccessGroup as String] as? String) == "" })

            for reference in [kSecValuePersistentRef, kSecValueRef] {
                let named: [CFString: Any] = [reference: shared[reference as String] as Any]
                var read: CFTypeRef?
                var reading = named
                reading[kSecReturnData] = true
                #expect(SecItemCopyMatching(reading as CFDictionary, &read) == errSecSuccess)
                #expect(read as? Data == Data("operator".utf8), "the shared item's reference read another item")

                #expect(SecItemUpdate(named as CFDictionary, [kSecAttrLabel: "changed"] as CFDictionary) == errSecItemNotFound)
                #expect(SecItemDelete(named as CFDictionary) == errSecItemNotFound)
            }
            var mine: CFTypeRef?
            let byName: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                           kSecAttrAccount: "a", kSecReturnAttributes: true, kSecReturnData: true]
            #expect(SecItemCopyMatching(byName as CFDictionary, &mine) == errSecSuccess,
                    "deleting by the shared item's reference deleted the program's own item")
            #expect((mine as? [String: Any])?[kSecValueData as String] as? Data == Data("mine".utf8))
            #expect((mine as? [String: Any])?[kSecAttrLabel as String] == nil,
                    "updating by the shared item's reference changed the program's own item")
            #expect(SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary) == errSecSuccess)
        }
        #expect(try backend.search(ItemQuery(itemClass: .genericPassword,
                                             constraints: ItemAttributes([.service: .string(service)]))).count == 1,
                "the shared item must survive the program's deletes")
    }
}
