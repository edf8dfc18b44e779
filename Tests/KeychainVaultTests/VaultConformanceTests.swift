import Foundation
import KeychainConformance
import KeychainCore
import KeychainVault
import KeychainTestSupport
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
        try runConformance(testCase, on: backend, context: context)
    }
}
