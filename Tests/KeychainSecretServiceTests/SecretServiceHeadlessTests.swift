import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// Headless, locked, absent: every case ends fast, with the right status and a message that
    /// says what to do, and never hangs or reports "not found".
    @Suite("headless, locked and absent")
    struct Headless {
        /// The environment of this process with `changes` applied (nil removes a variable).
        static func environment(_ changes: [String: String?]) -> [String: String] {
            var environment = ProcessInfo.processInfo.environment
            for (name, value) in changes { environment[name] = value }
            return environment
        }

        @Test func noSessionBusIsNotAvailableWithinASecond() throws {
            let emptyRuntime = scratchPath("lkc-ss-runtime")
            try FileManager.default.createDirectory(at: emptyRuntime, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: emptyRuntime) }
            // DISPLAY is set so that an X11 autolaunch of a bus, if anything attempted one, would be tried.
            let environment = Self.environment(["DBUS_SESSION_BUS_ADDRESS": nil, "XDG_RUNTIME_DIR": emptyRuntime.path,
                                                "DISPLAY": ":99"])
            let backend = SecretServiceBackend(settings: SecretServiceSettings(environment: environment))

            let start = Date()
            guard case .unavailable(let reason) = backend.availability() else {
                Issue.record("the backend claims to be available without a session bus")
                return
            }
            #expect(reason.status == errSecNotAvailable)
            #expect(reason.message.contains("no D-Bus session bus"), "message: \(reason.message)")
            expectKeychainError(errSecNotAvailable) {
                _ = try backend.search(exactQuery("a", "b"))
            }
            expectKeychainError(errSecNotAvailable) {
                try backend.add(genericItem("a", "b", Data("x".utf8)))
            }
            #expect(Date().timeIntervalSince(start) < 1, "without a bus the calls took \(Date().timeIntervalSince(start)) s")

            let cli = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "get", "a", "b"],
                                  environment: environment)
            #expect(cli.status != 0 && cli.status != CLIExit.notFound, "exit status \(cli.status)")
            #expect(cli.errorText.contains("no D-Bus session bus"), "stderr: \(cli.errorText)")
            // Process start-up included; generous for a loaded machine.
            #expect(cli.seconds < 5, "the CLI took \(cli.seconds) s")
        }

        /// A fresh HOME where gnome-keyring is D-Bus-activatable but nothing was ever unlocked:
        /// there is no login keyring, and making one would need a prompt.
        @Test func unactivatedGnomeKeyringIsInteractionNotAllowed() throws {
            let session = try PrivateSession()
            defer { session.remove() }
            let run = try session.runCLI(["--backend", "secret-service", "get", "a", "b"])
            #expect(run.status != 0 && run.status != CLIExit.notFound, "exit status \(run.status): \(run.errorText)")
            #expect(run.errorText.contains("locked"), "stderr: \(run.errorText)")
            #expect(run.errorText.contains("gnome-keyring-daemon --unlock"), "stderr: \(run.errorText)")
            // Well under the 5 s default timeout: it failed because of the state, not by waiting.
            #expect(run.milliseconds < 4000, "took \(run.milliseconds) ms")

            // `auto` does not move on past a provider that answers: it picks it, and says it is locked.
            let backends = try session.runCLI(["backends"])
            let lines = backends.output.split(separator: "\n")
            let secretService = lines.first { $0.hasPrefix("secret-service") } ?? ""
            #expect(secretService.contains("not usable") && secretService.contains("locked"), "linux-keychain backends: \(backends.output)")
            let automatic = lines.first { $0.hasPrefix("auto picks") } ?? ""
            #expect(automatic.contains("secret-service") && automatic.contains("locked"), "linux-keychain backends: \(backends.output)")
        }

        /// The login keyring exists (it was unlocked once, in an earlier session) but the
        /// daemon activated now has not unlocked it.
        @Test func lockedLoginKeyringIsInteractionNotAllowed() throws {
            let session = try PrivateSession()
            defer { session.remove() }
            // `set` reads stdin, which is empty here: an empty secret, stored as asked.
            let first = try session.runCLI(["--backend", "secret-service", "set", "--allow-empty", "a", "b"],
                                           setup: "echo -n first-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null")
            #expect(first.status == 0, "the unlocked session could not store: \(first.errorText)")

            let run = try session.runCLI(["--backend", "secret-service", "get", "a", "b"])
            #expect(run.status != 0 && run.status != CLIExit.notFound, "exit status \(run.status): \(run.errorText)")
            #expect(run.errorText.contains("is locked"), "stderr: \(run.errorText)")
            #expect(run.errorText.contains("gnome-keyring-daemon --unlock"), "stderr: \(run.errorText)")
            #expect(run.milliseconds < 4000, "took \(run.milliseconds) ms")
        }

        @Test func busWithoutProviderIsNotAvailable() throws {
            let session = try PrivateSession()
            defer { session.remove() }
            let run = try session.runCLI(["--backend", "secret-service", "get", "a", "b"],
                                         configFile: try session.busConfigurationWithoutServices())
            #expect(run.status != 0 && run.status != CLIExit.notFound, "exit status \(run.status): \(run.errorText)")
            #expect(run.errorText.contains("No Secret Service provider"), "stderr: \(run.errorText)")
            #expect(run.milliseconds < 4000, "took \(run.milliseconds) ms")
        }

        /// A provider that owns the name but never answers: the call ends at the timeout.
        @Test func unresponsiveProviderEndsAtTheTimeout() throws {
            let probe = try runTool("python3", ["-c", "import jeepney"])
            guard probe.status == 0 else {
                try skipOrFail("python3 jeepney (installed with Python keyring) is missing")
            }
            let session = try PrivateSession()
            defer { session.remove() }
            let squatter = """
                import time
                from jeepney.io.blocking import open_dbus_connection
                from jeepney.bus_messages import message_bus
                connection = open_dbus_connection(bus='SESSION')
                connection.send_and_get_reply(message_bus.RequestName('org.freedesktop.secrets'))
                print('owned', flush=True)
                time.sleep(60)
                """
            let marker = session.directory.appendingPathComponent("squatter").path
            let setup = """
                python3 -c "\(squatter)" >'\(marker)' &
                squatter=$!
                trap 'kill $squatter' EXIT
                for _ in $(seq 1 200); do grep -q owned '\(marker)' && break; sleep 0.05; done
                """
            let run = try session.runCLI(["--backend", "secret-service", "get", "a", "b"], setup: setup,
                                         environment: [SecretServiceSettings.timeoutVariable: "1"])
            #expect(run.status != 0 && run.status != CLIExit.notFound, "exit status \(run.status): \(run.errorText)")
            #expect(run.errorText.contains("did not finish"), "stderr: \(run.errorText)")
            #expect(run.errorText.contains(SecretServiceSettings.timeoutVariable), "stderr: \(run.errorText)")
            // 1 s timeout, plus the cancellation grace, plus process start-up.
            #expect(run.milliseconds < 4000, "took \(run.milliseconds) ms")
        }

        /// `linux-keychain backends` with a provider that is stopped (SIGSTOP) checks the Secret
        /// Service once: one timeout, not one for the list and another for auto's choice.
        @Test func backendsWaitsForAStoppedProviderOnce() throws {
            let session = try PrivateSession()
            defer { session.remove() }
            let setup = """
                gnome-keyring-daemon --foreground --components=secrets >/dev/null 2>&1 &
                provider=$!
                trap 'kill -KILL $provider; kill -CONT $provider' EXIT
                for _ in $(seq 1 100); do gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                    --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true && break; sleep 0.05; done
                kill -STOP $provider
                """
            let run = try session.runCLI(["backends"], setup: setup,
                                         environment: [SecretServiceSettings.timeoutVariable: "2", "KEYCHAIN_BACKEND": ""])
            #expect(run.status == 0, "exit status \(run.status): \(run.errorText)")
            #expect(run.output.contains("secret-service"), "output: \(run.output)")
            // One 2 s timeout, plus the cancellation grace and start-up; two would pass 4 s.
            #expect(run.milliseconds >= 2000 && run.milliseconds < 3500, "took \(run.milliseconds) ms")
        }

        @Test func malformedTimeoutIsAParameterError() throws {
            let backend = SecretServiceBackend(settings: SecretServiceSettings(
                environment: Self.environment([SecretServiceSettings.timeoutVariable: "soon"])))
            guard case .unavailable(let reason) = backend.availability() else {
                Issue.record("a malformed timeout was accepted")
                return
            }
            #expect(reason.status == errSecParam)
            #expect(reason.message.contains(SecretServiceSettings.timeoutVariable))
        }
    }
}
