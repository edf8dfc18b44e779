import Foundation
import KeychainCore
import LinuxKeychain

/// A typed keychain for one service, for code that does not need Apple's dictionaries.
///
///     let keychain = Keychain(service: "com.example.api")
///     try keychain.set("s3cr3t", for: "alice")
///     let token = try keychain.string(for: "alice")     // nil when there is no such item
///
/// Items are generic passwords keyed by (service, account, access group), the same items the
/// SecItem functions and the `keychain` CLI see. Without `accessGroup`, a keychain writes in
/// the program's own group and reads that group first, then the shared items, exactly as the
/// SecItem functions do (`AccessScope.program`). Errors are `KeychainError`s carrying Apple's
/// status. A value is safe to share between threads. The `async` overloads run the blocking
/// store calls on a dedicated queue, never on Swift's cooperative thread pool.
public struct Keychain: Sendable {
    public let service: String
    public let accessGroup: String?
    private let chosenBackend: (any KeychainBackend)?

    /// `backend` nil means the process-wide choice (`KEYCHAIN_BACKEND`, `auto`, or
    /// `KeychainBackendRegistry.use(_:)`), resolved at each call's first use.
    public init(service: String, accessGroup: String? = nil, backend: (any KeychainBackend)? = nil) {
        self.service = service
        self.accessGroup = accessGroup
        self.chosenBackend = backend
    }

    // MARK: Reading

    /// The secret stored for `account`, or nil when there is none.
    public func data(for account: String) throws -> Data? {
        do {
            return try operations().search(accountQuery(account, includeSecrets: true)).first?.secret?.makeData()
        } catch KeychainError.itemNotFound {
            return nil
        }
    }

    /// The secret for `account` as UTF-8 text; `errSecDecode` if it is not valid UTF-8.
    public func string(for account: String) throws -> String? {
        guard var data = try data(for: account) else { return nil }
        defer { SecretBytes.zero(&data) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeychainError(errSecDecode, "The item for account '\(account)' is not UTF-8 text.")
        }
        return text
    }

    /// The secret for `account` decoded from JSON.
    public func decodable<Value: Decodable>(_ type: Value.Type, for account: String) throws -> Value? {
        guard var data = try data(for: account) else { return nil }
        defer { SecretBytes.zero(&data) }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw KeychainError(errSecDecode, "The item for account '\(account)' is not JSON of type \(Value.self).")
        }
    }

    /// Whether an item exists for `account`; does not read the secret.
    public func contains(_ account: String) throws -> Bool {
        do {
            return try !operations().search(accountQuery(account)).isEmpty
        } catch KeychainError.itemNotFound {
            return false
        }
    }

    /// Every account stored under this service, sorted.
    public func allAccounts() throws -> [String] {
        do {
            // An account can be both the program's own and shared; it is listed once.
            return Set(try operations().search(serviceQuery()).compactMap { $0.attributes.string(.account) }).sorted()
        } catch KeychainError.itemNotFound {
            return []
        }
    }

    // MARK: Writing

    /// Stores `data` for `account`, replacing any previous value.
    public func set(_ data: Data, for account: String) throws {
        let operations = try operations()
        try operations.set(SecretBytes(data), for: primaryKey(account, in: operations.scope))
    }

    /// Stores `text` as UTF-8 for `account`.
    public func set(_ text: String, for account: String) throws {
        var data = Data(text.utf8)
        defer { SecretBytes.zero(&data) }
        try set(data, for: account)
    }

    /// Stores `value` encoded as JSON for `account`.
    public func setEncodable<Value: Encodable>(_ value: Value, for account: String) throws {
        var data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw KeychainError(errSecParam, "The value for account '\(account)' could not be encoded as JSON.")
        }
        defer { SecretBytes.zero(&data) }
        try set(data, for: account)
    }

    /// Removes the item for `account`; returns false when there was none.
    @discardableResult
    public func remove(_ account: String) throws -> Bool {
        do {
            try operations().delete(accountQuery(account))
            return true
        } catch KeychainError.itemNotFound {
            return false
        }
    }

    /// Removes every item of this service in this keychain's group (without `accessGroup`, the
    /// program's own; shared items stay); returns how many.
    @discardableResult
    public func removeAll() throws -> Int {
        do {
            return try operations().delete(serviceQuery())
        } catch KeychainError.itemNotFound {
            return 0
        }
    }

    // MARK: Plumbing

    private func operations() throws -> KeychainOperations {
        if let chosenBackend { return KeychainOperations(backend: chosenBackend) }
        return try KeychainOperations.current()
    }

    /// The item `set` writes: in `accessGroup`, else in the program's own group.
    private func primaryKey(_ account: String, in scope: AccessScope) -> PrimaryKey {
        var attributes = identity(account: account)
        if attributes[.accessGroup] == nil, let group = scope.groupForNewItems { attributes[.accessGroup] = .string(group) }
        return PrimaryKey(itemClass: .genericPassword, attributes: attributes)
    }

    /// The item for `account`; without `accessGroup`, the program's own group's first, then the
    /// shared one (`AccessScope`).
    private func accountQuery(_ account: String, includeSecrets: Bool = false) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, constraints: identity(account: account), limit: .one,
                  includeSecrets: includeSecrets)
    }

    private func identity(account: String?) -> ItemAttributes {
        var attributes = ItemAttributes([.service: .string(service)])
        if let account { attributes[.account] = .string(account) }
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        return attributes
    }

    private func serviceQuery() -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, constraints: identity(account: nil), limit: .all)
    }
}
