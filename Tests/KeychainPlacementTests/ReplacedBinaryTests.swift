import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// A program whose binary is upgraded in place (a new file renamed over the old one, as dpkg
/// does) while it runs keeps its identity: the items it adds afterwards are in its group, so
/// the upgraded program finds them after a restart.
@Suite("a program replaced in place")
struct ReplacedBinaryTests {
    @Test func theIdentityIsTheProgramsNameAfterItsBinaryWasReplaced() throws {
        let probe = try builtExecutable("KeychainProbeA")
        let directory = try makeScratchDirectory("lkc-replaced")
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = directory.appendingPathComponent("billing-daemon")
        try FileManager.default.copyItem(atPath: probe, toPath: daemon.path)
        let environment = [
            "KEYCHAIN_BACKEND": "file", "KEYCHAIN_FILE_DIR": directory.appendingPathComponent("store").path,
            "KEYCHAIN_FILE_PASSPHRASE": "replaced-binary-test", "KEYCHAIN_FILE_CACHE_SECONDS": "0",
            "XDG_STATE_HOME": directory.appendingPathComponent("state").path,
        ]

        // The daemon is running and has made no keychain call yet: it waits for its input.
        let running = KeychainCLIProcess(daemon.path, ["add", "invoices", "token"], environment: environment, holdingInput: true)
        let pid = try #require(running.processIdentifier, "the probe did not start")
        try Self.waitUntilRunning(pid, executable: daemon.path)

        let upgrade = directory.appendingPathComponent("billing-daemon.dpkg-new")
        try FileManager.default.copyItem(atPath: probe, toPath: upgrade.path)
        try #require(rename(upgrade.path, daemon.path) == 0, "rename failed: errno \(errno)")
        let seen = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        try #require(seen.hasSuffix(" (deleted)"), "the kernel does not show the old binary as deleted: \(seen)")

        running.release(Data("after-upgrade".utf8))
        let added = try running.wait(timeout: 60)
        try #require(added.status == 0, "add after the upgrade: \(added.errorText)")

        let restarted = try KeychainCLIProcess.run(daemon.path, ["group", "invoices", "token"], environment: environment)
        #expect(restarted.status == 0 && restarted.outputText == "billing-daemon",
                "the restarted program sees its item in group '\(restarted.outputText)': exit \(restarted.status), \(restarted.errorText)")
        let read = try KeychainCLIProcess.run(daemon.path, ["get", "invoices", "token"], environment: environment)
        #expect(read.outputText == "after-upgrade", "exit \(read.status), \(read.errorText)")
    }

    /// Waits until process `pid` runs `executable` (it has been exec'd).
    private static func waitUntilRunning(_ pid: Int32, executable: String) throws {
        for _ in 0..<200 {
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == executable { return }
            usleep(10_000)
        }
        throw ConformanceFailure("process \(pid) never ran \(executable)")
    }
}
