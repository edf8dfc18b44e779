public import FoundationEssentials
import Glibc
public import KeychainCore

/// The `vault` backend: items in an OpenBao or HashiCorp Vault KV version 2 engine, shared by
/// every machine that uses the same server, mount and prefix.
///
/// Each item is one KV secret at the path `VaultItemLayout` gives it, its secret and attributes
/// as fields (`VaultItemFields`). Atomicity comes from KV check-and-set: an add is `cas=0`, so
/// of racing adds exactly one succeeds; an update by primary key is one `PATCH`
/// (`VaultPatchableUpdate`), any other a `cas=<version read>` write retried on conflict; a
/// rename creates the new path before deleting the old, so nothing is lost if interrupted; a
/// delete removes every version. A service `kv:<path>` names a field of a secret operators
/// manage (`VaultOperatorSecrets`). Never chosen by `auto`: sending secrets to a server must be
/// a decision. See docs/vault.md#consistency-across-machines.
public final class VaultBackend: KeychainBackend, ItemByItemReading, SideBySideWrites {
    /// The name it is registered under: `vault`.
    public static let backendName = "vault"
    /// `vault`.
    public var name: String { Self.backendName }

    /// As many items as the lanes kept open (`CurlLanePool`): each request waits on the server.
    public var sideBySideWrites: Int { CurlLanePool.maximumIdleLanes }

    /// How many times an add or an update writes again after losing a check-and-set race.
    private static let maximumWriteAttempts = 8

    private let setup: Result<Connection, KeychainError>

    private struct Connection: Sendable {
        let kv: VaultKV
        let layout: VaultItemLayout
        let patchSupport = VaultPatchSupport()
        var operatorSecrets: VaultOperatorSecrets { VaultOperatorSecrets(kv: kv) }

        /// The operator-managed KV path a `kv:` service names (see `VaultOperatorSecrets`).
        func operatorPath(_ itemClass: ItemClass, service: String?) throws -> String? {
            guard itemClass == .genericPassword else { return nil }
            return try VaultOperatorSecrets.path(ofService: service, mount: kv.configuration.mount, prefix: kv.configuration.prefix)
        }
    }

    /// An item as found on the server: where it is, which version was read, what it holds.
    private struct StoredItem {
        let path: String
        let version: Int64
        let item: KeychainItem
    }

    /// A backend for `configuration`.
    public init(configuration: VaultConfiguration) {
        setup = .success(Connection(kv: VaultKV(configuration: configuration),
                                    layout: VaultItemLayout(prefix: configuration.prefix)))
    }

    /// A backend configured from the environment (see `VaultConfiguration.fromEnvironment`).
    /// A missing or invalid setting makes it unavailable, with the reason.
    public convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        do {
            self.init(configuration: try VaultConfiguration.fromEnvironment(environment))
        } catch {
            self.init(unusable: error as? KeychainError
                ?? KeychainError(errSecParam, "The Vault settings are invalid: \(error)", backend: Self.backendName))
        }
    }

    private init(unusable reason: KeychainError) {
        setup = .failure(reason.attributed(to: Self.backendName))
    }

    /// Usable when the server answers, is unsealed, accepts the token and has a KV version 2
    /// engine at the mount; the reason says which check failed otherwise.
    public func availability() -> BackendAvailability {
        switch setup {
        case .success(let connection): return VaultProbe(kv: connection.kv).availability()
        case .failure(let reason): return .unavailable(reason)
        }
    }

    /// Adds `item`; see `KeychainBackend.add(_:)`.
    public func add(_ item: KeychainItem) throws {
        try NameRules.refuseNUL(in: item)
        let connection = try setup.get()
        if let path = try connection.operatorPath(item.itemClass, service: item.attributes.string(.service)) {
            return try connection.operatorSecrets.add(item, at: path)
        }
        try create(item, at: connection.layout.path(of: item.primaryKey), in: connection)
    }

    /// The items matching `query`; see `KeychainBackend.search(_:)`.
    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        let connection = try setup.get()
        if let path = try connection.operatorPath(query.itemClass, service: query.constrainedString(.service)) {
            return try connection.operatorSecrets.search(query, at: path)
        }
        return try locate(query, includeSecrets: query.includeSecrets, limit: query.limit.maximum, in: connection).map(\.item)
    }

    /// The items matching `query`, and each candidate whose fields cannot be decoded named by
    /// its path's primary key; see `ItemByItemReading`. Operator paths (`kv:`) are read as
    /// `search` reads them.
    public func searchItemByItem(_ query: ItemQuery) throws -> (readable: [KeychainItem], unreadable: [UnreadableEntry]) {
        try NameRules.refuseNUL(in: query)
        let connection = try setup.get()
        if let path = try connection.operatorPath(query.itemClass, service: query.constrainedString(.service)) {
            return (try connection.operatorSecrets.search(query, at: path), [])
        }
        var found: [StoredItem] = []
        var unreadable: [UnreadableEntry] = []
        for candidate in try listCandidates(query, in: connection) {
            let read = try connection.kv.read(candidate.path)
            do {
                if let item = try matchingItem(read, at: candidate.path, key: candidate.key, query: query,
                                               includeSecrets: query.includeSecrets) {
                    found.append(item)
                }
            } catch let error as KeychainError where error.status == errSecDecode {
                unreadable.append(UnreadableEntry(key: candidate.key, error: error))
            }
        }
        found.sort { ResultOrder.precedes($0.item, $1.item) }
        if let limit = query.limit.maximum, found.count > limit { found.removeLast(found.count - limit) }
        return (found.map(\.item), unreadable)
    }

    /// Updates the items matching `query`; see `KeychainBackend.update(_:with:)`.
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        let connection = try setup.get()
        if let path = try connection.operatorPath(query.itemClass, service: query.constrainedString(.service)) {
            return try connection.operatorSecrets.update(query, with: changes, at: path)
        }
        if let patchable = VaultPatchableUpdate(query, changes: changes), connection.patchSupport.isWorthTrying {
            switch try connection.kv.patch(connection.layout.path(of: patchable.key), fields: patchable.fields) {
            case .patched: return 1
            case .absent: return 0
            case .refused: connection.patchSupport.noteRefusal()
            }
        }
        let matched = try locate(query, includeSecrets: true, limit: nil, in: connection)
        let plan = try UpdatePlan(matched: matched.map(\.item), changes: changes)
        let steps = zip(matched, plan.changes.map(\.new))
        let moves = steps.filter { $0.0.item.primaryKey != $0.1.primaryKey }
        let inPlace = steps.filter { $0.0.item.primaryKey == $0.1.primaryKey }

        // Moves first, because only they can collide: create every new path, and on any
        // failure remove the ones this call created, so the update changes nothing.
        var created: [String] = []
        do {
            for (_, moved) in moves {
                let path = connection.layout.path(of: moved.primaryKey)
                try create(moved, at: path, in: connection)
                created.append(path)
            }
        } catch {
            // Best effort: the original failure is what the caller must see, and a rollback
            // that fails too leaves only a copy of an item that still exists at its old path.
            for path in created { try? connection.kv.destroy(path) }
            throw error
        }
        for (old, _) in moves { try connection.kv.destroy(old.path) }

        var changed = moves.count
        for (stored, _) in inPlace where try replace(stored, matching: query, with: changes, in: connection) {
            changed += 1
        }
        return changed
    }

    /// Deletes the items matching `query`; see `KeychainBackend.delete(_:)`.
    public func delete(_ query: ItemQuery) throws -> Int {
        try NameRules.refuseNUL(in: query)
        let connection = try setup.get()
        if let path = try connection.operatorPath(query.itemClass, service: query.constrainedString(.service)) {
            return try connection.operatorSecrets.delete(query, at: path)
        }
        let matched = try locate(query, includeSecrets: false, limit: nil, in: connection)
        for stored in matched { try connection.kv.destroy(stored.path) }
        return matched.count
    }

    // MARK: - Steps

    /// Writes `item` at `path` only if no live item is there; `errSecDuplicateItem` otherwise.
    private func create(_ item: KeychainItem, at path: String, in connection: Connection) throws {
        let fields = VaultItemFields.body(of: item, secret: item.secret ?? SecretBytes(Data()))
        // An item deleted with `bao kv delete` keeps its metadata, so `cas=0` fails on it; its
        // current (deleted) version is then the one to name.
        var expectedVersion: Int64 = 0
        for _ in 0..<Self.maximumWriteAttempts {
            if try connection.kv.write(path, fields: fields, checkAndSet: expectedVersion) == .written { return }
            switch try connection.kv.read(path) {
            case .present(let storedFields, _) where try isCopy(of: item, storedFields, at: path):
                // An earlier attempt of this very add (whose answer was lost, say in a leader
                // change) was applied: the item is there exactly as asked.
                return
            case .present:
                throw KeychainError(errSecDuplicateItem, "An item with \(item.primaryKey.readableName) already exists in Vault at '\(path)'.",
                                    backend: Self.backendName)
            case .absent(let deletedVersion):
                expectedVersion = deletedVersion ?? 0
            }
        }
        throw KeychainError(errSecDuplicateItem, "Other writers kept creating and deleting '\(path)' while this add ran; treat the item as already added.",
                            backend: Self.backendName)
    }

    /// Whether the fields stored at `path` are `item` exactly: the same secret and the same
    /// attributes, creation date included to its fraction of a second, as only an earlier
    /// attempt to add this same item writes.
    private func isCopy(of item: KeychainItem, _ storedFields: [String: VaultJSON], at path: String) throws -> Bool {
        guard let stored = try? VaultItemFields.item(at: path, primaryKey: item.primaryKey, fields: storedFields, includeSecret: true),
              item.attributes.values[.creationDate] != nil, stored.attributes == item.attributes else { return false }
        let secret = item.secret ?? SecretBytes(Data())
        return stored.secret.map { $0.constantTimeEquals(secret) } ?? false
    }

    /// Applies `changes` to one item with check-and-set on the version read, rereading and
    /// reapplying when another writer got there first. Returns false when the item was deleted
    /// or stopped matching `query` meanwhile.
    private func replace(_ stored: StoredItem, matching query: ItemQuery, with changes: ItemChanges,
                         in connection: Connection) throws -> Bool {
        var current = stored
        for _ in 0..<Self.maximumWriteAttempts {
            let updated = changes.applied(to: current.item)
            let fields = VaultItemFields.body(of: updated, secret: updated.secret ?? SecretBytes(Data()))
            if try connection.kv.write(current.path, fields: fields, checkAndSet: current.version) == .written { return true }
            guard case .present(let storedFields, let version) = try connection.kv.read(current.path) else { return false }
            let item = try VaultItemFields.item(at: current.path, primaryKey: current.item.primaryKey,
                                                fields: storedFields, includeSecret: true)
            guard query.matches(item) else { return false }
            current = StoredItem(path: current.path, version: version, item: item)
        }
        throw KeychainError(errSecIO, "The Vault item at '\(stored.path)' kept changing under this update (\(Self.maximumWriteAttempts) attempts); retry it.",
                            backend: Self.backendName)
    }

    /// The items matching `query`, in `ResultOrder`, at most `limit` of them.
    ///
    /// A query that names the service (or server) and account first reads its leading path
    /// (`VaultDirectLookup`), the one where ordinary items live: one GET answers a query that
    /// fixes the whole primary key. Anything else lists the folder, reading the leading path
    /// meanwhile, so that item costs no extra round trip; even a query for one item reads every
    /// candidate, because the first in insertion order can be any of them.
    private func locate(_ query: ItemQuery, includeSecrets: Bool, limit: Int?, in connection: Connection) throws -> [StoredItem] {
        guard let direct = VaultDirectLookup(query), limit != 0 else {
            return try readMatches(of: query, among: listCandidates(query, in: connection), includeSecrets: includeSecrets,
                                   limit: limit, alreadyRead: [:], in: connection)
        }
        let path = connection.layout.path(of: direct.key)
        let leadingRead: VaultKV.ReadResult
        let candidates: [(path: String, key: PrimaryKey)]
        if direct.isOnlyCandidate {
            leadingRead = try connection.kv.read(path)
            if let found = try matchingItem(leadingRead, at: path, key: direct.key, query: query, includeSecrets: includeSecrets) {
                return [found]
            }
            return []
        } else {
            // Other access groups may hold matches too, so the listing is needed anyway; the
            // read travels beside it instead of after it.
            let folder = "\(connection.layout.classFolder(query.itemClass))/\(VaultPathSegment.encode(query.constrainedString(VaultItemLayout.groupAttribute(of: query.itemClass)) ?? ""))"
            let (read, entries) = try connection.kv.readAndList(path, folder: folder)
            leadingRead = read
            candidates = try listCandidates(query, in: connection, listed: (folder, entries))
        }
        return try readMatches(of: query, among: candidates, includeSecrets: includeSecrets, limit: limit,
                               alreadyRead: [path: leadingRead], in: connection)
    }

    /// The paths and keys of the items whose primary key may match `query`, in primary-key order.
    ///
    /// Lists the service's (or server's) folder, or every folder of the class when the query
    /// names none, and decides the primary-key constraints from the entry names alone.
    /// `listed` is a folder whose entries were already fetched.
    private func listCandidates(_ query: ItemQuery, in connection: Connection,
                                listed: (folder: String, entries: [String])? = nil) throws -> [(path: String, key: PrimaryKey)] {
        let layout = connection.layout
        let itemClass = query.itemClass
        let groupSegments: [String]
        if let group = query.constrainedString(VaultItemLayout.groupAttribute(of: itemClass)) {
            groupSegments = [VaultPathSegment.encode(group)]
        } else {
            groupSegments = try connection.kv.list(layout.classFolder(itemClass)).filter { $0.hasSuffix("/") }.map { String($0.dropLast()) }
        }

        var keyQuery = query
        keyQuery.constraints = ItemAttributes(query.constraints.values.filter { itemClass.primaryKeyAttributes.contains($0.key) })
        var candidates: [(path: String, key: PrimaryKey)] = []
        for segment in groupSegments {
            let folder = "\(layout.classFolder(itemClass))/\(segment)"
            // Entries ending in "/" are folders someone made below a service; they hold no item.
            let entries = try listed.flatMap { $0.folder == folder ? $0.entries : nil } ?? connection.kv.list(folder)
            for entry in entries where !entry.hasSuffix("/") {
                let path = "\(folder)/\(entry)"
                guard let key = layout.primaryKey(itemClass, groupSegment: segment, leaf: entry) else {
                    throw KeychainError(errSecDecode, "The Vault entry '\(path)' does not name an item in this backend's layout; rename or delete it with `bao kv`.",
                                        backend: Self.backendName)
                }
                if keyQuery.matches(itemClass, key.attributes) { candidates.append((path, key)) }
            }
        }
        return candidates.sorted { $0.key < $1.key }
    }

    /// Reads `candidates` in order, using the answers in `alreadyRead` instead of asking again,
    /// until `limit` of them match `query` in full.
    private func readMatches(of query: ItemQuery, among candidates: [(path: String, key: PrimaryKey)], includeSecrets: Bool,
                             limit: Int?, alreadyRead: [String: VaultKV.ReadResult], in connection: Connection) throws -> [StoredItem] {
        // Insertion order is known only once every candidate is read, so none is skipped.
        var found: [StoredItem] = []
        for candidate in candidates {
            let read = try alreadyRead[candidate.path] ?? connection.kv.read(candidate.path)
            if let item = try matchingItem(read, at: candidate.path, key: candidate.key, query: query, includeSecrets: includeSecrets) {
                found.append(item)
            }
        }
        found.sort { ResultOrder.precedes($0.item, $1.item) }
        if let limit, found.count > limit { found.removeLast(found.count - limit) }
        return found
    }

    /// The item `read` found at `path`, when it matches `query`. An entry that vanished or was
    /// soft-deleted since it was listed is simply not there; one that cannot be decoded is an error.
    private func matchingItem(_ read: VaultKV.ReadResult, at path: String, key: PrimaryKey, query: ItemQuery,
                              includeSecrets: Bool) throws -> StoredItem? {
        guard case .present(let fields, let version) = read else { return nil }
        let item = try VaultItemFields.item(at: path, primaryKey: key, fields: fields, includeSecret: includeSecrets)
        return query.matches(item) ? StoredItem(path: path, version: version, item: item) : nil
    }
}
