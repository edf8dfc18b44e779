import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A provider killed and something started in its place under a running process. The
    /// service proxy follows the well-known name (GDBus updates its name owner when the
    /// libsecret thread dispatches the bus's NameOwnerChanged after a job), so the connection
    /// checks who that is before it sends anything: the same gnome-keyring, serving the same
    /// login collection, is used on by the same backend value, which finds what it wrote before
    /// the kill; another program (KeePassXC), or gnome-keyring serving the collection at another
    /// path, is refused, naming both. Never a hang.
    @Suite("a provider restarted under a running process")
    struct ProviderRestart {
        /// Set by `aRestartedProviderIsUsedOnlyWhenItIsTheSameProgram` for the copy of this test
        /// binary it runs (a process of its own in a private session, so that the provider of
        /// the other tests is not touched).
        static let childPIDVariable = "LINUX_KEYCHAIN_PROVIDER_RESTART_PID"
        /// Where the child and the setup shell leave each other their files.
        static let directoryVariable = "LINUX_KEYCHAIN_PROVIDER_RESTART_DIRECTORY"
        /// What the setup shell starts once gnome-keyring was killed: gnome-keyring, keepassxc, or
        /// `otherCollection`.
        static let successorVariable = "LINUX_KEYCHAIN_PROVIDER_RESTART_SUCCESSOR"
        /// gnome-keyring again, its default alias now naming another keyring (`other`).
        static let otherCollection = "gnome-keyring-other-collection"

        /// Shell lines that start `successor` in `session`.
        static func startLines(_ successor: String, in session: PrivateSession) -> String {
            guard successor == otherCollection else { return ProviderLoss.startLines(successor, in: session) }
            return """
                mv "$XDG_DATA_HOME/keyrings/login.keyring" "$XDG_DATA_HOME/keyrings/other.keyring"
                echo -n other >"$XDG_DATA_HOME/keyrings/default"
                \(ProviderLoss.gnomeKeyringStartLine)
                """
        }

        @Test(arguments: ["gnome-keyring", otherCollection, "keepassxc"])
        func aRestartedProviderIsUsedOnlyWhenItIsTheSameProgram(_ successor: String) throws {
            try ProviderLoss.requireInstalled("gnome-keyring")
            try ProviderLoss.requireInstalled(successor)
            let session = try PrivateSession()
            defer { session.remove() }
            let results = session.directory.path
            // A KeePassXC left running would outlive the session: it is stopped once the child ends.
            let restart = """
                for _ in $(seq 1 400); do [ -f '\(results)/killed' ] && break; sleep 0.05; done
                \(ProviderLoss.startAgainLines(Self.startLines(successor, in: session)))
                touch '\(results)/restarted'
                successor=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null | awk '/uint32/ {print $2}')
                ( while kill -0 $child 2>/dev/null; do sleep 0.1; done; [ -n "$successor" ] && kill $successor ) &
                """
            try ProviderLoss.expectChildPasses(
                "providerRestartChild", provider: "gnome-keyring", in: session, pidVariable: Self.childPIDVariable,
                environment: "\(Self.directoryVariable)='\(results)' \(Self.successorVariable)=\(successor)",
                whileRunning: restart)
        }

        @Test(.enabled(if: ProcessInfo.processInfo.environment[childPIDVariable] != nil,
                       "runs only as the child of aRestartedProviderIsUsedOnlyWhenItIsTheSameProgram"))
        func providerRestartChild() throws {
            let environment = ProcessInfo.processInfo.environment
            let pid = try #require(environment[Self.childPIDVariable].flatMap { Int32($0) })
            let successor = try #require(environment[Self.successorVariable])
            let sameProgram = successor != "keepassxc"
            let backend = SecretServiceBackend()
            let service = SecretServiceTestSupport.uniqueName("restart")
            try backend.add(genericItem(service, "kept", Data("kept".utf8)))

            #expect(kill(pid, SIGKILL) == 0)
            func owned() throws -> Bool { try ProviderLoss.secretsNameOwnerReply().contains("true") }
            try ProviderLoss.waitUntil { try !owned() }
            // The setup shell starts the successor, in a new process with a new unique name,
            // once this file is there.
            let directory = try #require(environment[Self.directoryVariable])
            _ = FileManager.default.createFile(atPath: directory + "/killed", contents: nil)
            ProviderLoss.waitUntil(tries: 400) { FileManager.default.fileExists(atPath: directory + "/restarted") }
            try ProviderLoss.waitUntil { try owned() }
            usleep(200_000)
            // Jobs that send nothing (the service and the collection are kept) dispatch what the
            // bus sent meanwhile on the libsecret thread (NameOwnerChanged, and the answer to
            // the GetAll GDBus then sends the new owner), as any job's end does: the proxy
            // then names the successor, and the next call must notice before it sends. Not
            // with KeePassXC: libsecret's proxy then crashes the process (SIGSEGV under
            // g_variant_iter_init in its g-properties-changed handler, as before #29 goal 6).
            // (Where the collection moved, these are refused already, as the calls below are.)
            if sameProgram {
                _ = try? backend.perform("a job that sends nothing") { _ in 0 }
                usleep(300_000)
                _ = try? backend.perform("a job that sends nothing") { _ in 0 }
            }

            let started = DispatchTime.now()
            if successor == "gnome-keyring" {
                let found = try backend.search(exactQuery(service, "kept"))
                #expect(found.count == 1 && found.first?.secret?.makeData() == Data("kept".utf8),
                        "the item written before the kill: \(found.count) found")
                try backend.add(genericItem(service, "new", Data("n".utf8)))
                #expect(try storedSecret(backend, service, "new") == Data("n".utf8))
            } else {
                for (what, call) in ProviderLoss.aReadAndAWrite(of: service, through: backend) {
                    do {
                        try call()
                        Issue.record("\(what) reached another store")
                    } catch let error as KeychainError {
                        #expect(error.status == errSecNotAvailable, "\(what): \(error)")
                        let why = sameProgram ? ["not at /org/freedesktop/secrets/collection/login as before"]
                                              : ["is now served by KeePassXC", "it is another program"]
                        #expect((why + ["went away"]).allSatisfy(error.message.contains), "\(what): \(error)")
                    }
                }
            }
            #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 10_000_000_000, "the calls took too long")
        }
    }
}
