import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// OpenBao stopped and started again while a thread pool uses it (#29 goal 6). The server is
/// one of the test's own (scripts/bao-restartable.sh), with its data on disk, so that it can be
/// stopped without touching the server the other tests use; it is unsealed again on start, as an
/// operator would.
@Suite("OpenBao stopped and started under load", .serialized)
struct VaultRestartUnderLoadTests {
    /// SIGTERM is a clean shutdown; SIGKILL is a crash, after which what the server acknowledged
    /// must still be there.
    @Test(.disabled(if: VaultTestCluster.isActive, "runs against a server of its own: once, in the dev-server run"),
          arguments: ["TERM", "KILL"])
    func callsFailWhileTheServerIsDownThenRecoverAndNoAcknowledgedWriteIsLost(signal: String) throws {
        let server = try RestartableVault()
        defer { server.remove() }
        let backend = VaultBackend(configuration: try VaultConfiguration(
            address: server.address, token: VaultToken(server.token), prefix: VaultTestServer.uniquePrefix("restart")))
        // A call finds the server unreachable or sealed (errSecNotAvailable), or loses its
        // connection mid-request (errSecIO), and a write then may have been applied.
        let refusal = FaultUnderLoad.Refusal(statuses: [errSecNotAvailable, errSecIO], writeMayHaveLanded: true) { message in
            message.contains(server.address)
                && (message.contains("Check VAULT_ADDR") || message.contains("sealed") || message.contains("may have been applied")
                    || message.contains("Retry in a few seconds"))
        }
        try FaultUnderLoad(backend: backend, refusal: refusal).run(
            service: "vault-\(signal.lowercased())", fault: { try server.stop(signal: signal) }, repair: server.start)
    }
}

/// A one-node OpenBao with Integrated Storage in a scratch directory (scripts/bao-restartable.sh),
/// on the same address across restarts.
private struct RestartableVault {
    let directory: URL
    let address: String
    let token: String
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/bao-restartable.sh").path

    init() throws {
        _ = try VaultTestServer.root() // skips (or fails under KEYCHAIN_REQUIRE_ALL_BACKENDS) without OpenBao
        directory = try makeScratchDirectory("lkc-bao-restartable")
        try Self.run(directory, ["start"])
        let assignments = try String(contentsOf: directory.appendingPathComponent("env"), encoding: .utf8)
        func value(_ name: String) -> String? {
            assignments.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }
                .map { String($0.dropFirst("export \(name)=".count)) }
        }
        guard let address = value("VAULT_ADDR"), let token = value("VAULT_TOKEN") else {
            throw ConformanceFailure("bao-restartable.sh wrote no VAULT_ADDR and VAULT_TOKEN")
        }
        self.address = address
        self.token = token
    }

    func start() throws { try Self.run(directory, ["start"]) }

    func stop(signal: String) throws { try Self.run(directory, ["stop", signal]) }

    func remove() {
        try? stop(signal: "KILL")
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ directory: URL, _ arguments: [String]) throws {
        let result = try KeychainCLIProcess.run(try VaultTestServer.executable("bash"), [script, directory.path] + arguments,
                                                timeout: 90)
        guard result.status == 0 else {
            throw ConformanceFailure("bao-restartable.sh \(arguments.joined(separator: " ")) exited \(result.status): \(result.errorText)")
        }
    }
}
