package import Foundation
package import KeychainConformance
package import KeychainCore
import Testing

/// A store that fails and comes back while a thread pool uses it (#29 goal 6): a full disk, a
/// stopped server, a killed provider. The same backend value is used throughout, never rebuilt,
/// since recovering on its own is what is checked.
///
/// Beside the thread-pool workload, a `WriteLedger` rewrites items again and again, one writer
/// each, so that the version each last saw acknowledged is known exactly. `run` then expects:
/// - the fault refused calls, each with one of `refusal.statuses` and a message `refusal.explains`;
/// - nothing else went wrong but the follow-ons of a refused write (a miss, a previous secret);
/// - every acknowledged write is what is stored afterwards;
/// - once repaired, the ledger writers get writes acknowledged again within 30 s, and a whole
///   workload passes.
package struct FaultUnderLoad {
    /// How the store refuses a call while it is failed.
    package struct Refusal {
        /// The statuses of a refusal: one, or a store's "unreachable" and "lost mid-call".
        package var statuses: Set<OSStatus>
        /// Whether a refusal's message says what happened and what to do.
        package var explains: (String) -> Bool
        /// Whether a refused write may still have taken effect (a server that went away after
        /// the request reached it). The stored version is then the acknowledged one or one tried
        /// after it; otherwise exactly the acknowledged one.
        package var writeMayHaveLanded: Bool

        package init(statuses: Set<OSStatus>, writeMayHaveLanded: Bool, explains: @escaping (String) -> Bool) {
            self.statuses = statuses
            self.writeMayHaveLanded = writeMayHaveLanded
            self.explains = explains
        }
    }

    package let backend: any KeychainBackend
    package let refusal: Refusal
    /// Items rewritten by writers of their own.
    package var ledgerItems = 8
    /// The longest the fault is held while waiting for every ledger writer to be refused once.
    package var longestFault: TimeInterval = 10

    package init(backend: any KeychainBackend, refusal: Refusal) {
        self.backend = backend
        self.refusal = refusal
    }

    /// Runs the workload and the ledger writers, calls `fault` shortly after they start, holds it
    /// until every ledger writer was refused once (or `longestFault` passed), calls `repair`, and
    /// checks what the type's comment says. `service` names this run's items. Returns what the
    /// workload run through the fault did, for checks of the store's own (how long a call took).
    @discardableResult
    package func run(service: String, fault: () throws -> Void, repair: () throws -> Void) throws
        -> ThreadPoolWorkload.Result {
        let ledger = WriteLedger(backend: backend, service: service + "-ledger", items: ledgerItems,
                                 refusedWith: refusal.statuses)
        try ledger.addAll()
        ledger.startWriters()
        defer { ledger.stopWriters() }

        let faulted = Locked<ThreadPoolWorkload.Result?>(nil)
        let workloadDone = DispatchSemaphore(value: 0)
        let workload = try ThreadPoolWorkload.ofThisRun()
        let backend = self.backend
        Thread.detachNewThread {
            faulted.withLock { $0 = workload.run(on: backend, service: service + "-faulted") }
            workloadDone.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        try fault()
        let deadline = Date().addingTimeInterval(longestFault)
        while ledger.writersRefused < ledgerItems && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        try repair()
        workloadDone.wait()
        let acknowledgedAfterTheFault = ledger.acknowledgedWrites
        let recovery = Date().addingTimeInterval(30)
        while ledger.acknowledgedWrites < acknowledgedAfterTheFault + 2 * ledgerItems && Date() < recovery {
            Thread.sleep(forTimeInterval: 0.02)
        }
        ledger.stopWriters()
        #expect(ledger.acknowledgedWrites >= acknowledgedAfterTheFault + 2 * ledgerItems,
                "the ledger writers had no writes acknowledged within 30 s of the repair")

        let during = try #require(faulted.withLock { $0 })
        let refusals = ledger.refusals + during.failures.filter { refusal.statuses.contains($0.status) }.map(\.detail)
        #expect(!refusals.isEmpty, "the fault refused no call: it did not happen")
        print("\(service): \(refusals.count) calls refused; the workload meanwhile: \(during)")
        for message in Set(refusals) {
            #expect(refusal.explains(message), "a refusal said: \(message)")
            #expect(!message.contains("secret-"), "a refusal quotes a secret")
        }
        let otherStatuses = Set(during.failures.map(\.status)).subtracting(refusal.statuses.union([errSecItemNotFound, errSecSuccess]))
        #expect(otherStatuses.isEmpty, "the faulted run: \(during)")
        #expect(ledger.unexpected.isEmpty, "ledger writers: \(ledger.unexpected.prefix(5))")

        for item in 0..<ledgerItems {
            let stored = try storedSecret(backend, ledger.service, "item\(item)")
            let versions = refusal.writeMayHaveLanded ? ledger.acknowledged(item)...ledger.attempted(item)
                                                      : ledger.acknowledged(item)...ledger.acknowledged(item)
            #expect(versions.contains { ledger.secret(item, $0) == stored },
                    "ledger item \(item) holds none of versions \(versions), from its last acknowledged one")
        }
        let after = workload.run(on: backend, service: service + "-after")
        #expect(after.passed, "after the repair: \(after)")
        return during
    }
}

/// Items each rewritten by a thread of its own, with the versions tried and acknowledged.
package final class WriteLedger: Sendable {
    package let backend: any KeychainBackend
    package let service: String
    let items: Int
    let refusalStatuses: Set<OSStatus>
    private struct State {
        var acknowledged: [Int]
        var attempted: [Int]
        var acknowledgedWrites = 0
        var refusedWriters: Set<Int> = []
        var refusals: [String] = []
        var unexpected: [String] = []
        var stop = false
        var running = 0
    }
    private let state: Locked<State>

    package init(backend: any KeychainBackend, service: String, items: Int, refusedWith refusalStatuses: Set<OSStatus>) {
        self.backend = backend
        self.service = service
        self.items = items
        self.refusalStatuses = refusalStatuses
        state = Locked(State(acknowledged: Array(repeating: 0, count: items), attempted: Array(repeating: 0, count: items)))
    }

    package func secret(_ item: Int, _ version: Int) -> Data { Data("ledger-secret-\(item)-\(version)".utf8) }
    package func acknowledged(_ item: Int) -> Int { state.withLock { $0.acknowledged[item] } }
    package func attempted(_ item: Int) -> Int { state.withLock { $0.attempted[item] } }
    package var acknowledgedWrites: Int { state.withLock { $0.acknowledgedWrites } }
    package var writersRefused: Int { state.withLock { $0.refusedWriters.count } }
    package var refusals: [String] { state.withLock { $0.refusals } }
    package var unexpected: [String] { state.withLock { $0.unexpected } }

    package func addAll() throws {
        for item in 0..<items { try backend.add(genericItem(service, "item\(item)", secret(item, 0))) }
    }

    package func startWriters() {
        for item in 0..<items {
            state.withLock { $0.running += 1 }
            Thread.detachNewThread { [self] in
                var version = 0
                while !state.withLock({ $0.stop }) {
                    version += 1
                    state.withLock { $0.attempted[item] = version }
                    do {
                        let changed = try backend.update(exactQuery(service, "item\(item)", secrets: false),
                                                         with: ItemChanges(secret: SecretBytes(secret(item, version))))
                        state.withLock {
                            if changed == 1 { $0.acknowledged[item] = version; $0.acknowledgedWrites += 1 }
                            else { $0.unexpected.append("item \(item): update changed \(changed) items") }
                        }
                    } catch let error as KeychainError where refusalStatuses.contains(error.status) {
                        state.withLock { $0.refusedWriters.insert(item); $0.refusals.append(error.message) }
                    } catch {
                        state.withLock { $0.unexpected.append("item \(item): \(error)") }
                    }
                    Thread.sleep(forTimeInterval: 0.005)
                }
                state.withLock { $0.running -= 1 }
            }
        }
    }

    /// Stops the writers and waits until each has finished its last call. Safe to call twice.
    package func stopWriters() {
        state.withLock { $0.stop = true }
        while state.withLock({ $0.running }) > 0 { Thread.sleep(forTimeInterval: 0.01) }
    }
}
