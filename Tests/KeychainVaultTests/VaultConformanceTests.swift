import Foundation
import KeychainConformance
import KeychainCore
import KeychainVault
import Testing

@Suite("vault backend conformance (real OpenBao)")
struct VaultConformanceTests {
    // Every case, "processes" included: the CLI children reach the same server and prefix.
    @Test(arguments: KeychainConformance.cases)
    func conformance(_ testCase: ConformanceCase) throws {
        let prefix = VaultTestServer.uniquePrefix("conformance")
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        let context = ConformanceContext(backendName: VaultBackend.backendName,
                                         environment: try VaultTestServer.cliEnvironment(prefix: prefix))
        if case .skipped(let reason) = try testCase.outcome(on: backend, context: context) {
            try Test.cancel(Comment(rawValue: reason))
        }
    }
}
