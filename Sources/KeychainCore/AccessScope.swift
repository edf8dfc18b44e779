/// Which items a caller may see and change, by access group: the rule that keeps one program's
/// "delete all my items" away from another program's items and from the operator's.
///
/// The front end applies it before a query reaches a backend, so a backend only ever sees
/// ordinary `kSecAttrAccessGroup` (`agrp`) constraints. A query that names a group is left as
/// it is. Shared items are those stored with no group. The table of what each scope adds,
/// searches and changes is in the "Access groups" article of KeychainCore's documentation.
public enum AccessScope: Hashable, Sendable {
    /// A program: its own group for adding; its own group, then the other groups it is
    /// entitled to (as an Apple app's `keychain-access-groups`), for updating and deleting;
    /// those and then the shared items for reading.
    case program(String, alsoEntitled: [String] = [])
    /// Exactly one group, for reading and writing (the CLI's `--group`).
    case group(String)
    /// The operator's view: every item, whatever its group.
    case everything

    /// The scope of this process as a program (`KeychainProgramIdentity.accessGroups`).
    public static var currentProgram: AccessScope {
        let groups = KeychainProgramIdentity.accessGroups
        return .program(groups[0], alsoEntitled: Array(groups.dropFirst()))
    }

    /// The groups a query that names none reaches for updates and deletes, in search order;
    /// empty for the operator's view, which reaches every group.
    public var groups: [String] {
        switch self {
        case .program(let group, let others): return [group] + others.filter { $0 != group }
        case .group(let group): return [group]
        case .everything: return []
        }
    }

    /// The group an item added without one is stored in; nil keeps it shared.
    public var groupForNewItems: String? {
        switch self {
        case .program(let group, _), .group(let group): return group
        case .everything: return nil
        }
    }

    /// `item` as it is stored: given this scope's group when it names none.
    package func stamping(_ item: KeychainItem) -> KeychainItem {
        guard !Self.namesGroup(item.attributes), let group = groupForNewItems else { return item }
        var stamped = item
        stamped.attributes[.accessGroup] = .string(group)
        return stamped
    }

    /// An update's `changes` as they are applied: a group spelled as "" stays this scope's
    /// group, so that a program's update cannot turn its item into a shared one, which it could
    /// then neither change nor delete.
    package func stamping(changes: ItemAttributes) -> ItemAttributes {
        guard changes[.accessGroup] != nil, !Self.namesGroup(changes), let group = groupForNewItems else { return changes }
        var stamped = changes
        stamped[.accessGroup] = .string(group)
        return stamped
    }

    /// The backend searches that together answer `query`, in the order their results come:
    /// for a program, its own group and then the shared items.
    package func searches(_ query: ItemQuery) -> [ItemQuery] {
        var searches: [ItemQuery] = []
        forEachSearch(query) { searches.append($0); return true }
        return searches
    }

    /// Calls `body` with each of `searches(query)` in turn, building each only when it is
    /// reached, until `body` returns false (say, once a search has found enough).
    package func forEachSearch(_ query: ItemQuery, _ body: (ItemQuery) throws -> Bool) rethrows {
        guard !Self.namesGroup(query.constraints) else {
            _ = try body(query)
            return
        }
        switch self {
        case .program:
            for group in groups + [""] {
                guard try body(query.constrained(toGroup: group)) else { return }
            }
        case .group(let group): _ = try body(query.constrained(toGroup: group))
        case .everything: _ = try body(query)
        }
    }

    /// The backend queries of an update or delete, one per group it reaches: the caller's own
    /// groups (`groups`) unless it named one, every group for the operator.
    package func changeQueries(_ query: ItemQuery) -> [ItemQuery] {
        guard !Self.namesGroup(query.constraints), !groups.isEmpty else { return [query] }
        return groups.map { query.constrained(toGroup: $0) }
    }

    /// Whether `attributes` name a group other than the empty one.
    private static func namesGroup(_ attributes: ItemAttributes) -> Bool {
        !(attributes.string(.accessGroup) ?? "").isEmpty
    }
}

extension ItemQuery {
    /// This query limited to items of `group`; "" means the shared items, which have no group.
    package func constrained(toGroup group: String) -> ItemQuery {
        var narrowed = self
        narrowed.constraints[.accessGroup] = .string(group)
        return narrowed
    }
}
