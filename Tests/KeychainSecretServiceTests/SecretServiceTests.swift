import Testing

/// Every Secret Service test. Serialized, because some of them delete every item this library
/// owns in a collection, and one keyring is shared by all of them.
@Suite("secret-service backend", .serialized)
struct SecretServiceTests {}
