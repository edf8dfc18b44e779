/// A set of items keyed by primary key, with the protocol's add, search, update and delete
/// semantics, for backends that hold their items in memory or load them whole.
///
/// It is a value type with no locking; the owner serializes access.
public struct ItemCollection: Sendable {
    public private(set) var items: [PrimaryKey: KeychainItem] = [:]

    public init(_ items: [KeychainItem] = []) {
        for item in items { self.items[item.primaryKey] = item }
    }

    public mutating func add(_ item: KeychainItem) throws {
        let key = item.primaryKey
        guard items[key] == nil else {
            throw KeychainError.duplicate("An item with \(key.readableName) already exists.")
        }
        items[key] = item
    }

    /// Matches in primary-key order, limited, with secrets only when asked for.
    public func search(_ query: ItemQuery) -> [KeychainItem] {
        var found = items.values.filter(query.matches).sorted { $0.primaryKey < $1.primaryKey }
        if let maximum = query.limit.maximum, found.count > maximum { found.removeLast(found.count - maximum) }
        if !query.includeSecrets {
            found = found.map { KeychainItem(itemClass: $0.itemClass, attributes: $0.attributes) }
        }
        return found
    }

    public mutating func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        let matched = items.values.filter(query.matches)
        let plan = try UpdatePlan(matched: matched, changes: changes)
        for key in plan.keysNeedingVacancy where items[key] != nil {
            throw KeychainError.duplicate("The update would collide with the item with \(key.readableName).")
        }
        for (old, _) in plan.changes { items[old] = nil }
        for (_, new) in plan.changes { items[new.primaryKey] = new }
        return plan.changes.count
    }

    public mutating func delete(_ query: ItemQuery) -> Int {
        let doomed = items.values.filter(query.matches).map(\.primaryKey)
        for key in doomed { items[key] = nil }
        return doomed.count
    }
}
