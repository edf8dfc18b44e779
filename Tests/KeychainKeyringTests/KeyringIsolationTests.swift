import CKeyutils
import Foundation
import KeychainConformance
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// `scripts/with-services.sh` promises that a test run never reaches the real user's kernel
/// keyrings: it runs the tests in a user namespace of their own (own user and persistent
/// keyrings) and a fresh session keyring, and passes the serials of the keyrings it started
/// from in `LINUX_KEYCHAIN_OUTER_KEYRINGS`. Every keyring the backend and the file backend's
/// unlock cache (the user keyring) can use must be another one.
@Suite("test runs keep out of the real kernel keyrings")
struct KeyringIsolationTests {
    static let outerKeyringsVariable = "LINUX_KEYCHAIN_OUTER_KEYRINGS"

    @Test func everyKeyringTheTestsCanUseIsNotOneTheRunStartedFrom() throws {
        guard let listed = ProcessInfo.processInfo.environment[Self.outerKeyringsVariable] else {
            let reason = "\(Self.outerKeyringsVariable) is unset: the tests are not running under scripts/with-services.sh"
            try skipOrFail(reason)
        }
        let outer = Set(listed.split(separator: " ").compactMap { key_serial_t($0) })
        #expect(!outer.isEmpty, "no outer keyrings were recorded: '\(listed)'")
        let kernel = KernelKeys()
        for choice in [KeyringChoice.persistent, .user, .session] {
            let resolved = try kernel.resolve(choice, reusingLinks: false)
            #expect(!outer.contains(resolved.serial),
                    "the \(choice.rawValue) keyring \(resolved.serial) is one of the real user's keyrings")
        }
        // The file backend's unlock cache lives in the user keyring.
        let userKeyring = try kernel.serial(of: KEY_SPEC_USER_KEYRING, create: true)
        #expect(!outer.contains(userKeyring), "the unlock cache's user keyring \(userKeyring) is the real one")
    }
}
