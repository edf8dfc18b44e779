public import FoundationEssentials
import Glibc

/// The order in which every backend returns search results: insertion order, as Apple's
/// keychain returns them, so code that lists "all keys" sees them in the order it added them.
///
/// Insertion order is the order of the stored creation dates (`kSecAttrCreationDate`, which the
/// front end stamps on every add and no update changes). Items without one, such as those other
/// programs wrote, come first. Equal dates are ordered by primary key, so the order is total
/// and the same on every read.
public enum ResultOrder: Sendable {
    /// Whether the item with `lhsCreated` and `lhsKey` comes before the other one.
    package static func precedes(created lhsCreated: Date?, key lhsKey: PrimaryKey,
                                created rhsCreated: Date?, key rhsKey: PrimaryKey) -> Bool {
        let lhsDate = lhsCreated ?? .distantPast
        let rhsDate = rhsCreated ?? .distantPast
        if lhsDate != rhsDate { return lhsDate < rhsDate }
        return lhsKey < rhsKey
    }

    /// Whether `lhs` comes before `rhs`.
    public static func precedes(_ lhs: KeychainItem, _ rhs: KeychainItem) -> Bool {
        precedes(created: lhs.attributes.creationDate, key: lhs.primaryKey,
                 created: rhs.attributes.creationDate, key: rhs.primaryKey)
    }

    /// `items` in result order, cut to `limit`.
    public static func ordered(_ items: [KeychainItem], limit: MatchLimit) -> [KeychainItem] {
        let sorted = items.sorted(by: precedes)
        return limit.maximum.map { Array(sorted.prefix($0)) } ?? sorted
    }
}

extension ItemAttributes {
    /// `kSecAttrCreationDate`, when stored.
    public var creationDate: Date? {
        if case .date(let date)? = self[.creationDate] { return date }
        return nil
    }
}
