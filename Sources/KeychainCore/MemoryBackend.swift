import Foundation

/// The `memory` backend: items live in this process only and vanish when it exits.
///
/// Meant for the tests of code that uses the library, so that they need no store on the
/// machine. Thread-safe; it never touches the disk.
public final class MemoryBackend: KeychainBackend, @unchecked Sendable {
    public static let backendName = "memory"
    public var name: String { Self.backendName }

    // Guarded by `lock`; the unchecked Sendable relies on it.
    private var collection = ItemCollection()
    private let lock = NSLock()

    public init() {}

    public func availability() -> BackendAvailability {
        .available("process memory; nothing survives the process")
    }

    public func add(_ item: KeychainItem) throws {
        try NameRules.refuseNUL(in: item)
        try lock.withLock { try collection.add(item) }
    }

    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        return lock.withLock { collection.search(query) }
    }

    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        return try lock.withLock { try collection.update(query, with: changes) }
    }

    public func delete(_ query: ItemQuery) throws -> Int {
        try NameRules.refuseNUL(in: query)
        return lock.withLock { collection.delete(query) }
    }
}
