/// A set of items keyed by primary key, with the protocol's add, search, update and delete
/// semantics, for backends that hold their items in memory or load them whole.
///
/// It is a value type with no locking; the owner serializes access.
package struct ItemCollection: Sendable {
    /// The items, by primary key.
    package private(set) var items: [PrimaryKey: KeychainItem] = [:]

    /// A collection holding `items`; a later item replaces an earlier one with its primary key.
    package init(_ items: [KeychainItem] = []) {
        for item in items { self.items[item.primaryKey] = item }
    }

    /// Adds `item`; `errSecDuplicateItem` if an item with its primary key exists.
    package mutating func add(_ item: KeychainItem) throws {
        let key = item.primaryKey
        guard items[key] == nil else {
            throw KeychainError.duplicate("An item with \(key.readableName) already exists.")
        }
        items[key] = item
    }

    /// Matches in `ResultOrder`, limited, with secrets only when asked for.
    package func search(_ query: ItemQuery) -> [KeychainItem] {
        var found = matches(of: query)
        // By the keys the items are stored under, which are their primary keys: computing
        // those again from each item's attributes costs more.
        found.sort {
            ResultOrder.precedes(created: $0.value.attributes.creationDate, key: $0.key,
                                 created: $1.value.attributes.creationDate, key: $1.key)
        }
        if let maximum = query.limit.maximum, found.count > maximum { found.removeLast(found.count - maximum) }
        if !query.includeSecrets {
            return found.map { KeychainItem(itemClass: $0.value.itemClass, attributes: $0.value.attributes) }
        }
        return found.map(\.value)
    }

    /// Applies `changes` to every item matching `query` and returns how many; changes nothing
    /// and throws `errSecDuplicateItem` when the update would give two items one primary key.
    package mutating func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        let matched = matches(of: query).map(\.value)
        let plan = try UpdatePlan(matched: matched, changes: changes)
        for key in plan.keysNeedingVacancy where items[key] != nil {
            throw KeychainError.duplicate("The update would collide with the item with \(key.readableName).")
        }
        for (old, _) in plan.changes { items[old] = nil }
        for (_, new) in plan.changes { items[new.primaryKey] = new }
        return plan.changes.count
    }

    /// Removes every item matching `query` and returns how many.
    package mutating func delete(_ query: ItemQuery) -> Int {
        let doomed = matches(of: query).map(\.key)
        for key in doomed { items[key] = nil }
        return doomed.count
    }

    /// The items `query` matches, with their keys. A query that names a whole primary key
    /// (the synchronizable flag may be left out, as a SecItem query leaves it) costs one lookup
    /// per key it admits instead of a pass over every item, once there are enough items for
    /// the pass to cost more than building and hashing the key.
    private func matches(of query: ItemQuery) -> [(key: PrimaryKey, value: KeychainItem)] {
        if items.count > Self.itemsScannedFaster, let keys = query.possiblePrimaryKeys {
            return keys.compactMap { key in
                guard let item = items[key], query.matches(item) else { return nil }
                return (key, item)
            }
        }
        var found: [(key: PrimaryKey, value: KeychainItem)] = []
        for entry in items where query.matches(entry.value) { found.append(entry) }
        return found
    }

    /// Up to this many items, checking each costs less than one lookup by primary key, which
    /// first builds and hashes the whole key.
    private static let itemsScannedFaster = 2
}
