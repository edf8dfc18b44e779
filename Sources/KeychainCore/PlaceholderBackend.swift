/// A registered name whose backend cannot be used in this build: it reports itself
/// unavailable with a reason, and every operation throws that reason.
///
/// It lets `linux-keychain backends` and `auto` list a backend honestly before it exists or where
/// it was compiled out.
package final class PlaceholderBackend: KeychainBackend {
    /// The name it is registered under.
    package let name: String
    private let reason: KeychainError

    /// A backend named `name` that is unavailable because of `reason` (shown to users as is).
    package init(name: String, reason: String) {
        self.name = name
        self.reason = KeychainError(errSecNotAvailable, reason, backend: name)
    }

    /// Always unavailable, with the reason.
    package func availability() -> BackendAvailability { .unavailable(reason) }
    /// Throws the reason.
    package func add(_ item: KeychainItem) throws { throw reason }
    /// Throws the reason.
    package func search(_ query: ItemQuery) throws -> [KeychainItem] { throw reason }
    /// Throws the reason.
    package func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int { throw reason }
    /// Throws the reason.
    package func delete(_ query: ItemQuery) throws -> Int { throw reason }
}
