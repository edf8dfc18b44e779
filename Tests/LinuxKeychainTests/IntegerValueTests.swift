import Foundation
import LinuxKeychain
import Testing

/// Integers in SecItem dictionaries stay integers: none goes through `Double`, which cannot
/// hold every integer from 2^53 on.
@Suite("SecItem integer values")
struct IntegerValueTests {
    init() { MemoryKeychain.activate() }

    @Test(arguments: [Int64.max, Int64.max - 1, Int64.max - 511, (Int64(1) << 53) + 1, Int64.min] as [Int64])
    func aPortKeepsItsExactValue(_ port: Int64) throws {
        let server = MemoryKeychain.uniqueName("integers")
        let item: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
                                   kSecAttrAccount as String: "acct", kSecAttrPort as String: NSNumber(value: port),
                                   kSecValueData as String: Data("s".utf8)]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        defer { SecItemDelete([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server] as CFDictionary) }
        var result: AnyObject?
        let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
                                    kSecAttrPort as String: port, kSecReturnAttributes as String: true]
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let found = (result as? NSDictionary)?[kSecAttrPort as String] as? NSNumber
        #expect(found?.int64Value == port, "port \(port) came back as \(String(describing: found))")
    }

    @Test func aMatchLimitOfIntMaxMeansEveryItem() throws {
        let service = MemoryKeychain.uniqueName("integers")
        for account in ["a", "b"] {
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                       kSecAttrAccount as String: account, kSecValueData as String: Data("s".utf8)]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        }
        defer { SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary) }
        for limit in [Int.max, Int.max - 1] {
            var result: AnyObject?
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                        kSecMatchLimit as String: limit, kSecReturnAttributes as String: true]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, "kSecMatchLimit \(limit)")
            #expect((result as? NSArray)?.count == 2)
        }
        let unsigned: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                       kSecMatchLimit as String: NSNumber(value: UInt64.max)]
        #expect(SecItemCopyMatching(unsigned as CFDictionary, nil) == errSecParam, "a limit beyond Int64 is not an integer here")
    }
}
