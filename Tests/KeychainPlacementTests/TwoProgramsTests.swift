import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import LinuxKeychain
import Testing

/// Two separately built programs, `KeychainProbeA` and `KeychainProbeB`, each with its own
/// default identity (its executable's name), on every real backend: what one adds, reads and
/// wipes with Apple's class-wide `SecItemDelete` never reaches the other's items, and an item
/// the operator provisioned with `linux-keychain set` stays readable by both (docs/placement.md).
@Suite("two programs, one store")
struct TwoProgramsTests {
    @Test(arguments: ["secret-service", "keyring", "file", "vault"])
    func classWideDeleteByOneProgramLeavesTheOthersItems(_ backendName: String) throws {
        try requireAvailable(KeychainBackendRegistry.withBuiltIns.backend(named: backendName))
        let environment = ["KEYCHAIN_BACKEND": backendName]
        let service = PlacementTestSupport.uniqueName("two-programs")
        let probeA = try builtExecutable("KeychainProbeA")
        let probeB = try builtExecutable("KeychainProbeB")
        let cli = try builtExecutable("linux-keychain")
        defer {
            for account in ["token", "provisioned"] {
                for group in ["", "KeychainProbeA", "KeychainProbeB"] {
                    let scoped = group.isEmpty ? [] : ["--group", group]
                    _ = try? KeychainCLIProcess.run(cli, scoped + ["delete", service, account], environment: environment)
                }
            }
        }

        let provisioned = try KeychainCLIProcess.run(cli, ["set", service, "provisioned"], input: Data("operator".utf8),
                                                     environment: environment)
        try #require(provisioned.status == 0, "linux-keychain set: \(provisioned.errorText)")
        // The same service and account in both programs: two items, one per group.
        for (probe, secret) in [(probeA, "secret-a"), (probeB, "secret-b")] {
            let added = try KeychainCLIProcess.run(probe, ["add", service, "token"], input: Data(secret.utf8), environment: environment)
            try #require(added.status == 0, "\(probe) add: \(added.errorText)")
        }
        #expect(try Self.read(probeA, service, "token", environment) == "secret-a")
        #expect(try Self.read(probeB, service, "token", environment) == "secret-b")
        #expect(try Self.run(probeA, ["group", service, "token"], environment).outputText == "KeychainProbeA",
                "the item reports its real access group")
        #expect(try Self.run(probeB, ["group", service, "provisioned"], environment).outputText == "",
                "a shared item reports no group")
        // KEYCHAIN_ACCESS_GROUP gives a program another identity: B, started as A, reads A's item.
        let asA = environment.merging([KeychainProgramIdentity.variable: "KeychainProbeA"]) { _, new in new }
        #expect(try Self.read(probeB, service, "token", asA) == "secret-a")

        // The operator sees every group and says which item is whose.
        let listed = try KeychainCLIProcess.run(cli, ["list", service, "--json"], environment: environment)
        let rows = try #require(try JSONSerialization.jsonObject(with: listed.output) as? [[String: Any]], "list --json: \(listed.outputText)")
        let groups = Set(rows.compactMap { $0["group"] as? String })
        #expect(groups == ["", "KeychainProbeA", "KeychainProbeB"], "list --json: \(listed.outputText)")

        let wiped = try KeychainCLIProcess.run(probeA, ["delete-all"], environment: environment)
        #expect(wiped.status == 0, "delete-all: \(wiped.errorText)")

        #expect(try Self.run(probeA, ["get", service, "token"], environment).status == CLIExit.notFound,
                "program A's own item survived its class-wide delete")
        #expect(try Self.read(probeB, service, "token", environment) == "secret-b", "program A's delete reached program B's item")
        // The documented rule: a program's class-wide delete never removes shared items.
        #expect(try Self.read(probeA, service, "provisioned", environment) == "operator")
        #expect(try Self.read(probeB, service, "provisioned", environment) == "operator")
        let operatorView = try KeychainCLIProcess.run(cli, ["get", service, "provisioned"], environment: environment)
        #expect(operatorView.outputText == "operator", "linux-keychain get: \(operatorView.errorText)")
    }

    private static func run(_ probe: String, _ arguments: [String], _ environment: [String: String]) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(probe, arguments, environment: environment)
    }

    private static func read(_ probe: String, _ service: String, _ account: String,
                             _ environment: [String: String]) throws -> String? {
        let result = try run(probe, ["get", service, account], environment)
        guard result.status == 0 else {
            Issue.record("\(URL(fileURLWithPath: probe).lastPathComponent) get \(account): exit \(result.status), \(result.errorText)")
            return nil
        }
        return result.outputText
    }

    /// A program's own `vault` wins over the built-in one, registered before or after the
    /// first keychain call; no Vault is configured, so the built-in one could not have answered.
    @Test(arguments: ["before", "after"])
    func ownRegistrationWinsOverTheBuiltIn(_ when: String) throws {
        let probe = try builtExecutable("KeychainProbeA")
        var environment = ["KEYCHAIN_BACKEND": "vault"]
        for name in ["VAULT_ADDR", "BAO_ADDR", "VAULT_TOKEN", "BAO_TOKEN", "VAULT_AGENT_ADDR", "BAO_AGENT_ADDR"] {
            environment[name] = ""
        }
        let result = try KeychainCLIProcess.run(probe, ["own-vault", when], environment: environment)
        #expect(result.status == 0, "registered \(when) the first call: exit \(result.status), \(result.errorText)")
    }
}

/// Helpers of the placement tests.
enum PlacementTestSupport {
    static func uniqueName(_ prefix: String) -> String {
        "lkc-\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
    }
}
