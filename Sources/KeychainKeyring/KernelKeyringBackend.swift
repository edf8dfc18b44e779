import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
public import Musl
#endif
import FoundationEssentials
import Glibc
public import KeychainCore
import KeychainSystemCalls

/// The `keyring` backend: items live in the Linux kernel key retention service, through
/// libkeyutils, so they need no daemon and no disk, and vanish at reboot.
///
/// Items go to the user's persistent keyring unless `KEYCHAIN_KEYRING` says otherwise (see `KeyringChoice`); an item's
/// keys are described in `ItemLookup`, their names in `ItemKeyDescription`, and docs/keyring.md has the whole layout.
/// The backend holds no mutable state and is safe from any thread and any process.
public final class KernelKeyringBackend: KeychainBackend, ItemByItemReading {
    /// The name it is registered under: `keyring`.
    public static let backendName = "keyring"
    /// Chooses the keyring: `persistent`, `user` or `session`.
    public static let keyringVariable = "KEYCHAIN_KEYRING"
    /// Debug builds only: `EPERM` or `ENOSYS` makes every kernel call fail so, as under seccomp.
    static let simulatedRefusalVariable = "KEYCHAIN_KEYRING_SIMULATE_REFUSAL"

    /// `keyring`.
    public var name: String { Self.backendName }
    /// The kernel keeps keys in memory only: every item is lost at reboot.
    public var retention: ItemRetention { .untilReboot }

    /// The keyring asked for (nil: the default), or why the setting is invalid.
    private let choice: Result<KeyringChoice?, KeychainError>
    private let kernel: KernelKeys
    private var lookup: ItemLookup { ItemLookup(kernel: kernel) }
    private var writer: ItemWriter { ItemWriter(kernel: kernel) }
    private var marker: TaggedItemsMarker { TaggedItemsMarker(kernel: kernel) }
    /// Set only by `init(testingIn:)`.
    private let fixedTarget: ResolvedKeyring?

    /// Uses `keyring`, or the default (the persistent keyring, else the user keyring) when nil.
    public convenience init(keyring: KeyringChoice? = nil) {
        self.init(choice: .success(keyring), kernel: KernelKeys())
    }

    /// Reads `KEYCHAIN_KEYRING` from `environment`; an invalid value makes every call fail with `errSecParam`.
    public convenience init(environment: [String: String]) {
        let choice: Result<KeyringChoice?, KeychainError>
        switch environment[Self.keyringVariable] ?? "" {
        case "": choice = .success(nil)
        case let text:
            if let named = KeyringChoice(rawValue: text) {
                choice = .success(named)
            } else {
                choice = .failure(KeychainError.keyring(errSecParam,
                    "\(Self.keyringVariable)='\(text)' is not a keyring; use persistent, user or session, or unset it for the persistent keyring."))
            }
        }
        self.init(choice: choice, kernel: KernelKeys(simulatedRefusal: Self.simulatedRefusal(in: environment)))
    }

    init(choice: Result<KeyringChoice?, KeychainError>, kernel: KernelKeys) {
        self.choice = choice
        self.kernel = kernel
        self.fixedTarget = nil
    }

    /// For tests: stores items in `keyring`, which every calling thread must possess (a keyring
    /// linked in the session keyring is), so that a test can start from a keyring of its own.
    init(testingIn keyring: key_serial_t) {
        self.choice = .success(.session)
        self.kernel = KernelKeys()
        self.fixedTarget = ResolvedKeyring(serial: keyring, kind: .session, note: "a test's own keyring")
    }

    private static func simulatedRefusal(in environment: [String: String]) -> Errno? {
        #if DEBUG
        switch environment[simulatedRefusalVariable] {
        case "EPERM": return .notPermitted
        case "ENOSYS": return .notImplemented
        default: return nil
        }
        #else
        return nil
        #endif
    }

    // MARK: - KeychainBackend

    /// Usable when the kernel lets this process open the chosen keyring; the reason names the
    /// refused call otherwise (a seccomp filter, a kernel without keys).
    public func availability() -> BackendAvailability {
        do {
            // Links the keyring afresh: a link this thread made earlier proves nothing now.
            return .available(try target(reusingLinks: false).detail)
        } catch let error as KeychainError {
            return .unavailable(error)
        } catch {
            return .unavailable(KeychainError.keyring(errSecNotAvailable, "The kernel keyring cannot be used: \(error)"))
        }
    }

    /// Adds `item`; see `KeychainBackend.add(_:)`.
    public func add(_ item: KeychainItem) throws {
        try NameRules.refuseNUL(in: item)
        let description = try ItemKeyDescription(item.primaryKey)
        // The secret's size before the kernel is called; the attributes' as the item is staged.
        try ItemWriter.checkSecretSize(item.secret, of: "the item with \(item.primaryKey.readableName)")
        let keyring = try target()
        try writer.add(item, as: description, into: keyring.serial)
    }

    /// The items matching `query`; see `KeychainBackend.search(_:)`.
    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        let keyring = try target()
        return try consistentRead(query, in: keyring) { found in
            guard query.includeSecrets else { return found.map(\.item) }
            return try found.map { entry in
                var item = entry.item
                item.secret = try lookup.secret(of: entry, in: keyring.serial)
                return item
            }
        }
    }

    /// `search(query)`, and each item key that cannot be described (`ItemLookup.itemKeyNames`); when undecodable
    /// attributes end the search, its items are named by their keys and read one by one (`ItemByItemReading`).
    public func searchItemByItem(_ query: ItemQuery) throws -> (readable: [KeychainItem], unreadable: [UnreadableEntry]) {
        let keyring = try target().serial, keys = try lookup.itemKeyNames(in: keyring)
        do {
            return (try search(query), keys.undescribable)
        } catch let failure as KeychainError where failure.status == errSecDecode {
            var found = (readable: [KeychainItem](), unreadable: keys.undescribable)
            for key in keys.names where key.itemClass == query.itemClass {
                let one = ItemQuery(itemClass: key.itemClass, constraints: key.attributes, includeSecrets: query.includeSecrets, matchesAnySynchronizable: true, includesOtherProgramsItems: true)
                do { found.readable += try search(one).filter(query.matches) } catch let error as KeychainError { found.unreadable.append(UnreadableEntry(key: key, error: error)) }
            }
            return found
        }
    }

    /// Each matching item is rewritten in place (`ItemWriter.replace`), or, when its primary key changes, added anew
    /// and the old one unlinked after. Collisions are checked for every item before any is written; if a later item
    /// fails (a racing writer, the quota), the items done stay updated and the rest as they were. An update racing a
    /// delete of the same item in another process can land after it, as if the update had come second.
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        try ItemWriter.checkSecretSize(changes.secret, of: "the update")
        let keyring = try target()
        var everything = query
        everything.limit = .all
        let matched = try consistentRead(everything, in: keyring) { $0 }
        let plan = try UpdatePlan(matched: matched.map(\.item), changes: changes)
        for key in plan.keysNeedingVacancy {
            let description = try ItemKeyDescription(key)
            if try lookup.item(named: description, in: keyring.serial) != nil {
                throw KeychainError.keyring(errSecDuplicateItem,
                    "The update would collide with the item with \(key.readableName).")
            }
        }
        for (entry, change) in zip(matched, plan.changes) {
            do {
                try rewrite(entry, as: change.new, secret: changes.secret, in: keyring)
            } catch is ItemVanished {
                // Another process deleted the item since it was read: as if that delete came second.
            }
        }
        return plan.changes.count
    }

    /// Writes `new` over the item read as `entry`; `secret` nil keeps the item's secret.
    private func rewrite(_ entry: FoundItem, as new: KeychainItem, secret: SecretBytes?, in keyring: ResolvedKeyring) throws {
        if new.primaryKey == entry.description.primaryKey {
            try writer.replace(entry, with: new, secret: secret, in: keyring.serial)
            return
        }
        var complete = new
        complete.secret = try secret ?? lookup.secret(of: entry, in: keyring.serial)
        try writer.add(complete, as: try ItemKeyDescription(new.primaryKey), into: keyring.serial)
        // The new item is in place; if the old one is already gone, another process deleted it.
        _ = try? unlinkItem(entry, from: keyring)
    }

    /// Deletes the items matching `query`; see `KeychainBackend.delete(_:)`.
    public func delete(_ query: ItemQuery) throws -> Int {
        try NameRules.refuseNUL(in: query)
        let keyring = try target()
        var everything = query
        everything.limit = .all
        let matched = try consistentRead(everything, in: keyring) { $0 }
        return try matched.reduce(0) { count, entry in count + (try unlinkItem(entry, from: keyring) ? 1 : 0) }
    }

    /// Unlinks the item read as `entry`, or what replaced it since (an update in another process), so that a delete
    /// that returns leaves no item of that name; false when another process deleted it first.
    private func unlinkItem(_ entry: FoundItem, from keyring: ResolvedKeyring) throws -> Bool {
        var keys = entry.keys
        for _ in 0..<Self.readAttempts {
            do {
                try writer.remove(keys, of: entry.description, from: keyring.serial)
                return true
            } catch Errno.noSuchFileOrDirectory, Errno.noSuchKey {
                guard let replacement = try currentItem(named: entry.description, in: keyring),
                      replacement.keys != keys else {
                    return false
                }
                keys = replacement.keys
            } catch let failure as KeyctlFailure {
                throw failure.keychainError("deleting the item with \(entry.description.primaryKey.readableName)")
            }
        }
        throw KeychainError.keyring(errSecIO,
            "The item with \(entry.description.primaryKey.readableName) kept being replaced while it was deleted; try again.")
    }

    /// The item `description` names now, nil when there is none or it vanished while read.
    private func currentItem(named description: ItemKeyDescription, in keyring: ResolvedKeyring) throws -> FoundItem? {
        do {
            return try lookup.item(named: description, in: keyring.serial)
        } catch is ItemVanished {
            return nil
        }
    }

    // MARK: - Reading consistently

    private func target(reusingLinks: Bool = true) throws -> ResolvedKeyring {
        if let fixedTarget { return fixedTarget }
        let choice = try self.choice.get()
        do {
            return try kernel.resolve(choice, reusingLinks: reusingLinks)
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("opening the \(choice?.rawValue ?? "persistent") keyring")
        }
    }

    /// The items matching `query`, sorted and limited, passed through `finish` (which may read
    /// secrets). When an item changes under the read, the whole read starts again, so the
    /// result never misses an item that was only being replaced.
    private func consistentRead<Result>(_ query: ItemQuery, in keyring: ResolvedKeyring,
                                        _ finish: ([FoundItem]) throws -> [Result]) throws -> [Result] {
        for _ in 0..<Self.readAttempts {
            do {
                return try finish(try matchingItems(query, in: keyring))
            } catch is ItemVanished {
                continue
            }
        }
        throw KeychainError.keyring(errSecIO,
            "The items in keyring \(keyring.serial) kept changing during \(Self.readAttempts) attempts to read them; try again.")
    }

    private static let readAttempts = 20

    /// The items matching `query`, in `ResultOrder` and limited. A query that fixes the primary
    /// key looks its items up by name; any other reads every item (or, with no tagged items, the
    /// one it names), as the first match in insertion order can be any of them. A query for the
    /// secret alone of one item skips its entry where it can (`ConfirmedItemKeys`), its result
    /// carrying only the primary-key attributes, which `ItemQuery.includeAttributes` allows.
    private func matchingItems(_ query: ItemQuery, in keyring: ResolvedKeyring) throws -> [FoundItem] {
        if let keys = query.possiblePrimaryKeys {
            let secretOnly = keys.count == 1 && query.includeSecrets && !query.includeAttributes
                && query.constraints.values.keys.allSatisfy(query.itemClass.primaryKeyAttributes.contains)
            var found: [FoundItem] = []
            for key in keys {
                // A name beyond the kernel's limit belongs to no item.
                guard let description = try? ItemKeyDescription(key),
                      let item = try lookup.item(named: description, in: keyring.serial,
                                                secretOnly: secretOnly ? query.constraints : nil),
                      query.matches(item.item) else { continue }
                found.append(item)
            }
            return ordered(found, limit: query.limit)
        }
        // No shortcut for a limit of one by the first possible name: results come in creation
        // order (ResultOrder), so the first match by name need not be the first one added.
        if let found = untaggedStoreAnswer(query, in: keyring) { return found }
        return try listedItems(query, in: keyring)
    }

    /// The items matching `query` when the keyring holds no tagged item, found by looking up by name the only item that
    /// can then match (the lookup comes before the marker check: `TaggedItemsMarker`); nil when every item must be
    /// read: tagged items may exist, the query does not name service (or server) and account, or the lookup failed (a
    /// broken item is then reported by the full read, never as "not found").
    private func untaggedStoreAnswer(_ query: ItemQuery, in keyring: ResolvedKeyring) -> [FoundItem]? {
        guard let key = query.untaggedPrimaryKey, let description = try? ItemKeyDescription(key),
              case .success(let found) = Result(catching: { try lookup.item(named: description, in: keyring.serial) }) else {
            return nil
        }
        guard !marker.mayHoldTaggedItems(keyring.serial) else { return nil }
        return ordered(found.map { [$0] }?.filter { query.matches($0.item) } ?? [], limit: query.limit)
    }

    /// The items matching `query`, found by reading every item in the keyring whose primary key
    /// can match. An empty result is checked against the item the query names, so a revoked or
    /// unreadable item, which cannot be listed, is an error and not "not found".
    private func listedItems(_ query: ItemQuery, in keyring: ResolvedKeyring) throws -> [FoundItem] {
        let primaryConstraints = query.constraints.values.filter {
            query.itemClass.primaryKeyAttributes.contains($0.key)
        }
        var coarse = query
        coarse.constraints = ItemAttributes(primaryConstraints)
        let listing = try lookup.items(in: keyring.serial, describedFrom: ItemKeyDescription.leadingText(ofMatchesOf: query)) {
            coarse.matches($0.itemClass, $0.attributes)
        }
        let found = ordered(listing.items.filter { query.matches($0.item) }, limit: query.limit)
        if found.isEmpty { try checkNamedItem(query, in: keyring, listed: listing.serials) }
        return found
    }

    private func ordered(_ items: [FoundItem], limit: MatchLimit) -> [FoundItem] {
        // A lookup by name finds at most one item: nothing to sort or cut.
        if items.count <= 1, limit.maximum.map({ $0 >= items.count }) ?? true { return items }
        let sorted = items.sorted {
            ResultOrder.precedes(created: $0.item.attributes.creationDate, key: $0.description.primaryKey,
                                 created: $1.item.attributes.creationDate, key: $1.description.primaryKey)
        }
        return limit.maximum.map { Array(sorted.prefix($0)) } ?? sorted
    }

    /// When a listing finds nothing, asks the kernel for the item the query names by service and
    /// account: it still finds a revoked, expired or inaccessible item that cannot be listed,
    /// and says which it is. One that was not in the listing arrived meanwhile: read again.
    private func checkNamedItem(_ query: ItemQuery, in keyring: ResolvedKeyring, listed: Set<key_serial_t>) throws {
        let naming: AttributeKey = query.itemClass == .genericPassword ? .service : .server
        guard query.constraints[naming] != nil, query.constraints[.account] != nil,
              let description = try? ItemKeyDescription(PrimaryKey(itemClass: query.itemClass,
                                                                    attributes: query.constraints)) else { return }
        if let serial = try lookup.item(named: description, in: keyring.serial)?.keys.key, !listed.contains(serial) {
            throw ItemVanished()
        }
    }
}
