import FoundationEssentials
import Glibc
import KeychainCore

/// The backend's four operations on a prepared session, run inside a job on the libsecret
/// worker. Callers hold the write lock around `add` and `update`.
@LibsecretActor
enum SecretServiceOperations {
    /// A stored item matching a query, with what is needed to change it.
    struct Match {
        let stored: StoredItem
        let isOurs: Bool
        let item: KeychainItem
    }

    /// Every item matching `query` (its limit ignored), in `ResultOrder`. When the query
    /// includes secrets and no more items were found than its limit, they come with their
    /// secrets, fetched in the same round trip as their properties; without their labels when
    /// the query does not include attributes (`itemRead(for:found:)`).
    ///
    /// Costs a search and about one more round trip; one round trip in all when the same search
    /// found this one item last time, whose read then goes out with the search
    /// (`LibsecretSession.searchAhead`). When no unlocked item turned up, the collection's lock
    /// state decides, so that a locked keyring is never reported as holding nothing (nor
    /// written to, which would prompt); a search with no item to guess asks it with the search,
    /// so that a miss too is one round trip.
    static func matches(_ query: ItemQuery, in session: LibsecretSession) throws -> [Match] {
        let search = SecretServiceAttributeMapping.searchAttributes(for: query)
        var paths: [String]
        var readAlready: StoredItem?
        var collectionIsLocked: Bool?
        if search.attributes.isEmpty {
            // An operator's class-wide listing (`linux-keychain list`, migrate, export): the
            // collection's items themselves, since KeePassXC answers a search without
            // attributes with none of them.
            paths = try session.allItems()
        } else {
            let ahead = try session.searchAhead(search.attributes, itemRead(for: query, found: 1))
            (paths, readAlready, collectionIsLocked) = (ahead.paths, ahead.item, ahead.collectionIsLocked)
        }
        var found: [Match] = []
        var sawUnlockedItem = false
        let storedItems = try readAlready.map { [$0] } ?? session.readItems(paths, itemRead(for: query, found: paths.count))
        for stored in storedItems {
            sawUnlockedItem = sawUnlockedItem || stored.provesUnlocked
            guard let attributes = try SecretServiceAttributeMapping.decode(stored.attributes, label: stored.label,
                                                                            as: query.itemClass)
            else { continue }
            let item = KeychainItem(itemClass: query.itemClass, attributes: attributes)
            let isOurs = SecretServiceAttributeMapping.isOurs(stored.attributes, query.itemClass)
            guard query.matches(item), isOurs || SecretServiceAttributeMapping.namesItem(attributes, of: query.itemClass)
            else { continue }
            found.append(Match(stored: stored, isOurs: isOurs, item: item))
        }
        if !sawUnlockedItem {
            if let collectionIsLocked {
                if collectionIsLocked { throw SecretServiceErrors.locked(session.collectionName) }
            } else {
                try session.requireUnlocked()
            }
        }
        // Several items can share a primary key when another program wrote them; the path
        // keeps their order stable.
        return found.sorted { lhs, rhs in
            if lhs.item.primaryKey == rhs.item.primaryKey && lhs.item.attributes.creationDate == rhs.item.attributes.creationDate {
                return lhs.stored.path < rhs.stored.path
            }
            return ResultOrder.precedes(lhs.item, rhs.item)
        }
    }

    /// How much to read of the `found` items of `query`. Beyond the limit some items will be
    /// dropped, and their secrets would be read for nothing. A caller that wants only secrets
    /// needs no label (unless it matches on one) and no lock state (a secret handed out proves
    /// the item unlocked), so the cheaper attributes-only read does.
    private static func itemRead(for query: ItemQuery, found: Int) -> StoredItem.Read {
        guard query.includeSecrets, found <= (query.limit.maximum ?? Int.max) else { return .properties }
        guard !query.includeAttributes, query.constraints[.label] == nil else { return .propertiesAndSecrets }
        return .attributesAndSecrets
    }

    static func search(_ query: ItemQuery, in session: LibsecretSession) throws -> [KeychainItem] {
        var found = try matches(query, in: session)
        if let maximum = query.limit.maximum, found.count > maximum { found.removeLast(found.count - maximum) }
        guard query.includeSecrets, !found.isEmpty else { return found.map(\.item) }
        if found.contains(where: { $0.stored.isLocked }) { throw SecretServiceErrors.locked(session.collectionName) }
        let secrets = found.allSatisfy { $0.stored.secret != nil }
            ? found.map(\.stored.secret)
            : try session.loadSecrets(found.map(\.stored.path))
        return try zip(found, secrets).map { match, secret in
            guard let secret else {
                throw KeychainError(errSecInteractionNotAllowed,
                    "The Secret Service did not hand out the secret of the item with \(match.item.primaryKey.readableName); its keyring may have been locked meanwhile. \(SecretServiceErrors.unlockAdvice)",
                    backend: SecretServiceErrors.backend, failedCall: "org.freedesktop.Secret.Service.GetSecrets")
            }
            return KeychainItem(itemClass: match.item.itemClass, attributes: match.item.attributes, secret: secret)
        }
    }

    /// Creates `item` unless an item with its primary key exists, ours or another program's.
    ///
    /// On KWallet the new item's secret is read back: kwalletd 5 may store what a session key it
    /// got wrong made of it. When it lost the session or stored another secret, what it left is
    /// deleted and `SecretServiceErrors.TransferSessionLost` thrown, for the job to run again.
    static func add(_ item: KeychainItem, in session: LibsecretSession) throws {
        guard try matches(ItemQuery(primaryKey: item.primaryKey), in: session).isEmpty else {
            throw KeychainError.duplicate("An item with \(item.primaryKey.readableName) already exists in the Secret Service keyring '\(session.collectionName)'.")
        }
        let attributes = SecretServiceAttributeMapping.attributes(of: item)
        let secret = item.secret ?? SecretBytes(Data())
        do {
            try session.createItem(attributes: attributes,
                                   label: SecretServiceAttributeMapping.label(of: item.itemClass, item.attributes),
                                   secret: secret)
            if session.provider.kind == .kWallet { try requireStored(secret, attributes, in: session) }
        } catch let lost as SecretServiceErrors.TransferSessionLost {
            // kwalletd creates the item before it decrypts the secret. Under the write lock, and
            // with none of this primary key found above, every item with exactly these
            // attributes (dates included) is this call's.
            for path in try session.search(attributes) { _ = try session.delete(at: path) }
            throw lost
        }
    }

    /// Throws `TransferSessionLost` unless an item with exactly `attributes` holds `secret`.
    private static func requireStored(_ secret: SecretBytes, _ attributes: [String: String],
                                      in session: LibsecretSession) throws {
        let stored: [StoredItem]
        do {
            stored = try session.readItems(try session.search(attributes), .attributesAndSecrets)
        } catch let error as KeychainError where error.status == errSecDecode {
            throw SecretServiceErrors.TransferSessionLost(error: error)
        }
        guard stored.contains(where: { $0.secret?.constantTimeEquals(secret) == true }) else {
            throw SecretServiceErrors.TransferSessionLost(error: KeychainError(errSecIO,
                "KWallet did not store the secret it was sent (KDE bug 514194); nothing was added, try again.",
                backend: SecretServiceErrors.backend, failedCall: "org.freedesktop.Secret.Collection.CreateItem"))
        }
    }

    static func update(_ query: ItemQuery, with changes: ItemChanges, in session: LibsecretSession) throws -> Int {
        var everyMatch = query
        everyMatch.limit = .all
        everyMatch.includeSecrets = false
        let matched = try matches(everyMatch, in: session)
        let plan = try UpdatePlan(matched: matched.map(\.item), changes: changes)
        let matchedPaths = Set(matched.map(\.stored.path))
        for key in plan.keysNeedingVacancy {
            let occupied = try matches(ItemQuery(primaryKey: key), in: session).contains { !matchedPaths.contains($0.stored.path) }
            if occupied { throw KeychainError.duplicate("The update would collide with the item with \(key.readableName).") }
        }
        // The old secrets are read only when another item's part could fail after a secret was
        // written (see SecretServiceUpdate): a provider may confirm each read with its user.
        var previousSecrets: [String: SecretBytes] = [:]
        if changes.secret != nil && matched.count > 1 {
            let paths = matched.map(\.stored.path)
            for (path, secret) in zip(paths, try session.loadSecrets(paths)) {
                guard let secret else { throw SecretServiceErrors.locked(session.collectionName) }
                previousSecrets[path] = secret
            }
        }
        let targets = zip(matched, plan.changes).map { match, change in
            (stored: match.stored,
             attributes: SecretServiceAttributeMapping.attributes(
                 replacingIn: match.stored.attributes, itemClass: match.item.itemClass, with: change.new.attributes,
                 isOurs: match.isOurs),
             label: newLabel(of: match, after: change.new, changes: changes))
        }
        var update = SecretServiceUpdate(session: session)
        try update.apply(targets, secret: changes.secret, previousSecrets: previousSecrets)
        if let secret = changes.secret, session.provider.kind == .kWallet {
            try requireStored(secret, at: targets.map(\.stored.path), secretOnly: changes.attributes.allSatisfy {
                $0.key == .modificationDate
            }, in: session)
        }
        return plan.changes.count
    }

    /// Throws unless every item at `paths` holds `secret`, as kwalletd 5 may have stored what a
    /// session key it got wrong made of it: `TransferSessionLost` for an update of the secret
    /// alone, which the job may simply run again, else an error saying to set the secret again.
    private static func requireStored(_ secret: SecretBytes, at paths: [String], secretOnly: Bool,
                                      in session: LibsecretSession) throws {
        let stored: [SecretBytes?]
        do {
            stored = try session.loadSecrets(paths)
        } catch let error as KeychainError where error.status == errSecDecode {
            stored = []
        }
        if stored.count == paths.count && stored.allSatisfy({ $0?.constantTimeEquals(secret) == true }) { return }
        let error = KeychainError(errSecIO,
            "KWallet did not store the new secret it was sent (KDE bug 514194)\(secretOnly ? "" : "; the update's other changes were made: set the secret again").",
            backend: SecretServiceErrors.backend, failedCall: "org.freedesktop.Secret.Item.SetSecret")
        if secretOnly { throw SecretServiceErrors.TransferSessionLost(error: error) }
        throw error
    }

    static func delete(_ query: ItemQuery, in session: LibsecretSession) throws -> Int {
        var everyMatch = query
        everyMatch.limit = .all
        everyMatch.includeSecrets = false
        var deleted = 0
        for match in try matches(everyMatch, in: session) where try session.delete(match.stored) { deleted += 1 }
        return deleted
    }

    /// A given label wins; an empty one given, or one this library made up, is a readable
    /// label from the item's new names (see `SecretServiceAttributeMapping`); any other label
    /// stays as it is.
    private static func newLabel(of match: Match, after updated: KeychainItem, changes: ItemChanges) -> String {
        if let given = SecretServiceAttributeMapping.givenLabel(changes.attributes) { return given }
        if changes.attributes[.label] != nil || (match.isOurs && match.item.attributes[.label] == nil) {
            return SecretServiceAttributeMapping.defaultLabel(updated.itemClass, updated.attributes)
        }
        return match.stored.label
    }
}
