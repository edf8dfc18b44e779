import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A provider killed and started again under a running process. The service proxy follows
    /// the well-known name (GDBus updates its name owner when the libsecret thread dispatches
    /// the bus's NameOwnerChanged after a job), but the connection keeps to the provider it
    /// first reached: a call after the restart must fail naming both, never go to the new
    /// process unnoticed (which may be another program's store), and never hang.
    @Suite("a provider restarted under a running process")
    struct ProviderRestart {
        /// Set by `callsAfterARestartAreRefused` for the copy of this test binary it runs (a
        /// process of its own in a private session, so that the provider of the other tests
        /// is not touched).
        static let childPIDVariable = "LINUX_KEYCHAIN_PROVIDER_RESTART_PID"
        /// Where the child and the setup shell leave each other their files.
        static let directoryVariable = "LINUX_KEYCHAIN_PROVIDER_RESTART_DIRECTORY"

        @Test func callsAfterARestartAreRefused() throws {
            try ProviderLoss.requireInstalled("gnome-keyring")
            let session = try PrivateSession()
            defer { session.remove() }
            let results = session.directory.path
            let restart = """
                for _ in $(seq 1 400); do [ -f '\(results)/killed' ] && break; sleep 0.05; done
                # The killed daemon's control socket is left behind, and a new daemon would talk to it.
                rm -f "$XDG_RUNTIME_DIR/keyring/control"
                echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
                touch '\(results)/restarted'
                """
            try ProviderLoss.expectChildPasses("providerRestartChild", provider: "gnome-keyring", in: session,
                                               pidVariable: Self.childPIDVariable,
                                               environment: "\(Self.directoryVariable)='\(results)'", whileRunning: restart)
        }

        @Test(.enabled(if: ProcessInfo.processInfo.environment[childPIDVariable] != nil,
                       "runs only as the child of callsAfterARestartAreRefused"))
        func providerRestartChild() throws {
            let pid = try #require(ProcessInfo.processInfo.environment[Self.childPIDVariable].flatMap { Int32($0) })
            let backend = SecretServiceBackend()
            let service = SecretServiceTestSupport.uniqueName("restart")
            try backend.add(genericItem(service, "kept", Data("kept".utf8)))

            #expect(kill(pid, SIGKILL) == 0)
            func owned() throws -> Bool { try ProviderLoss.secretsNameOwnerReply().contains("true") }
            try ProviderLoss.waitUntil { try !owned() }
            // The setup shell starts the same store again, in a new process with a new unique
            // name, once this file is there.
            let directory = try #require(ProcessInfo.processInfo.environment[Self.directoryVariable])
            _ = FileManager.default.createFile(atPath: directory + "/killed", contents: nil)
            ProviderLoss.waitUntil(tries: 200) { FileManager.default.fileExists(atPath: directory + "/restarted") }
            try ProviderLoss.waitUntil { try owned() }
            usleep(200_000)
            // Jobs that send nothing (the service and the collection are kept) dispatch what the
            // bus sent meanwhile on the libsecret thread (NameOwnerChanged, and the answer to
            // the GetAll GDBus then sends the new owner), as any job's end does.
            _ = try backend.perform("a job that sends nothing") { _ in 0 }
            usleep(300_000)
            _ = try backend.perform("a job that sends nothing") { _ in 0 }

            let started = DispatchTime.now()
            for (what, call) in ProviderLoss.aReadAndAWrite(of: service, through: backend) {
                do {
                    try call()
                    Issue.record("\(what) reached the restarted provider unnoticed")
                } catch let error as KeychainError {
                    #expect(error.status == errSecNotAvailable, "\(what): \(error)")
                    #expect(error.message.contains("went away") && error.message.contains("is now served by"), "\(what): \(error)")
                }
            }
            #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 10_000_000_000, "the calls took too long")
        }
    }
}
