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
