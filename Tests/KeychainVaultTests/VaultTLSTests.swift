import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import Testing

/// VAULT_CACERT against an OpenBao dev server with its own CA (`bao server -dev -dev-tls`).
/// The other TLS settings are tested against servers with certificates of the tests' own CA.
@Suite("vault backend over TLS with the dev server's CA")
struct VaultTLSTests {
    let prefix = VaultTestServer.uniquePrefix("tls")

    private func withTLSServer(_ body: (TestServerProcess, URL) throws -> Void) throws {
        _ = try VaultTestServer.root()
        let directory = try makeScratchDirectory("lkc-vault")
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
            let cli = try builtCLI()
            let set = try KeychainCLIProcess.run(cli, ["--backend", "vault", "set", "tls-app", "me"],
                                                 input: Data("over-tls".utf8), environment: environment)
            #expect(set.status == 0, "\(set.errorText)")
            let get = try KeychainCLIProcess.run(cli, ["--backend", "vault", "get", "tls-app", "me"], environment: environment)
            #expect(get.status == 0, "\(get.errorText)")
            #expect(get.output == Data("over-tls".utf8))
        }
    }
}

/// The `vault` CLI's TLS settings against listeners whose certificates come from the test's
/// own openssl CA, one of them requiring client certificates.
@Suite("vault TLS settings with a private CA")
struct VaultPrivateCATests {
    let prefix = VaultTestServer.uniquePrefix("private-ca")

    private func environment(_ address: String, _ fixture: VaultTLSServer, _ settings: [String: String]) -> [String: String] {
        ["VAULT_ADDR": address, "VAULT_TOKEN": fixture.rootToken, "KEYCHAIN_VAULT_PREFIX": prefix,
         "KEYCHAIN_VAULT_PROBE_TIMEOUT": "15"].merging(settings) { _, new in new }
    }

    /// The backend's availability and, when available, a write and a read back.
    private func check(_ environment: [String: String]) -> BackendAvailability {
        let backend = VaultBackend(environment: environment)
        let availability = backend.availability()
        guard availability.isAvailable else { return availability }
        let account = UUID().uuidString
        do {
            try backend.add(genericItem("tls", account, Data("private-ca".utf8)))
            let secret = try storedSecret(backend, "tls", account)
            _ = try backend.delete(exactQuery("tls", account))
            if secret != Data("private-ca".utf8) { return .unavailable(KeychainError(errSecDecode, "read back something else")) }
        } catch {
            return .unavailable(error as? KeychainError ?? KeychainError(errSecIO, "\(error)"))
        }
        return availability
    }

    private func expectTLSFailure(_ availability: BackendAvailability, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .unavailable(let reason) = availability else {
            Issue.record("\(what) was accepted", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.status == errSecNotAvailable && reason.message.contains("TLS"), "\(what): \(reason)", sourceLocation: sourceLocation)
    }

    @Test func caFileAndCAFolderAreTrustedInsteadOfTheSystemStore() throws {
        let fixture = try VaultTLSServer()
        defer { fixture.stop() }
        expectTLSFailure(check(environment(fixture.tlsAddress, fixture, [:])), "a private CA's certificate without VAULT_CACERT")
        expectTLSFailure(check(environment(fixture.tlsAddress, fixture, ["VAULT_CACERT": fixture.otherCAFile])), "another CA")
        let withCAFile = check(environment(fixture.tlsAddress, fixture, ["VAULT_CACERT": fixture.caFile]))
        #expect(withCAFile.isAvailable, "\(withCAFile.explanation)")
        let withBaoTwin = check(environment(fixture.tlsAddress, fixture, ["BAO_CACERT": fixture.caFile]))
        #expect(withBaoTwin.isAvailable, "\(withBaoTwin.explanation)")

        // A folder of plain PEM files, not OpenSSL's hashed names, as the vault CLI reads it.
        let folder = fixture.directory.appendingPathComponent("cas")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.otherCAFile, toPath: folder.appendingPathComponent("a-other.pem").path)
        try FileManager.default.copyItem(atPath: fixture.caFile, toPath: folder.appendingPathComponent("b-ours.crt").path)
        let withFolder = check(environment(fixture.tlsAddress, fixture, ["VAULT_CAPATH": folder.path]))
        #expect(withFolder.isAvailable, "\(withFolder.explanation)")
    }

    @Test func clientCertificateIsPresentedWhereTheServerRequiresOne() throws {
        let fixture = try VaultTLSServer()
        defer { fixture.stop() }
        let trusted = ["VAULT_CACERT": fixture.caFile]
        expectTLSFailure(check(environment(fixture.mutualAddress, fixture, trusted)), "a connection without a client certificate")
        let withCertificate = check(environment(fixture.mutualAddress, fixture, trusted.merging([
            "VAULT_CLIENT_CERT": fixture.clientCertificate, "BAO_CLIENT_KEY": fixture.clientKey,
        ]) { _, new in new }))
        #expect(withCertificate.isAvailable, "\(withCertificate.explanation)")
    }

    /// The certificate names 127.0.0.1 and vault.lkc.test, not localhost.
    @Test func serverNameReplacesTheAddressHostInTheCertificateCheck() throws {
        let fixture = try VaultTLSServer()
        defer { fixture.stop() }
        let localhost = fixture.tlsAddress.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let trusted = ["VAULT_CACERT": fixture.caFile]
        expectTLSFailure(check(environment(localhost, fixture, trusted)), "a certificate that does not name localhost")
        let named = check(environment(localhost, fixture, trusted.merging(["VAULT_TLS_SERVER_NAME": VaultTLSServer.serverName]) { _, new in new }))
        #expect(named.isAvailable, "\(named.explanation)")
        let wrongName = check(environment(fixture.tlsAddress, fixture, trusted.merging(["VAULT_TLS_SERVER_NAME": "other.lkc.test"]) { _, new in new }))
        expectTLSFailure(wrongName, "a server name the certificate does not hold")
    }

    @Test func skipVerifyWorksAndWarnsOnEveryUse() throws {
        let fixture = try VaultTLSServer()
        defer { fixture.stop() }
        let cli = try builtCLI()
        let settings = environment(fixture.tlsAddress, fixture, ["VAULT_SKIP_VERIFY": "true", "VAULT_CACERT": fixture.otherCAFile])
        for arguments in [["set", "skip", "me"], ["get", "skip", "me"], ["delete", "skip", "me"]] {
            let result = try KeychainCLIProcess.run(cli, ["--backend", "vault"] + arguments, input: Data("unverified".utf8),
                                                    environment: settings)
            #expect(result.status == 0, "\(arguments): \(result.errorText)")
            #expect(result.errorText.contains("VAULT_SKIP_VERIFY"), "\(arguments) gave no warning: \(result.errorText)")
            if arguments[0] == "get" { #expect(result.output == Data("unverified".utf8)) }
        }
    }
}
