import Foundation
import KeychainConformance
import Testing

/// Server setups in which OpenBao refuses a KV `PATCH`, made on the dev server for one test.
enum VaultPatchFixture {
    /// A token whose policy gives `capabilities` on the items under `prefix` (and `list`,
    /// `delete` on their metadata), as a fleet policy written before `patch` existed does.
    static func token(allowing capabilities: [String], under prefix: String) throws -> String {
        let policyName = "lkc-\(UUID().uuidString.prefix(8).lowercased())"
        let quoted = capabilities.map { "\"\($0)\"" }.joined(separator: ", ")
        let policy = """
            path "secret/data/\(prefix)/*" { capabilities = [\(quoted)] }
            path "secret/metadata/\(prefix)/*" { capabilities = ["list", "delete"] }
            """
        let written = try VaultTestServer.bao(["policy", "write", policyName, "-"], input: Data(policy.utf8))
        try #require(written.status == 0, "\(written.errorText)")
        let created = try VaultTestServer.bao(["token", "create", "-policy=\(policyName)", "-field=token"])
        let token = created.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(created.status == 0 && !token.isEmpty, "\(created.errorText)")
        return token
    }

    /// The path of a new KV version 2 mount whose every write must name a check-and-set version.
    static func checkAndSetRequiredMount() throws -> String {
        let mount = "lkc-cas-\(UUID().uuidString.prefix(8).lowercased())"
        let enabled = try VaultTestServer.bao(["secrets", "enable", "-path=\(mount)", "kv-v2"])
        try #require(enabled.status == 0, "\(enabled.errorText)")
        let configured = try VaultTestServer.bao(["write", "\(mount)/config", "cas_required=true"])
        try #require(configured.status == 0, "\(configured.errorText)")
        return mount
    }
}
