import Foundation
import LinuxKeychain
import LinuxKeychainKit
import Testing

/// What the typed API offers beyond get and set, at KeychainAccess's level: subscripts,
/// internet passwords, label/comment/accessibility, items with attributes, Codable values and
/// errors that read well as `localizedDescription`.
@Suite("typed Keychain API: features")
struct TypedKeychainFeatureTests {
    let backend = MemoryBackend()

    @Test func subscriptsReadWriteAndRemove() throws {
        let keychain = Keychain(service: "com.example.subscripts", backend: backend)
        keychain["alice"] = "s3cr3t"
        #expect(keychain["alice"] == "s3cr3t")
        keychain[data: "bytes"] = Data([0, 1, 2])
        #expect(keychain[data: "bytes"] == Data([0, 1, 2]))
        keychain["alice"] = nil
        #expect(keychain["alice"] == nil)
        #expect(try !keychain.contains("alice"))
    }

    @Test func aFailedSubscriptWriteLeavesItsErrorInLastError() throws {
        let broken = Keychain(service: "s", backend: PlaceholderBackend(name: "broken", reason: "Broken on purpose."))
        broken["alice"] = "x"
        #expect(KeychainLastError.current?.status == errSecNotAvailable)
        #expect(broken["alice"] == nil)
    }

    @Test func labelCommentAndAccessibilityAreStoredAndListed() throws {
        let keychain = Keychain(service: "com.example.attributes", backend: backend)
        try keychain.set("v", for: "alice", label: "Alice's token", comment: "rotated monthly", accessibility: .afterFirstUnlock)
        try keychain.set("w", for: "bob")
        let items = try keychain.allItems()
        #expect(items.map(\.account).sorted() == ["alice", "bob"])
        let alice = try #require(items.first { $0.account == "alice" })
        #expect(alice.label == "Alice's token")
        #expect(alice.comment == "rotated monthly")
        #expect(alice.accessibility == .afterFirstUnlock)
        #expect(alice.service == "com.example.attributes" && alice.server == nil)
        #expect(alice.creationDate != nil && alice.modificationDate != nil)
        // A later set without a label keeps the label.
        try keychain.set("v2", for: "alice")
        #expect(try keychain.allItems().first { $0.account == "alice" }?.label == "Alice's token")
    }

    @Test func internetPasswordsAreApartFromGenericOnesAndVisibleToSecItem() throws {
        let github = Keychain(server: "github.com", protocol: .https, backend: backend)
        let otherPort = Keychain(server: "github.com", protocol: .https, port: 8443, backend: backend)
        let generic = Keychain(service: "github.com", backend: backend)
        try github.set("token", for: "alice")
        try otherPort.set("other", for: "alice")
        #expect(try github.string(for: "alice") == "token")
        #expect(try otherPort.string(for: "alice") == "other")
        #expect(try generic.string(for: "alice") == nil)
        let item = try #require(try otherPort.allItems().first)
        #expect(item.server == "github.com" && item.protocol == .https && item.port == 8443 && item.service == nil)
    }

    struct Settings: Codable, Equatable, Sendable {
        let endpoint: String
        let retries: Int
    }

    @Test func oneGenericSetAndValueForCodableStringsAndData() throws {
        let keychain = Keychain(service: "com.example.codable", backend: backend)
        func store<Value: Encodable>(_ value: Value, _ account: String) throws { try keychain.set(value, for: account) }
        try store(Settings(endpoint: "https://api.example.com", retries: 3), "settings")
        try store("plain text", "text")
        try store(Data([0xFF]), "bytes")
        #expect(try keychain.value(Settings.self, for: "settings") == Settings(endpoint: "https://api.example.com", retries: 3))
        // Strings and data stored through the generic path are the raw secret, as set(String) stores it.
        #expect(try keychain.string(for: "text") == "plain text")
        #expect(try keychain.value(String.self, for: "text") == "plain text")
        #expect(try keychain.value(Data.self, for: "bytes") == Data([0xFF]))
        #expect(try keychain.value(Settings.self, for: "missing") == nil)
    }

    @Test func errorsDescribeThemselvesThroughLocalizedError() throws {
        let error = KeychainError(errSecInteractionNotAllowed, "The keyring is locked; unlock it.", backend: "secret-service")
        #expect(error.localizedDescription == "The keyring is locked; unlock it.")
        #expect((error as any Error).localizedDescription == "The keyring is locked; unlock it.")
        #expect((error as NSError).localizedFailureReason?.contains("OSStatus -25308") == true)
        let broken = Keychain(service: "s", backend: PlaceholderBackend(name: "broken", reason: "Broken on purpose."))
        let thrown = #expect(throws: KeychainError.self) { try broken.set("x", for: "a") }
        #expect(thrown?.localizedDescription.contains("Broken on purpose.") == true)
        #expect(thrown?.localizedDescription.contains("KeychainCore") == false)
    }

    /// The same calls on the kernel keyring: attributes and internet passwords survive a real store.
    @Test func internetPasswordsWithAttributesOnTheKernelKeyring() throws {
        let keyring = try KeychainBackendRegistry.withBuiltIns.backend(named: "keyring")
        if case .unavailable(let reason) = keyring.availability() { try Test.cancel(Comment(rawValue: reason.message)) }
        let server = "typed-\(UUID().uuidString.prefix(8)).example.com"
        let keychain = Keychain(server: server, protocol: .https, port: 8443, path: "/api", backend: keyring)
        defer { _ = try? keychain.removeAll() }
        try keychain.set("token", for: "alice", label: "API", comment: "typed test")
        #expect(try keychain.string(for: "alice") == "token")
        let item = try #require(try keychain.allItems().first)
        #expect(item.server == server && item.protocol == .https && item.port == 8443 && item.path == "/api")
        #expect(item.label == "API" && item.comment == "typed test")
        #expect(try keychain.removeAll() == 1)
    }

    /// The typed names are Apple's codes, so typed and SecItem code match the same items.
    @Test func authenticationTypesAreApplesCodes() {
        let pairs: [(AuthenticationType, CFString)] = [
            (.ntlm, kSecAttrAuthenticationTypeNTLM), (.msn, kSecAttrAuthenticationTypeMSN),
            (.dpa, kSecAttrAuthenticationTypeDPA), (.rpa, kSecAttrAuthenticationTypeRPA),
            (.httpBasic, kSecAttrAuthenticationTypeHTTPBasic), (.httpDigest, kSecAttrAuthenticationTypeHTTPDigest),
            (.htmlForm, kSecAttrAuthenticationTypeHTMLForm), (.default, kSecAttrAuthenticationTypeDefault),
        ]
        for (typed, apple) in pairs { #expect(typed.rawValue == apple as String) }
    }
}
