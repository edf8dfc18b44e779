import Foundation
@testable import KeychainConformance
import KeychainCore
import KeychainTestSupport
import Testing

/// Each new contract case catches the backend that breaks its rule, or it proves nothing.
@Suite("the contract cases catch what they check")
struct ContractCaseSelfTests {
    /// The memory backend with one rule broken.
    final class BrokenBackend: KeychainBackend, Sendable {
        enum Flaw { case returnsSecretsUnasked, quotesSecretInErrors, ignoresSynchronizable, limitsBeforeOrdering, dropsSomeUpdates }
        let name = "broken"
        let flaw: Flaw
        private let inner = MemoryBackend()
        private let updates = Locked(0)
        init(_ flaw: Flaw) { self.flaw = flaw }

        func availability() -> BackendAvailability { .available("test double") }

        func add(_ item: KeychainItem) throws {
            do {
                try inner.add(item)
            } catch let error as KeychainError where flaw == .quotesSecretInErrors {
                let secret = String(decoding: item.secret?.makeData() ?? Data(), as: UTF8.self)
                throw KeychainError(error.status, "\(error.message) (new value '\(secret)')")
            }
        }

        func search(_ query: ItemQuery) throws -> [KeychainItem] {
            var query = query
            switch flaw {
            case .returnsSecretsUnasked:
                query.includeSecrets = true
            case .ignoresSynchronizable:
                query.matchesAnySynchronizable = true
            case .limitsBeforeOrdering:
                let limit = query.limit
                query.limit = .all
                let reversed = Array(try inner.search(query).reversed())
                return limit.maximum.map { Array(reversed.suffix($0)) } ?? reversed
            case .quotesSecretInErrors, .dropsSomeUpdates:
                break
            }
            return try inner.search(query)
        }

        func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
            // One update in a hundred claims success and changes nothing: a lost write under load.
            let count = updates.withLock { $0 += 1; return $0 }
            if flaw == .dropsSomeUpdates && count % 100 == 0 { return 1 }
            return try inner.update(query, with: changes)
        }
        func delete(_ query: ItemQuery) throws -> Int { try inner.delete(query) }
    }

    @Test(arguments: [
        ("no-secrets-unless-asked", BrokenBackend.Flaw.returnsSecretsUnasked),
        ("no-secret-in-errors", .quotesSecretInErrors),
        ("synchronizable-any", .ignoresSynchronizable),
        ("stable-order-and-limit", .limitsBeforeOrdering),
        ("thread-pool", .dropsSomeUpdates),
    ])
    func theCaseFailsOnTheBrokenBackend(_ name: String, _ flaw: BrokenBackend.Flaw) throws {
        let testCase = try #require(KeychainConformance.cases.first { $0.name == name })
        #expect(throws: ConformanceFailure.self) {
            _ = try testCase.outcome(on: BrokenBackend(flaw), context: ConformanceContext(backendName: "broken"))
        }
    }

    @Test func casesAreChosenByWhatTheyNeed() {
        let local = KeychainConformance.cases(without: [.sharedAcrossProcesses])
        #expect(!local.contains { $0.name == "processes" })
        #expect(local.count == KeychainConformance.cases.count - 1)
        // Many threads in one process are part of the contract every backend keeps, the memory backend's too.
        #expect(local.contains { $0.name == "thread-pool" } && local.contains { $0.name == "threads" })
        #expect(KeychainConformance.cases.first { $0.name == "processes" }?.needs == [.sharedAcrossProcesses])
    }

    /// A case that loads the backend on purpose never overlaps another case of the process.
    @Test func aCaseThatRunsAloneOverlapsNoOther() throws {
        #expect(KeychainConformance.cases.filter(\.runsAlone).map(\.name) == ["thread-pool"])
        let running = Locked((ordinary: 0, alone: 0, overlaps: 0))
        func body(alone: Bool) -> @Sendable (any KeychainBackend, ConformanceContext) throws -> Void {
            { _, _ in
                running.withLock {
                    if alone { $0.alone += 1 } else { $0.ordinary += 1 }
                    if $0.alone > 1 || ($0.alone == 1 && $0.ordinary > 0) { $0.overlaps += 1 }
                }
                Thread.sleep(forTimeInterval: 0.01)
                running.withLock { if alone { $0.alone -= 1 } else { $0.ordinary -= 1 } }
            }
        }
        let cases = (0..<40).map { ConformanceCase(name: "case\($0)", runsAlone: $0 % 4 == 0, body: body(alone: $0 % 4 == 0)) }
        let backend = MemoryBackend()
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            _ = try? cases[index].outcome(on: backend, context: ConformanceContext(backendName: "memory"))
        }
        #expect(running.withLock { $0.overlaps } == 0)
    }

    /// The sanitizer runs make the thread-pool case smaller; the ordinary suite keeps the full shape.
    @Test func theThreadPoolCaseTakesItsThreadCountFromTheTestVariable() throws {
        let name = ThreadPoolWorkload.threadsVariable
        #expect(try ThreadPoolWorkload.ofThisRun([:]) == ThreadPoolWorkload(threads: 64, itemsPerThread: 4, updateRounds: 3))
        #expect(try ThreadPoolWorkload.ofThisRun([name: "16"]) == ThreadPoolWorkload(threads: 16, itemsPerThread: 4, updateRounds: 3))
        for bad in ["0", "-4", "many", ""] {
            #expect(throws: ConformanceFailure.self) { try ThreadPoolWorkload.ofThisRun([name: bad]) }
        }
    }

    @Test func anAuthorsOwnCaseRunsWithTheSuitesHelpers() throws {
        let own = ConformanceCase(name: "authors-own") { backend, context in
            let service = context.service()
            try backend.add(genericItem(service, "a", Data("x".utf8)))
            try expectSecret(backend, service, "a", Data("x".utf8))
            try expectStatus(errSecDuplicateItem, "a second add") { try backend.add(genericItem(service, "a", Data())) }
        }
        let backend = MemoryBackend()
        #expect(try own.outcome(on: backend, context: ConformanceContext(backendName: "memory")) == .passed)
        // Its items are removed afterwards.
        #expect(try backend.search(ItemQuery(itemClass: .genericPassword, limit: .all, matchesAnySynchronizable: true)).isEmpty)
    }

    @Test func theManyProcessCaseIsSkippedWithAReasonWhenNoProcessesAreGiven() throws {
        let processes = try #require(KeychainConformance.cases.first { $0.name == "processes" })
        let outcome = try processes.outcome(on: MemoryBackend(), context: ConformanceContext(backendName: "memory", processes: nil),
                                            requireAll: false)
        guard case .skipped(let reason) = outcome else {
            Issue.record("the case ran without a way to start processes")
            return
        }
        #expect(reason.contains("ConformanceProcesses"))
    }
}
