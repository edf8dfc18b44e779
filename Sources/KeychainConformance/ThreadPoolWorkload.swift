import Foundation
public import KeychainCore

/// The shape of a server's thread pool calling the keychain: each of `threads` threads adds
/// `itemsPerThread` items of its own, reads each back, updates each `updateRounds` times with
/// a read-back after every round, deletes them, and checks that each is then not found.
///
/// It is Codable so that a harness can hand it to another process (another user, another
/// backend) and read the `Result` back.
public struct ThreadPoolWorkload: Codable, Sendable, Equatable {
    /// Threads running at once, each on items of its own.
    public var threads: Int
    /// Items each thread adds.
    public var itemsPerThread: Int
    /// Update rounds after the first read-back; every round writes every item a new secret.
    public var updateRounds: Int

    /// A workload of `threads` threads of `itemsPerThread` items and `updateRounds` update rounds.
    public init(threads: Int = 64, itemsPerThread: Int = 4, updateRounds: Int = 3) {
        self.threads = threads
        self.itemsPerThread = itemsPerThread
        self.updateRounds = updateRounds
    }

    /// The calls a run makes when nothing fails: per item an add, a read, a delete, a check
    /// that it is gone, and an update and a read per round.
    public var expectedCalls: Int { threads * itemsPerThread * (4 + 2 * updateRounds) }

    /// One call that did not do what the contract says. It names the call and the status,
    /// never a secret.
    public struct Failure: Codable, Sendable, Equatable, CustomStringConvertible {
        /// The thread and its item (both from 0).
        public var thread: Int, item: Int
        /// `add`, `read`, `update` (with its round, from 1), `delete` or `read-after-delete`.
        public var operation: String
        /// The call's OSStatus: errSecSuccess when the call succeeded with a wrong answer.
        public var status: OSStatus
        /// What was wrong: the error's message (which never holds a secret), or what came back.
        public var detail: String

        /// "thread T item I OPERATION: OSStatus S, DETAIL".
        public var description: String { "thread \(thread) item \(item) \(operation): OSStatus \(status), \(detail)" }
    }

    /// What a run did.
    public struct Result: Codable, Sendable, Equatable, CustomStringConvertible {
        /// The workload that ran.
        public var workload: ThreadPoolWorkload
        /// Calls made, failed ones included.
        public var calls: Int
        /// The calls that failed or answered wrongly, in no particular order.
        public var failures: [Failure]
        /// Seconds from the start of the first thread to the end of the last.
        public var elapsed: Double
        /// Seconds the slowest single call took.
        public var slowestCall: Double

        /// Every call made, each `errSecSuccess` with the exact answer.
        public var passed: Bool { failures.isEmpty && calls == workload.expectedCalls }

        /// Counts, times and the first failures, for a test log.
        public var description: String {
            let counted = Dictionary(grouping: failures) { "\($0.operation)/\($0.status)" }.mapValues(\.count)
            let summary = counted.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
            return "\(workload.threads) threads: \(calls) of \(workload.expectedCalls) calls in "
                + String(format: "%.2f s (slowest %.2f s), ", elapsed, slowestCall)
                + (failures.isEmpty ? "no failures" : "\(failures.count) failures [\(summary)]: "
                    + failures.prefix(5).map(\.description).joined(separator: "; "))
        }
    }

    /// Runs the workload on `backend` in `threads` threads of their own (not a dispatch pool,
    /// which would run only as many at once as there are cores), with items (`service`,
    /// `accountPrefix`THREAD-ITEM), and waits for every thread. Failures are collected, not
    /// thrown; items a failed run left behind are the caller's to remove.
    public func run(on backend: any KeychainBackend, service: String, accountPrefix: String = "pool") -> Result {
        let tally = Locked(Result(workload: self, calls: 0, failures: [], elapsed: 0, slowestCall: 0))
        let started = DispatchTime.now()
        runThreadsAtOnce(threads) { index in
            ThreadPoolRun(workload: self, thread: index, backend: backend, service: service,
                          accountPrefix: accountPrefix, tally: tally).run()
        }
        var result = tally.withLock { $0 }
        result.elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return result
    }
}

/// Runs `body(0)` to `body(count - 1)` in `count` threads of their own, started together (each
/// waits until all exist, so that they really run at once), and returns when all have ended.
public func runThreadsAtOnce(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchGroup()
    let gate = DispatchSemaphore(value: 0)
    for index in 0..<count {
        finished.enter()
        let thread = Thread {
            gate.wait()
            body(index)
            finished.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { gate.signal() }
    finished.wait()
}

/// One thread's share of a `ThreadPoolWorkload`.
private struct ThreadPoolRun {
    let workload: ThreadPoolWorkload
    let thread: Int
    let backend: any KeychainBackend
    let service: String
    let accountPrefix: String
    let tally: Locked<ThreadPoolWorkload.Result>

    func run() {
        let items = 0..<workload.itemsPerThread
        for item in items {
            call(item, "add") { try backend.add(genericItem(service, account(item), secret(item, round: 0))); return nil }
        }
        for item in items { readBack(item, "read", expecting: secret(item, round: 0)) }
        for round in stride(from: 1, through: workload.updateRounds, by: 1) {
            for item in items {
                call(item, "update \(round)") {
                    let changed = try backend.update(exactQuery(service, account(item), secrets: false),
                                                     with: ItemChanges(secret: SecretBytes(secret(item, round: round))))
                    return changed == 1 ? nil : "changed \(changed) items, not 1"
                }
                readBack(item, "read \(round)", expecting: secret(item, round: round))
            }
        }
        for item in items {
            call(item, "delete") {
                let deleted = try backend.delete(exactQuery(service, account(item), secrets: false))
                return deleted == 1 ? nil : "deleted \(deleted) items, not 1"
            }
        }
        for item in items {
            call(item, "read-after-delete") {
                let found = try backend.search(exactQuery(service, account(item), secrets: false))
                return found.isEmpty ? nil : "found \(found.count) items after the delete"
            }
        }
    }

    func account(_ item: Int) -> String { "\(accountPrefix)\(thread)-\(item)" }

    /// A secret unique to the thread, the item and the round, so that a stale or crossed
    /// read-back shows.
    func secret(_ item: Int, round: Int) -> Data { Data("pool-secret-\(thread)-\(item)-\(round)".utf8) }

    func readBack(_ item: Int, _ operation: String, expecting expected: Data) {
        call(item, operation) {
            let found = try backend.search(exactQuery(service, account(item)))
            guard found.count == 1 else { return "found \(found.count) items, not 1" }
            guard let actual = found[0].secret?.makeData() else { return "came back without its secret" }
            // Only lengths: the bytes are a secret even here, as a backend author's logs may be kept.
            return actual == expected ? nil : "read back \(actual.count) bytes that differ from the \(expected.count) written"
        }
    }

    /// Makes one call; `body` returns nil when the answer is right, else what was wrong.
    func call(_ item: Int, _ operation: String, _ body: () throws -> String?) {
        let started = DispatchTime.now()
        var failure: ThreadPoolWorkload.Failure?
        do {
            if let wrong = try body() {
                failure = .init(thread: thread, item: item, operation: operation, status: errSecSuccess, detail: wrong)
            }
        } catch let error as KeychainError {
            failure = .init(thread: thread, item: item, operation: operation, status: error.status, detail: error.message)
        } catch {
            failure = .init(thread: thread, item: item, operation: operation, status: errSecInternalError,
                            detail: "\(type(of: error))")
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        tally.withLock {
            $0.calls += 1
            $0.slowestCall = max($0.slowestCall, seconds)
            if let failure { $0.failures.append(failure) }
        }
    }
}

extension ThreadPoolWorkload {
    /// The variable that sets the `thread-pool` case's thread count. Test-only:
    /// scripts/test-sanitizers.sh sets it, since a sanitizer slows every call many times over.
    static let threadsVariable = "LINUX_KEYCHAIN_TEST_THREAD_POOL_THREADS"

    /// The workload the `thread-pool` case runs: the defaults, with `threadsVariable`'s thread
    /// count when it is set. Throws `ConformanceFailure` when it is not a positive whole number.
    package static func ofThisRun(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ThreadPoolWorkload {
        guard let text = environment[threadsVariable] else { return ThreadPoolWorkload() }
        guard let threads = Int(text), threads > 0 else {
            throw ConformanceFailure("\(threadsVariable) is '\(text)', not a positive number of threads")
        }
        return ThreadPoolWorkload(threads: threads)
    }
}
