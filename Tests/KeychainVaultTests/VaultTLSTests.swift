import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainVault
import Testing

/// VAULT_CACERT against an OpenBao dev server with its own CA (`bao server -dev -dev-tls`).
/// The other TLS settings are tested against servers with certificates of the tests' own CA.
@Suite("vault backend over TLS with a private CA")
struct VaultTLSTests {
    let prefix = VaultTestServer.uniquePrefix("tls")

    private func withTLSServer(_ body: (TestServerProcess, URL) throws -> Void) throws {
        _ = try VaultTestServer.root()
        let directory = try VaultTestServer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try TestServerProcess.baoDevServer(token: "tls-test-root", tlsDirectory: directory)
        defer { server.stop() }
        try body(server, directory.appendingPathComponent("vault-ca.pem"))
    }

    @Test func untrustedCertificateIsNotAvailableAndSaysTLS() throws {
        try withTLSServer { server, _ in
            // A generous probe timeout: on a loaded machine the TLS handshake alone can pass the
            // default second, and the test is about the reason, not the speed.
            let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("tls-test-root"),
                                                                            prefix: prefix, probeTimeout: 15))
            guard case .unavailable(let reason) = backend.availability() else {
                Issue.record("a server with an untrusted certificate was reported available")
                return
            }
            #expect(reason.status == errSecNotAvailable && reason.message.contains("TLS"), "\(reason)")
        }
    }

    /// VAULT_CACERT is applied by libcurl itself: the CLI works over https with the dev
    /// server's own CA, which is in no system trust store.
    @Test func cliWorksOverTLSWithVaultCACert() throws {
        try withTLSServer { server, caFile in
            let environment = ["VAULT_ADDR": server.address, "VAULT_TOKEN": "tls-test-root", "VAULT_CACERT": caFile.path,
                               "KEYCHAIN_VAULT_PREFIX": prefix]
            let cli = try VaultTestServer.keychainCLI()
            let set = try KeychainCLIProcess.run(cli, ["--backend", "vault", "set", "tls-app", "me"],
                                                 input: Data("over-tls".utf8), environment: environment)
            #expect(set.status == 0, "\(set.errorText)")
            let get = try KeychainCLIProcess.run(cli, ["--backend", "vault", "get", "tls-app", "me"], environment: environment)
            #expect(get.status == 0, "\(get.errorText)")
            #expect(get.output == Data("over-tls".utf8))
        }
    }
}
