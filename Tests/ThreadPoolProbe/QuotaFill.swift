import Foundation
import KeychainConformance
import KeychainCore

/// How many items a user's quota holds while many threads of one process write: each thread
/// adds items of its own (32-byte secrets, short names) until the store refuses one with
/// `errSecDiskFull`; then every stored item is read back and deleted. Any other status, or a
/// read-back that differs, is a failure.
struct QuotaFill {
    let threads: Int

    struct Result: Codable {
        var stored: Int
        var failures: [String]
    }

    func run(on backend: any KeychainBackend, service: String) -> Result {
        let stored = Locked<[Int: Int]>([:])
        let failures = Locked<[String]>([])
        runThreadsAtOnce(threads) { thread in
            var count = 0
            while count < Self.mostPerThread {
                do {
                    try backend.add(genericItem(service, Self.account(thread, count), Self.secret(thread, count)))
                    count += 1
                } catch let error as KeychainError where error.status == errSecDiskFull {
                    break
                } catch {
                    failures.withLock { $0.append("thread \(thread) add \(count): \(error)") }
                    break
                }
            }
            stored.withLock { $0[thread] = count }
        }
        let counts = stored.withLock { $0 }
        for (thread, count) in counts.sorted(by: { $0.key < $1.key }) {
            for index in 0..<count {
                let query = exactQuery(service, Self.account(thread, index))
                do {
                    let found = try Self.retryingWhileFull { try backend.search(query) }
                    if found.count != 1 || found[0].secret?.makeData() != Self.secret(thread, index) {
                        failures.withLock { $0.append("thread \(thread) item \(index): read back wrong (\(found.count) items)") }
                    }
                    _ = try Self.retryingWhileFull { try backend.delete(exactQuery(service, Self.account(thread, index), secrets: false)) }
                } catch {
                    failures.withLock { $0.append("thread \(thread) item \(index) read or delete: \(error)") }
                }
            }
        }
        return Result(stored: counts.values.reduce(0, +), failures: failures.withLock { $0 })
    }

    /// Enough for a quota a few times the default, shared by 64 threads.
    static let mostPerThread = 20

    static func account(_ thread: Int, _ index: Int) -> String { "f\(thread)-\(index)" }

    static func secret(_ thread: Int, _ index: Int) -> Data { Data(String(format: "secret-%012d-%012d", thread, index).utf8) }

    /// Right after the quota filled, the kernel may refuse even a read until it has collected the keys let go.
    static func retryingWhileFull<Value>(_ body: () throws -> Value) throws -> Value {
        for _ in 0..<50 {
            do { return try body() } catch let error as KeychainError where error.status == errSecDiskFull { usleep(50_000) }
        }
        return try body()
    }
}
