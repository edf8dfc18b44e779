import Foundation
import LinuxKeychain

/// Measures get, set, add and delete on one backend through the front end, with `items`
/// items in the store, under a service name of its own that it removes afterwards.
struct BackendBenchmark {
    let operations: KeychainOperations
    let iterations: Int
    /// Items in the store while measuring (filler items are added first).
    let items: Int

    private var backendName: String { operations.backend.name }
    private let service = "keychain-bench-\(ProcessInfo.processInfo.processIdentifier)"
    private let secret = SecretBytes(Data(repeating: 0x5A, count: 32))

    init(backend: any KeychainBackend, iterations: Int, items: Int) {
        operations = KeychainOperations(backend: backend)
        self.iterations = iterations
        self.items = items
    }

    /// One result per operation; `baseline` supplies the raw call's sample for an operation.
    func run(baseline: (String) throws -> (name: String, sample: LatencySample)?) throws -> [BenchmarkResult] {
        defer { removeEverything() }
        removeEverything()
        // The item under test plus fillers make `items` in the store.
        for index in 0..<max(items - 1, 0) { try operations.add(item("filler-\(index)")) }
        try operations.add(item("subject"))
        let subject = ItemQuery(primaryKey: key("subject"), includeSecrets: true)

        let get = try LatencySample.measure(iterations: iterations) { _ in
            _ = try operations.search(subject)
        }
        let set = try LatencySample.measure(iterations: iterations) { _ in
            try operations.update(ItemQuery(primaryKey: key("subject")), with: ItemChanges(secret: secret))
        }
        // add and delete keep the store at `items` + 1 at most.
        let add = try LatencySample.measure(iterations: iterations, prepare: { index in
            _ = try? operations.delete(ItemQuery(primaryKey: key("added-\(index - 1)")))
        }) { index in
            try operations.add(item("added-\(index)"))
        }
        _ = try? operations.delete(ItemQuery(primaryKey: key("added-\(iterations - 1)")))
        let delete = try LatencySample.measure(iterations: iterations, prepare: { index in
            try operations.add(item("deleted-\(index)"))
        }) { index in
            try operations.delete(ItemQuery(primaryKey: key("deleted-\(index)")))
        }
        return try [("get", get), ("set", set), ("add", add), ("delete", delete)].map { name, sample in
            BenchmarkResult(backend: backendName, operation: name, items: items, sample: sample, baseline: try baseline(name))
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
