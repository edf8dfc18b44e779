import Foundation
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import Testing

/// Settings read like the vault and bao CLIs read them. No server needed.
@Suite("vault configuration from the environment")
struct VaultConfigurationTests {
    private func homeWithToken(_ token: String?) throws -> String {
        let home = try makeScratchDirectory("lkc-vault")
        if let token { try Data("\(token)\n".utf8).write(to: home.appendingPathComponent(".vault-token")) }
        return home.path
    }

    @Test func defaultsFollowTheIssue() throws {
        let configuration = try VaultConfiguration.fromEnvironment(["VAULT_ADDR": "http://127.0.0.1:8200/", "VAULT_TOKEN": "t",
                                                                    "HOME": try homeWithToken(nil)])
        #expect(configuration.address == "http://127.0.0.1:8200")
        #expect(configuration.mount == "secret")
        #expect(configuration.prefix == "linux-keychain")
        #expect(configuration.namespace == nil)
        #expect(configuration.requestTimeout == 10 && configuration.probeTimeout == 1)
    }

    @Test func baoVariablesWinOverVaultOnes() throws {
        let configuration = try VaultConfiguration.fromEnvironment([
            "VAULT_ADDR": "http://vault:8200", "BAO_ADDR": "https://bao:8200", "VAULT_TOKEN": "vault-token", "BAO_TOKEN": "bao-token",
            "VAULT_NAMESPACE": "team", "KEYCHAIN_VAULT_MOUNT": "/kv/team/", "KEYCHAIN_VAULT_PREFIX": "apps/keychain",
            "KEYCHAIN_VAULT_TIMEOUT": "2.5", "KEYCHAIN_VAULT_PROBE_TIMEOUT": "0.5",
        ])
        #expect(configuration.address == "https://bao:8200")
        #expect(configuration.token?.value == "bao-token")
        #expect(configuration.namespace == "team")
        #expect(configuration.mount == "kv/team" && configuration.prefix == "apps/keychain")
        #expect(configuration.requestTimeout == 2.5 && configuration.probeTimeout == 0.5)
    }

    @Test func tokenFileIsUsedWhenNoVariableIsSet() throws {
        let configuration = try VaultConfiguration.fromEnvironment(["VAULT_ADDR": "http://127.0.0.1:8200", "VAULT_TOKEN": "",
                                                                    "HOME": try homeWithToken("s.from-file")])
        #expect(configuration.token?.value == "s.from-file")
    }

    @Test func missingAddressOrTokenSaysWhatToSet() throws {
        let noAddress = keychainError { _ = try VaultConfiguration.fromEnvironment(["VAULT_TOKEN": "t"]) }
        #expect(noAddress?.status == errSecNotAvailable && noAddress?.message.contains("VAULT_ADDR") == true)
        let noToken = keychainError {
            _ = try VaultConfiguration.fromEnvironment(["VAULT_ADDR": "http://127.0.0.1:8200", "HOME": try homeWithToken(nil)])
        }
        #expect(noToken?.status == errSecNotAvailable && noToken?.message.contains("bao login") == true)
    }

    @Test(arguments: [
        ["KEYCHAIN_VAULT_PREFIX": "../escape"], ["KEYCHAIN_VAULT_PREFIX": "a/./b"], ["KEYCHAIN_VAULT_MOUNT": "/"],
        ["KEYCHAIN_VAULT_TIMEOUT": "soon"], ["KEYCHAIN_VAULT_TIMEOUT": "0"], ["KEYCHAIN_VAULT_PROBE_TIMEOUT": "-1"],
        ["VAULT_ADDR": "unix:///run/vault.sock"], ["VAULT_ADDR": "vault.example.com:8200"], ["VAULT_ADDR": "http://h:1/v1"],
        ["VAULT_NAMESPACE": "team\nX-Injected: 1"], ["VAULT_TOKEN": "t\r\nX-Injected: 1"],
    ])
    func invalidSettingsAreRejected(_ overrides: [String: String]) {
        let environment = ["VAULT_ADDR": "http://127.0.0.1:8200", "VAULT_TOKEN": "t"].merging(overrides) { _, new in new }
        let error = keychainError { _ = try VaultConfiguration.fromEnvironment(environment) }
        #expect(error?.status == errSecParam, "\(overrides): \(String(describing: error))")
    }

    @Test(arguments: [
        ["VAULT_SKIP_VERIFY": "yes"], ["VAULT_CAPATH": "/nonexistent/cas"], ["BAO_CACERT": "/nonexistent/ca.pem"],
        ["BAO_CLIENT_CERT": "/etc/hostname"], ["VAULT_CLIENT_KEY": "/etc/hostname"], ["VAULT_TLS_SERVER_NAME": "a b"],
    ])
    func unusableTLSSettingsAreErrorsNamingTheVariable(_ overrides: [String: String]) {
        let environment = ["VAULT_ADDR": "https://127.0.0.1:8200", "VAULT_TOKEN": "t"].merging(overrides) { _, new in new }
        let error = keychainError { _ = try VaultConfiguration.fromEnvironment(environment) }
        #expect(error?.status == errSecParam, "\(overrides): \(String(describing: error))")
        #expect(error?.message.contains(overrides.keys.first ?? "") == true, "the error names the variable as set: \(String(describing: error))")
    }

    @Test func tlsSettingsAreReadWithBaoTwinsFirst() throws {
        let folder = try makeScratchDirectory("lkc-vault")
        let file = folder.appendingPathComponent("file.pem").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let configuration = try VaultConfiguration.fromEnvironment([
            "VAULT_ADDR": "https://127.0.0.1:8200", "VAULT_TOKEN": "t", "BAO_CACERT": file, "VAULT_CACERT": "/nonexistent",
            "VAULT_CLIENT_CERT": file, "BAO_CLIENT_KEY": file, "VAULT_TLS_SERVER_NAME": "vault.example.com", "BAO_SKIP_VERIFY": "false",
        ])
        #expect(configuration.tls == VaultTLSSettings(caFile: file, clientCertificate: file, clientKey: file,
                                                      serverName: "vault.example.com", skipVerify: false))
    }

    @Test func tokenNeverShowsInDescriptions() throws {
        let token = "s.very-secret-\(UUID().uuidString)"
        let configuration = try VaultConfiguration(address: "http://127.0.0.1:8200", token: VaultToken(token))
        for text in [String(describing: configuration), String(reflecting: configuration), "\(configuration.token!)", "\(configuration.authentication)"] {
            #expect(!text.contains(token), "\(text)")
        }
    }
}
