import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// The collection's look-up sends its requests at once and waits for all of them
    /// (`csecretservice_collection_look_up`): a provider that stops answering in the middle
    /// of a running process's look-up ends it at the timeout, and once the provider answers
    /// again the next call is answered as before (nothing late lands in a finished wait).
    @Suite("a look-up that times out")
    struct LookUpTimeout {
        /// Set by `aStoppedProviderEndsTheLookUpAtTheTimeout` for the copy of this test binary it runs.
        static let childPIDVariable = "LINUX_KEYCHAIN_LOOK_UP_TIMEOUT_PID"

        @Test func aStoppedProviderEndsTheLookUpAtTheTimeout() throws {
            try ProviderLoss.requireInstalled("gnome-keyring")
            let session = try PrivateSession()
            defer { session.remove() }
            try ProviderLoss.expectChildPasses("lookUpTimeoutChild", provider: "gnome-keyring", in: session,
                                               pidVariable: Self.childPIDVariable)
        }

        @Test(.enabled(if: ProcessInfo.processInfo.environment[childPIDVariable] != nil,
                       "runs only as the child of aStoppedProviderEndsTheLookUpAtTheTimeout"))
        func lookUpTimeoutChild() throws {
            let pid = try #require(ProcessInfo.processInfo.environment[Self.childPIDVariable].flatMap { Int32($0) })
            // An alias that names nothing: every call looks the collection up again, on the
            // connection (and the provider) the first one opened.
            let environment = ProcessInfo.processInfo.environment.merging(
                [SecretServiceSettings.collectionVariable: "lkc_none", SecretServiceSettings.timeoutVariable: "1"]) { _, new in new }
            let backend = SecretServiceBackend(settings: SecretServiceSettings(environment: environment))
            func expectMissing(_ when: String) {
                guard case .unavailable(let reason) = backend.availability() else {
                    Issue.record("\(when): a missing alias is available")
                    return
                }
                #expect(reason.status == errSecInteractionNotAllowed && reason.message.contains("has no keyring"),
                        "\(when): \(reason)")
            }
            expectMissing("before")

            #expect(kill(pid, SIGSTOP) == 0)
            let started = DispatchTime.now()
            let stopped = backend.availability()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            #expect(kill(pid, SIGCONT) == 0)
            guard case .unavailable(let reason) = stopped else {
                Issue.record("a stopped provider answered")
                return
            }
            #expect(reason.status == errSecNotAvailable, "\(reason)")
            // The 1 s timeout and the cancellation's grace; far from GDBus's own 25 s.
            #expect(seconds >= 0.9 && seconds < 3, "the look-up took \(seconds) s")

            expectMissing("after the provider answers again")
            let service = SecretServiceTestSupport.uniqueName("timeout")
            let unlocked = SecretServiceBackend()
            try unlocked.add(genericItem(service, "kept", Data("kept".utf8)))
            #expect(try SecretServiceTestSupport.secret(service, "kept", in: unlocked) == Data("kept".utf8))
        }
    }
}
