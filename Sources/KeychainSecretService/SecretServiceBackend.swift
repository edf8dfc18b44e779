import CSecretService
import Dispatch
import Foundation
import KeychainCore

/// The `secret-service` backend: items live in the Secret Service (gnome-keyring, KeePassXC,
/// KWallet) over D-Bus, through libsecret, where other programs' tools can read them.
///
/// - **No libsecret needed to start.** libsecret is loaded with `dlopen` at first use; where it
///   is missing the backend reports itself unavailable with that reason.
/// - **Never a prompt, never a hang.** A missing session bus, a bus without a provider and a
///   locked or missing keyring are errors that say what to do; every call, connecting
///   included, ends within `KEYCHAIN_SECRET_SERVICE_TIMEOUT` seconds (5 by default).
/// - **One thread, one connection.** All libsecret calls run on one worker thread
///   (`LibsecretWorker`) over one connection and session, reused by every call.
/// - **Atomic add among this library's users** through `SecretServiceWriteLock`.
/// - **Interop**: see `SecretServiceAttributeMapping` for how items are stored.
public final class SecretServiceBackend: KeychainBackend {
    public static let backendName = "secret-service"
    public var name: String { Self.backendName }

    public let settings: SecretServiceSettings
    private let connection: SecretServiceConnection

    public init(settings: SecretServiceSettings = SecretServiceSettings()) {
        self.settings = settings
        let seconds = (try? settings.timeout.get()) ?? SecretServiceSettings.defaultTimeout
        connection = SecretServiceConnection(settings: settings, timeoutSeconds: seconds)
    }

    /// Available only when the keyring can be used right now without any prompt.
    public func availability() -> BackendAvailability {
        do {
            let collection = settings.collection
            let detail = try perform("checking the keyring") { session in
                "Secret Service keyring '\(collection)' (\(session.collection.objectPath)), unlocked"
            }
            return .available(detail)
        } catch let error as KeychainError {
            return .unavailable(error.attributed(to: name))
        } catch {
            return .unavailable(KeychainError(errSecIO, "\(error)", backend: name))
        }
    }

    public func add(_ item: KeychainItem) throws {
        try perform("adding an item", holdingWriteLock: true) { session in
            try SecretServiceOperations.add(item, in: session)
        }
    }

    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try perform("searching") { session in try SecretServiceOperations.search(query, in: session) }
    }

    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        // Under the lock too: an update can move an item onto a primary key an add is checking.
        try perform("updating items", holdingWriteLock: true) { session in
            try SecretServiceOperations.update(query, with: changes, in: session)
        }
    }

    public func delete(_ query: ItemQuery) throws -> Int {
        try perform("deleting items") { session in try SecretServiceOperations.delete(query, in: session) }
    }

    // MARK: - Running calls

    /// Loads libsecret, checks for a session bus, takes the write lock if asked, then runs
    /// `body` on the worker with a prepared, unlocked collection; all within the timeout.
    private func perform<Value: Sendable>(_ what: String, holdingWriteLock: Bool = false,
                                          _ body: @escaping @Sendable (LibsecretSession) throws -> Value) throws -> Value {
        let seconds = try settings.timeout.get()
        let deadline = DispatchTime.now() + seconds
        try loadLibrary()
        try settings.requireSessionBus()
        let lock = holdingWriteLock
            ? try SecretServiceWriteLock.acquire(runtimeDirectory: settings.runtimeDirectory, deadline: deadline,
                                                 timeoutSeconds: seconds)
            : nil
        let connection = self.connection
        return try LibsecretWorker.shared.perform(deadline: deadline, timeoutError: SecretServiceErrors.timedOut(seconds, what)) { call in
            // The lock travels with the job, so that it is held until the job really ends even
            // if its caller stopped waiting.
            try withExtendedLifetime(lock) {
                do {
                    return try body(try connection.prepare(call))
                } catch let error as KeychainError where error.status == errSecNotAvailable && DispatchTime.now() < call.deadline {
                    // The bus or provider went away mid-call: start afresh next time.
                    connection.reset()
                    throw error
                }
            }
        }
    }

    private func loadLibrary() throws {
        var reason = [CChar](repeating: 0, count: 512)
        let loaded = reason.withUnsafeMutableBufferPointer { buffer in
            csecretservice_load(settings.libraryPath, buffer.baseAddress, buffer.count)
        }
        guard loaded == 0 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SecretServiceErrors.libraryMissing(settings.libraryPath, text)
        }
    }
}
