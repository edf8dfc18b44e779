import CSecretService
import Dispatch
import FoundationEssentials
import Glibc
public import KeychainCore
import KeychainSystemCalls

/// The `secret-service` backend: items live in the Secret Service (gnome-keyring, KeePassXC,
/// KWallet) over D-Bus, through libsecret, where other programs' tools can read them.
///
/// - **No libsecret needed to start.** libsecret is loaded with `dlopen` at first use; where it
///   is missing the backend reports itself unavailable with that reason.
/// - **Never a prompt, never a hang.** A missing session bus, a bus without a provider and a
///   locked or missing keyring are errors that say what to do; every call, connecting
///   included, ends within `KEYCHAIN_SECRET_SERVICE_TIMEOUT` seconds (5 by default).
/// - **One thread, one connection.** All libsecret calls run on one thread (`LibsecretActor`)
///   over one connection and session, reused by every call.
/// - **Atomic add among this library's users** through `SecretServiceWriteLock`.
/// - **Interop**: see `SecretServiceAttributeMapping` for how items are stored.
public final class SecretServiceBackend: KeychainBackend {
    /// The name it is registered under: `secret-service`.
    public static let backendName = "secret-service"
    /// `secret-service`.
    public var name: String { Self.backendName }

    /// The settings it was made with.
    public let settings: SecretServiceSettings
    private let connection: SecretServiceConnection

    /// A backend with `settings`, by default read from the environment.
    public init(settings: SecretServiceSettings = SecretServiceSettings()) {
        self.settings = settings
        let seconds = (try? settings.timeout.get()) ?? SecretServiceSettings.defaultTimeout
        connection = SecretServiceConnection(settings: settings, timeoutSeconds: seconds)
    }

    /// Available only when the keyring can be used right now without any prompt.
    public func availability() -> BackendAvailability {
        do {
            let collection = settings.collection
            let detail = try perform("checking the keyring", isReadOnly: true, askingLockState: true) { session in
                try session.requireUnlockedAtLookUp()
                return "Secret Service keyring '\(collection)' (\(session.collectionPath)), unlocked"
            }
            return .available(detail)
        } catch let error as KeychainError {
            return .unavailable(error.attributed(to: name))
        } catch {
            return .unavailable(KeychainError(errSecIO, "\(error)", backend: name))
        }
    }

    /// Adds `item`; see `KeychainBackend.add(_:)`.
    public func add(_ item: KeychainItem) throws {
        try NameRules.refuseNUL(in: item)
        try perform("adding an item", holdingWriteLock: true) { session in
            try SecretServiceOperations.add(item, in: session)
        }
    }

    /// The items matching `query`; see `KeychainBackend.search(_:)`.
    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        return try perform("searching", isReadOnly: true) { session in try SecretServiceOperations.search(query, in: session) }
    }

    /// Updates the items matching `query`; see `KeychainBackend.update(_:with:)`.
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        // Under the lock too: an update can move an item onto a primary key an add is checking.
        return try perform("updating items", holdingWriteLock: true) { session in
            try SecretServiceOperations.update(query, with: changes, in: session)
        }
    }

    /// Deletes the items matching `query`; see `KeychainBackend.delete(_:)`.
    public func delete(_ query: ItemQuery) throws -> Int {
        try NameRules.refuseNUL(in: query)
        return try perform("deleting items") { session in try SecretServiceOperations.delete(query, in: session) }
    }

    // MARK: - Running calls

    /// Loads libsecret, checks for a session bus, takes the write lock if asked, then runs
    /// `body` on the worker with a prepared collection; all within the timeout. A read-only
    /// `body` is run once more on a fresh connection when the kept one turns out to be dead;
    /// any `body` that throws `SecretServiceErrors.TransferSessionLost` (having undone its
    /// write), up to twice more, each on a fresh connection.
    /// Internal rather than private so that tests can drive a real session step by step.
    func perform<Value: Sendable>(_ what: String, holdingWriteLock: Bool = false, isReadOnly: Bool = false,
                                  askingLockState: Bool = false, _ body: @escaping @LibsecretActor @Sendable (LibsecretSession) throws -> Value)
        throws -> Value {
        let seconds = try settings.timeout.get()
        var deadline = DispatchTime.now() + seconds
        try loadLibrary()
        try settings.requireSessionBus()
        var lock: HeldLock?
        if holdingWriteLock {
            // A write's time counts from when it holds the lock, so that writers queued behind
            // one another, in this process or others, do not time out for being many.
            (lock, deadline) = try SecretServiceWriteLock.acquire(runtimeDirectory: settings.runtimeDirectory,
                                                                  timeoutSeconds: seconds)
        }
        let connection = self.connection
        // The lock travels with the job, so that it is held until the job really ends even if
        // its caller stopped waiting, and no longer (see `LibsecretWorker.perform`).
        return try LibsecretWorker.perform(deadline: deadline, timeoutError: SecretServiceErrors.timedOut(seconds, what),
                                           holding: lock) { call in
            // A write the provider lost the transfer session of (kwalletd 5) has been undone
            // by the operation: it is run again, at most twice, each time on a new connection.
            var retries = 2
            while true {
                do {
                    return try Self.attempt(body, on: connection, call: call, isReadOnly: isReadOnly,
                                            askingLockState: askingLockState)
                } catch let lost as SecretServiceErrors.TransferSessionLost {
                    connection.reset()
                    guard retries > 0, DispatchTime.now() < call.deadline else { throw lost.error }
                    retries -= 1
                }
            }
        }
    }

    /// One run of `perform`'s body on a prepared session, repeating a read that found the
    /// connection dead or the session key wrong once on a new connection.
    @LibsecretActor
    private static func attempt<Value>(_ body: (LibsecretSession) throws -> Value, on connection: SecretServiceConnection,
                                       call: LibsecretCall, isReadOnly: Bool, askingLockState: Bool) throws -> Value {
        let reusing = connection.isOpen
        do {
            return try body(try connection.prepare(call, askingLockState: askingLockState))
        } catch let error as KeychainError where error.status == errSecNotAvailable && DispatchTime.now() < call.deadline {
            // The bus or provider went away since the last call, or mid-call: start afresh.
            connection.reset()
            // No round trip checks a kept connection up front (that would slow every
            // call), so its first use is what finds it dead. A read is safe to repeat
            // at once; a write is not, since it may have taken effect.
            guard isReadOnly && reusing else { throw error }
            return try body(try connection.prepare(call, askingLockState: askingLockState))
        } catch let error as KeychainError where error.status == errSecDecode && isReadOnly {
            // The transfer session's key is not the provider's (KWallet 5's Diffie-Hellman
            // bug): a new connection negotiates a new one, and a read is safe to repeat.
            connection.reset()
            return try body(try connection.prepare(call, askingLockState: askingLockState))
        } catch let error as KeychainError where error.status == errSecInteractionNotAllowed {
            // A locked or vanished collection: it may be back as a new object later.
            connection.forgetCollection()
            throw error
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
