import Foundation
import KeychainCore
import KeychainEntryPoints
import KeychainTestSupport
import LinuxKeychain
import Testing

/// Thousands of random dictionaries through all four SecItem functions, on every backend:
/// each call must return one of the statuses the front end documents, never trap, and a call
/// that fails must leave the stored items exactly as they were.
@Suite("SecItem fuzzing")
struct SecItemFuzzTests {
    init() { MemoryKeychain.activate() }

    static let documentedStatuses: Set<OSStatus> = [
        errSecSuccess, errSecParam, errSecItemNotFound, errSecDuplicateItem, errSecUnimplemented, errSecNoSuchAttr,
    ]

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomDictionariesNeverTrap(seed: UInt64) throws {
        let memory = try KeychainBackendRegistry.withBuiltIns.backend(named: MemoryBackend.backendName)
        try fuzz(memory, seed: seed, iterations: 1_000)
    }

    /// Fewer calls on the stores that cross a process boundary, each checked the same way.
    @Test(arguments: ["secret-service", "keyring", "file", "vault"])
    func randomDictionariesOnEveryBackendLeaveRefusedCallsWithoutEffect(_ name: String) throws {
        let backend = try KeychainBackendRegistry.withBuiltIns.backend(named: name)
        try requireAvailable(backend)
        try fuzz(backend, seed: 5, iterations: 150)
    }

    private func fuzz(_ backend: any KeychainBackend, seed: UInt64, iterations: Int) throws {
        let name = MemoryKeychain.uniqueName("fuzz")
        var generator = FuzzDictionaryGenerator(seed: seed, service: name)
        var seen: [OSStatus: Int] = [:]
        defer { _ = try? StoreSnapshot.removeAll(name, from: backend) }
        try KeychainOperations.using(backend) {
            var before = try StoreSnapshot(of: backend, name: name)
            for iteration in 0..<iterations {
                let query = generator.dictionary()
                var result: AnyObject?
                let calls: [(String, () -> OSStatus)] = [
                    ("SecItemAdd", { [addition = generator.dictionary(withSecret: true)] in SecItemAdd(addition, &result) }),
                    ("SecItemCopyMatching", { SecItemCopyMatching(query, &result) }),
                    ("SecItemUpdate", { [changes = generator.dictionary()] in SecItemUpdate(query, changes) }),
                    ("SecItemDelete", { SecItemDelete(query) }),
                ]
                for (function, call) in calls {
                    let status = call()
                    let message = KeychainLastError.current?.message ?? ""
                    #expect(Self.documentedStatuses.contains(status), "\(backend.name): \(function) gave undocumented status \(status): \(message)")
                    seen[status, default: 0] += 1
                    let after = try StoreSnapshot(of: backend, name: name)
                    if status != errSecSuccess {
                        #expect(after == before, "\(backend.name): iteration \(iteration), \(function) failed (\(status): \(message)) but changed the store")
                    }
                    before = after
                }
                generator.remember(result)
            }
        }
        // The generator must reach past the parser, or the fuzzing proves little.
        #expect(seen[errSecSuccess, default: 0] > 0)
        #expect(seen[errSecParam, default: 0] > 0)
        #expect(seen[errSecItemNotFound, default: 0] > 0)
    }
}

/// Every item the fuzzer can reach (its service's generic passwords and its server's internet
/// passwords), with all attributes and secrets, in a comparable form.
struct StoreSnapshot: Equatable {
    let items: [String]

    init(of backend: any KeychainBackend, name: String) throws {
        var items: [String] = []
        for query in Self.queries(name, secrets: true) {
            for item in try backend.search(query) {
                let fields = item.attributes.encodedFields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                items.append("\(item.itemClass.rawValue) \(fields) \(item.secret?.makeData().base64EncodedString() ?? "-")")
            }
        }
        self.items = items.sorted()
    }

    static func removeAll(_ name: String, from backend: any KeychainBackend) throws {
        for query in queries(name, secrets: false) { _ = try backend.delete(query) }
    }

    private static func queries(_ name: String, secrets: Bool) -> [ItemQuery] {
        [(ItemClass.genericPassword, AttributeKey.service), (.internetPassword, .server)].map { itemClass, key in
            ItemQuery(itemClass: itemClass, constraints: ItemAttributes([key: .string(name)]), limit: .all,
                      includeSecrets: secrets, matchesAnySynchronizable: true)
        }
    }
}

/// Random Apple dictionaries: known and unknown keys with values of every type a caller
/// might pass, reproducible from a seed.
///
/// Password-class dictionaries always name this test's own service or server, so that a
/// random delete cannot remove items that tests running alongside depend on.
struct FuzzDictionaryGenerator {
    private var random: SplitMix64
    private let service: String
    private var persistentReferences: [Data] = []
    private var references: [AnyObject] = []

    init(seed: UInt64, service: String) {
        self.random = SplitMix64(seed: seed)
        self.service = service
    }

    // kSecClass is left out: `dictionary()` sets it, so that it can confine what it deletes.
    private static let keys: [String] = ([
        kSecAttrAccessible, kSecAttrAccessControl, kSecAttrAccessGroup, kSecAttrSynchronizable,
        kSecAttrCreationDate, kSecAttrModificationDate, kSecAttrDescription, kSecAttrComment, kSecAttrCreator,
        kSecAttrType, kSecAttrLabel, kSecAttrIsInvisible, kSecAttrIsNegative, kSecAttrAccount, kSecAttrService,
        kSecAttrGeneric, kSecAttrSecurityDomain, kSecAttrServer, kSecAttrProtocol, kSecAttrAuthenticationType,
        kSecAttrPort, kSecAttrPath, kSecAttrSyncViewHint, kSecAttrPersistentReference, kSecAttrAccess, kSecAttrSubject,
        kSecAttrTokenID, kSecMatchLimit, kSecMatchCaseInsensitive, kSecMatchItemList, kSecMatchPolicy,
        kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef, kSecValueData, kSecValueRef,
        kSecValuePersistentRef, kSecUseDataProtectionKeychain, kSecUseAuthenticationUI, kSecUseOperationPrompt,
        kSecUseAuthenticationContext, "bogus", "", "m_Unknown",
    ] as [CFString]).map { $0 as String }

    private static let strings: [String] = [
        "", "a", "b", "fuzz", "ünïcødé", "a:b/c@d%e", "genp", "inet", "cert", "keys",
        kSecAttrAccessibleWhenUnlocked as String, kSecAttrAccessibleAlways as String, kSecAttrSynchronizableAny as String,
        kSecMatchLimitOne as String, kSecMatchLimitAll as String, kSecAttrProtocolHTTPS as String,
        kSecUseAuthenticationUIFail as String,
    ]

    /// `withSecret` usually adds a valid `kSecValueData`, so that random adds get past the
    /// parser often enough to give the searches something to find.
    mutating func dictionary(withSecret: Bool = false) -> CFDictionary {
        let dictionary = NSMutableDictionary()
        // Password classes are the likeliest, so that most dictionaries reach the backend.
        let classes: [Any?] = [nil, kSecClassGenericPassword, kSecClassGenericPassword, kSecClassGenericPassword as String,
                               kSecClassInternetPassword, kSecClassInternetPassword, kSecClassCertificate, "bogus", 5, Data("genp".utf8)]
        let itemClass = pick(classes)
        if let itemClass { dictionary[kSecClass] = itemClass }
        if withSecret && random.below(4) != 0 { dictionary[kSecValueData] = Data("secret".utf8) }
        for _ in 0..<random.below(5) {
            let name = pick(Self.keys)
            // Keys arrive as Swift strings or as NSString, as callers build them either way.
            let key: AnyHashable = random.below(2) == 0 ? AnyHashable(name) : AnyHashable(NSString(string: name))
            dictionary[key] = value(depth: 0)
        }
        if random.below(20) == 0 { dictionary[NSNumber(value: 1)] = "a non-string key" }
        // Confine password dictionaries to this test's items, whatever else they hold.
        if let name = itemClass as? String {
            if name == kSecClassGenericPassword as String { dictionary[kSecAttrService] = service }
            if name == kSecClassInternetPassword as String { dictionary[kSecAttrServer] = service }
        }
        return dictionary
    }

    /// Keeps references from results, so later dictionaries can use real ones.
    mutating func remember(_ result: AnyObject?) {
        if let data = result as? Data, persistentReferences.count < 50 { persistentReferences.append(data) }
        if let result, result is SecKeychainItem, references.count < 50 { references.append(result) }
    }

    private mutating func value(depth: Int) -> Any {
        switch random.below(depth > 1 ? 14 : 16) {
        case 0: return pick(Self.strings)
        case 1: return NSString(string: pick(Self.strings))
        case 2: return Data((0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 3: return Int(truncatingIfNeeded: random.next() >> random.below(64))
        case 4: return NSNumber(value: [0, 1, -1, 443, Int64.max, Int64.min][random.below(6)])
        case 5: return NSNumber(value: Double(random.next() % 1000) / 7)
        case 6: return random.below(2) == 0
        case 7: return Date(timeIntervalSince1970: Double(random.next() % 4_000_000_000))
        case 8: return NSNull()
        case 9: return accessControl()
        case 10: return persistentReferences.isEmpty ? Data("genp".utf8) : pick(persistentReferences)
        case 11: return references.isEmpty ? NSObject() : pick(references)
        case 12: return UInt64.max
        case 13: return kCFBooleanTrue!
        case 14: return (0..<random.below(4)).map { _ in value(depth: depth + 1) }
        default:
            let nested = NSMutableDictionary()
            for _ in 0..<random.below(4) { nested[pick(Self.keys)] = value(depth: depth + 1) }
            return nested
        }
    }

    private mutating func accessControl() -> Any {
        let flags: [SecAccessControlCreateFlags] = [[], .userPresence, .biometryAny, .devicePasscode, [.or, .watch]]
        let protection = [kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly][random.below(2)]
        return SecAccessControlCreateWithFlags(nil, protection, pick(flags), nil) ?? NSNull()
    }

    private mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[random.below(elements.count)]
    }
}

/// A small, seedable random generator (SplitMix64), so a failing run can be replayed.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(max(bound, 1)))
    }
}
