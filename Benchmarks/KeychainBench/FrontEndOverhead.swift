import Foundation
import LinuxKeychain

/// What the front end adds over calling a backend directly: a get through the front end
/// against `backend.search` on the `memory` backend, where the store itself costs least.
enum FrontEndOverhead {
    static func measure(iterations: Int) throws -> BenchmarkResult {
        let backend = MemoryBackend()
        let operations = KeychainOperations(backend: backend)
        let attributes = ItemAttributes([.service: .string("keychain-bench-overhead"), .account: .string("subject")])
        try operations.add(KeychainItem(itemClass: .genericPassword, attributes: attributes,
                                        secret: SecretBytes(Data(repeating: 1, count: 32))))
        let query = ItemQuery(primaryKey: PrimaryKey(itemClass: .genericPassword, attributes: attributes), includeSecrets: true)
        let direct = try LatencySample.measure(iterations: iterations * 10) { _ in _ = try backend.search(query) }
        let throughFrontEnd = try LatencySample.measure(iterations: iterations * 10) { _ in _ = try operations.search(query) }
        return BenchmarkResult(backend: "memory", operation: "get (front end vs direct backend call)", items: 1,
                               sample: throughFrontEnd, baseline: ("backend.search", direct))
    }
}
