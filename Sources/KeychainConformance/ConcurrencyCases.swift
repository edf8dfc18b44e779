import Foundation
import KeychainCore

func survivesManyThreads(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    let threads = 8
    let failures = FailureList()

    // Each thread works on its own items: add, read, update, read, delete.
    DispatchQueue.concurrentPerform(iterations: threads) { index in
        do {
            let account = "thread\(index)"
            try backend.add(genericItem(service, account, Data("v1-\(index)".utf8)))
            try expectSecret(backend, service, account, Data("v1-\(index)".utf8))
            _ = try backend.update(exactQuery(service, account, secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data("v2-\(index)".utf8))))
            try expectSecret(backend, service, account, Data("v2-\(index)".utf8))
            try backend.add(genericItem(service, "kept\(index)", Data("k\(index)".utf8)))
            let deleted = try backend.delete(exactQuery(service, account, secrets: false))
            try expect(deleted == 1, "thread \(index) deleted \(deleted) items")
        } catch {
            failures.append("thread \(index): \(error)")
        }
    }
    try expect(failures.all.isEmpty, failures.all.joined(separator: "; "))
    let kept = try backend.search(serviceQuery(service))
    try expect(kept.count == threads, "after \(threads) threads, \(kept.count) items remain instead of \(threads)")

    // All threads race to add the same new item: exactly one wins.
    let outcomes = FailureList()
    DispatchQueue.concurrentPerform(iterations: threads) { index in
        do {
            try backend.add(genericItem(service, "contested", Data("winner-\(index)".utf8)))
            outcomes.append("ok")
        } catch let error as KeychainError where error.status == errSecDuplicateItem {
            outcomes.append("duplicate")
        } catch {
            outcomes.append("error: \(error)")
        }
    }
    let results = outcomes.all
    try expect(results.filter { $0 == "ok" }.count == 1 && results.filter { $0 == "duplicate" }.count == threads - 1,
               "racing adds gave \(results), expected one ok and \(threads - 1) duplicates")
}

/// A server's thread pool (`ThreadPoolWorkload.ofThisRun`): every call succeeds, every read-back is exact.
func survivesAThreadPool(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let result = try ThreadPoolWorkload.ofThisRun().run(on: backend, service: context.service())
    try expect(result.passed, "the thread-pool workload on '\(backend.name)': \(result)")
}

func survivesManyProcesses(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    guard let processes = context.processes else {
        throw ConformanceSkip("no way to start other processes: the linux-keychain CLI was not found beside the test binary (set KEYCHAIN_CLI), and the context was given no ConformanceProcesses")
    }
    let service = context.service()
    let count = 8
    func run(_ operation: ConformanceProcesses.Request.Operation, _ account: String, input: Data?) throws -> KeychainCLIProcess {
        let process = try processes.start(operation, service, account)
        process.release(input)
        return process
    }

    // Different items from many processes at once: none is lost.
    let writers = try (0..<count).map { index in try run(.set, "proc\(index)", input: Data("p\(index)".utf8)) }
    for (index, writer) in writers.enumerated() {
        let result = try writer.wait()
        try expect(result.status == 0, "writer process \(index) failed: \(result.errorText)")
    }
    for index in 0..<count { try expectSecret(backend, service, "proc\(index)", Data("p\(index)".utf8)) }

    // Another process reads what this one wrote, byte for byte.
    let binary = Data((0...255).map { UInt8($0) })
    try backend.add(genericItem(service, "from-parent", binary))
    let reader = try run(.get, "from-parent", input: nil).wait()
    try expect(reader.status == 0 && reader.output == binary, "a child process read back different bytes: \(reader.errorText)")

    // Racing adds of one new item across processes: exactly one wins. Each racer opens its
    // backend and then waits for its secret, so releasing them together makes them collide.
    let racers = try (0..<count).map { _ in try processes.start(.add, service, "raced") }
    // Time for them to start and block on stdin; a late starter still races, only less tightly.
    Thread.sleep(forTimeInterval: 0.3)
    for (index, racer) in racers.enumerated() { racer.release(Data("r\(index)".utf8)) }
    let statuses = try racers.map { try $0.wait() }
    let winners = statuses.filter { $0.status == 0 }.count
    let duplicates = statuses.filter { $0.status == CLIExit.duplicate }.count
    try expect(winners == 1 && duplicates == count - 1,
               "racing add processes: \(winners) succeeded and \(duplicates) saw a duplicate; errors: \(statuses.map(\.errorText).filter { !$0.isEmpty })")
}

/// The exit statuses the `linux-keychain` CLI documents.
public enum CLIExit: Sendable {
    /// The item does not exist.
    public static let notFound: Int32 = 3
    /// The item already exists.
    public static let duplicate: Int32 = 4
    /// The store is locked and would need a prompt (`errSecInteractionNotAllowed`).
    public static let locked: Int32 = 5
    /// The backend cannot run here (`errSecNotAvailable`).
    public static let unavailable: Int32 = 6
}

final class FailureList: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}
