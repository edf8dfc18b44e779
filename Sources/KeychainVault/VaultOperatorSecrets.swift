import FoundationEssentials
import Glibc
import KeychainCore

/// Secrets that operators keep at paths of their own, outside this backend's layout
/// (`bao kv put secret/myapp/db password=…`).
///
/// A generic-password item whose service is `kv:<path>` is the field named by its account in
/// the KV secret at `<path>` of the mount: service `kv:myapp/db` with account `password` is
/// what `bao kv get -field=password secret/myapp/db` prints. The mount may be written too
/// (`kv:secret/myapp/db`) when it is the configured one. Only the value is kept; other
/// attributes are not stored, and the item has no access group (it is shared, as everything
/// `bao` writes). Writes change only their own field, with check-and-set, so an operator's
/// other fields are kept; removing the last field soft-deletes the current version, which
/// `bao kv undelete` restores. Paths in this backend's own storage folder are refused.
struct VaultOperatorSecrets: Sendable {
    static let servicePrefix = "kv:"

    let kv: VaultKV

    /// How many times a write reads again after losing a check-and-set race.
    private static let maximumWriteAttempts = 8

    /// The KV path (relative to the mount) a service names, or nil for an ordinary service.
    ///
    /// Throws `errSecParam` for a path inside the backend's own storage folder (`prefix`, or
    /// the default one): the items there are every program's, and a `kv:` path to one would
    /// reach it by spelling out another program's access group.
    static func path(ofService service: String?, mount: String, prefix: String) throws -> String? {
        guard let service, service.hasPrefix(servicePrefix) else { return nil }
        var path = String(service.dropFirst(servicePrefix.count))
        if path.hasPrefix(mount + "/") { path.removeFirst(mount.count + 1) }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw KeychainError(errSecParam, "The service '\(service)' must name a KV path such as kv:myapp/db (no empty, . or .. parts).",
                                backend: VaultBackend.backendName)
        }
        for folder in [prefix, VaultConfiguration.defaultPrefix] where path == folder || path.hasPrefix(folder + "/") {
            throw KeychainError(errSecParam, "The service '\(service)' names a path in the keychain's own storage folder '\(folder)'; kv: is for secrets operators keep at paths of their own. Name the item by its service and account instead.",
                                backend: VaultBackend.backendName)
        }
        return path
    }

    func add(_ item: KeychainItem, at path: String) throws {
        let field = try fieldName(item.attributes.string(.account))
        let value = try textValue(item.secret ?? SecretBytes(Data()), field: field, path: path)
        try rewrite(path) { fields in
            guard fields[field] == nil else {
                throw KeychainError(errSecDuplicateItem, "The Vault secret '\(path)' already has a field '\(field)'.", backend: VaultBackend.backendName)
            }
            fields[field] = .string(value)
            return 1
        }
    }

    func search(_ query: ItemQuery, at path: String) throws -> [KeychainItem] {
        guard case .present(let fields, _) = try kv.read(path) else { return [] }
        var found: [KeychainItem] = []
        for name in fields.keys.sorted() {
            if let limit = query.limit.maximum, found.count >= limit { break }
            let item = KeychainItem(itemClass: .genericPassword, attributes: attributes(query, name), secret: nil)
            guard query.matches(item) else { continue }
            found.append(query.includeSecrets ? try withSecret(item, fields[name]!, path: path, field: name) : item)
        }
        return found
    }

    func update(_ query: ItemQuery, with changes: ItemChanges, at path: String) throws -> Int {
        if changes.attributes[.service] != nil,
           try Self.path(ofService: changes.attributes.string(.service), mount: kv.configuration.mount,
                         prefix: kv.configuration.prefix) != path {
            throw KeychainError(errSecParam, "An operator-managed secret cannot move to another service; add it there and delete it here.",
                                backend: VaultBackend.backendName)
        }
        let newField = try changes.attributes.string(.account).map(fieldName)
        let newValue = try changes.secret.map { try textValue($0, field: newField ?? "the field", path: path) }
        return try rewrite(path) { fields in
            let matched = fields.keys.sorted().filter {
                query.matches(KeychainItem(itemClass: .genericPassword, attributes: attributes(query, $0), secret: nil))
            }
            if let newField, matched.count > 1 || (matched.first != newField && fields[newField] != nil) {
                throw KeychainError(errSecDuplicateItem, "Renaming to the field '\(newField)' of '\(path)' would collide with another field.",
                                    backend: VaultBackend.backendName)
            }
            for name in matched {
                let value = newValue.map(VaultJSON.string) ?? fields[name]!
                fields[name] = nil
                fields[newField ?? name] = value
            }
            return matched.count
        }
    }

    func delete(_ query: ItemQuery, at path: String) throws -> Int {
        try rewrite(path) { fields in
            let matched = fields.keys.filter {
                query.matches(KeychainItem(itemClass: .genericPassword, attributes: attributes(query, $0), secret: nil))
            }
            for name in matched { fields[name] = nil }
            return matched.count
        }
    }

    // MARK: - Steps

    /// Reads the secret's fields, lets `change` edit them, and writes them back with
    /// check-and-set, again from the start when another writer got there first. `change`
    /// returns how many fields it touched: at 0 nothing is written. No fields left
    /// soft-deletes the secret.
    @discardableResult
    private func rewrite(_ path: String, _ change: (inout [String: VaultJSON]) throws -> Int) throws -> Int {
        for _ in 0..<Self.maximumWriteAttempts {
            var fields: [String: VaultJSON] = [:]
            let version: Int64
            switch try kv.read(path) {
            case .present(let stored, let storedVersion): fields = stored; version = storedVersion
            case .absent(let deletedVersion): version = deletedVersion ?? 0
            }
            let before = fields.count
            let result = try change(&fields)
            if result == 0 { return result }
            if fields.isEmpty {
                if before > 0 { try kv.deleteCurrentVersion(path) }
                return result
            }
            let body = VaultRequestBody.object(fields.sorted { $0.key < $1.key }.map { ($0.key, .json($0.value)) })
            if try kv.write(path, fields: body, checkAndSet: version) == .written { return result }
        }
        throw KeychainError(errSecIO, "The Vault secret '\(path)' kept changing under this write (\(Self.maximumWriteAttempts) attempts); retry it.",
                            backend: VaultBackend.backendName)
    }

    /// An item's attributes: the service as the query spelled it (with or without the
    /// mount), so the query matches it, and the field as its account.
    private func attributes(_ query: ItemQuery, _ field: String) -> ItemAttributes {
        ItemAttributes([.service: .string(query.constrainedString(.service) ?? ""), .account: .string(field)])
    }

    private func fieldName(_ account: String?) throws -> String {
        guard let account, !account.isEmpty else {
            throw KeychainError(errSecParam, "For a kv: service the account names the field (e.g. password); it cannot be empty.",
                                backend: VaultBackend.backendName)
        }
        return account
    }

    /// KV fields hold JSON text, so a value must be UTF-8.
    private func textValue(_ secret: SecretBytes, field: String, path: String) throws -> SecretBytes {
        guard secret.withUnsafeBytes({ String(validating: $0, as: UTF8.self) != nil }) else {
            throw KeychainError(errSecParam, "The value for '\(field)' of '\(path)' is not UTF-8 text; KV fields that operators manage hold text.",
                                backend: VaultBackend.backendName)
        }
        return secret
    }

    /// The item with its field's value as the secret: a string as its bytes, a number or a
    /// flag as written; an object or list has no one value.
    private func withSecret(_ item: KeychainItem, _ value: VaultJSON, path: String, field: String) throws -> KeychainItem {
        let secret: SecretBytes
        switch value {
        case .string(let bytes): secret = bytes
        case .number(let digits): secret = SecretBytes(Data(digits.utf8))
        case .bool(let flag): secret = SecretBytes(Data((flag ? "true" : "false").utf8))
        default:
            throw KeychainError(errSecDecode, "The field '\(field)' of the Vault secret '\(path)' is not text, a number or a flag.",
                                backend: VaultBackend.backendName)
        }
        return KeychainItem(itemClass: item.itemClass, attributes: item.attributes, secret: secret)
    }
}
