import Foundation
import KeychainCore
import LinuxKeychain
import Testing

/// Apple's result shapes, limits, references, synchronizable handling, access control and
/// error statuses, checked one rule at a time.
@Suite("SecItem semantics")
struct SecItemSemanticsTests {
    let service = MemoryKeychain.uniqueName("semantics")

    init() { MemoryKeychain.activate() }

    private func base(_ account: String? = nil) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let account { query[kSecAttrAccount as String] = account }
        return query
    }

    private func add(_ account: String, _ secret: String, extra: [String: Any] = [:]) -> OSStatus {
        var item = base(account).merging(extra) { _, new in new }
        item[kSecValueData as String] = Data(secret.utf8)
        return SecItemAdd(item as CFDictionary, nil)
    }

    private func copy(_ query: [String: Any]) -> (status: OSStatus, result: AnyObject?) {
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    private func with(_ query: [String: Any], _ extra: [String: Any]) -> [String: Any] {
        query.merging(extra) { _, new in new }
    }

    // MARK: Result shapes

    @Test func resultShapeFollowsReturnKeysAndLimit() throws {
        for (account, secret) in [("a", "1"), ("b", "2"), ("c", "3")] { #expect(add(account, secret) == errSecSuccess) }

        let dataOnly = copy(with(base("b"), [kSecReturnData as String: true]))
        #expect(dataOnly.status == errSecSuccess)
        #expect(dataOnly.result as? Data == Data("2".utf8))

        let statusOnly = copy(base("b"))
        #expect(statusOnly.status == errSecSuccess)
        #expect(statusOnly.result == nil)

        // kSecMatchLimitOne is the default: one dictionary, not an array, although three match.
        let one = copy(with(base(), [kSecReturnAttributes as String: true]))
        #expect(one.result is NSDictionary)
        #expect(one.result is NSArray == false)

        let both = try #require(copy(with(base("c"), [kSecReturnAttributes as String: true,
                                                       kSecReturnData as String: true])).result as? [String: Any])
        #expect(both[kSecValueData as String] as? Data == Data("3".utf8))
        #expect(both[kSecAttrAccount as String] as? String == "c")

        let all = copy(with(base(), [kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll]))
        let secrets = try #require(all.result as? [Data])
        #expect(Set(secrets) == [Data("1".utf8), Data("2".utf8), Data("3".utf8)])

        let two = copy(with(base(), [kSecReturnAttributes as String: true, kSecMatchLimit as String: 2]))
        #expect((two.result as? [[String: Any]])?.count == 2)

        // An array even when one item matches, as long as the limit is not one.
        let single = copy(with(base("a"), [kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]))
        #expect((single.result as? [[String: Any]])?.count == 1)

        let numericOne = copy(with(base(), [kSecReturnData as String: true, kSecMatchLimit as String: NSNumber(value: 1)]))
        #expect(numericOne.result is Data)
    }

    @Test func referencesFindTheirItem() throws {
        #expect(add("ref", "by-ref") == errSecSuccess)
        let reference = try #require(copy(with(base("ref"), [kSecReturnRef as String: true])).result as? SecKeychainItem)
        let viaReference = copy([kSecValueRef as String: reference, kSecReturnData as String: true])
        #expect(viaReference.result as? Data == Data("by-ref".utf8))

        let combined = try #require(copy(with(base("ref"), [kSecReturnRef as String: true,
                                                            kSecReturnPersistentRef as String: true])).result as? [String: Any])
        #expect(combined[kSecValueRef as String] as? SecKeychainItem == reference)
        let persistent = try #require(combined[kSecValuePersistentRef as String] as? Data)

        // A reference and an attribute that disagree match nothing.
        let contradiction = copy([kSecValuePersistentRef as String: persistent, kSecAttrAccount as String: "other",
                                  kSecClass as String: kSecClassGenericPassword])
        #expect(contradiction.status == errSecItemNotFound)

        #expect(SecItemDelete([kSecValueRef: reference] as NSDictionary) == errSecSuccess)
        #expect(copy(base("ref")).status == errSecItemNotFound)
        #expect(copy([kSecValuePersistentRef as String: Data("garbage".utf8)]).status == errSecParam)
    }

    @Test func addReturnsTheAddedItem() throws {
        var item = base("new")
        item[kSecValueData as String] = Data("fresh".utf8)
        item[kSecReturnAttributes as String] = true
        var result: AnyObject?
        #expect(SecItemAdd(item as CFDictionary, &result) == errSecSuccess)
        let attributes = try #require(result as? [String: Any])
        #expect(attributes[kSecAttrAccount as String] as? String == "new")
        #expect(attributes[kSecAttrCreationDate as String] is Date)

        var again = base("new2")
        again[kSecValueData as String] = Data("fresh2".utf8)
        again[kSecReturnData as String] = true
        #expect(SecItemAdd(again as CFDictionary, &result) == errSecSuccess)
        #expect(result as? Data == Data("fresh2".utf8))

        // A failed call leaves no stale result behind.
        #expect(SecItemAdd(again as CFDictionary, &result) == errSecDuplicateItem)
        #expect(result == nil)
    }

    // MARK: Update and delete

    @Test func updateRules() {
        #expect(add("x", "1") == errSecSuccess)
        #expect(add("y", "2") == errSecSuccess)
        // Renaming onto an existing item collides and changes nothing.
        #expect(SecItemUpdate(base("x") as CFDictionary, [kSecAttrAccount as String: "y"] as CFDictionary) == errSecDuplicateItem)
        #expect(copy(with(base("x"), [kSecReturnData as String: true])).result as? Data == Data("1".utf8))
        #expect(SecItemUpdate(base("missing") as CFDictionary, [kSecValueData as String: Data()] as CFDictionary) == errSecItemNotFound)
        // A rename to a free name works.
        #expect(SecItemUpdate(base("x") as CFDictionary, [kSecAttrAccount as String: "z"] as CFDictionary) == errSecSuccess)
        #expect(copy(base("z")).status == errSecSuccess)
        #expect(copy(base("x")).status == errSecItemNotFound)
        // Match keys belong in the query, not the changes.
        #expect(SecItemUpdate(base("z") as CFDictionary, [kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary) == errSecParam)
        #expect(SecItemDelete(base("nothing") as CFDictionary) == errSecItemNotFound)
    }

    // MARK: Attributes

    @Test func attributesRoundTripWithTheirTypes() throws {
        let creator: UInt32 = 0x4142_4344 // 'ABCD'
        let extra: [String: Any] = [
            kSecAttrGeneric as String: Data([0, 1, 255]),
            kSecAttrCreator as String: NSNumber(value: creator),
            kSecAttrType as String: Int(0x5859_5a21),
            kSecAttrDescription as String: "description",
            kSecAttrComment as String: NSString(string: "comment"),
            kSecAttrIsInvisible as String: true,
            kSecAttrIsNegative as String: kCFBooleanFalse!,
            kSecAttrAccessGroup as String: "group.example",
            kSecUseDataProtectionKeychain as String: true,
            kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            kSecUseOperationPrompt as String: "Unlock",
        ]
        #expect(add("typed", "v", extra: extra) == errSecSuccess)
        let attributes = try #require(copy(with(base("typed"), [kSecReturnAttributes as String: true,
                                                                 kSecAttrAccessGroup as String: "group.example"])).result as? [String: Any])
        #expect(attributes[kSecAttrGeneric as String] as? Data == Data([0, 1, 255]))
        #expect((attributes[kSecAttrCreator as String] as? NSNumber)?.uint32Value == creator)
        #expect(attributes[kSecAttrType as String] as? Int == 0x5859_5a21)
        #expect(attributes[kSecAttrDescription as String] as? String == "description")
        #expect(attributes[kSecAttrComment as String] as? String == "comment")
        #expect(attributes[kSecAttrIsInvisible as String] as? Bool == true)
        #expect(attributes[kSecAttrIsNegative as String] as? Bool == false)
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
        // A query without an access group searches the program's own group and the shared
        // items (AccessScope.program), so an item put in another group is found by naming
        // that group, and one naming yet another group does not find it.
        #expect(copy(base("typed")).status == errSecItemNotFound)
        #expect(copy(with(base("typed"), [kSecAttrAccessGroup as String: "group.other"])).status == errSecItemNotFound)
        // Attributes also narrow searches.
        #expect(copy(with(base(), [kSecAttrCreator as String: Int(creator), kSecAttrAccessGroup as String: "group.example"])).status == errSecSuccess)
        #expect(copy(with(base(), [kSecAttrCreator as String: 1, kSecAttrAccessGroup as String: "group.example"])).status == errSecItemNotFound)
    }

    @Test func synchronizableItemsNeedAskingFor() {
        #expect(add("synced", "s", extra: [kSecAttrSynchronizable as String: true]) == errSecSuccess)
        #expect(copy(base("synced")).status == errSecItemNotFound)
        #expect(copy(with(base("synced"), [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])).status == errSecSuccess)
        #expect(copy(with(base("synced"), [kSecAttrSynchronizable as String: kCFBooleanTrue as Any])).status == errSecSuccess)
        #expect(add("any", "s", extra: [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) == errSecParam)
        #expect(SecItemDelete(with(base("synced"), [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) as CFDictionary) == errSecSuccess)
    }

    // MARK: Access control

    @Test(arguments: [SecAccessControlCreateFlags.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode,
                      .applicationPassword, .privateKeyUsage, [.biometryAny, .or, .devicePasscode]])
    func accessControlThatLinuxCannotEnforceIsRefused(_ flags: SecAccessControlCreateFlags) throws {
        var error: Unmanaged<CFError>?
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                                  flags, &error))
        let account = "protected-\(flags.rawValue)"
        #expect(add(account, "guarded", extra: [kSecAttrAccessControl as String: access]) == errSecUnimplemented)
        #expect(KeychainLastError.current?.message.contains("Linux cannot enforce") == true)
        #expect(copy(base(account)).status == errSecItemNotFound, "the item must not be stored without its protection")
        // No stored item carries such access control, so searching for one finds nothing.
        #expect(copy(with(base(account), [kSecAttrAccessControl as String: access])).status == errSecItemNotFound)
        #expect(SecItemUpdate(base() as CFDictionary, [kSecAttrAccessControl as String: access] as CFDictionary) == errSecUnimplemented)
    }

    @Test func accessControlWithOnlyAProtectionClassIsAccessibility() throws {
        let access = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, [], nil))
        #expect(add("plain", "p", extra: [kSecAttrAccessControl as String: access]) == errSecSuccess)
        let attributes = copy(with(base("plain"), [kSecReturnAttributes as String: true])).result as? [String: Any]
        #expect(attributes?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
        #expect(add("clash", "p", extra: [kSecAttrAccessControl as String: access,
                                          kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]) == errSecParam)
    }

    @Test func accessControlNeedsAnAccessibilityClass() throws {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, "nonsense" as CFString, .userPresence, &error) == nil)
        let failure = try #require(error?.takeRetainedValue())
        #expect(failure.code == Int(errSecParam))
        let asError: any Error = failure as any Error
        #expect(asError.localizedDescription.contains("kSecAttrAccessible"))
    }

    // MARK: Threads

    @Test func concurrentCallersGetOneWinnerAndConsistentReads() {
        let account = "contended"
        let outcomes = OutcomeCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            outcomes.record(add(account, "writer-\(index)"))
            let own = "own-\(index)"
            _ = add(own, own)
            let read = copy(with(base(own), [kSecReturnData as String: true]))
            outcomes.recordRead(read.result as? Data == Data(own.utf8))
        }
        #expect(outcomes.statuses[errSecSuccess] == 1, "exactly one racing add wins")
        #expect(outcomes.statuses[errSecDuplicateItem] == 7)
        #expect(outcomes.readsMatching == 8)
    }

    // MARK: Errors

    @Test func wrongShapesGetApplesStatuses() {
        let data = Data("d".utf8)
        let cases: [(name: String, status: OSStatus, call: () -> OSStatus)] = [
            ("no class", errSecParam, { SecItemAdd([kSecAttrAccount: "a", kSecValueData: data] as NSDictionary, nil) }),
            ("class not a string", errSecParam, { SecItemDelete([kSecClass: 5] as NSDictionary) }),
            ("unknown class", errSecParam, { SecItemDelete([kSecClass: "bogus"] as NSDictionary) }),
            ("identity update", errSecUnimplemented, { SecItemUpdate([kSecClass: kSecClassIdentity] as NSDictionary, [kSecAttrLabel: "l"] as NSDictionary) }),
            ("certificate attribute on a password", errSecNoSuchAttr, { self.copy(self.with(self.base(), [kSecAttrIssuer as String: Data([1])])).status }),
            ("no data", errSecParam, { SecItemAdd(self.base("nodata") as CFDictionary, nil) }),
            ("data as text", errSecParam, { SecItemAdd(self.with(self.base("t"), [kSecValueData as String: "text"]) as CFDictionary, nil) }),
            ("account as number", errSecParam, { self.copy(self.with(self.base(), [kSecAttrAccount as String: 7])).status }),
            ("port as text", errSecParam, { SecItemDelete([kSecClass: kSecClassInternetPassword, kSecAttrPort: "443"] as NSDictionary) }),
            ("unknown accessibility", errSecParam, { self.add("acc", "v", extra: [kSecAttrAccessible as String: "zz"]) }),
            ("limit zero", errSecParam, { self.copy(self.with(self.base(), [kSecMatchLimit as String: 0])).status }),
            ("limit word", errSecParam, { self.copy(self.with(self.base(), [kSecMatchLimit as String: "many"])).status }),
            ("return flag as text", errSecParam, { self.copy(self.with(self.base(), [kSecReturnData as String: "yes"])).status }),
            ("NSNull value", errSecParam, { self.copy(self.with(self.base(), [kSecAttrLabel as String: NSNull()])).status }),
            ("non-string key", errSecParam, { SecItemDelete([5: "x", kSecClass: kSecClassGenericPassword] as NSDictionary) }),
            ("unknown key", errSecNoSuchAttr, { self.copy(self.with(self.base(), ["bogus": 1])).status }),
            ("server on a generic password", errSecNoSuchAttr, { self.copy(self.with(self.base(), [kSecAttrServer as String: "h"])).status }),
            ("service on an internet password", errSecNoSuchAttr, {
                SecItemDelete([kSecClass: kSecClassInternetPassword, kSecAttrService: "s"] as NSDictionary) }),
            ("token ID", errSecUnimplemented, { self.add("tk", "v", extra: [kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]) }),
            ("class change in update", errSecParam, {
                SecItemUpdate(self.base() as CFDictionary, [kSecClass: kSecClassInternetPassword] as NSDictionary) }),
        ]
        for testCase in cases {
            let status = testCase.call()
            #expect(status == testCase.status, "\(testCase.name)")
            let recorded = KeychainLastError.current
            #expect(recorded?.status == testCase.status, "\(testCase.name): the last error is recorded")
            #expect(recorded?.message.isEmpty == false, "\(testCase.name): with a message")
        }
    }

    @Test func messagesNameTheProblemButNeverTheSecret() {
        let secret = "correct horse battery staple"
        #expect(SecItemAdd(with(base("m"), [kSecValueData as String: secret]) as CFDictionary, nil) == errSecParam)
        let message = KeychainLastError.current?.description ?? ""
        #expect(message.contains("kSecValueData"))
        #expect(!message.contains(secret))
        #expect(add("m", secret) == errSecSuccess)
        #expect(KeychainLastError.current == nil)
    }

    @Test func errorMessagesForEveryStatus() {
        #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) as String? == keychainStatusMessage(errSecItemNotFound))
        #expect((SecCopyErrorMessageString(-12345, nil) as String?)?.contains("-12345") == true)
    }
}

/// Counts outcomes reported from many threads.
private final class OutcomeCounter: Sendable {
    private struct Counts {
        var statuses: [OSStatus: Int] = [:]
        var readsMatching = 0
    }

    private let counts = Locked(Counts())

    var statuses: [OSStatus: Int] { counts.withLock { $0.statuses } }
    var readsMatching: Int { counts.withLock { $0.readsMatching } }

    func record(_ status: OSStatus) { counts.withLock { $0.statuses[status, default: 0] += 1 } }
    func recordRead(_ matched: Bool) { counts.withLock { if matched { $0.readsMatching += 1 } } }
}
