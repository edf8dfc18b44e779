/// A registered name whose backend cannot be used in this build: it reports itself
/// unavailable with a reason, and every operation throws that reason.
///
/// It lets `keychain backends` and `auto` list a backend honestly before it exists or where
/// it was compiled out.
public final class PlaceholderBackend: KeychainBackend {
    public let name: String
    private let reason: KeychainError

    public init(name: String, reason: String) {
        self.name = name
        self.reason = KeychainError(errSecNotAvailable, reason, backend: name)
    }

    public func availability() -> BackendAvailability { .unavailable(reason) }
    public func add(_ item: KeychainItem) throws { throw reason }
    public func search(_ query: ItemQuery) throws -> [KeychainItem] { throw reason }
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int { throw reason }
    public func delete(_ query: ItemQuery) throws -> Int { throw reason }
}
