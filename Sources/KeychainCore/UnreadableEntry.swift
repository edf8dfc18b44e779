/// A source entry that could not be read, named by what the store can tell without its secret:
/// its primary key, or, when the entry is too damaged to hold one that can be trusted, where
/// it lies in the store (a file's path).
public struct UnreadableEntry: Sendable {
    /// The item's primary key, or nil when the entry is too damaged to say.
    public let key: PrimaryKey?
    /// Where the store keeps the entry, for an entry without `key`; nil otherwise.
    public let place: String?
    /// Why it could not be read; never holds a secret.
    public internal(set) var error: KeychainError

    /// An item the store names by `key` but cannot read.
    public init(key: PrimaryKey, error: KeychainError) {
        self.key = key
        place = nil
        self.error = error
    }

    /// An entry at `place` that cannot even be named.
    public init(place: String, error: KeychainError) {
        key = nil
        self.place = place
        self.error = error
    }

    /// The same entry with its error attributed to `backend` (`KeychainError.attributed(to:)`).
    func attributed(to backend: String) -> UnreadableEntry {
        var copy = self
        copy.error = error.attributed(to: backend)
        return copy
    }
}
