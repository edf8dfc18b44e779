import Foundation
import LinuxKeychain
import LinuxKeychainKit
import Testing

/// The typed API against the real stores (`scripts/with-services.sh` starts them), for what a
/// memory backend cannot show: that each store keeps and matches the attributes the typed
/// calls rely on, and that items Apple-style code wrote are the same items.
@Suite("typed Keychain API on the real stores")
struct TypedKeychainStoreTests {
    static let stores = ["keyring", "secret-service", "file", "vault"]

    /// Items Apple-style code marks synchronizable are visible to a keychain that never asked
    /// for them, as they are through KeychainAccess, which reads with kSecAttrSynchronizableAny.
    @Test(arguments: stores) func seesSynchronizableItemsThatSecItemWrote(_ store: String) throws {
        try RealStore.run(store, "synced") { backend, service in
            try RealStore.add([kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "alice",
                               kSecAttrSynchronizable: true, kSecValueData: Data("synced".utf8)], in: backend)
            let keychain = Keychain(service: service, backend: backend)
            #expect(try keychain.string(for: "alice") == "synced")
            #expect(try keychain.contains("alice"))
            #expect(try keychain.allAccounts() == ["alice"])
            #expect(try keychain.allItems().map(\.isSynchronizable) == [true])
            #expect(try keychain.remove("alice"))
            #expect(try keychain.allItems().isEmpty)
        }
    }

    /// `synchronizable(true)` stores the flag where SecItem code finds it, and `set` keeps one
    /// item per account whichever flag the existing item has.
    @Test(arguments: stores) func writesTheSynchronizableFlagAndKeepsOneItemPerAccount(_ store: String) throws {
        try RealStore.run(store, "sync-write") { backend, service in
            let plain = Keychain(service: service, backend: backend)
            let synced = plain.synchronizable(true)
            #expect(synced.isSynchronizable && !plain.isSynchronizable && !synced.synchronizable(false).isSynchronizable)
            // The flags of the items for alice as SecItem sees them, asking for either flag.
            func storedFlags() -> [Bool] {
                RealStore.attributes(of: service, "alice", in: backend).map { ($0[kSecAttrSynchronizable as String] as? Bool) ?? false }
            }

            try synced.set("first", for: "alice", label: "Alice")
            #expect(storedFlags() == [true])
            #expect(try plain.string(for: "alice") == "first")
            #expect(try plain.attributes(for: "alice")?.isSynchronizable == true)

            // A keychain without the flag replaces the value and clears the flag, keeping the label.
            try plain.set("second", for: "alice")
            #expect(storedFlags() == [false])
            #expect(try synced.string(for: "alice") == "second")
            #expect(try plain.attributes(for: "alice")?.label == "Alice")
            try synced.set("third", for: "alice")
            #expect(storedFlags() == [true])

            // Both flags at once (only SecItem code makes that): set updates the one of its own flag.
            try RealStore.add([kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "alice",
                               kSecValueData: Data("local".utf8)], in: backend)
            try synced.set("fourth", for: "alice")
            #expect(storedFlags().sorted { !$0 && $1 } == [false, true])
            let syncedSecret = KeychainBackendRegistry.withBackend(backend) {
                var result: AnyObject?
                _ = SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "alice",
                                         kSecAttrSynchronizable: true, kSecReturnData: true] as NSDictionary, &result)
                return result as? Data
            }
            #expect(syncedSecret == Data("fourth".utf8))
            #expect(try plain.allAccounts() == ["alice"])
            #expect(Set(try plain.allItems().map(\.isSynchronizable)) == [false, true])
            #expect(try plain.remove("alice"))
            #expect(storedFlags().isEmpty, "remove left an item of one flag")

            try synced.set("b", for: "bob")
            #expect(try plain.removeAll() == 1)
            #expect(try synced.allItems().isEmpty)
        }
    }

    /// `attributes(for:)` and `[attributes:]` give one item's attributes, never its secret.
    @Test(arguments: stores) func readsOneItemsAttributesWithoutItsSecret(_ store: String) throws {
        try RealStore.run(store, "attributes") { backend, service in
            let keychain = Keychain(service: service, backend: backend)
            #expect(try keychain.attributes(for: "alice") == nil)
            #expect(keychain[attributes: "alice"] == nil)

            let before = Date()
            try keychain.set("s3cr3t-value", for: "alice", label: "Alice's token", comment: "rotated monthly",
                             accessibility: .afterFirstUnlock)
            try keychain.set("other", for: "bob")
            let item = try #require(try keychain.attributes(for: "alice"))
            #expect(item.account == "alice" && item.service == service && item.server == nil)
            #expect(item.label == "Alice's token" && item.comment == "rotated monthly")
            #expect(item.accessibility == .afterFirstUnlock && !item.isSynchronizable)
            let created = try #require(item.creationDate)
            // Some stores keep whole seconds.
            #expect(created.timeIntervalSince(before) > -1.5 && created.timeIntervalSinceNow < 1.5)
            #expect(item.modificationDate == item.creationDate)
            #expect(keychain[attributes: "alice"] == item)
            for text in [String(describing: item), String(reflecting: item), "\(item.attributes)"] {
                #expect(!text.contains("s3cr3t"), "an item's description shows its secret")
            }

            Thread.sleep(forTimeInterval: 1.1)  // past a whole second, for the stores that keep no finer dates
            try keychain.set("changed", for: "alice")
            let changed = try #require(try keychain.attributes(for: "alice"))
            #expect(changed.creationDate == item.creationDate)
            #expect((changed.modificationDate ?? .distantPast) > created)
            #expect(changed.label == "Alice's token", "a set without a label dropped it")

            // Attributes without a property of their own, as Apple-style code stores them.
            try RealStore.add([kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "carol",
                               kSecAttrDescription: "deploy key", kSecAttrGeneric: Data([1, 2, 3]),
                               kSecAttrIsInvisible: true, kSecValueData: Data("c".utf8)], in: backend)
            let carol = try #require(try keychain.attributes(for: "carol"))
            #expect(carol.attributes[.itemDescription] == .string("deploy key"))
            #expect(carol.attributes[.generic] == .data(Data([1, 2, 3])))
            #expect(carol.attributes.flag(.isInvisible))
        }
    }

    /// Internet passwords keep and are matched by their authentication type and security
    /// domain, through the typed API and the SecItem functions alike.
    @Test(arguments: stores) func matchesAndKeepsAuthenticationTypeAndSecurityDomain(_ store: String) throws {
        try RealStore.run(store, "auth") { backend, server in
            func keychain(_ type: AuthenticationType?, _ domain: String?) -> Keychain {
                Keychain(server: server, protocol: .https, port: 8443, path: "/login", authenticationType: type,
                         securityDomain: domain, backend: backend)
            }
            let form = keychain(.htmlForm, "Staff")
            let basic = keychain(.httpBasic, "Staff")
            let anyType = Keychain(server: server, backend: backend)
            try form.set("form-secret", for: "alice")
            #expect(try basic.string(for: "alice") == nil)
            try basic.set("basic-secret", for: "alice")  // another item: the type is part of its identity
            #expect(try form.string(for: "alice") == "form-secret")
            #expect(try basic.string(for: "alice") == "basic-secret")
            #expect(try keychain(.htmlForm, "Other").string(for: "alice") == nil)
            #expect(try anyType.allItems().count == 2)
            let item = try #require(try form.attributes(for: "alice"))
            #expect(item.server == server && item.protocol == .https && item.port == 8443 && item.path == "/login")
            #expect(item.authenticationType == .htmlForm && item.securityDomain == "Staff" && item.service == nil)

            // What the typed API stored is what SecItem code asks for with Apple's constants.
            func secItemSecret(_ account: String, _ type: CFString, _ domain: String) -> (OSStatus, String?) {
                KeychainBackendRegistry.withBackend(backend) {
                    var result: AnyObject?
                    let status = SecItemCopyMatching([kSecClass: kSecClassInternetPassword, kSecAttrServer: server,
                                                      kSecAttrAccount: account, kSecAttrAuthenticationType: type,
                                                      kSecAttrSecurityDomain: domain, kSecReturnData: true] as NSDictionary, &result)
                    return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
                }
            }
            #expect(secItemSecret("alice", kSecAttrAuthenticationTypeHTMLForm, "Staff") == (errSecSuccess, "form-secret"))
            #expect(secItemSecret("alice", kSecAttrAuthenticationTypeHTTPDigest, "Staff").0 == errSecItemNotFound)
            #expect(secItemSecret("alice", kSecAttrAuthenticationTypeHTMLForm, "Other").0 == errSecItemNotFound)
            let returned = KeychainBackendRegistry.withBackend(backend) {
                var result: AnyObject?
                _ = SecItemCopyMatching([kSecClass: kSecClassInternetPassword, kSecAttrServer: server, kSecAttrAccount: "alice",
                                         kSecAttrAuthenticationType: kSecAttrAuthenticationTypeHTMLForm,
                                         kSecReturnAttributes: true] as NSDictionary, &result)
                return result as? [String: Any]
            }
            #expect(returned?[kSecAttrAuthenticationType as String] as? String == kSecAttrAuthenticationTypeHTMLForm as String)
            #expect(returned?[kSecAttrSecurityDomain as String] as? String == "Staff")

            // And what SecItem code stored, the typed API finds by the same attributes.
            try RealStore.add([kSecClass: kSecClassInternetPassword, kSecAttrServer: server, kSecAttrAccount: "bob",
                               kSecAttrAuthenticationType: kSecAttrAuthenticationTypeDefault, kSecAttrSecurityDomain: "Realm",
                               kSecValueData: Data("apple".utf8)], in: backend)
            let realm = Keychain(server: server, authenticationType: .default, securityDomain: "Realm", backend: backend)
            #expect(try realm.string(for: "bob") == "apple")
            #expect(try Keychain(server: server, securityDomain: "Other", backend: backend).string(for: "bob") == nil)
            let bob = try #require(try anyType.attributes(for: "bob"))
            #expect(bob.authenticationType == .default && bob.securityDomain == "Realm" && bob.port == nil)
        }
    }
}

/// The built-in stores by name, for tests that run the same calls on each.
enum RealStore {
    /// The backend registered as `name`; the test is skipped with the reason when the store
    /// cannot run here, or fails when `KEYCHAIN_REQUIRE_ALL_BACKENDS=1` says every one must.
    static func named(_ name: String) throws -> any KeychainBackend {
        let backend = try KeychainBackendRegistry.withBuiltIns.backend(named: name)
        if case .unavailable(let reason) = backend.availability() {
            let text = "backend '\(name)' is unavailable here: \(reason.message)"
            if ProcessInfo.processInfo.environment["KEYCHAIN_REQUIRE_ALL_BACKENDS"] == "1" {
                throw KeychainError(errSecNotAvailable, text + " (KEYCHAIN_REQUIRE_ALL_BACKENDS=1)")
            }
            try Test.cancel(Comment(rawValue: text))
        }
        return backend
    }

    /// A service or server name no other test or earlier run uses.
    static func uniqueName(_ prefix: String) -> String {
        "typed-store.\(prefix).\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Runs `body` with the backend `store` and a fresh name for a service or server, then
    /// removes what the program stored under that name.
    static func run(_ store: String, _ prefix: String, _ body: (any KeychainBackend, String) throws -> Void) throws {
        let backend = try named(store)
        let name = uniqueName(prefix)
        defer { removeEverything(name, from: backend) }
        try body(backend, name)
    }

    /// Adds `item` through `SecItemAdd`, as Apple-style code writes it.
    static func add(_ item: [CFString: Any], in backend: any KeychainBackend) throws {
        let status = KeychainBackendRegistry.withBackend(backend) { SecItemAdd(item as NSDictionary, nil) }
        try #require(status == errSecSuccess)
    }

    /// The attributes of every item of this program for `service` and `account`, of either
    /// synchronizable flag, as the SecItem functions return them.
    static func attributes(of service: String, _ account: String, in backend: any KeychainBackend) -> [[String: Any]] {
        KeychainBackendRegistry.withBackend(backend) {
            var result: AnyObject?
            let status = SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                              kSecAttrAccount: account, kSecAttrSynchronizable: kSecAttrSynchronizableAny,
                                              kSecReturnAttributes: true, kSecMatchLimit: kSecMatchLimitAll] as NSDictionary,
                                             &result)
            return status == errSecSuccess ? (result as? [[String: Any]] ?? []) : []
        }
    }

    /// Deletes this program's items of `name` (a service or a server) in both classes, of
    /// either synchronizable flag, through the SecItem functions rather than the API under test.
    static func removeEverything(_ name: String, from backend: any KeychainBackend) {
        KeychainBackendRegistry.withBackend(backend) {
            _ = SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: name,
                               kSecAttrSynchronizable: kSecAttrSynchronizableAny] as NSDictionary)
            _ = SecItemDelete([kSecClass: kSecClassInternetPassword, kSecAttrServer: name,
                               kSecAttrSynchronizable: kSecAttrSynchronizableAny] as NSDictionary)
        }
    }
}
