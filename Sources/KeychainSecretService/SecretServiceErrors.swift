import CSecretService
import KeychainCore

/// The errors of the `secret-service` backend: each GLib failure turned into Apple's status and
/// a message that says what to do.
enum SecretServiceErrors {
    static let backend = SecretServiceBackend.backendName

    /// How to unlock a keyring without a prompter, said in every "locked" error.
    static let unlockAdvice = "Unlock it first: in a desktop session, log in or unlock it in Seahorse; headless, in the same D-Bus session run `echo -n PASSWORD | gnome-keyring-daemon --unlock` (which also creates the login keyring if there is none). Or choose another backend with KEYCHAIN_BACKEND."

    /// The collection exists but is locked, and this library never shows a prompt.
    static func locked(_ collection: String) -> KeychainError {
        KeychainError(errSecInteractionNotAllowed,
            "The Secret Service keyring '\(collection)' is locked, and unlocking it needs a password prompt, which the keychain never shows. \(unlockAdvice)",
            backend: backend)
    }

    /// The provider has no such collection: with gnome-keyring, the login keyring was never
    /// created or unlocked since it started. Creating one would need a prompt too.
    static func missingCollection(_ collection: String) -> KeychainError {
        KeychainError(errSecInteractionNotAllowed,
            "The Secret Service has no keyring '\(collection)': it is locked or was never created (gnome-keyring makes the login keyring only when it is first unlocked), and creating it needs a password prompt, which the keychain never shows. \(unlockAdvice) To use another keyring set \(SecretServiceSettings.collectionVariable), e.g. to 'session'.",
            backend: backend)
    }

    /// The provider this process was using left the bus (crashed, was killed or quit), during
    /// `call`; `now` is whoever owns org.freedesktop.secrets instead, if anyone. The next call
    /// uses `now` when it is the same program serving the collection where `provider` did.
    static func providerGone(_ provider: SecretServiceProvider, during call: String,
                             now: SecretServiceProvider?) -> KeychainError {
        let instead: String
        switch now {
        case nil: instead = "nothing serves org.freedesktop.secrets now"
        case let now? where provider.isSameProgram(as: now):
            instead = "it was started again as \(now.description), which the next call uses if it serves the collection at the same object path"
        case let now?:
            instead = "org.freedesktop.secrets is now served by \(now.description), which this program does not use, since it is another program and may not hold the same items"
        }
        return KeychainError(errSecNotAvailable,
            "The Secret Service provider \(provider.description) went away during '\(call)'; \(instead). If this was a write, check whether it took effect once the provider runs again. \(startAgain(provider))",
            backend: backend, failedCall: call)
    }

    /// `provider` went away and the same program took org.freedesktop.secrets again as `now`,
    /// but serves the collection at `path`, not at `pathBefore` (both as the provider said them):
    /// maybe another store, not used.
    static func providerRestartedElsewhere(_ provider: SecretServiceProvider, now: SecretServiceProvider,
                                           collection: String, path: String, pathBefore: String,
                                           call: String) -> KeychainError {
        KeychainError(errSecNotAvailable,
            "The Secret Service provider \(provider.description) went away and was started again as \(now.description), which this program does not use, since it serves the keyring '\(collection)' at \(ForeignText.printable(path)), not at \(ForeignText.printable(pathBefore)) as before, and may not hold the same items. \(startAgain(provider))",
            backend: backend, failedCall: call)
    }

    /// What to do about a provider that went away.
    private static func startAgain(_ provider: SecretServiceProvider) -> String {
        "Start \(provider.kind == .keePassXC ? "KeePassXC with its database unlocked" : "the provider") again with the same keyring; to use another provider or keyring, restart this program."
    }

    /// The connection opened but the provider behind it could not be identified.
    static func providerUnknown() -> KeychainError {
        KeychainError(errSecNotAvailable, "The Secret Service provider left the bus while the connection was being opened.",
                      backend: backend, failedCall: "org.freedesktop.Secret.Service.OpenSession")
    }

    static func libraryMissing(_ path: String, _ reason: String) -> KeychainError {
        KeychainError(errSecNotAvailable,
            "libsecret could not be loaded (\(reason)). Install it (Debian/Ubuntu: libsecret-1-0, Fedora: libsecret) to use the Secret Service, or choose another backend with KEYCHAIN_BACKEND.",
            backend: backend, failedCall: "dlopen(\(path))")
    }

    static func timedOut(_ seconds: Double, _ what: String) -> KeychainError {
        KeychainError(errSecNotAvailable,
            "The Secret Service did not finish \(what) within \(seconds) s; if this was a write, check whether it took effect. Make sure the provider (e.g. gnome-keyring-daemon) is responsive, or allow more time with \(SecretServiceSettings.timeoutVariable).",
            backend: backend)
    }

    /// `failure` from the C shim as a keychain error. `collection` names the keyring for the
    /// locked and missing cases; `seconds` is the timeout in force.
    static func from(_ failure: CSecretServiceError, call: String, collection: String, seconds: Double) -> KeychainError {
        let detail = message(of: failure)
        switch failure.kind {
        case CSECRETSERVICE_ERROR_TIMEOUT:
            var error = timedOut(seconds, "'\(call)'")
            error.failedCall = call
            return error
        case CSECRETSERVICE_ERROR_NO_PROVIDER:
            return KeychainError(errSecNotAvailable,
                "No Secret Service provider answers on the session bus (\(detail)). Install and start one, e.g. gnome-keyring or KeePassXC with Secret Service integration, or choose another backend with KEYCHAIN_BACKEND.",
                backend: backend, failedCall: call)
        case CSECRETSERVICE_ERROR_DISCONNECTED:
            return KeychainError(errSecNotAvailable,
                "The session bus or the Secret Service provider could not be reached (\(detail)). Check DBUS_SESSION_BUS_ADDRESS and that the provider is running.",
                backend: backend, failedCall: call)
        case CSECRETSERVICE_ERROR_LOCKED:
            var error = locked(collection)
            error.failedCall = call
            return error
        case CSECRETSERVICE_ERROR_NO_SUCH_OBJECT:
            var error = missingCollection(collection)
            error.failedCall = call
            return error
        case CSECRETSERVICE_ERROR_SESSION_LOST:
            return KeychainError(errSecIO,
                "\(detail). KWallet 5 loses a transfer session now and then (KDE bug 514194); try again.",
                backend: backend, failedCall: call)
        case CSECRETSERVICE_ERROR_UNDECRYPTABLE:
            return KeychainError(errSecDecode,
                "\(detail). KWallet 5 does this now and then (KDE bug 514194); nothing was changed, try again.",
                backend: backend, failedCall: call)
        default:
            return KeychainError(errSecIO, "The Secret Service reported an error: \(detail).", backend: backend,
                                 failedCall: call)
        }
    }

    /// A write the provider did not store as sent because it lost the transfer session
    /// (kwalletd 5), after which what it left was removed; `SecretServiceBackend.perform` runs
    /// the job again on a new connection. Never leaves the backend: `error` is what callers see.
    struct TransferSessionLost: Error {
        let error: KeychainError
    }

    /// The GError's text and domain, e.g. "The name is not activatable [g-dbus-error-quark 2]".
    /// Both may come from the provider (a D-Bus error reply), so they pass `ForeignText`.
    static func message(of failure: CSecretServiceError) -> String {
        var copy = failure
        let text = withUnsafeBytes(of: &copy.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let domain = withUnsafeBytes(of: &copy.domain) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return ForeignText.printable("\(text) [\(domain) \(failure.code)]")
    }
}
