/// A store that holds keychain items: the seam between the SecItem front end and the places
/// where secrets live, in the spirit of swift-log's `LogHandler`.
///
/// Implement it, register it with `KeychainBackendRegistry`, and run `KeychainConformance`
/// against it. The contract, in full in the "Writing a backend" article of KeychainCore's
/// documentation: typed input only; `add` is atomic across threads and processes; empty
/// results mean no such item (a locked or unreadable one is an error); matching is
/// `ItemQuery.matches`, results come in `ResultOrder` within `query.limit`, with secrets only
/// when asked for; an update that would collide changes nothing; a returned write is visible
/// everywhere; every method is thread-safe; errors never hold a secret; `availability()` is
/// quick and says why not.
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
