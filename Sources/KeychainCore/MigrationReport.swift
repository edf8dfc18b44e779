/// What happened to one item in a move between stores (`ItemMigration`).
public enum MigrationOutcome: Hashable, Sendable {
    /// Written to the target, read back and found identical.
    case copied
    /// The target already held the same item (same secret bytes and attributes): nothing written.
    case alreadyPresent
    /// The target holds an item with this primary key but other bytes or attributes, listed by
    /// Apple's attribute names and `secret`. Left alone: nothing written.
    case conflict(differences: [String])
    /// The target's different item was replaced (`overwrite`), read back and found identical.
    case overwritten
    /// A dry run: the item would be copied (or, for a conflict, `conflict` is reported).
    case wouldCopy
    /// The item could not be copied or verified; the error never holds a secret. The target
    /// keeps no copy that failed verification.
    case failed(KeychainError)

    /// Whether the target now holds this item as the source does.
    public var isInTarget: Bool {
        switch self {
        case .copied, .alreadyPresent, .overwritten: return true
        case .conflict, .wouldCopy, .failed: return false
        }
    }

    /// One word or two for progress lines and the summary: `copied`, `already present`, ...
    public var word: String {
        switch self {
        case .copied: return "copied"
        case .alreadyPresent: return "already present"
        case .conflict: return "conflict"
        case .overwritten: return "overwritten"
        case .wouldCopy: return "would copy"
        case .failed: return "failed"
        }
    }
}

/// One item's progress through a move: reported once per item, after its outcome is known.
public struct MigrationProgress: Sendable {
    /// 1 for the first item.
    public let position: Int
    /// How many items the source holds in the scope moved.
    public let total: Int
    /// The item, by name (never its secret); nil for a source entry too damaged to name.
    public let key: PrimaryKey?
    /// Where the source keeps an entry that has no `key` (`UnreadableEntry.place`); else nil.
    public let place: String?
    /// What happened to it.
    public let outcome: MigrationOutcome
}

/// The account of a whole move: every item's outcome, and what was deleted from the source.
public struct MigrationReport: Sendable {
    /// Every source item in the order moved, with its outcome.
    public internal(set) var entries: [(key: PrimaryKey, outcome: MigrationOutcome)] = []
    /// Source entries too damaged to name by a primary key, which therefore did not move; an
    /// item that could be named but not read is in `entries`, as `.failed`.
    public internal(set) var damaged: [UnreadableEntry] = []
    /// How many items were deleted from the source (`deleteSource`, only after a complete move).
    public internal(set) var deletedFromSource = 0
    /// Source items `deleteSource` left in place: changed since they were copied, or not deletable.
    public internal(set) var changedDuringMove: [PrimaryKey] = []

    /// Items with `outcome`'s word, e.g. `count("copied")`.
    /// A damaged entry counts as `failed`.
    public func count(_ word: String) -> Int {
        entries.filter { $0.outcome.word == word }.count + (word == "failed" ? damaged.count : 0)
    }

    /// Whether every source item is now in the target, as the source holds it.
    public var isComplete: Bool { damaged.isEmpty && entries.allSatisfy { $0.outcome.isInTarget } }

    /// The items in conflict, with what differs.
    public var conflicts: [(key: PrimaryKey, differences: [String])] {
        entries.compactMap { entry in
            if case .conflict(let differences) = entry.outcome { return (entry.key, differences) }
            return nil
        }
    }

    /// The items that failed, with why (the `damaged` entries are apart).
    public var failures: [(key: PrimaryKey, error: KeychainError)] {
        entries.compactMap { entry in
            if case .failed(let error) = entry.outcome { return (entry.key, error) }
            return nil
        }
    }

    /// One line: `3 copied, 1 already present, 1 conflict`, leaving out what did not happen.
    public var summary: String {
        let words = ["copied", "already present", "overwritten", "would copy", "conflict", "failed"]
        let parts = words.compactMap { word -> String? in
            let count = count(word)
            return count == 0 ? nil : "\(count) \(word)"
        }
        var text = parts.isEmpty ? "no items" : parts.joined(separator: ", ")
        if deletedFromSource > 0 { text += "; \(deletedFromSource) deleted from the source" }
        return text
    }
}
