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
