import Foundation

/// The four operations as every entry point performs them: the SecItem functions, the typed
/// API and the CLI all go through here, so they stamp dates, report "not found" and record
/// the last error the same way.
///
/// It adds what the backend protocol leaves to the front end: creation and modification dates,
/// `errSecItemNotFound` for updates and deletes that match nothing, errors attributed to the
/// backend, and `KeychainLastError` bookkeeping.
public struct KeychainOperations: Sendable {
    public let backend: any KeychainBackend

    public init(backend: any KeychainBackend) {
        self.backend = backend
    }

    /// The backend `using(_:_:)` gave the current task, if any.
    @TaskLocal private static var taskBackend: (any KeychainBackend)?

    /// Runs `body` with every call of this task (the SecItem functions included) going to
    /// `backend`, whatever the process-wide choice. Tests use it to drive one backend through
    /// the front end while other tests in the process use another.
    public static func using<Result>(_ backend: any KeychainBackend, _ body: () throws -> Result) rethrows -> Result {
        try $taskBackend.withValue(backend, operation: body)
    }

    /// Operations on the backend `using(_:_:)` gave this task, else the one chosen in code, or
    /// by `KEYCHAIN_BACKEND`, or by `auto`.
    public static func current() throws -> KeychainOperations {
        if let backend = taskBackend { return KeychainOperations(backend: backend) }
        return try recordingFailure {
            KeychainOperations(backend: try KeychainBackendRegistry.withBuiltIns.current())
        }
    }

    /// Operations on the backend registered as `name` (or `auto`), which must be usable here.
    public static func named(_ name: String) throws -> KeychainOperations {
        try recordingFailure {
            KeychainOperations(backend: try KeychainBackendRegistry.withBuiltIns.select(name))
        }
    }

    /// Adds `item`, setting its creation and modification dates to now.
    public func add(_ item: KeychainItem) throws {
        var stamped = item
        let now = Date()
        stamped.attributes[.creationDate] = .date(now)
        stamped.attributes[.modificationDate] = .date(now)
        try run { try backend.add(stamped) }
    }

    /// The matching items; throws `errSecItemNotFound` when there are none.
    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try run {
            let found = try backend.search(query)
            if found.isEmpty { throw KeychainError.notFound() }
            return found
        }
    }

    /// Updates every matching item, setting its modification date; throws
    /// `errSecItemNotFound` when nothing matches.
    @discardableResult
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        var stamped = changes
        stamped.attributes[.modificationDate] = .date(Date())
        return try run {
            let count = try backend.update(query, with: stamped)
            if count == 0 { throw KeychainError.notFound() }
            return count
        }
    }

    /// Deletes every matching item; throws `errSecItemNotFound` when nothing matches.
    @discardableResult
    public func delete(_ query: ItemQuery) throws -> Int {
        try run {
            let count = try backend.delete(query)
            if count == 0 { throw KeychainError.notFound() }
            return count
        }
    }

    /// Stores `secret` for the item `primaryKey` names: updates it if it exists, else adds it.
    ///
    /// Safe against a concurrent writer: if the item appears between the update and the add,
    /// or vanishes between them, it tries again, a bounded number of times.
    public func set(_ secret: SecretBytes, for primaryKey: PrimaryKey, attributes: ItemAttributes = ItemAttributes()) throws {
        let query = ItemQuery(primaryKey: primaryKey)
        for _ in 0..<8 {
            do {
                try update(query, with: ItemChanges(attributes: attributes, secret: secret))
                return
            } catch KeychainError.itemNotFound {
                let item = KeychainItem(itemClass: primaryKey.itemClass,
                                        attributes: primaryKey.attributes.merging(attributes), secret: secret)
                do {
                    try add(item)
                    return
                } catch KeychainError.duplicateItem {
                    continue
                }
            }
        }
        throw record(KeychainError(errSecIO, "The item kept changing under concurrent writers; try again.",
                                   backend: backend.name))
    }

    private func run<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            let result = try body()
            KeychainLastError.record(nil)
            return result
        } catch let error as KeychainError {
            throw record(error.attributed(to: backend.name))
        } catch {
            throw record(KeychainError(errSecInternalComponent, "Unexpected error: \(type(of: error)).", backend: backend.name))
        }
    }

    private func record(_ error: KeychainError) -> KeychainError {
        KeychainLastError.record(error)
        return error
    }

    /// Records a failure to choose a backend, which happens before any backend is known.
    private static func recordingFailure<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as KeychainError {
            KeychainLastError.record(error)
            throw error
        }
    }
}
