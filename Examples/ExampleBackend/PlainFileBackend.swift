import Foundation
public import KeychainCore

/// An example of a third-party backend: what an author outside this package writes, using only
/// `KeychainCore`'s public API, and proves with the whole `KeychainConformance` suite, the
/// many-process case included (through `ExampleBackendHelper`; see KeychainCore's "Writing a
/// backend" article).
///
/// **It is an example of the contract, not a place for real secrets:** every item, secret
/// included, is kept as plain JSON in one file (`PlainFileStore`), protected only by the
/// directory's mode 0700.
///
/// How it keeps the contract:
/// - every call runs under a `flock` of the store's lock file, shared for a search and
///   exclusive for a write, so a check and the write it decides (is this key free? then add)
///   are one step across threads and processes;
/// - a write replaces the file by an atomic rename, so a reader sees all of it or none;
/// - items are kept in the order they were added and returned in that order, which is stable;
/// - errors name items by `PrimaryKey.readableName`, never their secrets.
public final class PlainFileBackend: KeychainBackend {
    public let name: String
    private let store: PlainFileStore

    /// A backend keeping its items in `directory` (created, mode 0700, at the first write).
    public init(directory: String, name: String = "example-plain-file") {
        self.name = name
        store = PlainFileStore(directory: directory, backendName: name)
    }

    public func availability() -> BackendAvailability {
        .available("example store in \(store.directory) (plain text: not for real secrets)")
    }

    public func add(_ item: KeychainItem) throws {
        try NameRules.refuseNUL(in: item)  // every backend refuses NUL in names, so all agree
        let key = item.primaryKey
        try store.modify { items in
            guard !items.contains(where: { $0.primaryKey == key }) else {
                throw KeychainError.duplicate("An item with \(key.readableName) already exists.").attributed(to: name)
            }
            items.append(item)
        }
    }

    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        return try store.read { items in
            // The contract's order: by creation date, ties by primary key, then the limit.
            let found = ResultOrder.ordered(items.filter(query.matches), limit: query.limit)
            return query.includeSecrets ? found : found.map { KeychainItem(itemClass: $0.itemClass, attributes: $0.attributes) }
        }
    }

    /// Changes every match in place; when any two items would end with one primary key, throws
    /// `errSecDuplicateItem` before anything is written.
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        return try store.modify { items in
            var updated = items
            var count = 0
            for index in updated.indices where query.matches(updated[index]) {
                updated[index] = changes.applied(to: updated[index])
                count += 1
            }
            guard Set(updated.map(\.primaryKey)).count == updated.count else {
                throw KeychainError.duplicate("The update would give an item the primary key of another.").attributed(to: name)
            }
            items = updated
            return count
        }
    }

    public func delete(_ query: ItemQuery) throws -> Int {
        try NameRules.refuseNUL(in: query)
        return try store.modify { items in
            let before = items.count
            items.removeAll(where: query.matches)
            return before - items.count
        }
    }
}
