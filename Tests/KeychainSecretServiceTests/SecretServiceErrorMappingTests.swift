import CSecretService
import KeychainCore
@testable import KeychainSecretService
import Testing

extension SecretServiceTests {
    /// Which Apple status each kind of libsecret failure becomes. The headless tests see these
    /// errors through the CLI, which prints the message but not the status; the message
    /// fragments they look for are tied to their statuses here.
    @Suite("error mapping")
    struct ErrorMapping {
        static let cases: [(kind: CSecretServiceErrorKind, status: OSStatus, fragment: String)] = [
            (CSECRETSERVICE_ERROR_NO_PROVIDER, errSecNotAvailable, "No Secret Service provider"),
            (CSECRETSERVICE_ERROR_DISCONNECTED, errSecNotAvailable, "could not be reached"),
            (CSECRETSERVICE_ERROR_TIMEOUT, errSecNotAvailable, "did not finish"),
            (CSECRETSERVICE_ERROR_LOCKED, errSecInteractionNotAllowed, "is locked"),
            (CSECRETSERVICE_ERROR_NO_SUCH_OBJECT, errSecInteractionNotAllowed, "locked or was never created"),
            (CSECRETSERVICE_ERROR_OTHER, errSecIO, "reported an error"),
        ]

        @Test func eachFailureKindHasItsStatus() {
            for (kind, status, fragment) in Self.cases {
                var failure = CSecretServiceError()
                failure.kind = kind
                let error = SecretServiceErrors.from(failure, call: "some_call", collection: "default", seconds: 5)
                #expect(error.status == status, "\(kind) became \(error)")
                #expect(error.message.contains(fragment), "\(kind): \(error.message)")
                #expect(error.backend == SecretServiceBackend.backendName)
                #expect(error.failedCall == "some_call")
            }
        }

        @Test func lockedAndMissingKeyringsSayHowToUnlockHeadless() {
            for error in [SecretServiceErrors.locked("default"), SecretServiceErrors.missingCollection("default")] {
                #expect(error.status == errSecInteractionNotAllowed)
                #expect(error.message.contains("echo -n PASSWORD | gnome-keyring-daemon --unlock"), "\(error.message)")
            }
        }
    }
}
