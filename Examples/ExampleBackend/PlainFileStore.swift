#if canImport(Glibc)
import Glibc
#endif
import Foundation
import KeychainCore

/// The file behind `PlainFileBackend`: `items.json`, every item in adding order, replaced
/// whole by an atomic rename; and `lock`, which readers `flock` shared and writers exclusive.
/// A lock is taken on a descriptor opened per call, so it orders threads of one process as
/// well as processes.
struct PlainFileStore: Sendable {
    let directory: String
    let backendName: String

    private var itemsPath: String { directory + "/items.json" }
    private var lockPath: String { directory + "/lock" }

    /// One item as JSON: Apple's attribute names to `AttributeValue.encoded` text.
    private struct Record: Codable {
        var itemClass: String
        var attributes: [String: String]
        var secret: Data
    }

    /// Runs `body` with the stored items under the shared lock.
    func read<Result>(_ body: ([KeychainItem]) throws -> Result) throws -> Result {
        try withLock(LOCK_SH) { try body(try load()) }
    }

    /// Runs `body` on the stored items under the exclusive lock, and stores what it leaves
    /// unless it throws.
    func modify<Result>(_ body: (inout [KeychainItem]) throws -> Result) throws -> Result {
        try withLock(LOCK_EX) {
            var items = try load()
            let result = try body(&items)
            try save(items)
            return result
        }
    }

    private func withLock<Result>(_ operation: Int32, _ body: () throws -> Result) throws -> Result {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw failure("create the directory", directory) }
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("open", lockPath) }
        defer { close(descriptor) }
        while flock(descriptor, operation) != 0 {
            guard errno == EINTR else { throw failure("lock", lockPath) }
        }
        return try body()
    }

    private func load() throws -> [KeychainItem] {
        guard let data = FileManager.default.contents(atPath: itemsPath) else { return [] }
        do {
            return try JSONDecoder().decode([Record].self, from: data).map { record in
                guard let itemClass = ItemClass(rawValue: record.itemClass) else { throw KeychainError.badParameter("unknown class") }
                return KeychainItem(itemClass: itemClass, attributes: try ItemAttributes(encodedFields: record.attributes),
                                    secret: SecretBytes(record.secret))
            }
        } catch {
            throw KeychainError(errSecDecode, "The example store \(itemsPath) cannot be read; delete it.", backend: backendName)
        }
    }

    private func save(_ items: [KeychainItem]) throws {
        let records = items.map { item in
            Record(itemClass: item.itemClass.rawValue, attributes: item.attributes.encodedFields,
                   secret: item.secret?.makeData() ?? Data())
        }
        do {
            // `.atomic` writes a temporary file beside it and renames it over the old one.
            try JSONEncoder().encode(records).write(to: URL(fileURLWithPath: itemsPath), options: .atomic)
        } catch {
            throw KeychainError(errSecIO, "The example store \(itemsPath) could not be written.", backend: backendName)
        }
    }

    private func failure(_ action: String, _ path: String) -> KeychainError {
        KeychainError(errSecIO, "Could not \(action) \(path): \(String(cString: strerror(errno))).", backend: backendName)
    }
}
