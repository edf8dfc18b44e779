import Foundation
import KeychainConformance
import Testing

/// The CLI's contract with scripts: commands, exit statuses and one-line errors.
/// Backend-specific behaviour (exact bytes across processes) is in each backend's tests.
@Suite("keychain CLI")
struct CLITests {
    let cli: String

    init() throws {
        cli = try #require(ConformanceContext.locateCLI(), "the keychain executable was not built beside the tests")
    }

    @Test func backendsListsEveryBuiltInBackendAndTheAutomaticChoice() throws {
        let result = try KeychainCLIProcess.run(cli, ["backends"])
        #expect(result.status == 0)
        for name in ["secret-service", "keyring", "file", "vault", "memory"] {
            #expect(result.outputText.contains("\n\(name) ") || result.outputText.hasPrefix("\(name) "),
                    "backends does not list \(name): \(result.outputText)")
        }
        #expect(result.outputText.contains("auto picks: "))
    }

    @Test func unknownBackendFailsNamingTheValidOnes() throws {
        let result = try KeychainCLIProcess.run(cli, ["get", "a", "b"], environment: ["KEYCHAIN_BACKEND": "nonsense"])
        #expect(result.status == 1)
        #expect(result.errorText.contains("'nonsense'"))
        for name in ["auto", "secret-service", "keyring", "file", "vault", "memory"] {
            #expect(result.errorText.contains(name))
        }
    }

    @Test func backendOptionOverridesTheEnvironment() throws {
        let result = try KeychainCLIProcess.run(cli, ["--backend", "memory", "list", "--json"],
                                                environment: ["KEYCHAIN_BACKEND": "nonsense"])
        #expect(result.status == 0, "\(result.errorText)")
        let rows = try JSONSerialization.jsonObject(with: result.output) as? [Any]
        #expect(rows?.isEmpty == true, "list --json on an empty store printed \(result.outputText)")
    }

    @Test func backendOptionAutoGoesWhereTheRecordedChoiceSays() throws {
        // `--backend auto` means what KEYCHAIN_BACKEND=auto means: the pins and the record
        // first. A record naming a store that cannot be used here is an error, never auto's
        // first store instead.
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("lkc-cli-auto-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/linux-keychain", withIntermediateDirectories: true)
        try "no-such-store\n".write(toFile: state + "/linux-keychain/backend", atomically: true, encoding: .utf8)
        let environment = ["XDG_STATE_HOME": state, "XDG_CONFIG_HOME": state + "/config",
                           "KEYCHAIN_SYSTEM_CONFIG": state + "/no-system-file"]
        let listed = try KeychainCLIProcess.run(cli, ["--backend", "auto", "list", "--json"], environment: environment)
        #expect(listed.status == 1, "listed another store: \(listed.outputText)")
        #expect(listed.errorText.contains("'no-such-store'"), "\(listed.errorText)")
        let report = try KeychainCLIProcess.run(cli, ["--backend", "auto", "backends"], environment: environment)
        #expect(report.outputText.contains("in effect: nothing usable"), "\(report.outputText)")
    }

    @Test func missingItemIsOneLineAndExitStatusThree() throws {
        let result = try KeychainCLIProcess.run(cli, ["--backend", "memory", "get", "no-such-service", "nobody"])
        #expect(result.status == CLIExit.notFound)
        #expect(result.output.isEmpty)
        let lines = result.errorText.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(result.errorText.contains("no item for service 'no-such-service' and account 'nobody'"))
    }

    @Test(arguments: [[], ["get", "only-service"], ["frobnicate"], ["set", "a", "b", "c"], ["--bogus", "list"], ["get", "a", "b", "--json"]])
    func usageErrorsPrintUsageAndExitTwo(_ arguments: [String]) throws {
        let result = try KeychainCLIProcess.run(cli, arguments)
        #expect(result.status == 2)
        #expect(result.errorText.contains("usage: keychain"))
    }

    @Test func memoryBackendKeepsNothingBetweenProcesses() throws {
        // Each CLI process has its own memory store: a set succeeds, and the next process
        // finds nothing, so `memory` never leaves a secret behind on the machine.
        let set = try KeychainCLIProcess.run(cli, ["--backend", "memory", "set", "svc", "acct"], input: Data("x".utf8))
        #expect(set.status == 0, "\(set.errorText)")
        let get = try KeychainCLIProcess.run(cli, ["--backend", "memory", "get", "svc", "acct"])
        #expect(get.status == CLIExit.notFound)
    }
}
