import FoundationEssentials
import Glibc

/// The `memory` backend: items live in this process only and vanish when it exits.
///
/// Meant for the tests of code that uses the library, so that they need no store on the
/// machine. Thread-safe; it never touches the disk.
public final class MemoryBackend: KeychainBackend, Sendable {
    /// The name it is registered under: `memory`.
    public static let backendName = "memory"
    /// `memory`.
    public var name: String { Self.backendName }
    /// Nothing outlives the process.
    public var retention: ItemRetention { .processLifetime }

    /// The items, behind the one lock every call takes.
    private let collection = Locked(ItemCollection())

    /// An empty store, private to this instance.
    public init() {}

    /// Always available: it needs nothing from the system.
    public func availability() -> BackendAvailability {
        .available("process memory; nothing survives the process")
    }

    /// Adds `item`; see `KeychainBackend.add(_:)`.
    public func add(_ item: KeychainItem) throws {
        try NameRules.refuseNUL(in: item)
        try collection.withLock { try $0.add(item) }
    }

    /// The items matching `query`; see `KeychainBackend.search(_:)`.
    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        return collection.withLock { $0.search(query) }
    }

    /// Updates the items matching `query`; see `KeychainBackend.update(_:with:)`.
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        return try collection.withLock { try $0.update(query, with: changes) }
    }

    /// Deletes the items matching `query`; see `KeychainBackend.delete(_:)`.
    public func delete(_ query: ItemQuery) throws -> Int {
        try NameRules.refuseNUL(in: query)
        return collection.withLock { $0.delete(query) }
    }
}
