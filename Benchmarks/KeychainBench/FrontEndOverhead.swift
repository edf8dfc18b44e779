import Foundation
import KeychainCore
import KeychainEntryPoints
import LinuxKeychain

/// What the front end adds over calling a backend directly: `SecItemCopyMatching` (parsing
/// Apple's dictionary, building the result) against `backend.search` with the same typed
/// query, on the `memory` backend, where the store itself costs least.
enum FrontEndOverhead {
    static func measure(iterations: Int) throws -> BenchmarkResult {
        let backend = MemoryBackend()
        let operations = KeychainOperations(backend: backend)
        let attributes = ItemAttributes([.service: .string("keychain-bench-overhead"), .account: .string("subject")])
        try operations.add(KeychainItem(itemClass: .genericPassword, attributes: attributes,
                                        secret: SecretBytes(Data(repeating: 1, count: 32))))
        let query = ItemQuery(primaryKey: PrimaryKey(itemClass: .genericPassword, attributes: attributes), includeSecrets: true)
        let direct = try LatencySample.measure(iterations: iterations * 10) { _ in _ = try backend.search(query) }
        KeychainBackendRegistry.withBuiltIns.use(backend)
        let dictionary = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "keychain-bench-overhead",
                          kSecAttrAccount as String: "subject", kSecReturnData as String: true] as CFDictionary
        let throughFrontEnd = try LatencySample.measure(iterations: iterations * 10) { _ in
            var result: AnyObject?
            guard SecItemCopyMatching(dictionary, &result) == errSecSuccess else {
                throw BaselineError(description: "SecItemCopyMatching failed on memory")
            }
        }
        return BenchmarkResult(backend: "memory", operation: "get (SecItemCopyMatching vs backend.search)", items: 1,
                               sample: throughFrontEnd, baseline: ("backend.search", direct))
    }
}
