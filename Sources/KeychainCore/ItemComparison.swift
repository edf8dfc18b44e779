/// How two copies of one item are compared when moving items between stores: by their secrets'
/// exact bytes and by every attribute Apple's API returns.
///
/// A value that is absent and the value a store fills in for it compare equal: a missing flag
/// is false, and a missing primary-key attribute is what `PrimaryKey` fills in (empty, 0), so a
/// store that leaves out an internet password's empty path still holds the same item.
package enum ItemComparison: Sendable {
    /// What differs between `source` and `copy`: the attribute names (Apple's, e.g. `labl`)
    /// and `secret` when the bytes differ; empty when they are the same item. Both must carry
    /// their secrets. Dates are compared only `includingDates` (a copy that already existed
    /// before a move has its own dates, and is still the same item).
    package static func differences(between source: KeychainItem, and copy: KeychainItem, includingDates: Bool) -> [String] {
        var found: [String] = []
        for key in AttributeKey.allCases where includingDates || !key.isMaintainedByLibrary {
            if normalized(source.attributes[key], key, source.itemClass) != normalized(copy.attributes[key], key, copy.itemClass) {
                found.append(key.rawValue)
            }
        }
        switch (source.secret, copy.secret) {
        case (let left?, let right?) where left.constantTimeEquals(right): break
        default: found.append("secret")
        }
        return found
    }

    private static func normalized(_ value: AttributeValue?, _ key: AttributeKey, _ itemClass: ItemClass) -> AttributeValue? {
        if let value { return value }
        if key.valueKind == .bool { return .bool(false) }
        if itemClass.primaryKeyAttributes.contains(key) { return .missingPrimaryKeyValue(of: key.valueKind) }
        return nil
    }
}
