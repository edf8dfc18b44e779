import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainVault
import Testing

/// VAULT_CACERT against an OpenBao dev server with its own CA (`bao server -dev -dev-tls`).
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
            let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("tls-test-root"),
                                                                            prefix: prefix))
            guard case .unavailable(let reason) = backend.availability() else {
                Issue.record("a server with an untrusted certificate was reported available")
                return
            }
            #expect(reason.status == errSecNotAvailable && reason.message.contains("TLS"), "\(reason)")
        }
    }

    @Test func privateCANotInTheSystemStoreIsAClearError() throws {
        try withTLSServer { server, caFile in
            let environment = ["VAULT_ADDR": server.address, "VAULT_TOKEN": "tls-test-root", "VAULT_CACERT": caFile.path]
            let error = keychainError { _ = try VaultConfiguration.fromEnvironment(environment) }
            #expect(error?.status == errSecNotAvailable)
            #expect(error?.message.contains("update-ca-certificates") == true, "\(String(describing: error))")
            let backend = VaultBackend(environment: environment)
            #expect(!backend.availability().isAvailable)
        }
    }

    @Test func privateCAInTheTrustedBundleIsAccepted() throws {
        try withTLSServer { _, caFile in
            let bundle = caFile.deletingLastPathComponent().appendingPathComponent("bundle.crt")
            let system = VaultTrustStore.systemBundles.lazy.compactMap { FileManager.default.contents(atPath: $0) }.first ?? Data()
            try (system + Data("\n".utf8) + Data(contentsOf: caFile)).write(to: bundle)
            try VaultTrustStore.requireSystemTrust(ofCertificatesIn: caFile.path, bundles: [bundle.path])
            #expect(throws: KeychainError.self) {
                try VaultTrustStore.requireSystemTrust(ofCertificatesIn: caFile.path, bundles: VaultTrustStore.systemBundles)
            }
        }
    }

    /// End to end: in a private mount namespace, the system bundle gets the CA appended (as
    /// update-ca-certificates would do), and the CLI then works over https with VAULT_CACERT.
    @Test func cliWorksOverTLSOnceTheCAIsInTheSystemStore() throws {
        try withTLSServer { server, caFile in
            let systemBundle = "/etc/ssl/certs/ca-certificates.crt"
            guard let system = FileManager.default.contents(atPath: systemBundle) else {
                try Test.cancel("no system CA bundle at \(systemBundle)")
            }
            let bundle = caFile.deletingLastPathComponent().appendingPathComponent("bundle-with-ca.crt")
            try (system + Data("\n".utf8) + Data(contentsOf: caFile)).write(to: bundle)
            let cli = try VaultTestServer.keychainCLI()
            let environment = ["VAULT_ADDR": server.address, "VAULT_TOKEN": "tls-test-root", "VAULT_CACERT": caFile.path,
                               "KEYCHAIN_VAULT_PREFIX": prefix]
            func inNamespace(_ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
                try KeychainCLIProcess.run(try VaultTestServer.executable("unshare"), [
                    "--mount", "sh", "-c", "mount --bind \"$0\" \(systemBundle) && exec \"$@\"", bundle.path, cli, "--backend", "vault",
                ] + arguments, input: input, environment: environment)
            }
            let set = try inNamespace(["set", "tls-app", "me"], input: Data("over-tls".utf8))
            if set.errorText.contains("unshare failed") || set.errorText.contains("mount:") {
                try Test.cancel(Comment(rawValue: "cannot make a private mount namespace here (needs root): \(set.errorText)"))
            }
            #expect(set.status == 0, "\(set.errorText)")
            let get = try inNamespace(["get", "tls-app", "me"])
            #expect(get.status == 0, "\(get.errorText)")
            #expect(get.output == Data("over-tls".utf8))
        }
    }
}
