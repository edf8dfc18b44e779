import KeychainCore

/// What a query says about the primary keys of the items it can match, beyond
/// `ItemQuery.possiblePrimaryKeys`, so that the backend can look the item up by name.
extension ItemQuery {
    /// The primary key of the one untagged item (`TaggedItemsMarker`) this query can match: its
    /// service (or server) and account, every other primary-key attribute at its default. Nil
    /// unless the query gives both, so that one lookup by name covers every untagged item; nil
    /// for keys and certificates, whose names always carry their type.
    var untaggedPrimaryKey: PrimaryKey? {
        guard itemClass.holdsPasswords, hasWellTypedPrimaryKeyConstraints else { return nil }
        var attributes = ItemAttributes()
        for key in ItemKeyDescription.positionalKeys(itemClass) {
            guard let value = constraints[key] else { return nil }
            attributes[key] = value
        }
        return PrimaryKey(itemClass: itemClass, attributes: attributes)
    }

    /// Whether each primary-key constraint holds the kind of value its attribute takes, so that
    /// a primary key built from the constraints names the items they match.
    private var hasWellTypedPrimaryKeyConstraints: Bool {
        itemClass.primaryKeyAttributes.allSatisfy { key in constraints[key].map { $0.kind == key.valueKind } ?? true }
    }
}
