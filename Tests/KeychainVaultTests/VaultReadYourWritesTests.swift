import Foundation
import KeychainConformance
import KeychainCore
import KeychainSystemCalls
import KeychainTestSupport
import KeychainVault
import Testing

/// Read-your-writes on a three-node raft cluster (`with-services.sh --vault=cluster`): a read
/// right after an acknowledged write sees it, through whichever node, in one process and
/// across processes of one user. Without the storage index the backend sends back, a standby
/// answers from its own copy, which lags the leader by a few milliseconds: "not found".
@Suite("vault read-your-writes through the standbys of a cluster")
struct VaultReadYourWritesTests {
    let prefix = VaultTestServer.uniquePrefix("ryw")
    static let rounds = 100

    @Test func everyReadAfterAWriteThroughAnotherStandbySeesIt() throws {
        let cluster = try VaultTestCluster.require()
        let writers = try cluster.standbys.map { VaultBackend(configuration: try VaultConfiguration(
            address: $0, token: VaultToken(cluster.token), prefix: prefix)) }
        let readers = Array(writers.reversed())
        var stale: [String] = []
        for round in 0..<Self.rounds {
            let account = "acct-\(round)"
            let secret = Data("value-\(round)".utf8)
            try writers[round % 2].add(genericItem("svc", account, secret))
            let found = try storedSecret(readers[round % 2], "svc", account)
            if found != secret { stale.append("round \(round): added, then read \(found.map { String(decoding: $0, as: UTF8.self) } ?? "not found")") }
            let changed = Data("changed-\(round)".utf8)
            _ = try writers[round % 2].update(exactQuery("svc", account),
                                              with: ItemChanges(secret: SecretBytes(changed)))
            let reread = try storedSecret(readers[(round + 1) % 2], "svc", account)
            if reread != changed { stale.append("round \(round): updated, then read \(reread.map { String(decoding: $0, as: UTF8.self) } ?? "not found")") }
        }
        #expect(stale.isEmpty, "\(stale.count) stale reads: \(stale.prefix(5))")
    }

    /// The CLI case: each `linux-keychain` is a new process, so the index travels through the user's
    /// (here the session's) kernel keyring, where the token cache lives.
    @Test func cliSetThenGetThroughAnyNodeSeesTheValueEveryTime() throws {
        let cluster = try VaultTestCluster.require()
        var environment = try VaultTestServer.cliEnvironment(prefix: prefix)
        environment["KEYCHAIN_VAULT_TOKEN_CACHE"] = "session"
        let cli = try builtCLI()
        let nodes = cluster.standbys + [cluster.leader]
        var failures: [String] = []
        for round in 0..<Self.rounds {
            let secret = "secret-\(round)"
            var setter = environment
            setter["VAULT_ADDR"] = cluster.standbys[round % 2]
            let set = try KeychainCLIProcess.run(cli, ["--backend", "vault", "set", "cli-svc", "acct"], input: Data(secret.utf8),
                                                 environment: setter)
            try #require(set.status == 0, "round \(round): \(set.errorText)")
            var getter = environment
            // Through the same standby, the other one, and the leader, in turn.
            getter["VAULT_ADDR"] = nodes[(round + round / 2) % 3]
            let get = try KeychainCLIProcess.run(cli, ["--backend", "vault", "get", "cli-svc", "acct"], environment: getter)
            if get.status != 0 || get.output != Data(secret.utf8) {
                failures.append("round \(round) through \(getter["VAULT_ADDR"]!): exit \(get.status), \(get.outputText.isEmpty ? get.errorText : "stale")")
            }
        }
        #expect(failures.isEmpty, "\(Self.rounds - failures.count)/\(Self.rounds) reads saw the new value: \(failures.prefix(5))")
    }

    /// The kernel has no compare-and-swap, so processes writing at once would lose updates of
    /// the user's shared index entry unless they take turns: each holds the user's lock file
    /// `vault-index.lock` around its read-modify-write. While this test holds that lock, a
    /// `set` must wait out the lock's timeout (and then still store the item and the index).
    @Test func theSharedIndexIsUpdatedUnderTheUsersLock() throws {
        let cluster = try VaultTestCluster.require()
        var environment = try VaultTestServer.cliEnvironment(prefix: prefix)
        environment["KEYCHAIN_VAULT_TOKEN_CACHE"] = "session"
        environment["VAULT_ADDR"] = cluster.standbys[0]
        let cli = try builtCLI()
        let runtimeDirectory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        let held = try UserLockFile(named: "vault-index.lock", runtimeDirectory: runtimeDirectory)
            .acquire(patience: 5)
        let started = Date()
        let set = try KeychainCLIProcess.run(cli, ["--backend", "vault", "set", "locked-svc", "acct"], input: Data("v1".utf8),
                                             environment: environment)
        let waited = Date().timeIntervalSince(started)
        held.release()
        try #require(set.status == 0, "\(set.errorText)")
        #expect(waited >= 1.9, "set finished in \(waited) s while the index lock was held: it did not take the lock")

        environment["VAULT_ADDR"] = cluster.standbys[1]
        let get = try KeychainCLIProcess.run(cli, ["--backend", "vault", "get", "locked-svc", "acct"], environment: environment)
        #expect(get.status == 0 && get.output == Data("v1".utf8), "exit \(get.status): \(get.errorText)")
    }
}
