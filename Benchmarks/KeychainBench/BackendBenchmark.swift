import Foundation
import LinuxKeychain

/// Measures operations on one backend through the front end, under a service name of its own
/// that it removes afterwards. The store can be grown between measurements, to show whether
/// cost grows with the number of items.
final class BackendBenchmark {
    let operations: KeychainOperations
    let iterations: Int
    /// Items this benchmark has in the store: the subject plus fillers.
    private(set) var items = 0

    private var backendName: String { operations.backend.name }
    private let service = "keychain-bench-\(ProcessInfo.processInfo.processIdentifier)"
    private let secret = SecretBytes(Data(repeating: 0x5A, count: 32))

    init(backend: any KeychainBackend, iterations: Int) throws {
        operations = KeychainOperations(backend: backend)
        self.iterations = iterations
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

    /// One result per operation named in `names` (get, set, add, delete);
    /// `baseline` supplies the raw call's figures for an operation, where there is one.
    func measure(_ names: [String], baseline: (String) throws -> (name: String, sample: LatencySample)?) throws -> [BenchmarkResult] {
        try names.map { name in
            BenchmarkResult(backend: backendName, operation: name, items: items, sample: try sample(name),
                            baseline: try baseline(name))
        }
    }

    private func sample(_ operation: String) throws -> LatencySample {
        switch operation {
        case "get":
            let subject = ItemQuery(primaryKey: key("subject"), includeSecrets: true)
            return try LatencySample.measure(iterations: iterations) { _ in _ = try operations.search(subject) }
        case "set":
            let subject = ItemQuery(primaryKey: key("subject"))
            return try LatencySample.measure(iterations: iterations) { _ in
                try operations.update(subject, with: ItemChanges(secret: secret))
            }
        case "add":
            // Each added item is removed before the next timed add, outside the timing.
            defer { _ = try? operations.delete(ItemQuery(primaryKey: key("added-\(iterations - 1)"))) }
            return try LatencySample.measure(iterations: iterations, prepare: { index in
                _ = try? operations.delete(ItemQuery(primaryKey: key("added-\(index - 1)")))
            }) { index in
                try operations.add(item("added-\(index)"))
            }
        case "delete":
            return try LatencySample.measure(iterations: iterations, prepare: { index in
                try operations.add(item("deleted-\(index)"))
            }) { index in
                try operations.delete(ItemQuery(primaryKey: key("deleted-\(index)")))
            }
        default:
            throw BaselineError(description: "unknown operation \(operation)")
        }
    }

    private func key(_ account: String) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword,
                   attributes: ItemAttributes([.service: .string(service), .account: .string(account)]))
    }

    private func item(_ account: String) -> KeychainItem {
        KeychainItem(itemClass: .genericPassword, attributes: key(account).attributes, secret: secret)
    }

    private func removeEverything() {
        _ = try? operations.backend.delete(ItemQuery(itemClass: .genericPassword,
                                                     constraints: ItemAttributes([.service: .string(service)])))
    }
}
