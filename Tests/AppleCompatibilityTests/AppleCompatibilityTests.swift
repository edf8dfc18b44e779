// Only Apple's names are imported here (plus Testing): `Keychain`, `KeychainError` and
// `ItemClass` are this target's own, from AppsOwnKeychain.swift.
import Foundation
import LinuxKeychain
import Testing

@Suite("Apple-style code on every backend")
struct AppleCompatibilityTests {
    @Test(arguments: EveryBackend.names)
    func wrapperStoresReadsAndRemovesWithDataAccounts(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let keychain = Keychain(service: EveryBackend.uniqueName("wrapper"))
            defer { keychain.removeAll() }
            #expect(keychain.set(Data("one".utf8), forKey: "alpha"))
            #expect(try keychain.string(forKey: "alpha") == "one")
            #expect(keychain.set(Data("two".utf8), forKey: "alpha"), "setting an existing key updates it")
            #expect(try keychain.string(forKey: "alpha") == "two")
            #expect(keychain.remove(forKey: "alpha"))
            #expect(throws: KeychainError.noPassword) { try keychain.string(forKey: "alpha") }
            #expect(!keychain.remove(forKey: "alpha"), "removing a missing key is not noErr")
        }
    }

    @Test(arguments: EveryBackend.names)
    func allKeysComeBackInInsertionOrder(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let keychain = Keychain(service: EveryBackend.uniqueName("order"))
            defer { keychain.removeAll() }
            let keys = ["zulu", "alpha", "mike", "bravo"]
            for key in keys { #expect(keychain.set(Data(key.utf8), forKey: key)) }
            #expect(try keychain.allKeys() == keys)
            // An update keeps each item's place.
            #expect(keychain.set(Data("changed".utf8), forKey: "zulu"))
            #expect(try keychain.allKeys() == keys)
        }
    }

    @Test(arguments: EveryBackend.names)
    func dataAccountComesBackAsDataAndIsTheSameItemAsItsText(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let service = EveryBackend.uniqueName("data-account")
            defer { SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary) }
            let add: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                kSecAttrAccount: Data("bob".utf8), kSecValueData: Data("pw".utf8),
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == noErr)

            // Valet's migration test expects the account back as Data, not as a String.
            var result: CFTypeRef?
            let byText: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "bob",
                kSecReturnAttributes: true, kSecReturnData: true,
            ]
            #expect(SecItemCopyMatching(byText as CFDictionary, &result) == noErr, "a String account finds the Data one")
            let found = result as? [String: Any]
            #expect(found?[kSecAttrAccount as String] as? Data == Data("bob".utf8))
            #expect(found?[kSecAttrAccount as String] as? String == nil)
            #expect(found?[kSecAttrService as String] as? String == service)
            #expect(found?[kSecValueData as String] as? Data == Data("pw".utf8))
            #expect(found?.keys.allSatisfy { $0.hasPrefix("lk-") == false } == true, "no library bookkeeping among Apple's keys")
            var bookkeeping = add
            bookkeeping["lk-value-types" as CFString] = "acct"
            #expect(SecItemAdd(bookkeeping as CFDictionary, nil) == errSecNoSuchAttr, "the bookkeeping is not a caller's key")

            var asText = add
            asText[kSecAttrAccount] = "bob"
            #expect(SecItemAdd(asText as CFDictionary, nil) == errSecDuplicateItem, "the same bytes as a String name the same item")

            // An update of another attribute leaves the account's type alone.
            let byData: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                           kSecAttrAccount: Data("bob".utf8)]
            #expect(SecItemUpdate(byData as CFDictionary, [kSecAttrLabel: "renamed"] as CFDictionary) == noErr)
            var relabelled: CFTypeRef?
            #expect(SecItemCopyMatching(byText as CFDictionary, &relabelled) == noErr)
            #expect((relabelled as? [String: Any])?[kSecAttrAccount as String] as? Data == Data("bob".utf8))
            #expect((relabelled as? [String: Any])?[kSecAttrLabel as String] as? String == "renamed")

            // Updated to a String, the account comes back as a String.
            let update: [CFString: Any] = [kSecAttrAccount: "carol"]
            #expect(SecItemUpdate(byData as CFDictionary, update as CFDictionary) == noErr)
            var updated: CFTypeRef?
            let byService: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                              kSecReturnAttributes: true]
            #expect(SecItemCopyMatching(byService as CFDictionary, &updated) == noErr)
            #expect((updated as? [String: Any])?[kSecAttrAccount as String] as? String == "carol")
        }
    }

    /// Bytes that are not UTF-8, and UTF-8 with a NUL (which the Secret Service would cut at
    /// the NUL), come back exactly and name an item of their own, apart from a shorter account.
    @Test(arguments: EveryBackend.names)
    func accountBytesThatAreNotPlainTextRoundTrip(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            for (account, shorter) in [(Data([0xFF, 0x00, 0xFE, 0x80]), Data([0xFF, 0x00])), (Data("a\u{0}b".utf8), Data("a".utf8))] {
                let service = EveryBackend.uniqueName("binary-account")
                defer { SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary) }
                let add: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                            kSecAttrAccount: account, kSecValueData: Data("pw".utf8)]
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                var result: CFTypeRef?
                let find: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                             kSecAttrAccount: account, kSecReturnAttributes: true]
                #expect(SecItemCopyMatching(find as CFDictionary, &result) == errSecSuccess)
                #expect((result as? [String: Any])?[kSecAttrAccount as String] as? Data == account)
                let other: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service,
                                              kSecAttrAccount: shorter]
                #expect(SecItemCopyMatching(other as CFDictionary, nil) == errSecItemNotFound)
                var addShorter = add
                addShorter[kSecAttrAccount] = shorter
                #expect(SecItemAdd(addShorter as CFDictionary, nil) == errSecSuccess, "a shorter account collided")
            }
        }
    }

    @Test(arguments: EveryBackend.names)
    func internetPasswordsWithOptionalAttributesUnsetAreDuplicates(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let server = EveryBackend.uniqueName("server") + ".example"
            defer { SecItemDelete([kSecClass: kSecClassInternetPassword, kSecAttrServer: server] as CFDictionary) }
            let minimal: [CFString: Any] = [kSecClass: ItemClass.internetPassword.secClass, kSecAttrServer: server,
                                            kSecAttrAccount: "alice", kSecValueData: Data("first".utf8)]
            #expect(SecItemAdd(minimal as CFDictionary, nil) == noErr)
            var again = minimal
            again[kSecValueData] = Data("second".utf8)
            #expect(SecItemAdd(again as CFDictionary, nil) == errSecDuplicateItem)

            var withPort = minimal
            withPort[kSecAttrPort] = 8443
            #expect(SecItemAdd(withPort as CFDictionary, nil) == noErr, "another port is another item")

            var result: CFTypeRef?
            let all: [CFString: Any] = [kSecClass: kSecClassInternetPassword, kSecAttrServer: server,
                                        kSecAttrAccount: "alice", kSecMatchLimit: kSecMatchLimitAll,
                                        kSecReturnAttributes: true]
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == noErr)
            let ports = (result as? [[String: Any]])?.map { ($0[kSecAttrPort as String] as? NSNumber)?.intValue }
            #expect(ports == [0, 8443], "both items, in the order they were added")

            let generic: [CFString: Any] = [kSecClass: ItemClass.genericPassword.secClass,
                                            kSecAttrService: server, kSecValueData: Data("x".utf8)]
            defer { SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: server] as CFDictionary) }
            #expect(SecItemAdd(generic as CFDictionary, nil) == noErr)
            #expect(SecItemAdd(generic as CFDictionary, nil) == errSecDuplicateItem, "a generic password without an account too")
        }
    }

    @Test(arguments: EveryBackend.names)
    func anItemReportsTheAccessGroupItWasAddedTo(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let group = EveryBackend.uniqueName("group")
            let keychain = Keychain(service: EveryBackend.uniqueName("grouped"), accessGroup: group)
            defer { keychain.removeAll() }
            #expect(keychain.set(Data("v".utf8), forKey: "k"))
            var result: CFTypeRef?
            // A group the program names is searched when the query names it, as with a shared
            // group on Apple platforms; a query without a group sees the program's own group.
            let find: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: keychain.service,
                                         kSecAttrAccessGroup: group, kSecReturnAttributes: true]
            #expect(SecItemCopyMatching(find as CFDictionary, &result) == noErr)
            #expect((result as? [String: Any])?[kSecAttrAccessGroup as String] as? String == group)

            let ownService = EveryBackend.uniqueName("own-group")
            let own: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: ownService,
                                        kSecAttrAccount: "k", kSecValueData: Data("v".utf8)]
            defer { SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: ownService] as CFDictionary) }
            #expect(SecItemAdd(own as CFDictionary, nil) == noErr)
            let findOwn: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: ownService,
                                            kSecReturnAttributes: true]
            #expect(SecItemCopyMatching(findOwn as CFDictionary, &result) == noErr)
            let reported = (result as? [String: Any])?[kSecAttrAccessGroup as String] as? String
            // The documented default identity: KEYCHAIN_ACCESS_GROUP, else the executable's file name.
            let programGroup = ProcessInfo.processInfo.environment["KEYCHAIN_ACCESS_GROUP"]
                ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().lastPathComponent
            #expect(reported == programGroup, "an item added without a group is in the program's group")
            #expect(reported?.isEmpty == false)
        }
    }
}

@Suite("Apple's names")
struct AppleNamesTests {
    @Test func randomBytesComeFromTheSystemGenerator() throws {
        let first = try Keychain.randomKey(count: 32)
        let second = try Keychain.randomKey(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
        var none = [UInt8]()
        #expect(SecRandomCopyBytes(kSecRandomDefault, 0, &none) == errSecSuccess)
    }

    @Test func constantsHaveApplesValues() {
        #expect(noErr == errSecSuccess)
        #expect(kCFBundleIdentifierKey as String == "CFBundleIdentifier")
        #expect(kCFBundleNameKey as String == "CFBundleName")
        #expect(errSecInvalidValue == -67694)
        #expect(errSecItemClassMissing == -34003)
        #expect(errSecTimestampRevocationNotification == -67898)
        #expect(!Keychain.defaultService.isEmpty)
    }

    @Test func ownErrorAndClassTypesAreTheOnesInScope() {
        // Resolves to this target's types: with the library's re-exported, these would be ambiguous.
        let error: any Error = KeychainError.unhandledError(status: errSecParam)
        #expect(error as? KeychainError == .unhandledError(status: -50))
        #expect(ItemClass.genericPassword.secClass as String == "genp")
    }
}
