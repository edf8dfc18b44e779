import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// The whole conformance suite on each keyring the backend can use. Child processes of this
/// test share all three with it: the persistent and user keyrings are per user (and user
/// namespace), and the session keyring is inherited. Under `scripts/with-services.sh` all
/// three are the test run's own (see `KeyringIsolationTests`), never the real user's.
@Suite("kernel keyring backend conformance")
struct KeyringConformanceTests {
    // One backend per keyring for the whole run, as a process would have; cases use separate names.
    static let backends: [String: KernelKeyringBackend] = [
        "default": KernelKeyringBackend(keyring: nil),
        "user": KernelKeyringBackend(keyring: .user),
        "session": KernelKeyringBackend(keyring: .session),
    ]

    @Test(arguments: ["default", "user", "session"], KeychainConformance.cases)
    func conformance(_ keyring: String, _ testCase: ConformanceCase) throws {
        let backend = try #require(Self.backends[keyring])
        // The CLI children read KEYCHAIN_KEYRING; empty selects the default, like unset.
        let context = ConformanceContext(backendName: "keyring",
                                         environment: ["KEYCHAIN_KEYRING": keyring == "default" ? "" : keyring])
        try runConformance(testCase, on: backend, context: context)
    }
}
