import CSecretService
import Dispatch
import KeychainCore

/// The connection to the Secret Service and the collection in use, opened once and reused by
/// every call, and rebuilt after the bus or the provider went away.
///
/// It keeps to the provider it first connected to (`provider`, known by its unique bus name):
/// when that provider is gone, calls fail with an error naming it, and a reconnection never lets
/// D-Bus activate a provider in its place (the bus is asked who owns org.freedesktop.secrets
/// first). A new owner of the name is adopted only when it is the same program (command name)
/// serving the collection at the same object path: the same store started again, as when
/// gnome-keyring was killed and restarted. Another program (KeePassXC in gnome-keyring's place)
/// or another collection path is refused, naming which.
///
/// Isolated to the libsecret thread, like the GLib objects it keeps.
@LibsecretActor
final class SecretServiceConnection {
    private let settings: SecretServiceSettings
    private let timeoutSeconds: Double
    private var service: ServiceHandle?
    /// The collection's D-Bus object path, once looked up. No proxy is made for it: a proxy
    /// costs a GetAll and signal subscriptions on the bus, and every call names the path anyway.
    private var collection: String?
    /// The provider of the first connection, or the same program restarted since and adopted;
    /// kept when the connection is reset.
    private(set) var provider: SecretServiceProvider?
    /// Where `provider` last served the collection: a restarted one must serve it there.
    private var servedPath: String?
    /// What recent searches on this connection's collection found; emptied with the collection.
    private let searchPaths = SearchPathCache()

    nonisolated init(settings: SecretServiceSettings, timeoutSeconds: Double) {
        self.settings = settings
        self.timeoutSeconds = timeoutSeconds
    }

    private var timeoutMilliseconds: Int32 { Int32(clamping: Int(timeoutSeconds * 1000)) }

    /// Whether a connection from an earlier call is kept, which the provider may have dropped
    /// since without this process noticing before its next round trip.
    var isOpen: Bool { service != nil }

    /// A session on the collection, opening the connection and looking the collection up
    /// unless an earlier call did. Makes no round trip when both are kept.
    ///
    /// Never prompts: a missing collection is `errSecInteractionNotAllowed`, because creating
    /// one would need a password prompt. Whether the collection is locked is left to the
    /// operations (`LibsecretSession.requireUnlocked`), which learn it from the items they read.
    /// With `askingLockState`, a look-up made now asks the lock state in the same round trip
    /// (`LibsecretSession.lockStateAtLookUp`), for a caller that needs it first (the
    /// availability check).
    func prepare(_ call: LibsecretCall, askingLockState: Bool = false) throws -> LibsecretSession {
        do {
            return try openSession(call, askingLockState: askingLockState)
        } catch let error as KeychainError where error.status == errSecNotAvailable {
            // The bus or the provider restarted under a connection that worked before: one
            // fresh attempt. (A first connection that fails gets no retry: nothing changed;
            // nor does a call whose time is up.)
            guard service != nil, DispatchTime.now() < call.deadline else { throw error }
            reset()
            return try openSession(call, askingLockState: askingLockState)
        } catch let error as KeychainError {
            forgetCollection()
            throw error
        }
    }

    /// Makes the next call look the collection up again: it may have been deleted and
    /// recreated, or its alias pointed elsewhere.
    func forgetCollection() {
        collection = nil
        searchPaths.removeAll()
    }

    /// Forgets the connection, so the next call opens a new one.
    func reset() {
        forgetCollection()
        service = nil
    }

    private func openSession(_ call: LibsecretCall, askingLockState: Bool) throws -> LibsecretSession {
        // A kept connection keeps sending to the owner it was opened to (`openedOwner`): a
        // provider gone since fails its first call, which `prepare` and its callers answer.
        var successor: SecretServiceProvider?
        let service: ServiceHandle
        if let kept = self.service {
            service = kept
        } else {
            (service, successor) = try openService(call)
            self.service = service
        }
        var lockState: Bool?
        if collection == nil {
            do {
                (collection, lockState) = try lookUpCollection(service, askingLockState: askingLockState,
                                                               successor: successor, call)
            } catch {
                // A first connection whose provider could not be identified, or one to a restarted
                // provider not adopted, starts afresh next time.
                if provider == nil || successor != nil { self.service = nil }
                throw error
            }
        }
        guard let provider, let collection else { throw SecretServiceErrors.providerUnknown() }
        return LibsecretSession(service: service, collectionPath: collection, lockStateAtLookUp: lockState,
                                provider: provider, call: call, collectionName: settings.collection,
                                timeoutSeconds: timeoutSeconds, searchPaths: searchPaths)
    }

    /// Opens the connection and its transfer session. The provider of the first connection is
    /// identified when the collection is looked up (`lookUpCollection`), in the same round trip;
    /// a later connection must reach that same provider, which is checked here, or the same
    /// program restarted: then that is `successor`, for the look-up to adopt.
    private func openService(_ call: LibsecretCall) throws -> (ServiceHandle, successor: SecretServiceProvider?) {
        // Opening a connection to org.freedesktop.secrets activates a provider when none runs;
        // after the first provider, that would be a stranger's store: ask the bus first.
        let successor = try provider.flatMap { try requireStillServing($0, call) }
        var failure = CSecretServiceError()
        let pointer = csecretservice_service_open(timeoutMilliseconds, call.cancellable, &failure)
        try throwIfFailed(failure, "org.freedesktop.Secret.Service.OpenSession")
        guard let service = ServiceHandle(pointer) else {
            throw KeychainError(errSecNotAvailable, "No Secret Service connection was made.",
                                backend: SecretServiceErrors.backend, failedCall: "org.freedesktop.Secret.Service.OpenSession")
        }
        openedOwner = try serviceOwner(service)
        if let provider, openedOwner != (successor ?? provider).uniqueName {
            // Taken over between the check above and the connection.
            var owner = [CChar](repeating: 0, count: 256)
            var processID: UInt32 = 0
            _ = csecretservice_service_owner(service.pointer, &owner, owner.count, &processID,
                                             call.remainingMilliseconds, call.cancellable, &failure)
            throw SecretServiceErrors.providerGone(provider, during: "org.freedesktop.Secret.Service.OpenSession",
                                                   now: try Self.identify(openedOwner, processID, call))
        }
        return (service, successor)
    }

    /// The unique bus name `service` sends to: the owner of org.freedesktop.secrets when it was
    /// opened. Local: no round trip.
    private func serviceOwner(_ service: ServiceHandle) throws -> String {
        var owner = [CChar](repeating: 0, count: 256)
        var failure = CSecretServiceError()
        _ = csecretservice_service_owner(service.pointer, &owner, owner.count, nil, 0, nil, &failure)
        try throwIfFailed(failure, "org.freedesktop.Secret.Service.OpenSession")
        return Self.string(owner)
    }

    /// The unique bus name of the provider the connection was last opened to.
    private var openedOwner = ""

    /// Finds the collection's path (ReadAlias for an alias; a path is checked by asking its lock
    /// state), with the lock state when `askingLockState`, and, for the first connection, the
    /// provider's process id, which identifies it: all sent at once, one wait. A `successor`
    /// (`provider` restarted) becomes `provider` if it serves the collection where `provider` did.
    private func lookUpCollection(_ service: ServiceHandle, askingLockState: Bool,
                                  successor: SecretServiceProvider?, _ call: LibsecretCall) throws
        -> (path: String, locked: Bool?) {
        let identifying = provider == nil
        var path = [CChar](repeating: 0, count: 4096)
        var processID: UInt32 = 0
        var locked: Int32 = -1
        var failure = CSecretServiceError()
        let found = csecretservice_collection_look_up(
            service.pointer, settings.collection, settings.collectionIsPath ? 1 : 0, askingLockState ? 1 : 0,
            identifying ? 1 : 0, call.remainingMilliseconds, call.cancellable, &path, path.count, &processID, &locked,
            &failure)
        let callName = settings.collectionIsPath ? "org.freedesktop.DBus.Properties.Get(Collection.Locked)"
                                                 : "org.freedesktop.Secret.Service.ReadAlias"
        let error = failure.kind == CSECRETSERVICE_ERROR_NONE ? nil
            : SecretServiceErrors.from(failure, call: callName, collection: settings.collection, seconds: timeoutSeconds)
        // The provider answered (whatever it said of the collection): it is the one to keep to.
        if identifying, error?.status != errSecNotAvailable {
            provider = try Self.identify(openedOwner, processID, call)
        }
        if let error { throw error }
        // No error and no collection: the provider has no such alias (gnome-keyring before the
        // login keyring was ever unlocked).
        guard found == 1 else { throw SecretServiceErrors.missingCollection(settings.collection) }
        let foundPath = Self.string(path)
        if let successor, let provider {
            // A path never served (the first look-up failed) holds nothing to lose.
            if let servedPath, foundPath != servedPath {
                throw SecretServiceErrors.providerRestartedElsewhere(
                    provider, now: successor, collection: settings.collection, path: foundPath,
                    pathBefore: servedPath, call: callName)
            }
            self.provider = successor
        }
        servedPath = foundPath
        return (foundPath, locked < 0 ? nil : locked != 0)
    }

    /// A NUL-terminated C string copied out of `buffer`.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Fails, naming `provider`, unless it still owns org.freedesktop.secrets (nil) or the same
    /// program took the name since (returned, for the collection's look-up to check). Activates nothing.
    private func requireStillServing(_ provider: SecretServiceProvider, _ call: LibsecretCall) throws
        -> SecretServiceProvider? {
        let now = try SecretServiceConnection.currentProvider(call)
        if now?.uniqueName == provider.uniqueName { return nil }
        if let now, provider.isSameProgram(as: now) { return now }
        throw SecretServiceErrors.providerGone(provider, during: "org.freedesktop.Secret.Service.OpenSession", now: now)
    }

    /// Who owns org.freedesktop.secrets on the session bus now, or nil when nobody does.
    /// Asks the bus daemon only; activates nothing.
    static func currentProvider(_ call: LibsecretCall) throws -> SecretServiceProvider? {
        guard let (uniqueName, processID) = try owner(of: "org.freedesktop.secrets", call) else { return nil }
        return try identify(uniqueName, processID, call)
    }

    /// The unique name and process id owning the well-known `name` now, or nil. Activates nothing.
    private static func owner(of name: String, _ call: LibsecretCall) throws -> (String, UInt32)? {
        var owner = [CChar](repeating: 0, count: 256)
        var processID: UInt32 = 0
        var failure = CSecretServiceError()
        let found = csecretservice_bus_name_owner(name, &owner, owner.count, &processID, call.remainingMilliseconds,
                                                  call.cancellable, &failure)
        if failure.kind != CSECRETSERVICE_ERROR_NONE {
            throw SecretServiceErrors.from(failure, call: "org.freedesktop.DBus.GetNameOwner(\(name))", collection: "",
                                           seconds: Double(call.remainingMilliseconds) / 1000)
        }
        guard found == 1 else { return nil }
        return (string(owner), processID)
    }

    /// The provider behind `uniqueName`: by its process's name, or, where /proc does not show
    /// that process (another PID namespace, a sandbox), by KeePassXC's own bus name, which the
    /// same connection owns.
    private static func identify(_ uniqueName: String, _ processID: UInt32, _ call: LibsecretCall) throws
        -> SecretServiceProvider {
        let provider = SecretServiceProvider.identify(uniqueName: uniqueName, processID: processID)
        guard provider.command.isEmpty else { return provider }
        let keePassXC = try owner(of: SecretServiceProvider.keePassXCBusName, call)?.0 == uniqueName
        return SecretServiceProvider(uniqueName: uniqueName, processID: processID, command: keePassXC ? "keepassxc" : "")
    }

    private func throwIfFailed(_ failure: CSecretServiceError, _ call: String) throws {
        guard failure.kind != CSECRETSERVICE_ERROR_NONE else { return }
        throw SecretServiceErrors.from(failure, call: call, collection: settings.collection, seconds: timeoutSeconds)
    }
}
