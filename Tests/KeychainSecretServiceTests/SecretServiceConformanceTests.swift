import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// The shared suite, every case, against the real gnome-keyring of with-services.sh;
    /// "processes" runs the `linux-keychain` CLI in 8 processes at once.
    @Suite("conformance")
    struct Conformance {
        @Test(arguments: KeychainConformance.cases)
        func conformance(_ testCase: ConformanceCase) throws {
            let context = ConformanceContext(backendName: SecretServiceBackend.backendName)
            try runConformance(testCase, on: SecretServiceTestSupport.backend, context: context)
        }
    }
}
