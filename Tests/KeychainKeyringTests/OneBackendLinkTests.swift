import Foundation
import KeychainConformance
import KeychainCore
import KeychainKeyring
import KeychainTestSupport
import Testing

/// A program that wants only the kernel keyring links LinuxKeychainFrontEnd and KeychainKeyring,
/// and no other backend's code comes with them (issue 14). The probe, KeychainOneBackendProbe,
/// registers the keyring itself and adds, reads and deletes an item with SecItem calls.
@Suite struct OneBackendLinkTests {
    /// The modules (as they appear in mangled Swift symbols) that must not be in the probe.
    static let otherBackendModules = ["21KeychainSecretService", "13KeychainVault", "21KeychainEncryptedFile",
                                      "23KeychainBuiltInBackends", "13LinuxKeychain"]

    @Test func theKeyringAloneWorksThroughSecItem() throws {
        try Self.requireKeyring()
        let service = uniqueService("one-backend")
        let result = try KeychainCLIProcess.run(try builtExecutable("KeychainOneBackendProbe"), [service, "token"],
                                                input: Data("only-the-keyring".utf8))
        #expect(result.status == 0, "probe: \(result.errorText)")
        let lines = result.outputText.split(separator: "\n").map(String.init)
        #expect(lines.first == "only-the-keyring")
        let libraries = lines.dropFirst()
        #expect(libraries.contains { $0.contains("libkeyutils") }, "mapped: \(libraries)")
        for unwanted in ["libsecret", "libcurl", "libsodium", "libglib", "libgio"] {
            #expect(!libraries.contains { $0.contains(unwanted) }, "\(unwanted) is mapped into the probe")
        }
    }

    @Test func noOtherBackendIsLinked() throws {
        let probe = try Self.symbols(of: try builtExecutable("KeychainOneBackendProbe"))
        #expect(probe.contains("15KeychainKeyring"), "the scan finds the keyring backend's symbols")
        for module in Self.otherBackendModules {
            #expect(!probe.contains(module), "\(module) symbols are linked into the probe")
        }
        // The front end's hook for the built-in backends stays an unresolved weak symbol.
        #expect(probe.contains(" w linux_keychain_register_built_in_backends"))
        // The same scan finds the other backends in the `linux-keychain` CLI, which links them
        // through KeychainBuiltInBackends (not LinuxKeychain: the CLI runs without Foundation).
        let cli = try Self.symbols(of: try builtCLI())
        #expect([" T ", " t "].contains { cli.contains($0 + "linux_keychain_register_built_in_backends") },
                "KeychainBuiltInBackends defines the hook")
        for module in Self.otherBackendModules where module != "13LinuxKeychain" {
            #expect(cli.contains(module), "the scan finds \(module) in the linux-keychain CLI")
        }
    }

    /// `nm`'s listing of `path`'s symbols.
    static func symbols(of path: String) throws -> String {
        let result = try KeychainCLIProcess.run("/usr/bin/nm", [path], timeout: 60)
        try #require(result.status == 0, "nm \(path): \(result.errorText)")
        return result.outputText
    }

    /// Skips the test with the reason when the kernel keyring is unusable here (a failure under
    /// KEYCHAIN_REQUIRE_ALL_BACKENDS=1).
    static func requireKeyring() throws {
        try requireAvailable(KernelKeyringBackend(environment: ProcessInfo.processInfo.environment))
    }
}
