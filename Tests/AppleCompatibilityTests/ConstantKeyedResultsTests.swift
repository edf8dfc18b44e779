import Foundation
import LinuxKeychain
import Testing

/// Results looked up by the `kSec…` constants, as wrappers read them: a result cast to
/// `[AnyHashable: Any]` (whose keys bridge to `String`), `[String: Any]` or `[CFString: Any]`
/// finds its values under the constant itself, as it does on Apple platforms.
@Suite("results looked up by Apple's constants")
struct ConstantKeyedResultsTests {
    @Test func theConstantsHashAsTheirStringsAndStillBridge() {
        #expect(AnyHashable(kSecAttrAccount) == AnyHashable("acct"))
        #expect(AnyHashable(kSecValueData) == AnyHashable("v_Data"))
        #expect(kSecClass as String == "class")
        let literal: [String: AnyObject] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a" as NSString]
        #expect(literal["acct"] as? String == "a")
        let byConstant: [AnyHashable: Any] = [kSecAttrService: "svc"]
        #expect(byConstant["svce"] as? String == "svc")
        #expect(kSecAttrAccount.isEqual(NSString(string: "acct")))
        #expect(NSString(string: "acct").isEqual(kSecAttrAccount))
        #expect(kSecAttrAccount.hash == NSString(string: "acct").hash)
    }

    /// Lists every account of a service the way SwiftKeychainWrapper's `allKeys()` does:
    /// all attributes of every item, then each one's account read by the constant.
    private func accounts(ofService service: String) -> (status: OSStatus, accounts: [String], viaString: [String], viaCFString: [String]) {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                    kSecReturnAttributes as String: kCFBooleanTrue!, kSecMatchLimit as String: kSecMatchLimitAll]
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        let asAnyHashable = (result as? [[AnyHashable: Any]] ?? []).compactMap { $0[kSecAttrAccount] as? String }
        let asString = (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccount as String] as? String }
        let asCFString = (result as? [[CFString: Any]] ?? []).compactMap { $0[kSecAttrAccount] as? String }
        return (status, asAnyHashable.sorted(), asString.sorted(), asCFString.sorted())
    }

    @Test(arguments: EveryBackend.names)
    func attributesReadByTheConstantsFindTheirValues(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let service = EveryBackend.uniqueName("constant-keys")
            defer {
                SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary)
            }
            for account in ["first", "second"] {
                let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                          kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            }
            let found = accounts(ofService: service)
            #expect(found.status == errSecSuccess)
            #expect(found.accounts == ["first", "second"], "[AnyHashable: Any] looked up by kSecAttrAccount")
            #expect(found.viaString == ["first", "second"], "[String: Any] looked up by kSecAttrAccount as String")
            #expect(found.viaCFString == ["first", "second"], "[CFString: Any] looked up by kSecAttrAccount")

            let one: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                      kSecAttrAccount as String: "first", kSecReturnData as String: true,
                                      kSecReturnAttributes as String: true]
            var result: AnyObject?
            #expect(SecItemCopyMatching(one as CFDictionary, &result) == errSecSuccess)
            let attributes = result as? [AnyHashable: Any]
            #expect(attributes?[kSecValueData] as? Data == Data("first".utf8))
            #expect(attributes?[kSecAttrService] as? String == service)
        }
    }
}
