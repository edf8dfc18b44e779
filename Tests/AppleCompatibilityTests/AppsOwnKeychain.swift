// Keychain code as apps write it for Apple platforms, with only the import changed. It
// declares the names Apple's own documentation and popular wrappers declare (`KeychainError`,
// `ItemClass`, `Keychain`) next to `import LinuxKeychain`; this file compiling is the test that
// the import brings none of the library's own types into scope.
import Foundation
import LinuxKeychain

/// As in Apple's "Adding a password to the keychain" sample.
enum KeychainError: Error, Equatable {
    case noPassword
    case unexpectedPasswordData
    case unhandledError(status: OSStatus)
}

/// As KeychainAccess declares it.
enum ItemClass {
    case genericPassword
    case internetPassword

    var secClass: CFString {
        switch self {
        case .genericPassword: return kSecClassGenericPassword
        case .internetPassword: return kSecClassInternetPassword
        }
    }
}

/// A small wrapper in the style of SwiftKeychainWrapper and KeychainSwift: Data accounts,
/// `noErr` comparisons, `kSecMatchLimitAll` listings.
struct Keychain {
    let service: String
    var accessGroup: String?

    /// The default service name, as SwiftKeychainWrapper derives it from the bundle.
    static var defaultService: String {
        Bundle.main.object(forInfoDictionaryKey: kCFBundleIdentifierKey as String) as? String ?? "AppleCompatibilityTests"
    }

    init(service: String = Keychain.defaultService, accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    private func query(forKey key: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            // SwiftKeychainWrapper's way: the key as UTF-8 Data, in both account and generic.
            kSecAttrAccount as String: key.data(using: .utf8)!,
            kSecAttrGeneric as String: key.data(using: .utf8)!,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    @discardableResult
    func set(_ value: Data, forKey key: String) -> Bool {
        var add = query(forKey: key)
        add[kSecValueData as String] = value
        let status = SecItemAdd(add as CFDictionary, nil)
        if status == errSecDuplicateItem {
            let update = [kSecValueData as String: value]
            return SecItemUpdate(query(forKey: key) as CFDictionary, update as CFDictionary) == noErr
        }
        return status == noErr
    }

    func data(forKey key: String) -> Data? {
        var find = query(forKey: key)
        find[kSecMatchLimit as String] = kSecMatchLimitOne
        find[kSecReturnData as String] = kCFBooleanTrue
        var result: AnyObject?
        let status = SecItemCopyMatching(find as CFDictionary, &result)
        return status == noErr ? result as? Data : nil
    }

    func string(forKey key: String) throws -> String {
        guard let data = data(forKey: key) else { throw KeychainError.noPassword }
        guard let text = String(data: data, encoding: .utf8) else { throw KeychainError.unexpectedPasswordData }
        return text
    }

    @discardableResult
    func remove(forKey key: String) -> Bool {
        SecItemDelete(query(forKey: key) as CFDictionary) == noErr
    }

    /// Every key in the order it was first stored, read back from the Data accounts.
    func allKeys() throws -> [String] {
        var find: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecReturnAttributes as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        if let accessGroup { find[kSecAttrAccessGroup as String] = accessGroup }
        var result: AnyObject?
        let status = SecItemCopyMatching(find as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == noErr else { throw KeychainError.unhandledError(status: status) }
        guard let items = result as? [[String: Any]] else { throw KeychainError.unexpectedPasswordData }
        return items.compactMap { attributes in
            (attributes[kSecAttrAccount as String] as? Data).flatMap { String(data: $0, encoding: .utf8) }
        }
    }

    /// Removes every item of this service, as `removeAllKeys()` does.
    @discardableResult
    func removeAll() -> Bool {
        let status = SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary)
        return status == noErr || status == errSecItemNotFound
    }

    /// A random key of `count` bytes, as KeychainAccess's tests make them.
    static func randomKey(count: Int) throws -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = SecRandomCopyBytes(kSecRandomDefault, count, &bytes)
        guard status == errSecSuccess else { throw KeychainError.unhandledError(status: status) }
        return Data(bytes)
    }
}
