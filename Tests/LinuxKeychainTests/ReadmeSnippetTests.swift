import Foundation
import LinuxKeychain
import LinuxKeychainKit
import Testing

/// The README's Swift snippets, as written there, so they keep compiling and doing what the
/// README says. They run on the process's memory backend (`MemoryKeychain`); the suite is
/// serialized and starts each test with no items of the README's service, which no other
/// suite uses.
@Suite("README snippets", .serialized)
struct ReadmeSnippetTests {
    init() throws {
        MemoryKeychain.activate()
        try Keychain(service: "com.example.api").removeAll()
        try Keychain(server: "github.com", protocol: .https).removeAll()
        try KeychainKeys().remove(tag: "jwt")
    }

    struct Credentials: Codable, Sendable, Equatable {
        let user: String
        let token: String
    }

    @Test func appleStyleSnippet() throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: "com.example.api",
            kSecAttrAccount as String: "alice",
            kSecValueData as String: Data("s3cr3t".utf8),
        ]
        let status = SecItemAdd(query as CFDictionary, nil)
        #expect(status == errSecSuccess)

        var result: AnyObject?
        let lookup = [kSecClass: kSecClassGenericPassword, kSecAttrService: "com.example.api",
                      kSecAttrAccount: "alice", kSecReturnData: true] as NSDictionary
        var printed: String?
        if SecItemCopyMatching(lookup, &result) == errSecSuccess, let data = result as? Data {
            printed = String(decoding: data, as: UTF8.self)
        }
        #expect(printed == "s3cr3t")
    }

    @Test func typedSnippet() async throws {
        let keychain = Keychain(service: "com.example.api")
        try keychain.set("s3cr3t", for: "alice", label: "API token")
        let token = try keychain.string(for: "alice")
        keychain["bob"] = "hunter2"
        try keychain.set(Credentials(user: "alice", token: "t"), for: "creds")
        let creds: Credentials? = try keychain.value(for: "creds")
        let github = Keychain(server: "github.com", protocol: .https)
        let signer = try KeychainKeys().makeKey(.p256, tag: "jwt")

        func refresh() async throws -> String? {
            try await keychain.async.string(for: "alice")
        }
        #expect(token == "s3cr3t")
        #expect(keychain["bob"] == "hunter2")
        #expect(creds == Credentials(user: "alice", token: "t"))
        #expect(try github.allItems().isEmpty)
        #expect(try KeychainKeys().key(tag: "jwt") == signer)
        #expect(try await refresh() == "s3cr3t")
    }
}
