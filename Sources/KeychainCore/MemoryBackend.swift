import Foundation
import Synchronization

/// The `memory` backend: items live in this process only and vanish when it exits.
///
/// Meant for the tests of code that uses the library, so that they need no store on the
/// machine. Thread-safe; it never touches the disk.
public final class MemoryBackend: KeychainBackend, Sendable {
    public static let backendName = "memory"
    public var name: String { Self.backendName }

    private let collection = Mutex(ItemCollection())

    public init() {}

    public func availability() -> BackendAvailability {
        .available("process memory; nothing survives the process")
    }

    public func add(_ item: KeychainItem) throws {
        try collection.withLock { try $0.add(item) }
    }

    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        collection.withLock { $0.search(query) }
    }

    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try collection.withLock { try $0.update(query, with: changes) }
    }

    public func delete(_ query: ItemQuery) throws -> Int {
        collection.withLock { $0.delete(query) }
    }
}
