import Foundation
import KeychainConformance
import KeychainCore
import Testing

@Suite("the conformance suite itself")
struct ConformanceSelfTests {
    /// A backend that overwrites on add: the suite must catch it, or it proves nothing.
    final class OverwritingBackend: KeychainBackend, Sendable {
        let name = "overwriting"
        private let inner = MemoryBackend()
        func availability() -> BackendAvailability { .available("test double") }
        func add(_ item: KeychainItem) throws {
            _ = try inner.delete(ItemQuery(primaryKey: item.primaryKey))
            try inner.add(item)
        }
        func search(_ query: ItemQuery) throws -> [KeychainItem] { try inner.search(query) }
        func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int { try inner.update(query, with: changes) }
        func delete(_ query: ItemQuery) throws -> Int { try inner.delete(query) }
    }

    @Test func catchesABackendThatOverwritesOnAdd() throws {
        let duplicateCase = try #require(KeychainConformance.cases.first { $0.name == "duplicate-add" })
        #expect(throws: ConformanceFailure.self) {
            _ = try duplicateCase.outcome(on: OverwritingBackend(), context: ConformanceContext(backendName: "overwriting"))
        }
    }

    /// A backend that drops some attributes of what it adds, or of the changes it applies.
    final class ForgetfulBackend: KeychainBackend, Sendable {
        let name = "forgetful"
        private let inner = MemoryBackend()
        private let forgottenOnAdd: [AttributeKey]
        private let forgottenInUpdates: [AttributeKey]
        init(onAdd: [AttributeKey] = [], inUpdates: [AttributeKey] = []) {
            forgottenOnAdd = onAdd
            forgottenInUpdates = inUpdates
        }
        func availability() -> BackendAvailability { .available("test double") }
        func add(_ item: KeychainItem) throws {
            var kept = item
            for key in forgottenOnAdd { kept.attributes[key] = nil }
            try inner.add(kept)
        }
        func search(_ query: ItemQuery) throws -> [KeychainItem] { try inner.search(query) }
        func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
            var kept = changes
            for key in forgottenInUpdates { kept.attributes[key] = nil }
            return try inner.update(query, with: kept)
        }
        func delete(_ query: ItemQuery) throws -> Int { try inner.delete(query) }
    }

    /// What the typed API relies on: internet passwords keep their authentication type and
    /// security domain, and an update can move an item to the other synchronizable flag.
    @Test(arguments: [
        ("internet-password", ForgetfulBackend(onAdd: [.authenticationType])),
        ("internet-password", ForgetfulBackend(onAdd: [.securityDomain])),
        ("synchronizable-any", ForgetfulBackend(inUpdates: [.synchronizable])),
    ])
    func catchesABackendThatForgetsAttributes(_ caseName: String, _ backend: ForgetfulBackend) throws {
        let testCase = try #require(KeychainConformance.cases.first { $0.name == caseName })
        #expect(throws: ConformanceFailure.self) {
            _ = try testCase.outcome(on: backend, context: ConformanceContext(backendName: "forgetful"))
        }
        #expect(try testCase.outcome(on: MemoryBackend(), context: ConformanceContext(backendName: "memory")) == .passed)
    }

    @Test func reportsAnUnavailableBackendAsSkippedWithItsReason() throws {
        let anyCase = try #require(KeychainConformance.cases.first)
        let outcome = try anyCase.outcome(on: PlaceholderBackend(name: "absent", reason: "Not on this machine."),
                                          context: ConformanceContext(backendName: "absent"), requireAll: false)
        guard case .skipped(let reason) = outcome else {
            Issue.record("an unavailable backend was not skipped")
            return
        }
        #expect(reason.contains("Not on this machine."))
    }

    @Test func failsOnAnUnavailableBackendWhenEveryBackendIsRequired() throws {
        let anyCase = try #require(KeychainConformance.cases.first)
        #expect(throws: ConformanceFailure.self) {
            _ = try anyCase.outcome(on: PlaceholderBackend(name: "absent", reason: "Not on this machine."),
                                    context: ConformanceContext(backendName: "absent"), requireAll: true)
        }
    }
}
