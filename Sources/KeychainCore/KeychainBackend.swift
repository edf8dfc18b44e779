/// A store that holds keychain items: the seam between the SecItem front end and the places
/// where secrets live, in the spirit of swift-log's `LogHandler`.
///
/// Implement it to add a backend, register it with `KeychainBackendRegistry`, and run
/// `KeychainConformance` against it. Every built-in backend keeps this contract:
///
/// - **Typed input only.** Queries arrive parsed and validated by the front end; a backend
///   never sees an Apple dictionary. It may still reject what it cannot store (a value over
///   its size limit) with a clear error and without storing anything.
/// - **Atomic add.** `add` stores the item only if no item with the same `PrimaryKey` exists,
///   and that check and the insert are one step, across threads and across processes using
///   this library. Exactly one of several racing adds succeeds; the others throw
///   `errSecDuplicateItem`.
/// - **Not found means not there.** `search` returns an empty array, and `update` and
///   `delete` return 0, only when no matching item exists. A locked, unreadable, corrupt or
///   inaccessible item is an error (`errSecInteractionNotAllowed`, `errSecDecode`,
///   `errSecAuthFailed`, ...), never an empty result.
/// - **Matching** is `ItemQuery.matches`; a backend may narrow natively but must filter with it.
///   Results are in a stable order and respect `query.limit`. Secrets are loaded only when
///   `query.includeSecrets` is true. When `query.includeAttributes` is false, attributes that
///   cost extra work to read and that the query does not constrain may be left out; the
///   primary-key attributes never are.
/// - **Update** applies `changes` to every matching item. If the result would collide with
///   another item's primary key it throws `errSecDuplicateItem` and changes nothing
///   (the built-in backends share `UpdatePlan`, a package type, for that bookkeeping). No reader
///   ever sees the item missing mid-update.
/// - **No lost writes.** A call that returns has made its write visible to every later call in
///   any process; one that throws leaves the previous value intact.
/// - **Thread safety.** Every method may be called from many threads at once.
/// - **No secrets in errors.** Thrown errors are `KeychainError`s whose text names items and
///   failing calls, never secret bytes. Buffers that held secrets are zeroed.
/// - **Availability is cheap and honest.** `availability()` answers in bounded time (about a
///   second at most) and, when the backend cannot run here, says why and what to do.
public protocol KeychainBackend: AnyObject, Sendable {
    /// The name users give in `KEYCHAIN_BACKEND`, e.g. `keyring`.
    var name: String { get }

    /// Whether this backend can run here, with the detail shown by `linux-keychain backends`.
    func availability() -> BackendAvailability

    /// What its items outlive; `.durable` unless the backend says otherwise. `auto` and
    /// `linux-keychain backends` use it to say when a store loses its items at reboot.
    var retention: ItemRetention { get }

    /// Whether opening the store as configured would ask a person (a passphrase prompt on a
    /// terminal); false unless the backend says otherwise. `auto` tries such a backend only
    /// after every backend that needs no prompt, so an unattended run never waits on one.
    var unlockNeedsPrompt: Bool { get }

    /// Stores a new item; throws `errSecDuplicateItem` if its primary key is taken.
    func add(_ item: KeychainItem) throws

    /// The items matching `query`, at most `query.limit` of them.
    func search(_ query: ItemQuery) throws -> [KeychainItem]

    /// Applies `changes` to every item matching `query` and returns how many changed.
    func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int

    /// Deletes every item matching `query` (the limit is ignored) and returns how many.
    func delete(_ query: ItemQuery) throws -> Int
}

extension KeychainBackend {
    /// Durable: the default for a backend that does not say otherwise.
    public var retention: ItemRetention { .durable }
    /// No prompt: the default for a backend that does not say otherwise.
    public var unlockNeedsPrompt: Bool { false }
}

/// Whether a backend can be used here.
public enum BackendAvailability: Sendable {
    /// Usable; the text says what it will use, e.g. "persistent keyring 123456".
    case available(String)
    /// Not usable; the error says why, usually with `errSecNotAvailable`.
    case unavailable(KeychainError)

    /// Whether the backend is usable here.
    public var isAvailable: Bool {
        if case .available = self { return true }
        return false
    }

    /// The detail or the reason, for display.
    public var explanation: String {
        switch self {
        case .available(let detail): return detail
        case .unavailable(let error): return error.message
        }
    }
}
