import CSecretService
import Dispatch
import KeychainCore

/// The connection to the Secret Service and the collection in use, opened once and reused by
/// every call, and rebuilt after the bus or the provider went away.
///
/// All state is touched only from jobs on the libsecret worker thread, one at a time; that
/// confinement is what makes the unchecked Sendable sound.
final class SecretServiceConnection: @unchecked Sendable {
    private let settings: SecretServiceSettings
    private let timeoutSeconds: Double
    private var service: GObjectReference?
    private var collection: GObjectReference?

    init(settings: SecretServiceSettings, timeoutSeconds: Double) {
        self.settings = settings
        self.timeoutSeconds = timeoutSeconds
    }

    deinit {
        let objects = [collection, service].compactMap { $0 }
        if !objects.isEmpty { LibsecretWorker.shared.release(objects) }
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
    func prepare(_ call: LibsecretCall) throws -> LibsecretSession {
        do {
            return try openSession(call)
        } catch let error as KeychainError where error.status == errSecNotAvailable {
            // The bus or the provider restarted under a connection that worked before: one
            // fresh attempt. (A first connection that fails gets no retry: nothing changed;
            // nor does a call whose time is up.)
            guard service != nil, DispatchTime.now() < call.deadline else { throw error }
            reset()
            return try openSession(call)
        } catch let error as KeychainError {
            forgetCollection()
            throw error
        }
    }

    /// Makes the next call look the collection up again: it may have been deleted and
    /// recreated, or its alias pointed elsewhere.
    func forgetCollection() {
        collection = nil
    }

    /// Forgets the connection, so the next call opens a new one.
    func reset() {
        collection = nil
        service = nil
    }

    private func openSession(_ call: LibsecretCall) throws -> LibsecretSession {
        let service = try self.service ?? openService(call)
        self.service = service
        let collection = try self.collection ?? openCollection(service, call)
        self.collection = collection
        return LibsecretSession(service: service, collection: collection, call: call,
                                collectionName: settings.collection, timeoutSeconds: timeoutSeconds)
    }

    private func openService(_ call: LibsecretCall) throws -> GObjectReference {
        var failure = CSecretServiceError()
        let pointer = csecretservice_service_open(timeoutMilliseconds, call.cancellable, &failure)
        try throwIfFailed(failure, "secret_service_open_sync")
        guard let service = GObjectReference(pointer) else {
            throw KeychainError(errSecNotAvailable, "libsecret returned no Secret Service connection.",
                                backend: SecretServiceErrors.backend, failedCall: "secret_service_open_sync")
        }
        return service
    }

    private func openCollection(_ service: GObjectReference, _ call: LibsecretCall) throws -> GObjectReference {
        var failure = CSecretServiceError()
        let pointer: UnsafeMutableRawPointer?
        let callName: String
        if settings.collectionIsPath {
            callName = "secret_collection_new_for_dbus_path_sync"
            pointer = csecretservice_collection_for_path(service.pointer, settings.collection, timeoutMilliseconds,
                                                         call.cancellable, &failure)
        } else {
            callName = "secret_collection_for_alias_sync"
            pointer = csecretservice_collection_for_alias(service.pointer, settings.collection, timeoutMilliseconds,
                                                          call.cancellable, &failure)
        }
        try throwIfFailed(failure, callName)
        // No error and no collection: the provider has no such alias (gnome-keyring before the
        // login keyring was ever unlocked).
        guard let collection = GObjectReference(pointer) else {
            throw SecretServiceErrors.missingCollection(settings.collection)
        }
        return collection
    }

    private func throwIfFailed(_ failure: CSecretServiceError, _ call: String) throws {
        guard failure.kind != CSECRETSERVICE_ERROR_NONE else { return }
        throw SecretServiceErrors.from(failure, call: call, collection: settings.collection, seconds: timeoutSeconds)
    }
}
