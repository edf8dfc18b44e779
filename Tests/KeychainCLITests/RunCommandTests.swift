import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// `linux-keychain run`: secrets reach the command's environment and nothing else.
@Suite("linux-keychain run")
struct RunCommandTests {
    let cli: String
    let service = "cli-run-\(UUID().uuidString.prefix(8))"

    init() throws {
        cli = try builtCLI()
    }

    func keychain(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(cli, ["--backend", "keyring"] + arguments, input: input, environment: environment)
    }

    func withItems(_ body: () throws -> Void) throws {
        defer {
            _ = try? keychain(["delete", service, "alice"])
            _ = try? keychain(["delete", service, "bob"])
        }
        try #require(try keychain(["set", service, "alice"], input: Data("alice-secret".utf8)).status == 0)
        try #require(try keychain(["set", service, "bob"], input: Data("bob secret with spaces".utf8)).status == 0)
        try body()
    }

    @Test func theCommandSeesExactlyTheNamedVariablesAndTheRestOfTheEnvironment() throws {
        try withItems {
            let script = #"printf '%s|%s|%s' "$FIRST" "$SECOND" "$INHERITED"; tr '\0' ' ' < /proc/$$/cmdline"#
            let result = try keychain(["run", "--env", "FIRST", service, "alice", "--env", "SECOND", service, "bob",
                                       "--", "sh", "-c", script], environment: ["INHERITED": "kept"])
            #expect(result.status == 0, "\(result.errorText)")
            let output = result.outputText
            #expect(output.hasPrefix("alice-secret|bob secret with spaces|kept"), "\(output)")
            // The command line of the command holds no secret.
            let commandLine = output.dropFirst("alice-secret|bob secret with spaces|kept".count)
            #expect(!commandLine.contains("secret"), "command line: \(commandLine)")
        }
    }

    /// The stores' credentials are removed before the named variables are set, so a secret
    /// asked for under a credential's name still arrives.
    @Test func aVariableNamedByEnvIsSetEvenWhenItIsACredentialsName() throws {
        try withItems {
            let script = #"printf '%s|%s' "$VAULT_TOKEN" "${BAO_TOKEN-removed}""#
            let result = try keychain(["run", "--env", "VAULT_TOKEN", service, "alice", "--", "sh", "-c", script],
                                      environment: ["VAULT_TOKEN": "outer-token", "BAO_TOKEN": "outer-token"])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(result.outputText == "alice-secret|removed", "\(result.outputText)")
        }
    }

    @Test func theExitStatusIsTheCommands() throws {
        try withItems {
            let result = try keychain(["run", "--env", "TOKEN", service, "alice", "--", "sh", "-c", "exit 42"])
            #expect(result.status == 42)
            // Options after -- belong to the command.
            let help = try keychain(["run", "--env", "TOKEN", service, "alice", "--", "sh", "-c", "echo \"$0\"", "--help"])
            #expect(help.status == 0 && help.outputText == "--help\n")
        }
    }

    @Test func aMissingItemFailsBeforeAnythingRuns() throws {
        try withItems {
            let marker = scratchPath("keychain-run")
            defer { try? FileManager.default.removeItem(at: marker) }
            let result = try keychain(["run", "--env", "A", service, "alice", "--env", "B", service, "nobody",
                                       "--", "touch", marker.path])
            #expect(result.status == CLIExit.notFound)
            #expect(result.errorText.contains("no item for service '\(service)' and account 'nobody'"))
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the command ran although an item was missing")
        }
    }

    @Test func aCommandThatCannotBeFoundExits127() throws {
        try withItems {
            let result = try keychain(["run", "--env", "A", service, "alice", "--", "/nonexistent/command"])
            #expect(result.status == 127)
            #expect(!result.errorText.contains("alice-secret"))
        }
    }
}
