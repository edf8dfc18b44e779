import KeychainCore

/// A reference to one stored password item: what `kSecReturnRef` returns and `kSecValueRef`
/// accepts, under the name macOS gives password item references.
///
/// It names the item by its primary key, so it stays valid while that item exists, in any
/// process and on any backend that holds it.
public final class SecKeychainItem: Hashable, Sendable, CustomStringConvertible {
    let primaryKey: PrimaryKey

    init(_ primaryKey: PrimaryKey) {
        self.primaryKey = primaryKey
    }

    /// Equal when both refer to the same item (the same primary key).
    public static func == (lhs: SecKeychainItem, rhs: SecKeychainItem) -> Bool { lhs.primaryKey == rhs.primaryKey }
    /// Hashes the item's primary key.
    public func hash(into hasher: inout Hasher) { hasher.combine(primaryKey) }

    /// The item's primary key in readable form; never the secret.
    public var description: String { "SecKeychainItem(\(primaryKey.readableName))" }
}
