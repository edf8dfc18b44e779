import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// gnome-keyring killed (SIGKILL) and started again while a thread pool uses the backend
    /// (#29 goal 6): calls fail with errSecNotAvailable, fast, while it is gone; every
    /// acknowledged write is in its keyring file afterwards; and the same backend value goes on
    /// once it is back. It runs in a copy of this test binary in a private session with a
    /// gnome-keyring of its own, since the other tests use the shared one meanwhile. The
    /// collection is the default one, the login keyring, which gnome-keyring keeps in a file:
    /// the session collection is in memory and dies with the daemon.
    @Suite("gnome-keyring killed and restarted under load")
    struct ProviderRestartUnderLoad {
        /// Set for the child: the process id of the private session's gnome-keyring.
        static let childPIDVariable = "LINUX_KEYCHAIN_RESTART_UNDER_LOAD_PID"
        /// The child's limit on one call, in seconds.
        static let callTimeout = 5.0

        @Test func callsFailWhileItIsGoneThenRecoverAndNoAcknowledgedWriteIsLost() throws {
            try ProviderLoss.requireInstalled("gnome-keyring")
            let session = try PrivateSession()
            defer { session.remove() }
            try ProviderLoss.expectChildPasses(
                "restartUnderLoadChild", provider: "gnome-keyring", in: session, pidVariable: Self.childPIDVariable,
                environment: "\(SecretServiceSettings.collectionVariable)=default \(SecretServiceSettings.timeoutVariable)=\(Self.callTimeout)")
        }

        @Test(.enabled(if: ProcessInfo.processInfo.environment[childPIDVariable] != nil,
                       "runs only as the child of callsFailWhileItIsGoneThenRecoverAndNoAcknowledgedWriteIsLost"))
        func restartUnderLoadChild() throws {
            let environment = ProcessInfo.processInfo.environment
            let pid = try #require(environment[Self.childPIDVariable].flatMap { Int32($0) })
            func owned() throws -> Bool { try ProviderLoss.secretsNameOwnerReply().contains("true") }
            // A write in flight when the daemon died may have been stored before it was answered.
            let refusal = FaultUnderLoad.Refusal(statuses: [errSecNotAvailable], writeMayHaveLanded: true) {
                $0.contains("gnome-keyring (pid") && $0.contains("went away") && $0.contains("check whether it took effect")
            }
            let started = Date()
            let faulted = try FaultUnderLoad(backend: SecretServiceBackend(), refusal: refusal).run(
                service: SecretServiceTestSupport.uniqueName("restart-load"),
                fault: {
                    try #require(kill(pid, SIGKILL) == 0)
                    try ProviderLoss.waitUntil { try !owned() }
                },
                repair: {
                    // The daemon outlives the shell: it must not keep the descriptor by which
                    // Foundation learns that the shell ended.
                    let closeInherited = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done"#
                    let start = try runTool("bash", ["-c", closeInherited + "\n"
                        + ProviderLoss.startAgainLines(ProviderLoss.gnomeKeyringStartLine)])
                    try #require(start.status == 0, "gnome-keyring did not start again: \(start.errorText)")
                    try ProviderLoss.waitUntil { try owned() }
                })
            print("gnome-keyring restart under load: \(String(format: "%.1f", Date().timeIntervalSince(started))) s in all")
            #expect(faulted.slowestCall < Self.callTimeout + 1, "a call hung while gnome-keyring was gone: \(faulted)")
            let keyring = try #require(environment["XDG_DATA_HOME"]) + "/keyrings/login.keyring"
            #expect(FileManager.default.fileExists(atPath: keyring), "the items were not in the login keyring's file")
        }
    }
}
