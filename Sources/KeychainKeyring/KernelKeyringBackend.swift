import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
public import Musl
#endif
import Foundation
public import KeychainCore

/// The `keyring` backend: items live in the Linux kernel key retention service, through
/// libkeyutils, so they need no daemon and no disk, and vanish at reboot.
///
/// Items go to the user's persistent keyring unless `KEYCHAIN_KEYRING` says otherwise (see
/// `KeyringChoice`); the layout is described in `ItemKeyrings`, the key names in
/// `ItemKeyDescription`. Every call resolves the keyring on the calling thread (remembering
/// only, per thread, which keyrings that thread has linked: `ThreadKeyringLinks`), so the
/// backend itself holds no mutable state and is safe from any thread and any process; the
/// kernel serializes the writes.
public final class KernelKeyringBackend: KeychainBackend {
    /// The name it is registered under: `keyring`.
    public static let backendName = "keyring"
    /// Chooses the keyring: `persistent`, `user` or `session`.
    public static let keyringVariable = "KEYCHAIN_KEYRING"
    /// Debug builds only: `EPERM` or `ENOSYS` makes every kernel call fail so, as under a
    /// seccomp filter, to test that path through the CLI.
    static let simulatedRefusalVariable = "KEYCHAIN_KEYRING_SIMULATE_REFUSAL"

    /// `keyring`.
    public var name: String { Self.backendName }
    /// The kernel keeps keys in memory only: every item is lost at reboot.
    public var retention: ItemRetention { .untilReboot }

    /// The keyring asked for (nil: the default), or why the setting is invalid.
    private let choice: Result<KeyringChoice?, KeychainError>
    private let store: ItemKeyrings
    /// Set only by `init(testingIn:)`.
    private let fixedTarget: ResolvedKeyring?
    private var kernel: KernelKeys { store.kernel }

    /// Uses `keyring`, or the default (the persistent keyring, else the user keyring) when nil.
    public convenience init(keyring: KeyringChoice? = nil) {
        self.init(choice: .success(keyring), kernel: KernelKeys())
    }

    /// Reads `KEYCHAIN_KEYRING` from `environment`; an invalid value makes every call fail
    /// with `errSecParam`.
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
        self.store = ItemKeyrings(kernel: kernel)
        self.fixedTarget = nil
    }

    /// For tests: stores items in `keyring`, which every calling thread must possess (a keyring
    /// linked in the session keyring is), so that a test can start from a keyring of its own.
    init(testingIn keyring: key_serial_t) {
        self.choice = .success(.session)
        self.store = ItemKeyrings(kernel: KernelKeys())
        self.fixedTarget = ResolvedKeyring(serial: keyring, kind: .session, note: "a test's own keyring")
    }

    private static func simulatedRefusal(in environment: [String: String]) -> Int32? {
        #if DEBUG
        switch environment[simulatedRefusalVariable] {
        case "EPERM": return EPERM
        case "ENOSYS": return ENOSYS
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
        // The secret's size is checked before the kernel is called; the attributes', which
        // name the target keyring, as the item is staged.
        try ItemKeyrings.checkSecretSize(item.secret, of: "the item with \(item.primaryKey.readableName)")
        let keyring = try target()
        try add(item, as: description, into: keyring)
    }

    /// Adds `item` in layout 3, unless an item of its name exists in any layout.
    private func add(_ item: KeychainItem, as description: ItemKeyDescription, into keyring: ResolvedKeyring) throws {
        // `addLayout3` checks layouts 3 and 2.
        if store.layoutThreeState(keyring.serial) == .mayRemain,
           try store.itemKeyring(named: description, in: keyring.serial) != nil {
            throw KeychainError.keyring(errSecDuplicateItem,
                "An item with \(description.primaryKey.readableName) already exists in the kernel keyring.")
        }
        // Before the item can be seen: readers rely on it (`TaggedItemsMarker`).
        try store.recordWrite(of: description, in: keyring.serial)
        try store.addLayout3(item, as: description, into: keyring.serial)
    }

    /// The items matching `query`; see `KeychainBackend.search(_:)`.
    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        let keyring = try target()
        return try consistentRead(query, in: keyring) { found in
            guard query.includeSecrets else { return found.map(\.item) }
            return try found.map { entry in
                var item = entry.item
                item.secret = try store.secret(of: entry, in: keyring.serial)
                return item
            }
        }
    }

    /// Each matching item keeps its name where it can, and is then rewritten in place, its
    /// secret and then its attributes, each replaced in one step, so a reader always finds the
    /// item. An item whose primary key changes (or one still in layout 1) is added anew,
    /// exclusively, and the old one unlinked after. Collisions are checked for every item
    /// before any is written. If a later item fails (a racing writer in another process, the
    /// quota), the items already done stay updated and the rest stay as they were. The kernel
    /// has no "replace only if still there": an update racing a delete of the same item in
    /// another process can land after it, as if the update had come second.
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        try ItemKeyrings.checkSecretSize(changes.secret, of: "the update")
        let keyring = try target()
        var everything = query
        everything.limit = .all
        let matched = try consistentRead(everything, in: keyring) { $0 }
        let plan = try UpdatePlan(matched: matched.map(\.item), changes: changes)
        for key in plan.keysNeedingVacancy {
            let description = try ItemKeyDescription(key)
            if try store.anchor(named: description, in: keyring.serial) != nil {
                throw KeychainError.keyring(errSecDuplicateItem,
                    "The update would collide with the item with \(key.readableName).")
            }
        }
        for (entry, change) in zip(matched, plan.changes) {
            do {
                try rewrite(entry, as: change.new, secret: changes.secret, in: keyring)
            } catch is ItemVanished {
                // Another process deleted the item since it was read: as if that delete came
                // second. Or it migrated the item, read in layout 1 or 2, to layout 3: the
                // update goes to that copy.
                guard entry.storage.isFromEarlierLayout,
                      let current = try currentItem(named: entry.description, in: keyring),
                      case .itemKey = current.storage else { continue }
                do {
                    try rewrite(current, as: change.new, secret: changes.secret, in: keyring)
                } catch is ItemVanished {
                    continue
                } catch is SecretKeyMissing {
                    throw secretKeyMissing(entry, in: keyring)
                }
            } catch is SecretKeyMissing {
                throw secretKeyMissing(entry, in: keyring)
            }
        }
        return plan.changes.count
    }

    private func secretKeyMissing(_ entry: FoundItem, in keyring: ResolvedKeyring) -> KeychainError {
        KeychainError.keyring(errSecDecode,
            "The item with \(entry.description.primaryKey.readableName) has no secret key in keyring \(keyring.serial); delete the item and add it again.")
    }

    /// Writes `new` over the item read as `entry`; `secret` nil keeps the item's secret.
    private func rewrite(_ entry: FoundItem, as new: KeychainItem, secret: SecretBytes?, in keyring: ResolvedKeyring) throws {
        if new.primaryKey == entry.description.primaryKey {
            switch entry.storage {
            case .itemKey:
                try store.replaceLayout3(entry, with: new, secret: secret, in: keyring.serial)
                return
            case .keys(let attributes, _):
                try store.rewriteInLayout3(entry, attributesKey: attributes, with: new, secret: secret, in: keyring.serial)
                return
            case .itemKeyring:
                break
            }
        }
        var complete = new
        complete.secret = try secret ?? store.secret(of: entry, in: keyring.serial)
        let description = try ItemKeyDescription(new.primaryKey)
        if new.primaryKey == entry.description.primaryKey {
            // A layout-1 item keeps its name: its item key does not collide with its keyring.
            try store.recordWrite(of: description, in: keyring.serial)
            do {
                try store.addLayout3(complete, as: description, into: keyring.serial)
            } catch let error as KeychainError where error.status == errSecDuplicateItem {
                // Another process migrated it to layout 3 since it was read (`update`).
                throw ItemVanished()
            }
        } else {
            try add(complete, as: description, into: keyring)
        }
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

    /// Unlinks the item read as `entry`; false when another process deleted it first.
    ///
    /// If another process replaced it (an update) since it was read, the replacement is what
    /// now holds that name, and it is unlinked instead: a delete that returns leaves no item
    /// of that name behind.
    private func unlinkItem(_ entry: FoundItem, from keyring: ResolvedKeyring) throws -> Bool {
        var storage = entry.storage
        for _ in 0..<Self.readAttempts {
            do {
                switch storage {
                case .itemKey:
                    try store.removeLayout3(storage, of: entry.description, from: keyring.serial)
                case .keys(let attributes, let secret):
                    try store.removeLayout2(attributesKey: attributes, secretKey: secret, of: entry.description,
                                            from: keyring.serial)
                case .itemKeyring(let serial):
                    try kernel.unlink(serial, from: keyring.serial)
                }
                return true
            } catch let failure as KeyctlFailure where failure.code == ENOENT || failure.isNoSuchKey {
                guard let replacement = try currentItem(named: entry.description, in: keyring),
                      replacement.storage != storage else {
                    return false
                }
                storage = replacement.storage
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
            return try store.item(named: description, in: keyring.serial)
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
        var secretMissing = false
        for attempt in 0..<Self.readAttempts {
            do {
                return try finish(try matchingItems(query, in: keyring))
            } catch is ItemVanished {
                secretMissing = false
            } catch is SecretKeyMissing {
                // Most likely an add between its two moves: give it a moment to finish.
                secretMissing = true
                ItemKeyrings.pauseForLanding(attempt)
            }
        }
        if secretMissing {
            throw KeychainError.keyring(errSecDecode,
                "An item the query matches has no secret key in keyring \(keyring.serial) (an add may have been interrupted, or the key was unlinked by hand); delete the item and add it again.")
        }
        throw KeychainError.keyring(errSecIO,
            "The items in keyring \(keyring.serial) kept changing during \(Self.readAttempts) attempts to read them; try again.")
    }

    private static let readAttempts = 20

    /// The items matching `query`, in `ResultOrder` and limited.
    ///
    /// A query that fixes the primary key (as the CLI's and the typed API's do) names the only
    /// items that can match, and they are looked up by name: the cost does not grow with the
    /// store. Any other query reads every item in the keyring (or, with no tagged items, the one
    /// it names), because the first match in insertion order can be any of them.
    ///
    /// A query that wants only the secret of the one item its primary key names skips the
    /// item's entry where it can (`ConfirmedItemKeys`): its results then carry only the
    /// primary-key attributes, which `ItemQuery.includeAttributes` allows.
    private func matchingItems(_ query: ItemQuery, in keyring: ResolvedKeyring) throws -> [FoundItem] {
        if let keys = query.possiblePrimaryKeys {
            let secretOnly = keys.count == 1 && query.includeSecrets && !query.includeAttributes
                && query.constraints.values.keys.allSatisfy(query.itemClass.primaryKeyAttributes.contains)
            var found: [FoundItem] = []
            for key in keys {
                // A name beyond the kernel's limit belongs to no item.
                guard let description = try? ItemKeyDescription(key),
                      let item = try store.item(named: description, in: keyring.serial,
                                                secretOnly: secretOnly ? query.constraints : nil),
                      query.matches(item.item) else { continue }
                found.append(item)
            }
            return ordered(found, limit: query.limit)
        }
        // No shortcut for a limit of one by the first possible name: results come in creation
        // order (ResultOrder), so the first match by name need not be the first one added.
        if let found = untaggedStoreAnswer(query, in: keyring, alreadyLookedUp: nil) {
            return found
        }
        return try listedItems(query, in: keyring)
    }

    /// The items matching `query` when the keyring holds no tagged item, found by looking up by
    /// name the only item that can then match; nil when tagged items may exist, the query does
    /// not name service (or server) and account, or the lookup failed, and every item must be
    /// read. Why the lookup comes before the marker check: `TaggedItemsMarker`. A lookup of
    /// the same name made just before (`alreadyLookedUp`) is not repeated.
    ///
    /// A failed lookup (a revoked or unreadable item, one replaced under the read) is left to
    /// the full read, which reports a broken item the query could match as an error of its
    /// own, never "not found". A lookup that finds nothing is trusted: the kernel says "no
    /// such key" only when no key of that name is there, broken or not.
    private func untaggedStoreAnswer(_ query: ItemQuery, in keyring: ResolvedKeyring,
                                     alreadyLookedUp: (key: PrimaryKey, result: Result<FoundItem?, any Error>)?) -> [FoundItem]? {
        guard let key = query.untaggedPrimaryKey, let description = try? ItemKeyDescription(key) else { return nil }
        let result = alreadyLookedUp?.key == key
            ? alreadyLookedUp!.result
            : Result { try store.item(named: description, in: keyring.serial) }
        guard case .success(let found) = result else { return nil }
        guard !store.mayHoldTaggedItems(keyring.serial) else { return nil }
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
        let listing = try store.items(in: keyring.serial, describedFrom: ItemKeyDescription.leadingText(ofMatchesOf: query)) {
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

    /// When a listing finds nothing, asks the kernel directly for the item the query names (its
    /// service and account, with the other primary-key attributes at their defaults). The
    /// kernel still finds a revoked, expired or inaccessible item that cannot be listed, and
    /// says which it is. An item that is there but was not in the listing arrived during the
    /// read, which then starts again.
    private func checkNamedItem(_ query: ItemQuery, in keyring: ResolvedKeyring, listed: Set<key_serial_t>) throws {
        let naming: AttributeKey = query.itemClass == .genericPassword ? .service : .server
        guard query.constraints[naming] != nil, query.constraints[.account] != nil,
              let description = try? ItemKeyDescription(PrimaryKey(itemClass: query.itemClass,
                                                                    attributes: query.constraints)) else { return }
        if let serial = try store.anchor(named: description, in: keyring.serial), !listed.contains(serial) {
            throw ItemVanished()
        }
    }
}
