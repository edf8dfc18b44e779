import Foundation
import KeychainCore
import Testing

/// `linux-keychain backends` reports through `survey()`: each backend's availability is checked
/// once, since one check can take a whole timeout (a Secret Service provider that does not
/// answer takes `KEYCHAIN_SECRET_SERVICE_TIMEOUT`).
@Suite("backend registry survey")
struct RegistrySurveyTests {
    /// Unavailable, and counts how often it was asked.
    final class CountingBackend: KeychainBackend, Sendable {
        let name: String
        private let asked = Locked(0)
        var checks: Int { asked.withLock { $0 } }
        init(name: String) { self.name = name }
        func availability() -> BackendAvailability {
            asked.withLock { $0 += 1 }
            return .unavailable(KeychainError(errSecNotAvailable, "\(name) does not answer."))
        }
        func add(_ item: KeychainItem) throws {}
        func search(_ query: ItemQuery) throws -> [KeychainItem] { [] }
        func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int { 0 }
        func delete(_ query: ItemQuery) throws -> Int { 0 }
    }

    @Test func everyBackendIsCheckedOnceForTheWholeReport() throws {
        let slow = CountingBackend(name: "slow")
        let registry = KeychainBackendRegistry()
        registry.register("slow", automaticRank: 1) { slow }
        registry.register("usable", automaticRank: 2) { MemoryBackend() }
        let survey = registry.survey()
        #expect(slow.checks == 1, "the report checked the slow backend \(slow.checks) times")
        #expect(survey.backends.map(\.name) == ["slow", "usable"])
        #expect(survey.backends.first?.availability.isAvailable == false)
        #expect(try survey.automaticChoice.get().name == MemoryBackend.backendName)
    }
}
