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
        // Known issue #35: through a cluster's standby, processes writing at once can lose an
        // update of the user's shared X-Vault-Index entry, and a read that follows may then
        // miss a write (seen once in CI). Recorded as intermittent there until that is fixed.
        if testCase.name == "processes" && ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_TEST_VAULT"] == "cluster" {
            withKnownIssue("concurrent processes can lose an update of the shared X-Vault-Index entry (#35)", isIntermittent: true) {
                try run(testCase)
            }
            return
        }
        try run(testCase)
    }

    private func run(_ testCase: ConformanceCase) throws {
        let prefix = VaultTestServer.uniquePrefix("conformance")
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        let context = ConformanceContext(backendName: VaultBackend.backendName,
                                         environment: try VaultTestServer.cliEnvironment(prefix: prefix))
        try runConformance(testCase, on: backend, context: context)
    }
}
