import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// An AppRole auth mount of one test's own on a server, with a role whose policy reaches the
/// test's prefix, its role ID and a secret ID in files, and a way to count the tokens that
/// logins through the mount made.
struct VaultAppRoleFixture {
    let mount: String
    let role = "fleet"
    let roleIDFile: URL
    let secretIDFile: URL
    let roleID: String
    let secretID: String
    private let bao: ([String], Data?) throws -> KeychainCLIProcess.Result

    /// `tokenSettings` are the role's token_* parameters, e.g. `token_ttl=3s`.
    init(prefix: String, tokenSettings: [String] = [],
         bao: @escaping ([String], Data?) throws -> KeychainCLIProcess.Result = { try VaultTestServer.bao($0, input: $1) }) throws {
        self.bao = bao
        mount = "lkc-approle-\(UUID().uuidString.prefix(8).lowercased())"
        let policy = "\(mount)-kv"
        try Self.require(bao(["policy", "write", policy, "-"], Data(VaultAppRoleFixture.policy(prefix: prefix).utf8)), "policy write")
        try Self.require(bao(["auth", "enable", "-path=\(mount)", "approle"], nil), "auth enable")
        try Self.require(bao(["write", "auth/\(mount)/role/\(role)", "token_policies=\(policy)"] + tokenSettings, nil), "role write")
        roleID = try Self.require(bao(["read", "-field=role_id", "auth/\(mount)/role/\(role)/role-id"], nil), "role-id")
        secretID = try Self.require(bao(["write", "-f", "-field=secret_id", "auth/\(mount)/role/\(role)/secret-id"], nil), "secret-id")
        let directory = try makeScratchDirectory("lkc-vault")
        roleIDFile = directory.appendingPathComponent("role-id")
        secretIDFile = directory.appendingPathComponent("secret-id")
        try Data("\(roleID)\n".utf8).write(to: roleIDFile)
        try Data("\(secretID)\n".utf8).write(to: secretIDFile)
    }

    /// The policy the docs give for a fleet's AppRole: the items under the prefix, and nothing else.
    static func policy(prefix: String, mount: String = "secret") -> String {
        """
        path "\(mount)/data/\(prefix)/*" { capabilities = ["create", "read", "update", "patch"] }
        path "\(mount)/metadata/\(prefix)/*" { capabilities = ["list", "delete"] }
        path "sys/internal/ui/mounts/\(mount)" { capabilities = ["read"] }
        """
    }

    /// The login settings for the keychain, reading both IDs from their files.
    var environment: [String: String] {
        ["KEYCHAIN_VAULT_AUTH": "approle", "KEYCHAIN_VAULT_AUTH_MOUNT": mount,
         "KEYCHAIN_VAULT_ROLE_ID_FILE": roleIDFile.path, "KEYCHAIN_VAULT_SECRET_ID_FILE": secretIDFile.path]
    }

    /// Every token accessor on the server now.
    func accessors() throws -> Set<String> {
        let listed = try bao(["list", "-format=json", "auth/token/accessors"], nil)
        guard listed.status == 0, let names = try JSONSerialization.jsonObject(with: listed.output) as? [String] else {
            throw ConformanceFailure("listing token accessors failed: \(listed.errorText)")
        }
        return Set(names)
    }

    /// How many of `accessors` belong to tokens made by a login through this mount.
    func loginTokens(among accessors: Set<String>) throws -> Int {
        try accessors.filter { accessor in
            let lookup = try bao(["write", "-field=path", "auth/token/lookup-accessor", "accessor=\(accessor)"], nil)
            return lookup.status == 0 && lookup.outputText.hasPrefix("auth/\(mount)/login")
        }.count
    }

    @discardableResult
    private static func require(_ result: KeychainCLIProcess.Result, _ step: String) throws -> String {
        guard result.status == 0 else { throw ConformanceFailure("bao \(step) failed: \(result.errorText)") }
        return result.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
