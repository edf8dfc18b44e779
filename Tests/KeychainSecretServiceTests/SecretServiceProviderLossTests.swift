import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A provider that dies while a program uses it: the call fails with an error naming it, and
    /// nothing is redirected to a provider D-Bus would activate in its place (on a standard
    /// session bus gnome-keyring is activatable, and it is not the store the items are in).
    @Suite("a provider that dies mid-call")
    struct ProviderLoss {
        /// The repository's scripts folder, for start-keepassxc.sh.
        static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts").path

        /// Shell lines that start the provider in the private session.
        static func startLines(_ provider: String, in session: PrivateSession) -> String {
            switch provider {
            case "keepassxc":
                let directory = session.directory.appendingPathComponent("keepassxc").path
                return "bash '\(scripts)/start-keepassxc.sh' '\(directory)' >/dev/null || exit 1"
            default:
                return gnomeKeyringStartLine
            }
        }

        /// The shell line that starts gnome-keyring, unlocked, in a private session.
        static let gnomeKeyringStartLine = "echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null"

        /// Shell lines that run `start`, a provider's start line, after gnome-keyring was killed.
        static func startAgainLines(_ start: String) -> String {
            """
            # The killed daemon's control socket is left behind, and a new daemon would talk to it.
            rm -f "$XDG_RUNTIME_DIR/keyring/control"
            \(start)
            """
        }

        @Test(arguments: ["gnome-keyring", "keepassxc"])
        func killedProviderIsNamedAndNotReplaced(_ provider: String) throws {
            guard toolExists(provider == "keepassxc" ? "keepassxc" : "gnome-keyring-daemon"), toolExists("flock") else {
                try skipOrFail("\(provider) or flock is not installed")
            }
            let session = try PrivateSession()
            defer { session.remove() }
            let results = session.directory.path
            // The CLI's `set` checks availability (connecting, which fixes the provider), then
            // waits for the write lock held here; meanwhile the provider is stopped, then the
            // lock is released so the CLI's next request is in flight when the provider is
            // killed. Afterwards nothing may own org.freedesktop.secrets: no activation.
            let setup = """
                \(Self.startLines(provider, in: session))
                ask() { dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus "org.freedesktop.DBus.$1" string:org.freedesktop.secrets; }
                # gnome-keyring-daemon --unlock may return before the daemon owns the name.
                for _ in $(seq 1 100); do
                    pid=$(ask GetConnectionUnixProcessID 2>/dev/null | awk '/uint32/ {print $2}')
                    [ -n "$pid" ] && break
                    sleep 0.05
                done
                [ -n "$pid" ] || { echo "no provider started" >&2; exit 1; }
                mkdir -p -m 700 "$XDG_RUNTIME_DIR/linux-keychain"
                exec 9>"$XDG_RUNTIME_DIR/linux-keychain/secret-service.lock"
                flock 9
                echo -n secret | '\(session.cli)' --backend secret-service set lost account >/dev/null 2>'\(results)/set.err' 9>&- &
                cli=$!
                sleep 1
                kill -STOP "$pid"
                exec 9>&-
                sleep 0.5
                kill -KILL "$pid"
                wait "$cli"
                echo $? >'\(results)/set.status'
                ask NameHasOwner | awk '/boolean/ {print $2}' >'\(results)/owned'
                """
            // The CLI run that follows the setup only prints its usage; the results are in files.
            _ = try session.runCLI(["help"], setup: setup)
            let status = try String(contentsOfFile: results + "/set.status", encoding: .utf8)
            let errorText = try String(contentsOfFile: results + "/set.err", encoding: .utf8)
            let owned = try String(contentsOfFile: results + "/owned", encoding: .utf8)
            #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) != "0", "set succeeded without its provider")
            let name = provider == "keepassxc" ? "KeePassXC" : "gnome-keyring"
            #expect(errorText.contains("\(name) (pid") && errorText.contains("went away"), "set said: \(errorText)")
            #expect(owned.trimmingCharacters(in: .whitespacesAndNewlines) == "false",
                    "a provider was activated in the place of the killed one")
        }

        /// Set by `laterCallsAreRefusedNotRedirected` for the copy of this test binary it runs.
        static let childPIDVariable = "LINUX_KEYCHAIN_PROVIDER_LOSS_PID"

        /// One process goes on calling after its provider was killed, the case of a program
        /// that keeps running: each call (a read, which is retried on a new connection, and a
        /// write) fails naming the provider, and none activates gnome-keyring in its place,
        /// where the items are not. The process is a copy of this test binary running
        /// `providerLossChild` in a private session.
        @Test(arguments: ["gnome-keyring", "keepassxc"])
        func laterCallsAreRefusedNotRedirected(_ provider: String) throws {
            try Self.requireInstalled(provider)
            let session = try PrivateSession()
            defer { session.remove() }
            try Self.expectChildPasses("providerLossChild", provider: provider, in: session, pidVariable: Self.childPIDVariable)
        }

        /// The bus daemon's answer to NameHasOwner(org.freedesktop.secrets), as dbus-send prints it.
        static func secretsNameOwnerReply() throws -> String {
            try runTool("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"]).outputText
        }

        /// Asks `condition` every 50 ms until it holds, at most `tries` times.
        static func waitUntil(tries: Int = 100, _ condition: () throws -> Bool) rethrows {
            for _ in 0..<tries {
                if try condition() { return }
                usleep(50_000)
            }
        }

        /// A read of the item `kept` of `service` and an add of a new one, through `backend`,
        /// each named for the expectations on its failure.
        static func aReadAndAWrite(of service: String, through backend: SecretServiceBackend) -> [(String, () throws -> Void)] {
            [("a read", { _ = try backend.search(exactQuery(service, "kept")) }),
             ("a write", { try backend.add(genericItem(service, "new", Data("n".utf8))) })]
        }

        /// Cancels the test when `provider` is not installed (fails it under KEYCHAIN_REQUIRE_ALL_BACKENDS=1).
        static func requireInstalled(_ provider: String) throws {
            guard toolExists(provider == "keepassxc" ? "keepassxc" : "gnome-keyring-daemon") else {
                try skipOrFail("\(provider) is not installed")
            }
        }

        /// Runs, in `session` once `provider` runs there, a copy of this test binary that runs
        /// only the test `child`, with the provider's process id in `pidVariable` and the shell
        /// assignments `environment`; `whileRunning`, shell lines, run beside it. Expects it to
        /// pass.
        static func expectChildPasses(_ child: String, provider: String, in session: PrivateSession, pidVariable: String,
                                      environment: String = "", whileRunning: String = "",
                                      sourceLocation: SourceLocation = #_sourceLocation) throws {
            let results = session.directory.path
            let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let setup = """
                \(Self.startLines(provider, in: session))
                for _ in $(seq 1 100); do
                    pid=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null | awk '/uint32/ {print $2}')
                    [ -n "$pid" ] && break
                    sleep 0.05
                done
                \(pidVariable)="$pid" \(environment) timeout 120 '\(binary)' --testing-library swift-testing --filter \(child) >'\(results)/child.out' 2>&1 &
                child=$!
                \(whileRunning)
                wait $child
                echo $? >'\(results)/child.status'
                """
            _ = try session.runCLI(["help"], setup: setup)
            let status = try String(contentsOfFile: results + "/child.status", encoding: .utf8)
            let output = (try? String(contentsOfFile: results + "/child.out", encoding: .utf8)) ?? ""
            #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the child run failed: \(output)",
                    sourceLocation: sourceLocation)
            #expect(output.contains("\(child)()") && output.contains("passed"), "the child did not run: \(output)",
                    sourceLocation: sourceLocation)
        }

        @Test(.enabled(if: ProcessInfo.processInfo.environment[childPIDVariable] != nil,
                       "runs only as the child of laterCallsAreRefusedNotRedirected"))
        func providerLossChild() throws {
            let pid = try #require(ProcessInfo.processInfo.environment[Self.childPIDVariable].flatMap { Int32($0) })
            let backend = SecretServiceBackend()
            let service = SecretServiceTestSupport.uniqueName("loss")
            try backend.add(genericItem(service, "kept", Data("kept".utf8)))
            #expect(kill(pid, SIGKILL) == 0)
            try Self.waitUntil { try !Self.secretsNameOwnerReply().contains("true") }

            for (what, call) in Self.aReadAndAWrite(of: service, through: backend) {
                do {
                    try call()
                    Issue.record("\(what) succeeded after the provider was killed")
                } catch let error as KeychainError {
                    #expect(error.status == errSecNotAvailable, "\(what): \(error)")
                    #expect(error.message.contains("went away"), "\(what): \(error)")
                }
            }
            #expect(try Self.secretsNameOwnerReply().contains("false"), "a provider was activated in its place")
        }
    }
}
