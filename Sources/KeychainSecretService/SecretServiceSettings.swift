#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
public import Musl
#endif
public import FoundationEssentials
public import KeychainCore

/// The `secret-service` backend's settings, read from the environment once per backend.
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `KEYCHAIN_SECRET_SERVICE_COLLECTION` | alias (`default`, `session`) or D-Bus object path of the collection | `default` |
/// | `KEYCHAIN_SECRET_SERVICE_TIMEOUT` | seconds any one call may take, connecting included | `5` |
/// | `KEYCHAIN_LIBSECRET_PATH` | the libsecret shared library to load (tests use it to simulate its absence) | `libsecret-1.so.0` |
public struct SecretServiceSettings: Sendable {
    /// `KEYCHAIN_SECRET_SERVICE_COLLECTION`: the collection to store in.
    public static let collectionVariable = "KEYCHAIN_SECRET_SERVICE_COLLECTION"
    /// `KEYCHAIN_SECRET_SERVICE_TIMEOUT`: seconds any one call may take.
    public static let timeoutVariable = "KEYCHAIN_SECRET_SERVICE_TIMEOUT"
    /// `KEYCHAIN_LIBSECRET_PATH`: the libsecret shared object to load.
    public static let libraryVariable = "KEYCHAIN_LIBSECRET_PATH"
    /// Five seconds: long enough for D-Bus activation of the provider, short enough not to look hung.
    public static let defaultTimeout: Double = 5
    /// libsecret's shared object as Debian and Fedora install it.
    public static let defaultLibrary = "libsecret-1.so.0"

    /// The collection alias or object path.
    public var collection: String
    /// Seconds one call may take in all, or the error that the variable is malformed.
    public var timeout: Result<Double, KeychainError>
    /// The libsecret shared object to `dlopen`.
    public var libraryPath: String
    /// `DBUS_SESSION_BUS_ADDRESS`, which GLib reads itself; kept here only for the check below.
    public var sessionBusAddress: String?
    /// `XDG_RUNTIME_DIR`: where the session bus socket may be, and the write lock is.
    public var runtimeDirectory: String?

    /// Reads the variables above from `environment`. Only these are kept, never the whole
    /// environment, which may hold other backends' secrets.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        sessionBusAddress = environment["DBUS_SESSION_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
        runtimeDirectory = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        let collection = environment[Self.collectionVariable] ?? ""
        self.collection = collection.isEmpty ? "default" : collection
        let library = environment[Self.libraryVariable] ?? ""
        self.libraryPath = library.isEmpty ? Self.defaultLibrary : library
        let timeoutText = environment[Self.timeoutVariable] ?? ""
        if timeoutText.isEmpty {
            timeout = .success(Self.defaultTimeout)
        } else if let seconds = Double(timeoutText), seconds.isFinite, seconds > 0, seconds <= 3600 {
            timeout = .success(seconds)
        } else {
            timeout = .failure(KeychainError(errSecParam,
                "\(Self.timeoutVariable) must be a number of seconds between 0 and 3600, e.g. 5; it is '\(timeoutText)'.",
                backend: SecretServiceBackend.backendName))
        }
    }

    /// Whether the collection setting is an object path rather than an alias.
    var collectionIsPath: Bool { collection.hasPrefix("/") }

    /// Fails with `errSecNotAvailable` when there is no session bus to talk to.
    ///
    /// GLib's own lookup is `DBUS_SESSION_BUS_ADDRESS`, then `$XDG_RUNTIME_DIR/bus`, then an
    /// X11 autolaunch of `dbus-launch`. This check lets GLib run only when one of the first two
    /// exists, so a headless call never autolaunches a bus and fails at once instead.
    func requireSessionBus() throws {
        if sessionBusAddress != nil { return }
        if let runtime = runtimeDirectory {
            var status = stat()
            if stat(runtime + "/bus", &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK { return }
        }
        throw KeychainError(errSecNotAvailable,
            "There is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist), so the Secret Service cannot be reached. Run inside a desktop session, or start one headless with `dbus-run-session` and `gnome-keyring-daemon --unlock`; on a server use KEYCHAIN_BACKEND=keyring or file.",
            backend: SecretServiceBackend.backendName)
    }
}
