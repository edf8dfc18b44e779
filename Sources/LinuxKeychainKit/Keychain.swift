public import Foundation
public import KeychainCore
import KeychainEntryPoints
import LinuxKeychain

/// A typed keychain for one service (generic passwords) or one server (internet passwords),
/// for code that does not need Apple's dictionaries.
///
///     let keychain = Keychain(service: "com.example.api")
///     try keychain.set("s3cr3t", for: "alice", label: "API token")
///     let token = try keychain.string(for: "alice")     // nil when there is no such item
///
/// Its items are the ones the SecItem functions and `linux-keychain` see, in the program's
/// own access group unless `accessGroup` names one. Calls block while the store works; the
/// same names on `async` do not. Errors are `KeychainError`s. A value is immutable and safe to
/// share. More in LinuxKeychainKit's "Getting started" article.
public struct Keychain: Sendable {
    /// The service of this keychain's generic passwords; nil for an internet-password keychain.
    public let service: String?
    /// The server of this keychain's internet passwords; nil for a generic-password keychain.
    public let server: String?
    /// The protocol of this keychain's internet passwords, if it names one.
    public let `protocol`: InternetProtocol?
    /// The port of this keychain's internet passwords, if it names one.
    public let port: Int?
    /// The path of this keychain's internet passwords, if it names one.
    public let path: String?
    /// The authentication type of this keychain's internet passwords, if it names one.
    public let authenticationType: AuthenticationType?
    /// The security domain (an HTTP realm, say) of this keychain's internet passwords, if it
    /// names one.
    public let securityDomain: String?
    /// The access group items are stored in and looked up in; nil for the program's default.
    public let accessGroup: String?
    /// Whether what this keychain writes is marked synchronizable (`kSecAttrSynchronizable`);
    /// see `synchronizable(_:)`.
    public private(set) var isSynchronizable = false
    private let chosenBackend: (any KeychainBackend)?

    /// A keychain of generic passwords for `service`.
    ///
    /// `backend` nil means the process-wide choice (`KEYCHAIN_BACKEND`, `auto`, or
    /// `KeychainBackendRegistry.use(_:)`), resolved at each call's first use.
    public init(service: String, accessGroup: String? = nil, backend: (any KeychainBackend)? = nil) {
        self.service = service
        self.server = nil
        self.protocol = nil
        self.port = nil
        self.path = nil
        self.authenticationType = nil
        self.securityDomain = nil
        self.accessGroup = accessGroup
        self.chosenBackend = backend
    }

    /// A keychain of internet passwords for `server` (a host name such as `github.com`), as
    /// Apple's `kSecClassInternetPassword` items. `protocol`, `port`, `path`,
    /// `authenticationType` and `securityDomain` narrow which items it reads and are stored
    /// with what it writes.
    public init(server: String, protocol: InternetProtocol? = nil, port: Int? = nil, path: String? = nil,
                authenticationType: AuthenticationType? = nil, securityDomain: String? = nil,
                accessGroup: String? = nil, backend: (any KeychainBackend)? = nil) {
        self.service = nil
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.authenticationType = authenticationType
        self.securityDomain = securityDomain
        self.accessGroup = accessGroup
        self.chosenBackend = backend
    }

    /// The same calls, as `async` functions that run on a dedicated queue instead of blocking
    /// the caller's thread: `try await keychain.async.string(for: "alice")`.
    public var async: AsyncKeychain { AsyncKeychain(self) }

    /// This keychain, writing items marked synchronizable (`true`) or not (`false`), as
    /// KeychainAccess's modifier of that name:
    ///
    ///     try keychain.synchronizable(true).set("s3cr3t", for: "alice")
    ///
    /// Reads, `remove` and `removeAll` find items of either flag whatever this is set to
    /// (`kSecAttrSynchronizableAny`), so items Apple-style code marked synchronizable are never
    /// hidden. `set` keeps one item per account: an existing item of the other flag is updated
    /// and given this keychain's. Linux stores sync nothing; the flag is kept for code that
    /// reads it back (`Item.isSynchronizable`) and for items shared with Apple platforms.
    public func synchronizable(_ synchronizable: Bool) -> Keychain {
        var copy = self
        copy.isSynchronizable = synchronizable
        return copy
    }

    // MARK: Reading

    /// The secret stored for `account`, or nil when there is none.
    public func data(for account: String) throws -> Data? {
        do {
            // Only the secret is wanted: a backend may skip attributes that cost it extra (the
            // Secret Service's label, `ItemQuery.includeAttributes`).
            var query = accountQuery(account, includeSecrets: true)
            query.includeAttributes = false
            return try operations().search(query).first?.secret?.makeData()
        } catch KeychainError.itemNotFound {
            return nil
        }
    }

    /// The secret for `account` as UTF-8 text, or nil when there is none; `errSecDecode` if
    /// it is not valid UTF-8.
    public func string(for account: String) throws -> String? {
        guard var data = try data(for: account) else { return nil }
        defer { SecretBytes.zero(&data) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeychainError(errSecDecode, "The item for account '\(account)' is not UTF-8 text.")
        }
        return text
    }

    /// The secret for `account` as a `Value`, or nil when there is none: `String` and `Data`
    /// as stored by `set`, anything else decoded from JSON (`errSecDecode` if it does not decode).
    ///
    ///     let credentials: Credentials? = try keychain.value(for: "alice")
    public func value<Value: Decodable>(_ type: Value.Type = Value.self, for account: String) throws -> Value? {
        if Value.self == String.self { return try string(for: account) as? Value }
        guard var data = try data(for: account) else { return nil }
        defer { SecretBytes.zero(&data) }
        if Value.self == Data.self { return data as? Value }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw KeychainError(errSecDecode, "The item for account '\(account)' is not JSON of type \(Value.self).")
        }
    }

    /// Whether an item exists for `account`; does not read the secret.
    public func contains(_ account: String) throws -> Bool {
        do {
            return try !operations().search(accountQuery(account, includeSecrets: false)).isEmpty
        } catch KeychainError.itemNotFound {
            return false
        }
    }

    /// The attributes of the item for `account` (its label, comment, dates and the names that
    /// place it, never its secret), or nil when there is none; does not read the secret.
    /// KeychainAccess's `keychain[attributes: "key"]`, which `subscript(attributes:)` also is.
    public func attributes(for account: String) throws -> Item? {
        do {
            return try operations().search(accountQuery(account, includeSecrets: false)).first.map(Item.init)
        } catch KeychainError.itemNotFound {
            return nil
        }
    }

    /// Every account stored in this keychain, sorted, each once (an account can be both the
    /// program's own and shared).
    public func allAccounts() throws -> [String] {
        Set(try allItems().map(\.account)).sorted()
    }

    /// Every item in this keychain with its attributes (never its secret), in the store's
    /// order, which is the order they were created in.
    public func allItems() throws -> [Item] {
        do {
            return try operations().search(scopeQuery()).map(Item.init)
        } catch KeychainError.itemNotFound {
            return []
        }
    }

    // MARK: Writing

    /// Stores `data` for `account`, replacing any previous value.
    ///
    /// `label` is the name people see (Seahorse, Keychain Access), `comment` a note kept with
    /// the item, `accessibility` Apple's `kSecAttrAccessible` value, kept for code that reads it
    /// back. A nil argument leaves that attribute of an existing item as it was.
    public func set(_ data: Data, for account: String, label: String? = nil, comment: String? = nil,
                    accessibility: Accessibility? = nil) throws {
        var attributes = ItemAttributes()
        if let label { attributes[.label] = .string(label) }
        if let comment { attributes[.comment] = .string(comment) }
        if let accessibility { attributes[.accessible] = .string(accessibility.rawValue) }
        let operations = try operations()
        try operations.set(SecretBytes(data), for: primaryKey(account, in: operations.scope), attributes: attributes,
                           claimingOtherSynchronizable: true)
    }

    /// Stores `text` as UTF-8 for `account`; see `set(_:for:label:comment:accessibility:)`
    /// for the other arguments.
    public func set(_ text: String, for account: String, label: String? = nil, comment: String? = nil,
                    accessibility: Accessibility? = nil) throws {
        var data = Data(text.utf8)
        defer { SecretBytes.zero(&data) }
        try set(data, for: account, label: label, comment: comment, accessibility: accessibility)
    }

    /// Stores `value` for `account`: a `String` or `Data` as such, anything else encoded as
    /// JSON (`errSecParam` if it does not encode), so `value(_:for:)` reads it back.
    public func set<Value: Encodable>(_ value: Value, for account: String, label: String? = nil, comment: String? = nil,
                                      accessibility: Accessibility? = nil) throws {
        if let text = value as? String {
            return try set(text, for: account, label: label, comment: comment, accessibility: accessibility)
        }
        if let data = value as? Data {
            return try set(data, for: account, label: label, comment: comment, accessibility: accessibility)
        }
        var data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw KeychainError(errSecParam, "The value for account '\(account)' could not be encoded as JSON.")
        }
        defer { SecretBytes.zero(&data) }
        try set(data, for: account, label: label, comment: comment, accessibility: accessibility)
    }

    /// Removes the item for `account`; returns false when there was none.
    @discardableResult
    public func remove(_ account: String) throws -> Bool {
        do {
            try operations().delete(accountQuery(account, includeSecrets: false))
            return true
        } catch KeychainError.itemNotFound {
            return false
        }
    }

    /// Removes every item of this keychain in its group (without `accessGroup`, the program's
    /// own; shared items stay); returns how many.
    @discardableResult
    public func removeAll() throws -> Int {
        do {
            return try operations().delete(scopeQuery())
        } catch KeychainError.itemNotFound {
            return 0
        }
    }

    // MARK: Plumbing

    private func operations() throws -> KeychainOperations {
        if let chosenBackend { return KeychainOperations(backend: chosenBackend) }
        return try KeychainOperations.current()
    }

    private var itemClass: ItemClass { server == nil ? .genericPassword : .internetPassword }

    /// The attributes that place an item in this keychain, with `account` when given.
    private func identity(account: String?) -> ItemAttributes {
        var attributes = ItemAttributes()
        if let service { attributes[.service] = .string(service) }
        if let server { attributes[.server] = .string(server) }
        if let `protocol` { attributes[.protocol] = .string(`protocol`.rawValue) }
        if let port { attributes[.port] = .integer(Int64(port)) }
        if let path { attributes[.path] = .string(path) }
        if let authenticationType { attributes[.authenticationType] = .string(authenticationType.rawValue) }
        if let securityDomain { attributes[.securityDomain] = .string(securityDomain) }
        if let account { attributes[.account] = .string(account) }
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        return attributes
    }

    /// The item `set` writes: in `accessGroup`, else in the scope's group (the program's own).
    private func primaryKey(_ account: String, in scope: AccessScope) -> PrimaryKey {
        var attributes = identity(account: account)
        if attributes[.accessGroup] == nil, let group = scope.groupForNewItems { attributes[.accessGroup] = .string(group) }
        attributes[.synchronizable] = .bool(isSynchronizable)
        return PrimaryKey(itemClass: itemClass, attributes: attributes)
    }

    /// The item for `account`; without `accessGroup`, the program's own group's first, then the
    /// shared one (`AccessScope`). Of either synchronizable flag, as every query here.
    private func accountQuery(_ account: String, includeSecrets: Bool) -> ItemQuery {
        ItemQuery(itemClass: itemClass, constraints: identity(account: account), limit: .one, includeSecrets: includeSecrets,
                  matchesAnySynchronizable: true)
    }

    private func scopeQuery() -> ItemQuery {
        ItemQuery(itemClass: itemClass, constraints: identity(account: nil), limit: .all, matchesAnySynchronizable: true)
    }
}
