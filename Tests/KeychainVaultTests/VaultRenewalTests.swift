import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import Testing

/// Tokens with lifetimes of a few seconds, used across several of them: renewed before they
/// expire, replaced by a new login when they cannot be renewed, and named when they fail.
@Suite("vault token renewal")
struct VaultRenewalTests {
    let prefix = VaultTestServer.uniquePrefix("renewal")

    /// Reads one item every 0.4 s for `seconds`, through `backend`; returns the failures.
    private func keepUsing(_ backend: VaultBackend, for seconds: TimeInterval) throws -> [String] {
        let account = UUID().uuidString
        try backend.add(genericItem("renewal", account, Data("alive".utf8)))
        var failures: [String] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            do {
                if try storedSecret(backend, "renewal", account) != Data("alive".utf8) { failures.append("wrong secret") }
            } catch {
                failures.append("\(error)")
            }
            Thread.sleep(forTimeInterval: 0.4)
        }
        _ = try? backend.delete(exactQuery("renewal", account))
        return failures
    }

    private func createToken(_ arguments: [String]) throws -> String {
        let created = try VaultTestServer.bao(["token", "create", "-field=token"] + arguments)
        let token = created.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(created.status == 0 && !token.isEmpty, "\(created.errorText)")
        return token
    }

    private func isValid(_ token: String) throws -> Bool {
        try VaultTestServer.bao(["token", "lookup", token]).status == 0
    }

    /// An 8 s periodic token used for 18 s stays valid; its twin, made at the same moment and
    /// left unused, expires (so the test would fail without renewal). The period leaves the
    /// check (a `bao` process, slow to start on a loaded machine) half of it after a last request.
    @Test func periodicTokenIsRenewedAcrossMoreThanTwoPeriods() throws {
        let used = try createToken(["-period=8s"])
        let unused = try createToken(["-period=8s"])
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix, token: used))
        let failures = try keepUsing(backend, for: 18)
        #expect(failures.isEmpty, "\(failures)")
        // A last request renews the token if less than half its period is left.
        _ = try? storedSecret(backend, "renewal", "after-use")
        #expect(try isValid(used), "the token in use expired")
        #expect(try !isValid(unused), "the unused periodic token is still valid, so the test proves nothing")
    }

    /// An AppRole token whose max TTL (4 s) stops renewal is replaced by new logins: no token
    /// lives 9 s, yet every read succeeds. (Expired tokens leave the server's accessor list,
    /// so the logins cannot be counted afterwards.)
    @Test func loginTokenPastItsMaxTTLIsReplacedByANewLogin() throws {
        let appRole = try VaultAppRoleFixture(prefix: prefix, tokenSettings: ["token_ttl=2s", "token_max_ttl=4s"])
        let backend = VaultBackend(environment: try environment(appRole.environment))
        let failures = try keepUsing(backend, for: 9)
        #expect(failures.isEmpty, "\(failures)")
    }

    /// Batch tokens cannot be renewed at all; each is replaced before it expires.
    @Test func nonRenewableLoginTokenIsReplacedByANewLogin() throws {
        let appRole = try VaultAppRoleFixture(prefix: prefix, tokenSettings: ["token_type=batch", "token_ttl=3s"])
        let backend = VaultBackend(environment: try environment(appRole.environment))
        let failures = try keepUsing(backend, for: 8)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func revokedGivenTokenIsNamedByItsSourceNotItsValue() throws {
        let token = try createToken(["-period=1h"])
        let backend = VaultBackend(environment: try environment(["VAULT_TOKEN": token]))
        try backend.add(genericItem("renewal", "revoked", Data("x".utf8)))
        let revoked = try VaultTestServer.bao(["token", "revoke", token])
        try #require(revoked.status == 0, "\(revoked.errorText)")
        let error = keychainError { _ = try backend.search(exactQuery("renewal", "revoked")) }
        #expect(error?.status == errSecAuthFailed, "\(String(describing: error))")
        #expect(error?.message.contains("the token from VAULT_TOKEN") == true, "\(String(describing: error))")
        #expect(error.map { !"\($0)".contains(token) } == true, "the token leaked into the error")
        _ = try VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix)).delete(exactQuery("renewal", "revoked"))
    }

    private func environment(_ settings: [String: String]) throws -> [String: String] {
        let root = try VaultTestServer.root()
        return ["VAULT_ADDR": root.address, "KEYCHAIN_VAULT_PREFIX": prefix, "KEYCHAIN_VAULT_TOKEN_CACHE": "off",
                "HOME": try makeScratchDirectory("lkc-vault").path].merging(settings) { _, new in new }
    }
}
