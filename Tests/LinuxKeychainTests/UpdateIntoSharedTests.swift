import Foundation
import KeychainCore
import LinuxKeychain
import Testing

/// A program cannot make a shared item, even by spelling the group as "" in an update's
/// changes: the item would leave the program's reach (its own updates and class-wide deletes
/// no longer see it) and appear to every other program as the operator's.
@Suite("updates that spell the group as empty")
struct UpdateIntoSharedTests {
    @Test func anUpdateToAnEmptyGroupKeepsTheItemInTheProgramsGroup() throws {
        let backend = MemoryBackend()
        let service = MemoryKeychain.uniqueName("update-into-shared")
        KeychainBackendRegistry.withBackend(backend) {
            let add: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                        kSecAttrAccount: "a", kSecValueData: Data("mine".utf8)]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            let query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service]
            #expect(SecItemUpdate(query as CFDictionary, [kSecAttrAccessGroup: ""] as CFDictionary) == errSecSuccess)
            #expect(SecItemDelete(query as CFDictionary) == errSecSuccess, "the program lost its own item")
        }
        #expect(try backend.search(ItemQuery(itemClass: .genericPassword,
                                             constraints: ItemAttributes([.service: .string(service)]))).isEmpty,
                "the program's item became a shared one")
    }
}
