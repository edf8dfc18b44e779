// This file is written as an iOS app writes keychain code: only the `import LinuxKeychain`
// line differs from the Apple version (`import Security`). It must build without warnings,
// which proves, among other things, that ignoring a SecItem status is allowed.
import Foundation
import LinuxKeychain
import Testing

/// A generic-password store in the style of Apple's sample code.
struct PasswordStore {
    let service: String

    /// Update-then-add, the pattern Apple's documentation recommends.
    func save(_ password: String, account: String) -> OSStatus {
        let data = password.data(using: .utf8)!
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        let changes: [String: Any] = [kSecValueData as String: data]
        var status = SecItemUpdate(query as CFDictionary, changes as CFDictionary)
        if status == errSecItemNotFound {
            var item = query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            item[kSecAttrLabel as String] = "Password for \(account)"
            status = SecItemAdd(item as CFDictionary, nil)
        }
        return status
    }

    func add(_ password: String, account: String) -> OSStatus {
        let item = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrService: service,
            kSecAttrAccount: account,
            kSecValueData: Data(password.utf8),
        ] as NSDictionary
        return SecItemAdd(item, nil)
    }

    func password(account: String) -> String? {
        let query = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrService: service,
            kSecAttrAccount: account,
            kSecReturnData: true,
            kSecMatchLimit: kSecMatchLimitOne,
        ] as NSDictionary
        var result: AnyObject?
        let status = SecItemCopyMatching(query, &result)
        guard status == errSecSuccess, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    func attributes(account: String) -> [CFString: AnyObject]? {
        let query: [CFString: Any] = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrService: service,
            kSecAttrAccount: account,
            kSecReturnAttributes: kCFBooleanTrue!,
        ]
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? [CFString: AnyObject]
    }

    func accounts() -> [String] {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnAttributes as String: true,
        ]
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
              let items = result as? [[String: Any]] else { return [] }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
    }

    func passwordsWithAccounts() -> [String: String] {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnAttributes as String: kCFBooleanTrue as Any,
            kSecReturnData as String: kCFBooleanTrue as Any,
        ]
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
              let items = result as? [[String: Any]] else { return [:] }
        var found: [String: String] = [:]
        for item in items {
            guard let account = item[kSecAttrAccount as String] as? String,
                  let data = item[kSecValueData as String] as? Data else { continue }
            found[account] = String(data: data, encoding: .utf8)
        }
        return found
    }

    func persistentReference(account: String) -> Data? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecReturnPersistentRef as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? Data
    }

    func password(persistentReference: Data) -> String? {
        let query: [String: Any] = [
            kSecValuePersistentRef as String: persistentReference,
            kSecReturnData as String: true,
        ]
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
              let data = result as? Data else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    func remove(account: String) -> OSStatus {
        SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account] as NSDictionary)
    }

    func removeAll() -> OSStatus {
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        return SecItemDelete(query as CFDictionary)
    }
}

/// An internet-password store, keyed by server, protocol, port and path.
struct WebCredentialStore {
    let server: String

    private func query(account: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassInternetPassword,
            kSecAttrServer as String: server,
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
            kSecAttrPort as String: 443,
            kSecAttrPath as String: "/login",
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
            kSecAttrAccount as String: account,
        ]
    }

    func save(_ password: String, account: String) -> OSStatus {
        let data = Data(password.utf8)
        let status = SecItemUpdate(query(account: account) as CFDictionary, [kSecValueData: data] as CFDictionary)
        guard status == errSecItemNotFound else { return status }
        var item = query(account: account)
        item[kSecValueData as String] = data
        item[kSecAttrComment as String] = "saved by the app"
        return SecItemAdd(item as CFDictionary, nil)
    }

    func add(_ password: String, account: String) -> OSStatus {
        var item = query(account: account)
        item[kSecValueData as String] = Data(password.utf8)
        return SecItemAdd(item as CFDictionary, nil)
    }

    func credential(account: String) -> (password: String, attributes: [String: Any])? {
        var query = query(account: account)
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
              let item = result as? [String: Any],
              let data = item[kSecValueData as String] as? Data else { return nil }
        return (String(decoding: data, as: UTF8.self), item)
    }

    func removeAll() -> OSStatus {
        SecItemDelete([kSecClass: kSecClassInternetPassword, kSecAttrServer: server] as NSDictionary)
    }
}

@Suite("An Apple-style program, unchanged but for its import")
struct AppleStyleProgramTests {
    init() { MemoryKeychain.activate() }

    @Test func genericPasswordUpdateThenAdd() {
        let store = PasswordStore(service: MemoryKeychain.uniqueName("apple.genp"))
        #expect(store.save("first", account: "alice") == errSecSuccess)
        #expect(store.password(account: "alice") == "first")
        #expect(store.save("second", account: "alice") == errSecSuccess)
        #expect(store.password(account: "alice") == "second")
        #expect(store.accounts() == ["alice"])
    }

    @Test func addThenDuplicate() {
        let store = PasswordStore(service: MemoryKeychain.uniqueName("apple.dup"))
        #expect(store.add("one", account: "bob") == errSecSuccess)
        #expect(store.add("two", account: "bob") == errSecDuplicateItem)
        #expect(store.password(account: "bob") == "one")
    }

    @Test func resultIgnoredCallStillStores() {
        let service = MemoryKeychain.uniqueName("apple.ignored")
        let q: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: "carol",
            kSecValueData as String: Data("pw".utf8),
        ]
        SecItemAdd(q as CFDictionary, nil)
        #expect(PasswordStore(service: service).password(account: "carol") == "pw")
    }

    @Test func attributesComeBackTyped() throws {
        let store = PasswordStore(service: MemoryKeychain.uniqueName("apple.attrs"))
        let before = Date()
        #expect(store.save("secret", account: "dave") == errSecSuccess)
        let attributes = try #require(store.attributes(account: "dave"))
        #expect(attributes[kSecAttrAccount] as? String == "dave")
        #expect(attributes[kSecAttrService] as? String == store.service)
        #expect(attributes[kSecAttrLabel] as? String == "Password for dave")
        #expect(attributes[kSecAttrAccessible] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
        #expect(attributes[kSecClass] as? String == kSecClassGenericPassword as String)
        #expect(attributes[kSecValueData] == nil, "attributes alone must not carry the secret")
        let created = try #require(attributes[kSecAttrCreationDate] as? Date)
        let modified = try #require(attributes[kSecAttrModificationDate] as? Date)
        #expect(created >= before.addingTimeInterval(-1) && modified >= created)
    }

    @Test func matchAllWithDataAndAttributes() {
        let store = PasswordStore(service: MemoryKeychain.uniqueName("apple.all"))
        for (account, password) in [("a", "1"), ("b", "2"), ("c", "3")] {
            #expect(store.save(password, account: account) == errSecSuccess)
        }
        #expect(store.accounts() == ["a", "b", "c"])
        #expect(store.passwordsWithAccounts() == ["a": "1", "b": "2", "c": "3"])
    }

    @Test func persistentReferenceRoundTrip() throws {
        let store = PasswordStore(service: MemoryKeychain.uniqueName("apple.pref"))
        #expect(store.save("kept", account: "erin") == errSecSuccess)
        let reference = try #require(store.persistentReference(account: "erin"))
        #expect(store.password(persistentReference: reference) == "kept")
        #expect(store.remove(account: "erin") == errSecSuccess)
        #expect(store.password(persistentReference: reference) == nil)
    }

    @Test func deleteByService() {
        let store = PasswordStore(service: MemoryKeychain.uniqueName("apple.delete"))
        let neighbour = PasswordStore(service: MemoryKeychain.uniqueName("apple.neighbour"))
        #expect(store.save("x", account: "one") == errSecSuccess)
        #expect(store.save("y", account: "two") == errSecSuccess)
        #expect(neighbour.save("z", account: "one") == errSecSuccess)
        #expect(store.removeAll() == errSecSuccess)
        #expect(store.accounts().isEmpty)
        #expect(store.removeAll() == errSecItemNotFound)
        #expect(neighbour.password(account: "one") == "z")
    }

    @Test func internetPasswords() throws {
        let web = WebCredentialStore(server: MemoryKeychain.uniqueName("apple.inet") + ".example.com")
        #expect(web.save("hunter2", account: "frank") == errSecSuccess)
        #expect(web.save("hunter3", account: "frank") == errSecSuccess)
        #expect(web.add("other", account: "frank") == errSecDuplicateItem)
        #expect(web.add("other", account: "grace") == errSecSuccess)
        let credential = try #require(web.credential(account: "frank"))
        #expect(credential.password == "hunter3")
        #expect(credential.attributes[kSecAttrServer as String] as? String == web.server)
        #expect(credential.attributes[kSecAttrProtocol as String] as? String == kSecAttrProtocolHTTPS as String)
        #expect(credential.attributes[kSecAttrPort as String] as? Int == 443)
        #expect(credential.attributes[kSecAttrPath as String] as? String == "/login")
        #expect(credential.attributes[kSecAttrComment as String] as? String == "saved by the app")
        #expect(credential.attributes[kSecAttrSynchronizable as String] as? Bool == false)
        #expect(web.removeAll() == errSecSuccess)
        #expect(web.credential(account: "grace") == nil)
    }

    @Test func badInputIsRefusedAndLeavesStoredDataAlone() {
        let store = PasswordStore(service: MemoryKeychain.uniqueName("apple.bad"))
        #expect(store.save("original", account: "heidi") == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: store.service,
            kSecAttrAccount as String: "heidi",
        ]
        // The secret as a String instead of Data.
        #expect(SecItemUpdate(query as CFDictionary, [kSecValueData as String: "new"] as CFDictionary) == errSecParam)
        // A return key inside the attributes to update.
        #expect(SecItemUpdate(query as CFDictionary,
                              [kSecValueData: Data("new".utf8), kSecReturnData: true] as NSDictionary) == errSecParam)
        // No kSecClass.
        var noClass = query
        noClass[kSecClass as String] = nil
        #expect(SecItemDelete(noClass as CFDictionary) == errSecParam)
        // A label given as a number, on an add with the same primary key.
        var item = query
        item[kSecValueData as String] = Data("new".utf8)
        item[kSecAttrLabel as String] = 42
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecParam)
        #expect(store.password(account: "heidi") == "original")
    }
}
