/// Moves items from one store to another: the one copy engine behind `linux-keychain migrate`,
/// `linux-keychain import` and the typed API.
///
/// Contract, in full in the "Moving items between stores" article of KeychainCore's
/// documentation: every item in `scope` is copied with its exact secret and attributes, and
/// read back and compared before it counts; a differing target item is a conflict, left alone
/// unless `overwrite`; the target only gains whole items, so a rerun completes an interrupted
/// move; with `deleteSource` the source is emptied only after every item is in the target; no
/// secret appears in progress, outcomes or errors. Placement (pin, record) is the caller's.
public struct ItemMigration: Sendable {
    /// The store items are read from.
    public let source: any KeychainBackend
    /// The store items are written to.
    public let target: any KeychainBackend
    /// Which source items move: `.everything` for the operator, `.group(G)` for one program's.
    public let scope: AccessScope
    /// Replace a target item that conflicts, instead of listing it.
    public var overwrite = false
    /// Read and compare only: write and delete nothing.
    public var dryRun = false
    /// Delete each moved item from the source once every item is verified in the target.
    public var deleteSource = false

    /// A move of the items `scope` sees from `source` to `target`.
    public init(from source: any KeychainBackend, to target: any KeychainBackend, scope: AccessScope = .everything) {
        self.source = source
        self.target = target
        self.scope = scope
    }

    /// Every item `scope` sees in the source, with its secret, in a stable order; throws when
    /// any one entry cannot be read (`run` reports such an entry and moves the rest).
    public func sourceItems() throws -> [KeychainItem] {
        try Self.items(in: source, scope: scope)
    }

    /// Every item `scope` sees in `backend`, of both classes, with its secret, synchronizable
    /// or not, items other tools wrote included: what a move (or `linux-keychain export`) carries.
    /// Throws the first error, an unreadable item's included (`SourceItems` tells them apart).
    public static func items(in backend: any KeychainBackend, scope: AccessScope) throws -> [KeychainItem] {
        let found = try SourceItems.read(from: backend, scope: scope)
        if let first = found.unreadable.first { throw first.error }
        return found.readable
    }

    /// Moves every source item in scope; see the type's contract. `progress` is called once
    /// per item, in order, after its outcome is known. Throws only when the source cannot be
    /// read at all; a single item's failure is its outcome, an entry that cannot be read from
    /// the source included (it is `.failed`, after the items that could be read, in `entries`
    /// or, when it cannot even be named, in `damaged`; the move is then incomplete: nothing is
    /// deleted from the source).
    public func run(progress: (MigrationProgress) -> Void = { _ in }) throws -> MigrationReport {
        let found: SourceItems
        do {
            found = try SourceItems.read(from: source, scope: scope)
        } catch let error as KeychainError {
            throw error.attributed(to: source.name)
        }
        return run(items: found.readable, unreadable: found.unreadable, progress: progress)
    }

    /// Moves `items` (each with its secret), as `run(progress:)` moves the source's: for
    /// `linux-keychain import`, whose items come from a bundle. `deleteSource` deletes them from
    /// `source`.
    public func run(items: [KeychainItem], progress: (MigrationProgress) -> Void = { _ in }) -> MigrationReport {
        run(items: items, unreadable: [], progress: progress)
    }

    private func run(items: [KeychainItem], unreadable: [UnreadableEntry],
                     progress: (MigrationProgress) -> Void) -> MigrationReport {
        var report = MigrationReport()
        let total = items.count + unreadable.count
        report.entries.reserveCapacity(total)
        // What the target holds already, read in one search per class rather than one lookup
        // per item, which cost a third of a large move. An item added since by another writer
        // makes the add fail as a duplicate, and is then looked up on its own; a target that
        // cannot be read whole (one unreadable item) is looked up item by item instead. Only
        // `scope`'s items can share a primary key with the items moved, so only they are read.
        let present = try? Dictionary(Self.items(in: target, scope: scope).map { ($0.primaryKey, $0) }) { first, _ in first }
        func deliver(_ index: Int, _ outcome: MigrationOutcome) {
            report.entries.append((items[index].primaryKey, outcome))
            progress(MigrationProgress(position: index + 1, total: total, key: items[index].primaryKey, place: nil, outcome: outcome))
        }
        if let batching = target as? any BatchAdding, !dryRun, let present {
            for start in stride(from: 0, to: items.count, by: Self.batchSize) {
                let indices = start..<min(start + Self.batchSize, items.count)
                for (index, outcome) in zip(indices, move(Array(items[indices]), batching, present: present)) { deliver(index, outcome) }
            }
        } else {
            // Items are independent, so a target that waits on a server takes several at once.
            let width = dryRun ? 1 : max(1, (target as? any SideBySideWrites)?.sideBySideWrites ?? 1)
            WindowedWork.run(count: items.count, width: width, window: width * 16,
                             work: { move(items[$0], attempt: 1, present: present) }, deliver: deliver)
        }
        for (index, entry) in unreadable.enumerated() {
            let error = KeychainError(entry.error.status, "it could not be read from '\(source.name)': \(entry.error.message)",
                                      backend: source.name, failedCall: entry.error.failedCall)
            if let key = entry.key { report.entries.append((key, .failed(error))) } else { report.damaged.append(entry) }
            progress(MigrationProgress(position: items.count + index + 1, total: total, key: entry.key, place: entry.place, outcome: .failed(error)))
        }
        if deleteSource && !dryRun && report.isComplete {
            deleteFromSource(items, into: &report)
        }
        return report
    }

    /// Items a move hands a `BatchAdding` target at once: a progress step, and a slice of the
    /// items kept in memory sealed.
    static let batchSize = 256

    /// The moves of `items` into a target that adds in batches: those it lacked when the move
    /// began are added in one batch, then each read back and compared as `move` does; the rest,
    /// and those another writer added since, move one by one.
    private func move(_ items: [KeychainItem], _ target: any BatchAdding, present: [PrimaryKey: KeychainItem]) -> [MigrationOutcome] {
        let absent = items.indices.filter { present[items[$0].primaryKey] == nil }
        var outcomes: [Int: MigrationOutcome] = [:]
        for (index, error) in zip(absent, target.add(batch: absent.map { items[$0] })) {
            if let error, error.status == errSecDuplicateItem {
                outcomes[index] = move(items[index], attempt: 2, present: nil)
            } else if let error {
                outcomes[index] = .failed(error.attributed(to: target.name))
            } else {
                outcomes[index] = outcome { try verify(items[index], removingOnMismatch: true) ?? .copied }
            }
        }
        return items.indices.map { outcomes[$0] ?? move(items[$0], attempt: 1, present: present) }
    }

    /// One item's move: look, then add (or replace), then read back and compare.
    /// `present` is the target's items read before the move, or nil to look each one up.
    private func move(_ item: KeychainItem, attempt: Int, present: [PrimaryKey: KeychainItem]?) -> MigrationOutcome {
        outcome {
            let existing = try present.map { $0[item.primaryKey] } ?? copyInTarget(of: item.primaryKey)
            if let existing {
                let differences = ItemComparison.differences(between: item, and: existing, includingDates: false)
                if differences.isEmpty { return .alreadyPresent }
                guard overwrite else { return .conflict(differences: differences) }
                if dryRun { return .conflict(differences: differences) }
                try replace(existing, with: item)
                return try verify(item, removingOnMismatch: false) ?? .overwritten
            }
            if dryRun { return .wouldCopy }
            do {
                try target.add(item)
            } catch KeychainError.duplicateItem where attempt < 3 {
                // Another writer added it since the look: judge what is there now.
                return move(item, attempt: attempt + 1, present: nil)
            }
            return try verify(item, removingOnMismatch: true) ?? .copied
        }
    }

    /// What `body` returns, or the failure it throws, attributed to the target.
    private func outcome(_ body: () throws -> MigrationOutcome) -> MigrationOutcome {
        do {
            return try body()
        } catch let error as KeychainError {
            return .failed(error.attributed(to: target.name))
        } catch {
            return .failed(KeychainError(errSecInternalComponent, "Unexpected error: \(type(of: error)).", backend: target.name))
        }
    }

    /// The target's item with `key`, with its secret, or nil.
    private func copyInTarget(of key: PrimaryKey) throws -> KeychainItem? {
        try target.search(ItemQuery(primaryKey: key, includeSecrets: true)).first
    }

    /// Nil when the target holds `item` exactly; otherwise the failure, after deleting a copy
    /// this move made (a conflict it overwrote is left, and named in the error).
    private func verify(_ item: KeychainItem, removingOnMismatch: Bool) throws -> MigrationOutcome? {
        guard let copy = try copyInTarget(of: item.primaryKey) else {
            return .failed(KeychainError(errSecIO, "The copy of the item with \(item.primaryKey.readableName) was not found in '\(target.name)' after writing it.", backend: target.name))
        }
        let differences = ItemComparison.differences(between: item, and: copy, includingDates: true)
        guard !differences.isEmpty else { return nil }
        if removingOnMismatch { _ = try? target.delete(ItemQuery(primaryKey: item.primaryKey)) }
        let what = differences.joined(separator: ", ")
        return .failed(KeychainError(errSecIO, "'\(target.name)' did not keep the item with \(item.primaryKey.readableName) as the source holds it (differs in: \(what)); \(removingOnMismatch ? "the copy was removed" : "the target's item was replaced but still differs").", backend: target.name))
    }

    /// Replaces the target's `existing` item by `item` (same primary key): an update when that
    /// can make them equal, else delete and add (an interruption then leaves the target without
    /// the item and the source with it, and a rerun adds it).
    private func replace(_ existing: KeychainItem, with item: KeychainItem) throws {
        let query = ItemQuery(primaryKey: item.primaryKey)
        let onlyInTarget = existing.attributes.values.keys.filter { item.attributes[$0] == nil }
        if onlyInTarget.isEmpty {
            _ = try target.update(query, with: ItemChanges(attributes: item.attributes, secret: item.secret))
        } else {
            _ = try target.delete(query)
            try target.add(item)
        }
    }

    /// Deletes each moved item from the source, unless it changed since it was read.
    private func deleteFromSource(_ items: [KeychainItem], into report: inout MigrationReport) {
        for item in items {
            let query = ItemQuery(primaryKey: item.primaryKey, includeSecrets: true)
            do {
                guard let now = try source.search(query).first,
                      ItemComparison.differences(between: item, and: now, includingDates: true).isEmpty else {
                    report.changedDuringMove.append(item.primaryKey)
                    continue
                }
                report.deletedFromSource += try source.delete(ItemQuery(primaryKey: item.primaryKey))
            } catch {
                report.changedDuringMove.append(item.primaryKey)
            }
        }
    }
}
