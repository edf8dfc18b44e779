import FoundationEssentials
package import KeychainCore

/// The four operations as every entry point performs them: the SecItem functions, the typed
/// API and the CLI all go through here, so they stamp dates, report "not found" and record
/// the last error the same way.
///
/// It adds what the backend protocol leaves to the front end: creation and modification dates,
/// the access-group scope (`AccessScope`), `errSecItemNotFound` for updates and deletes that
/// match nothing, errors attributed to the backend, `KeychainLastError` bookkeeping, and
/// recording the backend `auto` chose at the first write (`BackendPlacement`).
package struct KeychainOperations: Sendable {
    package let backend: any KeychainBackend
    /// Whose items these operations see and change; a program's own by default.
    package let scope: AccessScope
    /// Set when `auto` chose the backend: the first successful write records the choice.
    private let automaticChoice: KeychainBackendRegistry?

    package init(backend: any KeychainBackend, scope: AccessScope = .currentProgram) {
        self.init(backend: backend, scope: scope, automaticChoice: nil)
    }

    private init(backend: any KeychainBackend, scope: AccessScope, automaticChoice: KeychainBackendRegistry?) {
        self.backend = backend
        self.scope = scope
        self.automaticChoice = automaticChoice
    }

    /// Whether `auto` chose the backend with nothing recorded yet, so that the first successful
    /// write records it (the CLI then says once if that store loses items at reboot).
    package var recordsAutomaticChoice: Bool { automaticChoice != nil }

    /// The backend `using(_:_:)` gave the current task, if any.
    @TaskLocal private static var taskBackend: (any KeychainBackend)?

    /// Runs `body` with every call of this task (the SecItem functions included) going to
    /// `backend`, whatever the process-wide choice. Tests use it to drive one backend through
    /// the front end while other tests in the process use another.
    package static func using<Result>(_ backend: any KeychainBackend, _ body: () throws -> Result) rethrows -> Result {
        try $taskBackend.withValue(backend, operation: body)
    }

    /// Operations on the backend `using(_:_:)` gave this task, else the one chosen in code, or
    /// by `KEYCHAIN_BACKEND`, a configuration file, the recorded choice, or `auto`.
    package static func current(scope: AccessScope = .currentProgram) throws -> KeychainOperations {
        if let backend = taskBackend { return KeychainOperations(backend: backend, scope: scope) }
        return try recordingFailure {
            let registry = KeychainBackendRegistry.prepared
            let selection = try registry.currentSelection()
            return KeychainOperations(backend: selection.backend, scope: scope,
                                      automaticChoice: selection.source == .automatic ? registry : nil)
        }
    }

    /// Operations on the backend registered as `name`, which must be usable here; `auto` means
    /// what `KEYCHAIN_BACKEND=auto` means: the pins, then the recorded choice, then `auto`'s
    /// order, whose first write is recorded.
    package static func named(_ name: String, scope: AccessScope = .currentProgram) throws -> KeychainOperations {
        try recordingFailure {
            let registry = KeychainBackendRegistry.prepared
            guard name == KeychainBackendRegistry.automaticName else {
                return KeychainOperations(backend: try registry.select(name), scope: scope)
            }
            let selection = try registry.automaticSelection()
            return KeychainOperations(backend: selection.backend, scope: scope,
                                      automaticChoice: selection.source == .automatic ? registry : nil)
        }
    }

    /// Adds `item`, in the scope's group when it names none, setting its creation and
    /// modification dates to now. Returns the primary key it was stored under.
    @discardableResult
    package func add(_ item: KeychainItem) throws -> PrimaryKey {
        var stamped = scope.stamping(item)
        let now = Date()
        stamped.attributes[.creationDate] = .date(now)
        stamped.attributes[.modificationDate] = .date(now)
        try run {
            try claimAutomaticChoice()
            try backend.add(stamped)
        }
        return stamped.primaryKey
    }

    /// The matching items the scope lets this caller see, its own group's first; throws
    /// `errSecItemNotFound` when there are none.
    package func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try run {
            var found: [KeychainItem] = []
            // The shared items' search is not even built once the program's own group has
            // given as many items as the limit allows.
            try scope.forEachSearch(query) { scoped in
                var remaining = scoped
                if let maximum = query.limit.maximum {
                    let left = maximum - found.count
                    if left <= 0 { return false }
                    remaining.limit = left == 1 ? .one : .count(left)
                }
                found += try backend.search(remaining)
                return query.limit.maximum.map { found.count < $0 } ?? true
            }
            if found.isEmpty { throw KeychainError.notFound() }
            return found
        }
    }

    /// Updates every matching item, setting its modification date; throws
    /// `errSecItemNotFound` when nothing matches.
    @discardableResult
    package func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        var stamped = changes
        stamped.attributes = scope.stamping(changes: changes.attributes)
        stamped.attributes[.modificationDate] = .date(Date())
        return try run {
            try claimAutomaticChoice()
            let count = try scope.changeQueries(query).reduce(0) { $0 + (try backend.update($1, with: stamped)) }
            if count == 0 { throw KeychainError.notFound() }
            return count
        }
    }

    /// Deletes every matching item; throws `errSecItemNotFound` when nothing matches.
    @discardableResult
    package func delete(_ query: ItemQuery) throws -> Int {
        try run {
            let count = try scope.changeQueries(query).reduce(0) { $0 + (try backend.delete($1)) }
            if count == 0 { throw KeychainError.notFound() }
            return count
        }
    }

    /// Stores `secret` for the item `primaryKey` names: updates it if it exists, else adds it.
    ///
    /// With `claimingOtherSynchronizable`, an item that differs from `primaryKey` only in its
    /// synchronizable flag counts as the same item when `primaryKey`'s own does not exist: it is
    /// updated and given `primaryKey`'s flag, so that writes keyed by account alone (the typed
    /// API, as KeychainAccess) keep one item per account instead of adding a second.
    ///
    /// Safe against a concurrent writer: if the item appears between the update and the add,
    /// or vanishes between them, it tries again, a bounded number of times.
    package func set(_ secret: SecretBytes, for primaryKey: PrimaryKey, attributes: ItemAttributes = ItemAttributes(),
                     claimingOtherSynchronizable: Bool = false) throws {
        let changes = ItemChanges(attributes: attributes, secret: secret)
        for _ in 0..<8 {
            do {
                try update(ItemQuery(primaryKey: primaryKey), with: changes)
                return
            } catch KeychainError.itemNotFound {}
            if claimingOtherSynchronizable {
                do {
                    try claimOtherSynchronizable(of: primaryKey, with: changes)
                    return
                } catch KeychainError.itemNotFound {
                } catch KeychainError.duplicateItem {
                    continue  // `primaryKey`'s own item appeared meanwhile: update that one.
                }
            }
            let item = KeychainItem(itemClass: primaryKey.itemClass,
                                    attributes: primaryKey.attributes.merging(attributes), secret: secret)
            do {
                try add(item)
                return
            } catch KeychainError.duplicateItem {
                continue
            }
        }
        throw record(KeychainError(errSecIO, "The item kept changing under concurrent writers; try again.",
                                   backend: backend.name))
    }

    /// Applies `changes` to the item that differs from `primaryKey` only in its synchronizable
    /// flag, moving it to `primaryKey`'s flag; `errSecItemNotFound` when there is none.
    private func claimOtherSynchronizable(of primaryKey: PrimaryKey, with changes: ItemChanges) throws {
        var other = primaryKey.attributes
        let flag = other.flag(.synchronizable)
        other[.synchronizable] = .bool(!flag)
        var moving = changes
        moving.attributes[.synchronizable] = .bool(flag)
        try update(ItemQuery(primaryKey: PrimaryKey(itemClass: primaryKey.itemClass, attributes: other)), with: moving)
    }

    /// Records `auto`'s choice before the first write through it, so that later runs, in any
    /// environment, keep using the store that will hold the user's items; a write that cannot
    /// be recorded does not happen (see `KeychainBackendRegistry.claimAutomaticChoice`).
    private func claimAutomaticChoice() throws {
        try automaticChoice?.claimAutomaticChoice(backend)
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
