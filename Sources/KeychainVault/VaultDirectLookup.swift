import KeychainCore

/// The item a query can be answered from by reading one path, without listing a folder.
///
/// A query that names an item's service (or server) and account leads to the key with the
/// query's primary-key values and every primary-key attribute it leaves open at its default:
/// the plain path `generic/<service>/<account>` where ordinary items live. Defaults come first
/// in `PrimaryKey` order (an empty string, 0 and false precede every other value of their kind;
/// only an integer of ten or more digits, such as a port of 1000000000, sorts before 0), so
/// that item is also the one a full search returns first.
struct VaultDirectLookup {
    /// The leading key the query can match.
    let key: PrimaryKey
    /// True when the query fixes every primary-key attribute, so no other item can match it
    /// and an empty path means there is no match at all.
    let isOnlyCandidate: Bool

    /// Nil when the query does not name the service (or server) and account.
    init?(_ query: ItemQuery) {
        let itemClass = query.itemClass
        var attributes = ItemAttributes()
        var fixesEveryAttribute = true
        for attribute in itemClass.primaryKeyAttributes {
            if attribute == .synchronizable && query.matchesAnySynchronizable {
                fixesEveryAttribute = false
            } else if let value = query.constraints[attribute] {
                attributes[attribute] = value
            } else if attribute != .synchronizable {
                // An open synchronizable attribute still means "not synchronizable" (see
                // `ItemQuery.matches`), its default; any other open attribute allows any value.
                fixesEveryAttribute = false
            }
        }
        guard attributes[VaultItemLayout.groupAttribute(of: itemClass)] != nil, attributes[.account] != nil else { return nil }
        key = PrimaryKey(itemClass: itemClass, attributes: attributes)
        isOnlyCandidate = fixesEveryAttribute
    }
}
