import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// The `linux-keychain` CLI on several "machines" (processes with their own HOME) sharing one server.
@Suite("vault backend across machines, through the linux-keychain CLI")
struct VaultFleetTests {
    let prefix = VaultTestServer.uniquePrefix("fleet")

    /// A machine: its own HOME holding the token in ~/.vault-token, as `bao login` leaves it,
    /// and no token in the environment.
    private func machine() throws -> [String: String] {
        let home = try makeScratchDirectory("lkc-vault")
        try Data(try VaultTestServer.root().token.utf8).write(to: home.appendingPathComponent(".vault-token"))
        var environment = try VaultTestServer.cliEnvironment(prefix: prefix)
        environment["HOME"] = home.path
        environment["VAULT_TOKEN"] = ""
        return environment
    }

    private func keychain(_ arguments: [String], on machine: [String: String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(try builtCLI(), ["--backend", "vault"] + arguments,
                                   input: input, environment: machine)
    }

    @Test func twoMachinesShareASecret() throws {
        let first = try machine()
        let second = try machine()
        #expect(first["HOME"] != second["HOME"])

        let set = try keychain(["set", "fleet-db", "deploy"], on: first, input: Data("from-first".utf8))
        try #require(set.status == 0, "\(set.errorText)")
        // Another machine shares no storage index with the first: it sees the write once its
        // node has it (docs/vault.md, consistency).
        try VaultTestCluster.awaitReplication()
        let read = try keychain(["get", "fleet-db", "deploy"], on: second)
        #expect(read.status == 0, "\(read.errorText)")
        #expect(read.output == Data("from-first".utf8))

        let update = try keychain(["set", "fleet-db", "deploy"], on: second, input: Data("rotated".utf8))
        #expect(update.status == 0, "\(update.errorText)")
        try VaultTestCluster.awaitReplication()
        #expect(try keychain(["get", "fleet-db", "deploy"], on: first).output == Data("rotated".utf8))

        let listed = try keychain(["list", "fleet-db"], on: first)
        #expect(listed.status == 0 && listed.outputText.contains("deploy"), "\(listed.outputText) \(listed.errorText)")

        let deleted = try keychain(["delete", "fleet-db", "deploy"], on: second)
        #expect(deleted.status == 0, "\(deleted.errorText)")
        try VaultTestCluster.awaitReplication()
        let missing = try keychain(["get", "fleet-db", "deploy"], on: first)
        #expect(missing.status == CLIExit.notFound, "\(missing.errorText)")
    }

    @Test func baoReadsWhatKeychainSetWrote() throws {
        let set = try keychain(["set", "web app", "admin"], on: try machine(), input: Data("p@ss wörd".utf8))
        try #require(set.status == 0, "\(set.errorText)")
        // "web app" has a space, so its folder is web%20app (see docs/vault.md's layout).
        let read = try VaultTestServer.bao(["kv", "get", "-mount=secret", "-field=password", "\(prefix)/generic/web%20app/admin"])
        #expect(read.status == 0, "\(read.errorText)")
        #expect(read.outputText == "p@ss wörd")
    }

    @Test func eightRacingAddProcessesGiveOneWinner() throws {
        let environment = try machine()
        let racers = try (0..<8).map { index in
            KeychainCLIProcess(try builtCLI(), ["--backend", "vault", "add", "fleet-race", "one"],
                               input: Data("racer-\(index)".utf8), environment: environment)
        }
        let results = try racers.map { try $0.wait() }
        let winners = results.filter { $0.status == 0 }.count
        let duplicates = results.filter { $0.status == CLIExit.duplicate }.count
        #expect(winners == 1 && duplicates == 7, "statuses \(results.map(\.status)); \(results.map(\.errorText).filter { !$0.isEmpty })")
        let stored = try keychain(["get", "fleet-race", "one"], on: environment).outputText
        #expect(stored.hasPrefix("racer-"))
    }

    @Test func unusableSettingsFailWithTheReason() throws {
        var environment = try machine()
        environment["HOME"] = try makeScratchDirectory("lkc-vault").path  // no token file
        let result = try keychain(["get", "fleet-db", "x"], on: environment)
        #expect(result.status != 0 && result.status != CLIExit.notFound)
        #expect(result.errorText.contains("VAULT_TOKEN"), "\(result.errorText)")
    }
}
