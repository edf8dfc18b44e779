import Foundation
import KeychainCore
import KeychainEntryPoints
import LinuxKeychain

/// Measures operations on one backend through the SecItem front end (`SecItemCopyMatching`,
/// `SecItemUpdate`, `SecItemAdd`, `SecItemDelete`), as an application would call it, under a
/// service name of its own that it removes afterwards. The store can be grown between
/// measurements, to show whether cost grows with the number of items.
///
/// With `accessGroup`, every item it writes carries that access group and every query names
/// it, as a program's queries do once the front end scopes them to the program's own group.
final class BackendBenchmark {
    let operations: KeychainOperations
    let iterations: Int
    /// The name results carry: the backend's, or a variant of it (`keyring-persistent-grouped`).
    let label: String
    let accessGroup: String?
    /// Items this benchmark has in the store: the subject plus fillers.
    private(set) var items = 0

    private var backendName: String { label }
    private let service = "keychain-bench-\(ProcessInfo.processInfo.processIdentifier)"
    private let secret = SecretBytes(Data(repeating: 0x5A, count: 32))

    /// Makes `backend` the process-wide choice, which the SecItem functions then use.
    init(backend: any KeychainBackend, iterations: Int, label: String? = nil, accessGroup: String? = nil) throws {
        KeychainBackendRegistry.withBuiltIns.use(backend)
        operations = KeychainOperations(backend: backend)
        self.iterations = iterations
        self.label = label ?? backend.name
        self.accessGroup = accessGroup
        removeEverything()
        try operations.add(item("subject"))
        items = 1
    }

    deinit { removeEverything() }

    /// Adds filler items until the store holds `count` of ours.
    func grow(to count: Int) throws {
        while items < count {
            try operations.add(item("filler-\(items)"))
            items += 1
        }
    }

    /// One result per operation named in `names` (get, miss, set, add, delete). Where `raw`
    /// has a baseline for an operation, the two are measured in alternating turns
    /// (`LatencySample.interleaved`), so that the ratio between them survives the machine's
    /// slow spells.
    func measure(_ names: [String], against raw: (any RawBaseline)?) throws -> [BenchmarkResult] {
        try names.map { name in
            guard let raw, let rawName = raw.name(for: name) else {
                return BenchmarkResult(backend: backendName, operation: name, items: items,
                                       sample: try sample(name, iterations: iterations))
            }
            let (ours, theirs) = try LatencySample.interleaved(
                iterations: iterations, turns: Self.turns,
                ours: { try sample(name, iterations: $0) },
                raw: { turn in
                    guard let sample = try raw.sample(for: name, iterations: turn) else {
                        throw BaselineError(description: "the raw baseline of \(name) on \(backendName) measured nothing")
                    }
                    return sample
                })
            return BenchmarkResult(backend: backendName, operation: name, items: items, sample: ours,
                                   baseline: (rawName, theirs))
        }
    }

    /// Turns of ours and of the raw call per row: enough that a turn is shorter than the
    /// machine's slow spells, few enough that each turn's untimed warm-up calls stay cheap.
    private static let turns = 6

    /// `iterations` timed calls of `operation`. Makes this benchmark's backend the process-wide
    /// choice first, so that two benchmarks can be measured in alternating turns.
    func sample(_ operation: String, iterations: Int) throws -> LatencySample {
        KeychainBackendRegistry.withBuiltIns.use(operations.backend)
        let newSecret = Data(repeating: 0x5A, count: 32)
        switch operation {
        case "get":
            let query = secItemQuery("subject", [kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitOne])
            return try LatencySample.measure(iterations: iterations) { _ in
                var result: AnyObject?
                try check(SecItemCopyMatching(query as CFDictionary, &result), "SecItemCopyMatching")
            }
        case "get (backend, primary key)":
            // What the typed API sends: the whole primary key, straight to the backend, for the
            // secret alone.
            var query = ItemQuery(primaryKey: key("subject"), includeSecrets: true)
            query.includeAttributes = false
            return try LatencySample.measure(iterations: iterations) { _ in
                guard try operations.backend.search(query).count == 1 else {
                    throw BaselineError(description: "the subject is missing from \(backendName)")
                }
            }
        case "set (backend, primary key)":
            // What the typed API sends: the whole primary key, the new secret and the new
            // modification date that every update stamps (`KeychainOperations.update`).
            let query = ItemQuery(primaryKey: key("subject"))
            let secret = SecretBytes(newSecret)
            return try LatencySample.measure(iterations: iterations) { _ in
                let changes = ItemChanges(attributes: ItemAttributes([.modificationDate: .date(Date())]), secret: secret)
                _ = try operations.backend.update(query, with: changes)
            }
        case "miss":
            let query = secItemQuery("absent", [kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitOne])
            return try LatencySample.measure(iterations: iterations) { _ in
                var result: AnyObject?
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                guard status == errSecItemNotFound else {
                    throw BaselineError(description: "a lookup of a missing item on \(backendName) returned \(status)")
                }
            }
        case "set":
            let query = secItemQuery("subject")
            let changes = [kSecValueData as String: newSecret] as CFDictionary
            return try LatencySample.measure(iterations: iterations) { _ in
                try check(SecItemUpdate(query as CFDictionary, changes), "SecItemUpdate")
            }
        case "add":
            // Each added item, warm-up calls' included, is removed before the next timed add,
            // outside the timing, so the store keeps its size.
            var lastAdded: String?
            defer { if let lastAdded { SecItemDelete(secItemQuery(lastAdded) as CFDictionary) } }
            return try LatencySample.measure(iterations: iterations, prepare: { _ in
                if let lastAdded { SecItemDelete(secItemQuery(lastAdded) as CFDictionary) }
                lastAdded = nil
            }) { index in
                let account = "added-\(index)"
                try check(SecItemAdd(secItemQuery(account, [kSecValueData as String: newSecret]) as CFDictionary, nil), "SecItemAdd")
                lastAdded = account
            }
        case "delete":
            return try LatencySample.measure(iterations: iterations, prepare: { index in
                try operations.add(item("deleted-\(index)"))
            }) { index in
                try check(SecItemDelete(secItemQuery("deleted-\(index)") as CFDictionary), "SecItemDelete")
            }
        default:
            throw BaselineError(description: "unknown operation \(operation)")
        }
    }

    private func secItemQuery(_ account: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                    kSecAttrService as String: service, kSecAttrAccount as String: account]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        query.merge(extra) { _, new in new }
        return query
    }

    private func check(_ status: OSStatus, _ call: String) throws {
        guard status == errSecSuccess else {
            let detail = KeychainLastError.current?.description ?? keychainStatusMessage(status)
            throw BaselineError(description: "\(call) failed on \(backendName): \(detail)")
        }
    }

    private func key(_ account: String) -> PrimaryKey {
        var values: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
        // Without a group named, items are in the program's own group, as the front end stores them.
        values[.accessGroup] = .string(accessGroup ?? KeychainProgramIdentity.accessGroup)
        return PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(values))
    }

    private func item(_ account: String) -> KeychainItem {
        KeychainItem(itemClass: .genericPassword, attributes: key(account).attributes, secret: secret)
    }

    private func removeEverything() {
        _ = try? operations.backend.delete(ItemQuery(itemClass: .genericPassword,
                                                     constraints: ItemAttributes([.service: .string(service)])))
    }
}
