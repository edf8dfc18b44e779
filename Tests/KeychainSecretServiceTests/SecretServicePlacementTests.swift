import Foundation
import KeychainConformance
import KeychainCore
import Testing

extension SecretServiceTests {
    /// `auto` never quietly changes stores: a Secret Service that answers but is locked is
    /// chosen all the same, and once the first write recorded it, a run without D-Bus says
    /// where the items are instead of answering "not found" from another store.
    @Suite("auto stays with the Secret Service")
    struct Placement {
        static let unlock = "echo -n first-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null"

        /// The kernel keyring, which `auto` would have moved on to, holds no item (service, account).
        static func expectNotInKernelKeyring(_ service: String, _ account: String) throws {
            let run = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "keyring", "get", service, account])
            #expect(run.status == CLIExit.notFound, "the kernel keyring answered \(run.status): \(run.errorText)")
        }

        static func recordPath(_ session: PrivateSession) -> String {
            session.directory.appendingPathComponent("home/.local/state/linux-keychain/backend").path
        }

        @Test(arguments: ["locked login keyring", "no login keyring"])
        func lockedKeyringUnderAutoFailsAndNothingIsWrittenElsewhere(_ state: String) throws {
            let session = try PrivateSession()
            defer { session.remove() }
            let service = SecretServiceTestSupport.uniqueName("auto-locked")
            if state == "locked login keyring" {
                // Named, so that this first write does not record a choice for auto.
                let first = try session.runCLI(["--backend", "secret-service", "set", "--allow-empty", service, "earlier"], setup: Self.unlock)
                try #require(first.status == 0, "the unlocked session could not store: \(first.errorText)")
            }

            // runCLI's stdin is empty: --allow-empty, so that only the lock can refuse the write.
            let run = try session.runCLI(["set", "--allow-empty", service, "wallet"])
            #expect(run.status != 0 && run.status != CLIExit.notFound, "exit status \(run.status): \(run.errorText)")
            #expect(run.errorText.contains("secret-service") && run.errorText.contains("locked"), "stderr: \(run.errorText)")
            #expect(run.errorText.contains("gnome-keyring-daemon --unlock"), "stderr: \(run.errorText)")
            try Self.expectNotInKernelKeyring(service, "wallet")
            #expect(!FileManager.default.fileExists(atPath: Self.recordPath(session)), "a failed write recorded a choice")
        }

        @Test func storedInADesktopSessionThenReadWithoutDBusSaysWhereTheItemsAre() throws {
            let session = try PrivateSession()
            defer { session.remove() }
            let service = SecretServiceTestSupport.uniqueName("auto-cron")
            let stored = try session.runCLI(["set", "--allow-empty", service, "seed"], setup: Self.unlock)
            try #require(stored.status == 0, "auto could not store in the desktop session: \(stored.errorText)")
            let recorded = try String(contentsOfFile: Self.recordPath(session), encoding: .utf8)
            #expect(recorded.trimmingCharacters(in: .whitespacesAndNewlines) == "secret-service")

            // Same HOME, no session bus: a cron job.
            let home = session.directory.appendingPathComponent("home").path
            var cron = ProcessInfo.processInfo.environment
            cron["DBUS_SESSION_BUS_ADDRESS"] = nil
            cron["KEYCHAIN_BACKEND"] = nil
            cron["DISPLAY"] = nil
            cron["HOME"] = home
            cron["XDG_STATE_HOME"] = home + "/.local/state"
            cron["XDG_CONFIG_HOME"] = home + "/.config"
            cron["XDG_DATA_HOME"] = home + "/.local/share"
            cron["XDG_RUNTIME_DIR"] = session.directory.appendingPathComponent("runtime").path
            let cli = try SecretServiceTestSupport.cli()
            for arguments in [["get", service, "seed"], ["list"]] {
                let read = try runTool(cli, arguments, environment: cron)
                #expect(read.status != 0 && read.status != CLIExit.notFound, "\(arguments[0]): exit \(read.status): \(read.errorText)")
                #expect(read.errorText.contains("'secret-service'") && read.errorText.contains("Secret Service"),
                        "\(arguments[0]) stderr: \(read.errorText)")
                #expect(read.errorText.contains(Self.recordPath(session)), "\(arguments[0]) stderr: \(read.errorText)")
            }
            let write = try runTool(cli, ["set", service, "seed"], input: Data("regenerated".utf8), environment: cron)
            #expect(write.status != 0 && write.status != CLIExit.notFound, "set: exit \(write.status): \(write.errorText)")
            try Self.expectNotInKernelKeyring(service, "seed")

            let backends = try runTool(cli, ["backends"], environment: cron)
            #expect(backends.outputText.contains("in effect: nothing usable"), "linux-keychain backends: \(backends.outputText)")
        }
    }
}
