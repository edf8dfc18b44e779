import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// `availability()` checks the mount with one request, and only when that fails runs the
/// separate checks that say what is wrong.
@Suite("vault availability: one request when healthy, the first fault named when not")
struct VaultProbeTests {
    let prefix = VaultTestServer.uniquePrefix("probe")

    /// A token of its own policy only, as `bao token create -policy=... -no-default-policy`
    /// makes: `policy` is the policy's text.
    private func token(policy: String, defaultPolicy: Bool) throws -> String {
        let policyName = "lkc-\(UUID().uuidString.prefix(8).lowercased())"
        let written = try VaultTestServer.bao(["policy", "write", policyName, "-"], input: Data(policy.utf8))
        try #require(written.status == 0, "\(written.errorText)")
        let created = try VaultTestServer.bao(["token", "create", "-policy=\(policyName)", "-field=token"]
                                              + (defaultPolicy ? [] : ["-no-default-policy"]))
        let token = created.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(created.status == 0 && !token.isEmpty, "\(created.errorText)")
        return token
    }

    /// Its policies allow the items but not its own lookup: the session uses it as it is, and
    /// so does the probe, which judges it by the mount.
    @Test func tokenThatCannotLookItselfUpButReachesTheItemsIsAvailable() throws {
        let token = try token(policy: """
            path "secret/data/\(prefix)/*" { capabilities = ["create", "read", "update", "patch"] }
            path "secret/metadata/\(prefix)/*" { capabilities = ["list", "delete"] }
            """, defaultPolicy: false)
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix, token: token))
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        try backend.add(genericItem("app", "alice", Data("s".utf8)))
        #expect(try storedSecret(backend, "app", "alice") == Data("s".utf8))
    }

    /// A good token that sees no mount: the health and token checks pass, so the mount is named.
    @Test func tokenThatCannotSeeTheMountIsNotAvailableAndNamesTheMount() throws {
        let token = try token(policy: #"path "cubbyhole/*" { capabilities = ["read"] }"#, defaultPolicy: true)
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix, token: token))
        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("a token that cannot see the mount was reported available")
            return
        }
        #expect(reason.status == errSecNotAvailable, "\(reason)")
        #expect(reason.message.contains("No KV mount 'secret' is visible"), "\(reason.message)")
    }
}
