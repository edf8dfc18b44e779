import KeychainConformance
import KeychainCore
import KeychainTestSupport
import Testing

@Suite("memory backend conformance")
struct MemoryConformanceTests {
    // One backend for the whole run, as a process would have; the cases use separate names.
    static let backend = MemoryBackend()

    // Cases that need items shared across processes are left out: the memory backend is per process by design.
    @Test(arguments: KeychainConformance.cases(without: [.sharedAcrossProcesses]))
    func conformance(_ testCase: ConformanceCase) throws {
        try runConformance(testCase, on: Self.backend, context: ConformanceContext(backendName: "memory"))
    }
}
