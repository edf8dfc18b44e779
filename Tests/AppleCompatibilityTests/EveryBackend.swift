import Foundation
import KeychainCore
import KeychainTestSupport
import LinuxKeychain
import Testing

/// Runs Apple-style code against each built-in backend in turn, inside this test's task only
/// (`KeychainBackendRegistry.withBackend`), so suites running at the same time keep theirs.
///
/// The real stores come from `scripts/with-services.sh`. A backend that cannot run here is
/// skipped with its reason, or fails the test when `KEYCHAIN_REQUIRE_ALL_BACKENDS=1`.
enum EveryBackend {
    static let names = ["keyring", "secret-service", "file", "vault", "memory"]

    static func run(_ name: String, _ body: () throws -> Void) throws {
        let backend = try KeychainBackendRegistry.withBuiltIns.backend(named: name)
        try requireAvailable(backend)
        try KeychainBackendRegistry.withBackend(backend, body)
    }

    /// A service (or server) name no other test, helper or earlier run uses.
    static func uniqueName(_ prefix: String) -> String {
        "apple-compat.\(prefix).\(UUID().uuidString.prefix(8).lowercased())"
    }
}
