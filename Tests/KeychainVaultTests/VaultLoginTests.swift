import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import Testing

/// Machine login: AppRole and TLS certificates, the token cache, and no credential in messages.
@Suite("vault machine login")
struct VaultLoginTests {
    let prefix = VaultTestServer.uniquePrefix("login")

    private func serverEnvironment() throws -> [String: String] {
        let root = try VaultTestServer.root()
        return ["VAULT_ADDR": root.address, "KEYCHAIN_VAULT_PREFIX": prefix, "HOME": try makeScratchDirectory("lkc-vault").path,
                "KEYCHAIN_VAULT_TOKEN_CACHE": "off"]
    }

    /// A write, a read back and a delete through `backend`.
    private func expectRoundTrip(_ backend: VaultBackend, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let account = UUID().uuidString
        try backend.add(genericItem("login", account, Data("logged-in".utf8)))
        #expect(try storedSecret(backend, "login", account) == Data("logged-in".utf8), sourceLocation: sourceLocation)
        #expect(try backend.delete(exactQuery("login", account)) == 1, sourceLocation: sourceLocation)
    }

    @Test func appRoleLogsInWithIDsFromFilesOrVariables() throws {
        let appRole = try VaultAppRoleFixture(prefix: prefix)
        let fromFiles = VaultBackend(environment: try serverEnvironment().merging(appRole.environment) { _, new in new })
        #expect(fromFiles.availability().isAvailable, "\(fromFiles.availability().explanation)")
        try expectRoundTrip(fromFiles)

        let fromVariables = VaultBackend(environment: try serverEnvironment().merging([
            "KEYCHAIN_VAULT_AUTH": "approle", "KEYCHAIN_VAULT_AUTH_MOUNT": appRole.mount,
            "KEYCHAIN_VAULT_ROLE_ID": appRole.roleID, "KEYCHAIN_VAULT_SECRET_ID": appRole.secretID,
        ]) { _, new in new })
        try expectRoundTrip(fromVariables)
    }

    @Test func refusedLoginNamesTheRoleNeverACredential() throws {
        let appRole = try VaultAppRoleFixture(prefix: prefix)
        let wrongSecret = "wrong-\(UUID().uuidString)"
        let backend = VaultBackend(environment: try serverEnvironment().merging([
            "KEYCHAIN_VAULT_AUTH": "approle", "KEYCHAIN_VAULT_AUTH_MOUNT": appRole.mount,
            "KEYCHAIN_VAULT_ROLE_ID_FILE": appRole.roleIDFile.path, "KEYCHAIN_VAULT_SECRET_ID": wrongSecret,
        ]) { _, new in new })
        let error = keychainError { _ = try backend.search(exactQuery("login", "x")) }
        #expect(error?.status == errSecAuthFailed, "\(String(describing: error))")
        let text = "\(String(describing: error)) \(backend.availability().explanation)"
        #expect(text.contains("AppRole") && text.contains("KEYCHAIN_VAULT_ROLE_ID_FILE") && text.contains(appRole.mount), "\(text)")
        for credential in [wrongSecret, appRole.roleID, appRole.secretID] {
            #expect(!text.contains(credential), "a credential leaked into: \(text)")
        }
    }

    @Test func missingLoginSettingsAreErrorsThatSayWhatToSet() throws {
        let base = try serverEnvironment()
        for (settings, expected) in [
            (["KEYCHAIN_VAULT_AUTH": "approle"], "KEYCHAIN_VAULT_ROLE_ID"),
            (["KEYCHAIN_VAULT_AUTH": "cert"], "VAULT_CLIENT_CERT"),
            (["KEYCHAIN_VAULT_AUTH": "kerberos"], "token, approle or cert"),
            (["KEYCHAIN_VAULT_TOKEN_CACHE": "disk", "VAULT_TOKEN": "t"], "user, session or off"),
        ] {
            let error = keychainError { _ = try VaultConfiguration.fromEnvironment(base.merging(settings) { _, new in new }) }
            #expect(error?.status == errSecParam && error?.message.contains(expected) == true, "\(settings): \(String(describing: error))")
        }
    }

    /// Twenty `linux-keychain get` processes in a row log in once: the token is cached in the
    /// session keyring that `keyctl session` gives the loop, and the server holds one new token.
    @Test func twentyCLIProcessesMakeOneToken() throws {
        let appRole = try VaultAppRoleFixture(prefix: prefix)
        let cli = try builtCLI()
        // Outside the loop's own session keyring, nothing is cached (serverEnvironment sets off).
        var environment = try serverEnvironment().merging(appRole.environment) { _, new in new }
        let set = try KeychainCLIProcess.run(cli, ["--backend", "vault", "set", "fleet-app", "db"], input: Data("twenty".utf8),
                                             environment: environment)
        try #require(set.status == 0, "\(set.errorText)")

        func tokensMade(byGets count: Int, cache: String) throws -> Int {
            environment["KEYCHAIN_VAULT_TOKEN_CACHE"] = cache
            let before = try appRole.accessors()
            let loop = "i=0; while [ $i -lt \(count) ]; do \"$0\" --backend vault get fleet-app db >/dev/null || exit 1; i=$((i+1)); done"
            let gets = try KeychainCLIProcess.run(try VaultTestServer.executable("keyctl"), ["session", "-", "sh", "-c", loop, cli],
                                                  environment: environment)
            #expect(gets.status == 0, "\(gets.errorText)")
            return try appRole.loginTokens(among: try appRole.accessors().subtracting(before))
        }
        // The count is real: without the cache, each process logs in.
        #expect(try tokensMade(byGets: 3, cache: "off") == 3)
        let made = try tokensMade(byGets: 20, cache: "session")
        #expect(made == 1, "20 processes made \(made) tokens")
    }

    @Test func certificateLoginUsesTheClientCertificate() throws {
        let fixture = try VaultTLSServer()
        defer { fixture.stop() }
        try Self.enableCertificateLogin(on: fixture, prefix: prefix)
        let backend = VaultBackend(environment: try Self.certificateLoginEnvironment(fixture, prefix: prefix,
                                                                                     certificate: fixture.clientCertificate, key: fixture.clientKey))
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        try expectRoundTrip(backend)
    }

    /// Enables `cert` login on `fixture`, trusting its CA's client certificates (role `fleet`)
    /// with a policy over `prefix`.
    static func enableCertificateLogin(on fixture: VaultTLSServer, prefix: String) throws {
        let policy = "lkc-cert-kv"
        for step in [["policy", "write", policy, "-"], ["auth", "enable", "cert"],
                     ["write", "auth/cert/certs/fleet", "display_name=fleet", "token_policies=\(policy)", "certificate=@\(fixture.caFile)"]] {
            let result = try fixture.bao(step, input: step[0] == "policy" ? Data(VaultAppRoleFixture.policy(prefix: prefix).utf8) : nil)
            // A second test enabling it on the same server finds it enabled.
            try #require(result.status == 0 || result.errorText.contains("path is already in use"), "bao \(step): \(result.errorText)")
        }
    }

    /// The settings of a backend that logs in over the mutual-TLS listener with the client
    /// certificate and key in the PEM files given.
    static func certificateLoginEnvironment(_ fixture: VaultTLSServer, prefix: String, certificate: String, key: String) throws -> [String: String] {
        ["VAULT_ADDR": fixture.mutualAddress, "VAULT_CACERT": fixture.caFile, "VAULT_CLIENT_CERT": certificate,
         "VAULT_CLIENT_KEY": key, "KEYCHAIN_VAULT_AUTH": "cert", "KEYCHAIN_VAULT_CERT_ROLE": "fleet",
         "KEYCHAIN_VAULT_PREFIX": prefix, "KEYCHAIN_VAULT_PROBE_TIMEOUT": "15", "KEYCHAIN_VAULT_TOKEN_CACHE": "off",
         "HOME": try makeScratchDirectory("lkc-vault").path]
    }

    /// A real `bao agent` with AppRole auto-auth in front of the dev server: the backend,
    /// given only VAULT_AGENT_ADDR (VAULT_ADDR points nowhere, no token anywhere), works.
    @Test func vaultAgentAddsItsOwnToken() throws {
        let appRole = try VaultAppRoleFixture(prefix: prefix)
        let root = try VaultTestServer.root()
        let port = try VaultTestServer.unusedPort()
        let directory = try makeScratchDirectory("lkc-vault")
        let config = directory.appendingPathComponent("agent.hcl")
        try Data("""
            vault { address = "\(root.address)" }
            auto_auth {
              method "approle" {
                mount_path = "auth/\(appRole.mount)"
                config = {
                  role_id_file_path = "\(appRole.roleIDFile.path)"
                  secret_id_file_path = "\(appRole.secretIDFile.path)"
                  remove_secret_id_file_after_reading = false
                }
              }
            }
            api_proxy { use_auto_auth_token = true }
            listener "tcp" {
              address = "127.0.0.1:\(port)"
              tls_disable = true
            }
            """.utf8).write(to: config)
        let agent = try TestServerProcess.baoAgent(configFile: config, port: port)
        defer { agent.stop() }
        let deadAddress = "http://127.0.0.1:\(try VaultTestServer.unusedPort())"
        let backend = VaultBackend(environment: ["VAULT_ADDR": deadAddress, "VAULT_AGENT_ADDR": agent.address, "KEYCHAIN_VAULT_PREFIX": prefix,
                                                 "KEYCHAIN_VAULT_TOKEN_CACHE": "off", "HOME": directory.path])
        // Auto-auth logs in right after start-up; until then the agent forwards without a token.
        var availability = backend.availability()
        for _ in 0..<50 where !availability.isAvailable {
            Thread.sleep(forTimeInterval: 0.2)
            availability = backend.availability()
        }
        #expect(availability.isAvailable, "\(availability.explanation)")
        try expectRoundTrip(backend)
    }

    @Test func agentAddressReplacesTheServerAddressAndNeedsNoToken() throws {
        let configuration = try VaultConfiguration.fromEnvironment([
            "VAULT_ADDR": "https://vault.example.com:8200", "VAULT_AGENT_ADDR": "http://127.0.0.1:8100",
            "HOME": try makeScratchDirectory("lkc-vault").path,
        ])
        #expect(configuration.address == "http://127.0.0.1:8100")
        #expect(configuration.token == nil)
    }
}
