import Foundation
import KeychainCore

/// The backend's four operations on a prepared session, run inside a job on the libsecret
/// worker. Callers hold the write lock around `add` and `update`.
enum SecretServiceOperations {
    /// A stored item matching a query, with what is needed to change it.
    struct Match {
        let handle: LibsecretItem
        let path: String
        /// All its Secret Service attributes, other programs' included.
        let stored: [String: String]
        let label: String
        let isOurs: Bool
        let item: KeychainItem
    }

    /// Every item matching `query` (its limit ignored), in primary-key order, without secrets.
    static func matches(_ query: ItemQuery, in session: LibsecretSession) throws -> [Match] {
        let search = SecretServiceAttributeMapping.searchAttributes(for: query)
        var found: [Match] = []
        for path in try session.search(search.attributes) {
            guard let handle = try session.openItem(path) else { continue }
            let stored = try handle.attributes()
            let label = handle.label
            guard let attributes = try SecretServiceAttributeMapping.decode(stored, label: label, as: query.itemClass)
            else { continue }
            let item = KeychainItem(itemClass: query.itemClass, attributes: attributes)
            guard query.matches(item) else { continue }
            found.append(Match(handle: handle, path: path, stored: stored, label: label,
                               isOurs: SecretServiceAttributeMapping.isOurs(stored, query.itemClass), item: item))
        }
        // Several items can share a primary key when another program wrote them; the path
        // keeps their order stable.
        return found.sorted { ($0.item.primaryKey, $0.path) < ($1.item.primaryKey, $1.path) }
    }

    static func search(_ query: ItemQuery, in session: LibsecretSession) throws -> [KeychainItem] {
        var found = try matches(query, in: session)
        if let maximum = query.limit.maximum, found.count > maximum { found.removeLast(found.count - maximum) }
        guard query.includeSecrets, !found.isEmpty else { return found.map(\.item) }
        if found.contains(where: { $0.handle.isLocked }) { throw SecretServiceErrors.locked(session.collectionName) }
        try session.loadSecrets(found.map(\.handle))
        return try found.map { match in
            guard let secret = match.handle.loadedSecret() else {
                throw KeychainError(errSecInteractionNotAllowed,
                    "The Secret Service did not hand out the secret of the item with \(match.item.primaryKey.readableName); its keyring may have been locked meanwhile. \(SecretServiceErrors.unlockAdvice)",
                    backend: SecretServiceErrors.backend, failedCall: "secret_item_get_secret")
            }
            return KeychainItem(itemClass: match.item.itemClass, attributes: match.item.attributes, secret: secret)
        }
    }

    /// Creates `item` unless an item with its primary key exists, ours or another program's.
    static func add(_ item: KeychainItem, in session: LibsecretSession) throws {
        guard try matches(ItemQuery(primaryKey: item.primaryKey), in: session).isEmpty else {
            throw KeychainError.duplicate("An item with \(item.primaryKey.readableName) already exists in the Secret Service keyring '\(session.collectionName)'.")
        }
        try session.createItem(attributes: SecretServiceAttributeMapping.attributes(of: item),
                               label: SecretServiceAttributeMapping.label(of: item.itemClass, item.attributes),
                               secret: item.secret ?? SecretBytes(Data()))
    }

    static func update(_ query: ItemQuery, with changes: ItemChanges, in session: LibsecretSession) throws -> Int {
        var everyMatch = query
        everyMatch.limit = .all
        everyMatch.includeSecrets = false
        let matched = try matches(everyMatch, in: session)
        let plan = try UpdatePlan(matched: matched.map(\.item), changes: changes)
        let matchedPaths = Set(matched.map(\.path))
        for key in plan.keysNeedingVacancy {
            let occupied = try matches(ItemQuery(primaryKey: key), in: session).contains { !matchedPaths.contains($0.path) }
            if occupied { throw KeychainError.duplicate("The update would collide with the item with \(key.readableName).") }
        }
        for (match, change) in zip(matched, plan.changes) {
            if let secret = changes.secret { try match.handle.setSecret(secret) }
            let stored = SecretServiceAttributeMapping.attributes(replacingIn: match.stored, itemClass: match.item.itemClass,
                                                                  with: change.new.attributes, isOurs: match.isOurs)
            if stored != match.stored { try match.handle.setAttributes(stored) }
            let label = newLabel(of: match, after: change.new, changes: changes)
            if label != match.label { try match.handle.setLabel(label) }
        }
        return plan.changes.count
    }

    static func delete(_ query: ItemQuery, in session: LibsecretSession) throws -> Int {
        var everyMatch = query
        everyMatch.limit = .all
        everyMatch.includeSecrets = false
        var deleted = 0
        for match in try matches(everyMatch, in: session) where try match.handle.delete() { deleted += 1 }
        return deleted
    }

    /// A given label wins; a label this library made up follows the item's new names; any
    /// other label stays as it is.
    private static func newLabel(of match: Match, after updated: KeychainItem, changes: ItemChanges) -> String {
        if let given = changes.attributes.string(.label) { return given }
        if match.isOurs && match.item.attributes[.label] == nil {
            return SecretServiceAttributeMapping.defaultLabel(updated.itemClass, updated.attributes)
        }
        return match.label
    }
}
