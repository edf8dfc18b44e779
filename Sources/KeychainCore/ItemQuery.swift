/// How many matches a search returns.
public enum MatchLimit: Hashable, Sendable {
    case one
    case all
    case count(Int)

    /// The largest number of results, or nil for no limit.
    public var maximum: Int? {
        switch self {
        case .one: return 1
        case .all: return nil
        case .count(let count): return count
        }
    }
}

/// A parsed, validated query: the only form in which backends ever see a search.
///
/// The front end builds it from Apple's dictionary; the typed API builds it directly.
public struct ItemQuery: Sendable {
    /// The class of the items to match.
    public var itemClass: ItemClass
    /// Attributes an item must have with exactly these values.
    public var constraints: ItemAttributes
    /// How many matches a search returns; updates and deletes ignore it.
    public var limit: MatchLimit
    /// Whether search results must carry their secrets. Backends that pay to load a secret
    /// skip that work when this is false.
    public var includeSecrets: Bool
    /// Whether the caller reads the results' attributes (`kSecReturnAttributes`), not only
    /// their secrets. When false, a backend may leave out of the results the attributes that
    /// cost it extra work to read and that the query does not constrain (the Secret Service
    /// leaves out the label); the primary-key attributes are always there, and the results
    /// still match the query and come in `ResultOrder`. True unless the caller clears it.
    public var includeAttributes: Bool = true
    /// `kSecAttrSynchronizableAny`: match synchronizable and other items alike. When false and
    /// no synchronizable constraint is given, only items that are not synchronizable match,
    /// as on Apple platforms.
    public var matchesAnySynchronizable: Bool
    /// Whether a class-wide search also returns items that other programs (secret-tool, Python
    /// keyring) wrote with this class's identity attributes, as a search naming a service or
    /// server always does. Set by operator views such as `linux-keychain list`; the SecItem functions
    /// leave it false, so an app's class-wide query keeps its hands off everyone else's items.
    /// Backends whose stores tell no items apart by writer may ignore it.
    public var includesOtherProgramsItems: Bool

    /// A query for items of `itemClass` with the `constraints`; see each property for the others.
    public init(itemClass: ItemClass, constraints: ItemAttributes = ItemAttributes(), limit: MatchLimit = .all,
                includeSecrets: Bool = false, matchesAnySynchronizable: Bool = false,
                includesOtherProgramsItems: Bool = false) {
        self.itemClass = itemClass
        self.constraints = constraints
        self.limit = limit
        self.includeSecrets = includeSecrets
        self.matchesAnySynchronizable = matchesAnySynchronizable
        self.includesOtherProgramsItems = includesOtherProgramsItems
    }

    /// A query that matches exactly the item with `primaryKey`.
    public init(primaryKey: PrimaryKey, includeSecrets: Bool = false) {
        self.init(itemClass: primaryKey.itemClass, constraints: primaryKey.attributes, limit: .one,
                  includeSecrets: includeSecrets, matchesAnySynchronizable: false)
    }

    /// The one definition of "matches", which every backend applies, directly or after a
    /// coarser native search. A missing flag equals false, and a missing primary-key attribute
    /// equals what `PrimaryKey` fills in for it (empty, 0 or false), so that the query
    /// `ItemQuery(primaryKey:)` finds the item whatever it left out (an internet password
    /// without a port); any other missing attribute matches no constraint on it.
    public func matches(_ itemClass: ItemClass, _ attributes: ItemAttributes) -> Bool {
        guard itemClass == self.itemClass else { return false }
        for (key, wanted) in constraints {
            if key == .synchronizable && matchesAnySynchronizable { continue }
            guard ItemQuery.effectiveValue(of: key, in: attributes, for: itemClass) == wanted else { return false }
        }
        if !matchesAnySynchronizable && constraints[.synchronizable] == nil && attributes.flag(.synchronizable) {
            return false
        }
        return true
    }

    /// Whether `item` matches; see `matches(_:_:)`.
    public func matches(_ item: KeychainItem) -> Bool { matches(item.itemClass, item.attributes) }

    private static func effectiveValue(of key: AttributeKey, in attributes: ItemAttributes,
                                       for itemClass: ItemClass) -> AttributeValue? {
        if let value = attributes[key] { return value }
        if key.valueKind == .bool { return .bool(false) }
        if itemClass.primaryKeyAttributes.contains(key) { return .missingPrimaryKeyValue(of: key.valueKind) }
        return nil
    }

    /// Every primary key an item matching this query can have, when the query constrains each
    /// primary-key attribute with a value of its kind: one key, or two when
    /// `matchesAnySynchronizable` admits both values of the synchronizable flag (left
    /// unconstrained, the flag must be false, so the key has it false). Nil otherwise.
    ///
    /// A backend may look these items up directly, then confirm each with `matches`: the cost
    /// no longer grows with the store. It holds because `matches` and `PrimaryKey` agree on
    /// missing values: a matching item has each constrained value, or lacks a primary-key
    /// attribute that the constraint gives as its default (empty, 0 or false), which
    /// `PrimaryKey` counts the same way.
    public var possiblePrimaryKeys: [PrimaryKey]? {
        // One pass, one lookup per attribute: every lookup by primary key starts here.
        for key in itemClass.primaryKeyAttributes {
            guard let value = constraints[key] else {
                if key == .synchronizable { continue }
                return nil
            }
            guard value.kind == key.valueKind else { return nil }
        }
        guard matchesAnySynchronizable else { return [PrimaryKey(itemClass: itemClass, attributes: constraints)] }
        return [false, true].map { flag in
            var attributes = constraints
            attributes[.synchronizable] = .bool(flag)
            return PrimaryKey(itemClass: itemClass, attributes: attributes)
        }
    }

    /// The primary key of the only item this query can match: `possiblePrimaryKeys` when it
    /// names one key; nil otherwise.
    public var onlyMatchingPrimaryKey: PrimaryKey? {
        guard let keys = possiblePrimaryKeys, keys.count == 1 else { return nil }
        return keys[0]
    }

    /// The constraint on `key` as a string, for backends that can narrow a native search by it.
    public func constrainedString(_ key: AttributeKey) -> String? { constraints.string(key) }
}

/// What an update changes: attributes to overwrite and, optionally, a new secret.
public struct ItemChanges: Sendable {
    /// The attributes to overwrite; the others keep their values.
    public var attributes: ItemAttributes
    /// The new secret, or nil to keep the old one.
    public var secret: SecretBytes?

    /// Changes that overwrite `attributes` and, when given, the secret.
    public init(attributes: ItemAttributes = ItemAttributes(), secret: SecretBytes? = nil) {
        self.attributes = attributes
        self.secret = secret
    }

    /// Whether applying these changes can move an item to another primary key.
    public func changesPrimaryKey(of itemClass: ItemClass) -> Bool {
        itemClass.primaryKeyAttributes.contains { attributes[$0] != nil }
    }

    /// The item after the change. Keeps the old secret when no new one is given.
    public func applied(to item: KeychainItem) -> KeychainItem {
        KeychainItem(itemClass: item.itemClass, attributes: item.attributes.merging(attributes),
                     secret: secret ?? item.secret)
    }
}

/// The renames an update implies, checked for collisions among the matched items themselves.
///
/// A backend builds one from the items it matched, then checks `keysNeedingVacancy` against
/// the rest of its store before writing anything, so that a colliding update changes nothing.
package struct UpdatePlan: Sendable {
    /// Each matched item with its new form.
    package let changes: [(old: PrimaryKey, new: KeychainItem)]
    /// Whether the changes set any primary-key attribute, so that an item may be renamed.
    private let setsPrimaryKeyAttributes: Bool

    /// The new primary keys that must not belong to any item outside the matched set.
    package var keysNeedingVacancy: [PrimaryKey] {
        // Changes that set no primary-key attribute leave every item its name.
        guard setsPrimaryKeyAttributes else { return [] }
        let old = Set(changes.map(\.old))
        return changes.map(\.new.primaryKey).filter { !old.contains($0) }
    }

    /// Fails with `errSecDuplicateItem` when two matched items would end with one primary key.
    package init(matched: [KeychainItem], changes itemChanges: ItemChanges) throws {
        var seen = Set<PrimaryKey>()
        var changes: [(old: PrimaryKey, new: KeychainItem)] = []
        changes.reserveCapacity(matched.count)
        var setsPrimaryKeyAttributes = false
        for item in matched {
            let updated = itemChanges.applied(to: item)
            // One item cannot collide with itself: the set is for updates of several.
            guard matched.count == 1 || seen.insert(updated.primaryKey).inserted else {
                throw KeychainError.duplicate("The update would give two items the same primary key.")
            }
            setsPrimaryKeyAttributes = setsPrimaryKeyAttributes || itemChanges.changesPrimaryKey(of: item.itemClass)
            changes.append((item.primaryKey, updated))
        }
        self.changes = changes
        self.setsPrimaryKeyAttributes = setsPrimaryKeyAttributes
    }
}
