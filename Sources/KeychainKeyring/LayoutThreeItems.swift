import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore

/// Layout 3, the one this version writes: an item is **one** `user` key linked directly in the
/// target, its item key, described by the item's `ItemKeyDescription`
/// (`linux-keychain:genp:SERVICE:ACCOUNT`) and holding exactly the secret, so that `keyctl
/// search` finds it and `keyctl pipe` prints it. Its other attributes (dates, label, ...) are
/// an entry in the target's records (`ItemRecords`), which many items share.
///
/// - **An item exists while its item key is linked in the target and it has an entry** (or,
///   written by layout 2, an attributes key). A key of that name with neither, such as one
///   made by hand with `keyctl add`, is no item, and an add replaces it.
/// - An empty secret, which the kernel refuses as a `user` key's payload, is stored as one
///   zero byte, and the entry says so.
/// - Attributes too large for an entry (`ItemRecordEntry.maximumEncodedSize`, a long comment or
///   generic data) stay in a layout-2 attributes key next to the item key, and the entry says
///   so. Such an item is otherwise written as this type writes any item.
///
/// Writes, each under the target's record lock (`KeyringRecordLock`) from the check to the
/// last move, so that adds and changes of one name are serialized between processes:
///
/// - **Add** stages the item key in the thread keyring, checks that the target holds no item
///   of that name, writes the entry (and the attributes key, if needed), and moves the item key
///   in last: the item appears whole, in one step.
/// - **Update** rewrites the item key in place with `keyctl_update` (a reader sees the old
///   secret or the new one), then the entry.
/// - **Delete** unlinks the item key, which ends the item, then the attributes key and the
///   entry.
extension ItemKeyrings {
    /// The payload of an item key whose secret is empty.
    static let emptySecretPlaceholder: [UInt8] = [0]

    // MARK: - Finding

    /// The item `description` names in `target` by its item key, in layout 3 or 2; nil when
    /// there is none. `checkAttributesKeyAlone`: also look for a layout-2 item without an item
    /// key (an empty secret, written before layout 3).
    ///
    /// `secretOnly`: the caller reads only the item's secret, and gives the attributes that
    /// name it (its primary key's, or some of them). An item key already confirmed as an item
    /// (`ConfirmedItemKeys`) is then returned with these attributes and without reading its
    /// entry; its secret is read as one that may be empty.
    func itemByItemKey(named description: ItemKeyDescription, in target: key_serial_t,
                       checkAttributesKeyAlone: Bool, secretOnly naming: ItemAttributes? = nil) throws -> FoundItem? {
        var found: key_serial_t?
        do {
            found = try searchItemKey(description, in: target)
        } catch where checkAttributesKeyAlone && (try? searchItemKeyring(description, in: target)) != nil {
            // The kernel's search also looks into layout-1 item keyrings, whose secret keys have
            // the item key's name: a broken one is the layout-1 item's, which reports it when read.
            return nil
        } catch let error as KeychainError where error.status == errSecDataNotAvailable {
            // An item key revoked or expired by hand (its possessor may `keyctl revoke` it) is
            // still the item, named by its entry: its attributes read, and it can be deleted;
            // its secret is "not available" when read.
            guard let entry = try? recordEntry(named: description, in: target), isLinked(entry.itemKey, in: target) else {
                throw error
            }
            return try layout3Item(description, key: entry.itemKey, entry: entry, in: target)
        }
        if found == nil, checkAttributesKeyAlone {
            guard hasLayoutThreeRecordNoted(target) else { return try layout2Item(named: description, in: target) }
            // Once the record holds, an attributes key alone is one a delete left (killed, or
            // refused the record lock), not an item. The listing that wrote the record may have
            // given a layout-2 item with an empty secret its item key since the search.
            found = try searchItemKey(description, in: target)
        }
        guard let key = found else { return nil }
        if let naming, ConfirmedItemKeys.isConfirmed(key, in: target) {
            // Not told empty: a placeholder read from the key is checked against the entry then.
            return FoundItem(storage: .itemKey(key, entryKey: key, emptySecret: false, attributesKey: nil),
                             description: description,
                             item: KeychainItem(itemClass: description.primaryKey.itemClass, attributes: naming),
                             secretIsEmpty: false, storedIn: target)
        }
        var entry = try recordEntry(named: description, in: target)
        if entry == nil {
            // Written in layout 2, or no item (a key made by hand, or one left by a delete that died).
            if let found = try layout2Item(named: description, in: target) { return found }
            // Or a layout-2 item rewritten in layout 3 since the entry was read: its entry was
            // written before its attributes key went.
            entry = try recordEntry(named: description, in: target)
        }
        guard let entry else { return nil }
        // A key of that name in a keyring nested in the target belongs to another store, and an
        // entry that is another live item's (a name of the same hash) is not this key's.
        guard entry.itemKey == key
              || (isLinked(key, in: target) && !isEntryOfAnotherItem(entry, than: description, in: target)) else { return nil }
        return try layout3Item(description, key: key, entry: entry, in: target)
    }

    /// The layout-3 item whose item key is `key` and whose entry is `entry`.
    func layout3Item(_ description: ItemKeyDescription, key: key_serial_t, entry: ItemRecordEntry,
                     in target: key_serial_t) throws -> FoundItem? {
        var attributesKey: key_serial_t?
        let item: KeychainItem
        if entry.inAttributesKey {
            var inKey: FoundItem?
            for _ in 0..<3 {
                do {
                    inKey = try layout2Item(named: description, in: target)
                } catch is ItemVanished {
                    inKey = nil
                }
                if inKey != nil { break }
                // An update made the attributes small since the entry was read (and perhaps
                // large again): the entry it wrote before it unlinked the key says where they are.
                guard let current = try recordEntry(named: description, in: target),
                      current.itemKey == entry.itemKey else { return nil }
                if !current.inAttributesKey { return try layout3Item(description, key: key, entry: current, in: target) }
            }
            // An entry pointing to no attributes key: the item cannot be read.
            guard let found = inKey else { return nil }
            attributesKey = found.anchor
            item = found.item
        } else {
            item = KeychainItem(itemClass: description.primaryKey.itemClass,
                                attributes: try entry.storedAttributes.itemAttributes(primaryKey: description.primaryKey))
        }
        if entry.itemKey == key { ConfirmedItemKeys.confirm(key, in: target) }
        return FoundItem(storage: .itemKey(key, entryKey: entry.itemKey, emptySecret: entry.secretIsEmpty,
                                           attributesKey: attributesKey),
                         description: description, item: item, secretIsEmpty: false, storedIn: target)
    }

    /// The serial of the key `description` names in `target` (or a keyring nested in it), or nil.
    func searchItemKey(_ description: ItemKeyDescription, in target: key_serial_t) throws -> key_serial_t? {
        try searchByName(description, type: "user", in: target)
    }

    /// The secret of the layout-3 item `found`: one read of its item key `key`.
    func layout3Secret(of found: FoundItem, key: key_serial_t, emptySecret: Bool, in target: key_serial_t) throws -> SecretBytes {
        let secret: SecretBytes
        do {
            secret = try kernel.readSecretOnce(key)
        } catch let failure as KeyctlFailure {
            if isUnlinkedKey(failure, key, in: target) { throw ItemVanished() }
            throw failure.keychainError("reading the secret of the item with \(found.description.primaryKey.readableName)")
        }
        // A placeholder changed by hand (`keyctl update`) is a secret.
        if emptySecret, Self.isPlaceholder(secret) { return SecretBytes(Data()) }
        guard case .itemKey(_, let entryKey, _, _) = found.storage else { return secret }
        return try secretReadingPlaceholders(secret, of: found.description, itemKey: entryKey, in: target, key: key)
    }

    static func isPlaceholder(_ secret: SecretBytes) -> Bool {
        secret.withUnsafeBytes { $0.elementsEqual(emptySecretPlaceholder) }
    }

    /// `secret`, just read from the item key `key` of an item whose entry, read before (or not
    /// at all, `ConfirmedItemKeys`), said the secret is not empty; or the empty secret, when it
    /// is the placeholder that an update to an empty secret wrote since. `itemKey` is the key
    /// the entry must name.
    ///
    /// Such an update writes its entry first, so the entry says so now. When the entry says
    /// the secret is not empty, the placeholder is a secret of one zero byte, unless updates
    /// came between the two reads (to another secret, then to an empty one again): writers
    /// change an item key and its entry together under the record lock, so the two are read
    /// again under it, where they agree. The caller must not hold the lock. If it cannot be
    /// taken (the quota, a holder stopped for seconds), the key read again decides. With no
    /// entry naming the key (a layout-2 item, which has none), the key read again decides too.
    func secretReadingPlaceholders(_ secret: SecretBytes, of description: ItemKeyDescription, itemKey: key_serial_t,
                                   in target: key_serial_t, key: key_serial_t) throws -> SecretBytes {
        guard Self.isPlaceholder(secret) else { return secret }
        PlaceholderCheckSeam.reach(.beforeEntry, in: target)
        let saysEmpty = try entrySaysSecretIsEmpty(description, itemKey: itemKey, in: target)
        if saysEmpty == true { return SecretBytes(Data()) }
        PlaceholderCheckSeam.reach(.beforeSecondLook, in: target)
        if saysEmpty == false, let decided = try? KeyringRecordLock(kernel: kernel).withLock(in: target, {
            try entrySaysSecretIsEmpty(description, itemKey: itemKey, in: target) == true
                ? SecretBytes(Data()) : kernel.readSecretOnce(key)
        }) {
            return decided
        }
        // A key gone between the two reads: the item changed under the read.
        guard let again = try? kernel.readSecretOnce(key) else { throw ItemVanished() }
        return again
    }

    /// Whether the entry of `description` says its secret is empty; nil when no entry names
    /// `itemKey`.
    private func entrySaysSecretIsEmpty(_ description: ItemKeyDescription, itemKey: key_serial_t,
                                        in target: key_serial_t) throws -> Bool? {
        guard let current = try recordEntry(named: description, in: target), current.itemKey == itemKey else { return nil }
        return current.secretIsEmpty
    }

    /// Whether `entry`, found under the name hash of `description`, is the entry of a live item
    /// of another name: an item key linked in `target` whose description differs and has the
    /// same hash. The hash is no defence against names chosen to collide, so an add refuses
    /// such a name rather than take the other item's entry (which would give that item this
    /// one's attributes, and end it with this one's delete). Any other entry there is one a
    /// delete left, whose key is gone, unlinked, or now a key of another kind.
    func isEntryOfAnotherItem(_ entry: ItemRecordEntry, than description: ItemKeyDescription,
                              in target: key_serial_t) -> Bool {
        guard let key = try? kernel.describe(entry.itemKey), key.type == "user", key.description != description.text,
              let other = ItemKeyDescription(parsing: key.description), Self.nameHash(other) == entry.nameHash else {
            return false
        }
        return isLinked(entry.itemKey, in: target)
    }

    /// Whether `failure`, of a call on the item key `key`, means that a delete unlinked it: the
    /// kernel says "no such key", or, for a moment before the key is gone, refuses access to a
    /// key this thread no longer possesses.
    func isUnlinkedKey(_ failure: KeyctlFailure, _ key: key_serial_t, in target: key_serial_t) -> Bool {
        failure.isNoSuchKey || (failure.code == EACCES && !isLinked(key, in: target))
    }

    // MARK: - Writing

    /// Adds `item` to `target` in layout 3, failing with `errSecDuplicateItem` when an item of
    /// its name is there in layout 3 or 2. The caller has checked layout 1, recorded the write
    /// (`recordWrite`) and checked the size.
    func addLayout3(_ item: KeychainItem, as description: ItemKeyDescription, into target: key_serial_t) throws {
        func doing() -> String { "storing the item with \(description.primaryKey.readableName)" }
        let secretIsEmpty = item.secret?.isEmpty ?? true
        let itemKey: key_serial_t
        do {
            itemKey = try stageItemKey(item.secret, as: description)
        } catch let failure as KeyctlFailure {
            throw failure.keychainError(doing())
        }
        let hash = Self.nameHash(description)
        var moved = false
        do {
            try KeyringRecordLock(kernel: kernel).withLock(in: target) {
                var attributesKey: key_serial_t?
                do {
                    if try itemByItemKey(named: description, in: target, checkAttributesKeyAlone: !isLayoutThreeKnown(target)) != nil {
                        throw KeychainError.keyring(errSecDuplicateItem,
                            "An item with \(description.primaryKey.readableName) already exists in the kernel keyring.")
                    }
                    var entry = ItemRecordEntry(item, nameHash: hash, itemKey: itemKey, secretIsEmpty: secretIsEmpty)
                    if entry == nil {
                        attributesKey = try placeAttributesKey(of: item, as: description, in: target)
                        entry = .pointingToAttributesKey(nameHash: hash, itemKey: itemKey, secretIsEmpty: secretIsEmpty)
                    }
                    // An entry there is no item's of this name (checked above): one a delete left,
                    // perhaps with the attributes key it points to, or another name's of the same hash.
                    var leftoverAttributesKey = false
                    try changeRecordEntryLocked(hash, in: target) { old in
                        if let old, isEntryOfAnotherItem(old, than: description, in: target) {
                            throw KeychainError.keyring(errSecParam,
                                "The name of the item with \(description.primaryKey.readableName) has the same 64-bit record hash as another item's name in kernel keyring \(target), and the keyring backend cannot keep both; use another name.")
                        }
                        leftoverAttributesKey = old?.inAttributesKey == true && attributesKey == nil
                        return entry
                    }
                    do {
                        // Displacing a key of that name that is no item (checked above).
                        try kernel.move(itemKey, from: KernelKeys.threadKeyring, to: target, exclusive: false)
                    } catch {
                        try? changeRecordEntryLocked(hash, in: target) { $0?.itemKey == itemKey ? nil : $0 }
                        throw error
                    }
                    moved = true
                    if leftoverAttributesKey, let leftover = try? searchAttributesKey(description, in: target) {
                        try? kernel.unlink(leftover, from: target)
                    }
                } catch {
                    // Still under the lock, so that the key unlinked by its name is this add's.
                    if !moved, let attributesKey { try? kernel.unlink(attributesKey, from: target) }
                    throw error
                }
            }
        } catch {
            // Once the item key is in, the item is added, whatever the lock's release said.
            if !moved { discardStaged(itemKey) }
            if let failure = error as? KeyctlFailure { throw failure.keychainError(doing()) }
            throw error
        }
    }

    /// Rewrites in place the layout-3 item `found` with `item` (same primary key); `secret` nil
    /// keeps the secret. The secret goes first, then the attributes. Throws `ItemVanished`
    /// when the item was deleted (or deleted and added again) since it was found.
    func replaceLayout3(_ found: FoundItem, with item: KeychainItem, secret: SecretBytes?, in target: key_serial_t) throws {
        guard case .itemKey(let key, let entryKey, _, _) = found.storage else { return }
        func doing() -> String { "updating the item with \(found.description.primaryKey.readableName)" }
        let hash = Self.nameHash(found.description)
        do {
            try KeyringRecordLock(kernel: kernel).withLock(in: target) {
                var superseded: key_serial_t?
                var previousSecret: SecretBytes?
                var placedAttributesKey: key_serial_t?
                do {
                    try changeRecordEntryLocked(hash, in: target) { current in
                        // Gone, or replaced by another add, since it was found.
                        guard let current, current.itemKey == entryKey else { throw ItemVanished() }
                        // Under the lock, so that two updates land one after the other, secret and all.
                        // An empty secret goes after the entry that says so: a reader takes the
                        // placeholder for an empty secret only then, and the old secret, which is
                        // no placeholder, for itself until the key is rewritten.
                        if let secret, !secret.isEmpty {
                            previousSecret = try kernel.readSecretOnce(key)
                            try secret.withUnsafeBytes { try kernel.update(key, payload: $0) }
                        }
                        // The attributes key as it is now: another update may have placed or dropped
                        // one since the item was found.
                        let attributesKey = current.inAttributesKey ? try searchAttributesKey(found.description, in: target) : nil
                        let secretIsEmpty = secret.map(\.isEmpty) ?? current.secretIsEmpty
                        if let entry = ItemRecordEntry(item, nameHash: hash, itemKey: key, secretIsEmpty: secretIsEmpty) {
                            superseded = attributesKey
                            return entry
                        }
                        // Too large for an entry: the attributes key first, then the entry says so.
                        if let attributesKey {
                            let payload = try Self.checkedLayout2Payload(of: item, storedIn: target, secretKey: nil)
                            try payload.withUnsafeBytes { try kernel.update(attributesKey, payload: $0) }
                        } else {
                            placedAttributesKey = try placeAttributesKey(of: item, as: found.description, in: target)
                        }
                        return .pointingToAttributesKey(nameHash: hash, itemKey: key, secretIsEmpty: secretIsEmpty)
                    }
                } catch {
                    // Refused before the entry was written (the quota, say): the item keeps its
                    // old secret, and an attributes key placed for it goes, still under the lock
                    // so that the key unlinked by its name is this update's.
                    if let previousSecret { try? previousSecret.withUnsafeBytes { try kernel.update(key, payload: $0) } }
                    if let placedAttributesKey { try? kernel.unlink(placedAttributesKey, from: target) }
                    throw error
                }
                if let secret, secret.isEmpty {
                    try Self.emptySecretPlaceholder.withUnsafeBytes { try kernel.update(key, payload: $0) }
                }
                // Under the lock: the kernel unlinks whichever key of that name the target holds,
                // which after the lock could be one another update placed.
                if let superseded { try? kernel.unlink(superseded, from: target) }
            }
        } catch let failure as KeyctlFailure {
            if isUnlinkedKey(failure, key, in: target) { throw ItemVanished() }
            throw failure.keychainError(doing())
        }
    }

    /// Unlinks the layout-3 item stored as `storage` from `target`: its item key, which ends the item, then
    /// its attributes key and its entry, if the entry is still the one read (a later add of the
    /// name writes its own). Throws `KeyctlFailure` when the item key is no longer linked there.
    func removeLayout3(_ storage: FoundItem.Storage, of description: ItemKeyDescription, from target: key_serial_t) throws {
        guard case .itemKey(let key, let entryKey, _, let attributesKey) = storage else { return }
        try kernel.unlink(key, from: target)
        var attributesKeyDone = attributesKey == nil
        do {
            try KeyringRecordLock(kernel: kernel).withLock(in: target) {
                var removed = false
                try changeRecordEntryLocked(Self.nameHash(description), in: target) { current in
                    guard let current, current.itemKey == entryKey else { return current }
                    removed = true
                    return nil
                }
                attributesKeyDone = true
                if removed, let attributesKey { try? kernel.unlink(attributesKey, from: target) }
            }
        } catch {
            // The entry stays, no item's, until an add of the name replaces it. The attributes
            // key, perhaps many bytes of the quota (which may be why the lock could not be
            // made), goes now: invalidated, as unlinking by its name without the lock could take
            // the one a later add of the name placed.
            if !attributesKeyDone, let attributesKey { try? kernel.invalidate(attributesKey) }
        }
    }

    /// Rewrites the layout-2 item `found` (attributes key `attributesKey`) with `item`, same
    /// primary key, in layout 3; `secret` nil keeps the secret. Its secret key stays (or one is
    /// made) and becomes the item key, with the new secret; the entry is written next, and
    /// the attributes key unlinked last, so a reader finds the item throughout, with the old
    /// attributes or the new ones.
    func rewriteInLayout3(_ found: FoundItem, attributesKey: key_serial_t, with item: KeychainItem,
                          secret: SecretBytes?, in target: key_serial_t) throws {
        func doing() -> String { "updating the item with \(found.description.primaryKey.readableName)" }
        let newSecret = try secret ?? self.secret(of: found, in: target)
        let payload = Self.itemKeyPayload(newSecret)
        let hash = Self.nameHash(found.description)
        do {
            try KeyringRecordLock(kernel: kernel).withLock(in: target) {
                // Still the item read, and not rewritten by another process meanwhile.
                guard try searchAttributesKey(found.description, in: target) == attributesKey,
                      try recordEntry(named: found.description, in: target) == nil else { throw ItemVanished() }
                let key: key_serial_t
                // What to put back if the entry cannot be written (the quota, say), so that the
                // layout-2 item reads as it was: its old secret, its old attributes, and no key
                // this rewrite added. Still under the lock, so that a key unlinked by its name
                // is this rewrite's.
                var previousSecret: SecretBytes?
                var addedKey: key_serial_t?
                var previousAttributes: [UInt8]?
                func putBack() {
                    if let previousSecret { try? previousSecret.withUnsafeBytes { try kernel.update(key, payload: $0) } }
                    if let addedKey { try? kernel.unlink(addedKey, from: target) }
                    if let previousAttributes { try? previousAttributes.withUnsafeBytes { try kernel.update(attributesKey, payload: $0) } }
                }
                // An empty secret goes into a key there after the entry that says so, as in
                // `replaceLayout3`: until then the key's old secret reads as what it is.
                var placeholderLast = false
                if let existing = try searchItemKey(found.description, in: target), isLinked(existing, in: target) {
                    if newSecret.isEmpty {
                        placeholderLast = true
                    } else {
                        previousSecret = try kernel.readSecretOnce(existing)
                        try payload.withUnsafeBytes { try kernel.update(existing, payload: $0) }
                    }
                    key = existing
                } else {
                    key = try payload.withUnsafeBytes {
                        try addKey(found.description.text, payload: $0, to: target, exclusive: false,
                                   permissions: Self.keyPermissions)
                    }
                    addedKey = key
                }
                let entry = ItemRecordEntry(item, nameHash: hash, itemKey: key, secretIsEmpty: newSecret.isEmpty)
                do {
                    if let entry {
                        try changeRecordEntryLocked(hash, in: target) { _ in entry }
                    } else {
                        // Naming the item key as its secret key: until the entry points to it, a
                        // reader takes the attributes key for a layout-2 item, whose secret is there.
                        let attributes = try Self.checkedLayout2Payload(of: item, storedIn: target,
                                                                        secretKey: newSecret.isEmpty ? nil : key)
                        previousAttributes = try kernel.readPublicPayload(attributesKey)
                        try attributes.withUnsafeBytes { try kernel.update(attributesKey, payload: $0) }
                        try changeRecordEntryLocked(hash, in: target) { _ in
                            .pointingToAttributesKey(nameHash: hash, itemKey: key, secretIsEmpty: newSecret.isEmpty)
                        }
                    }
                } catch {
                    putBack()
                    throw error
                }
                if entry != nil { try kernel.unlink(attributesKey, from: target) }
                if placeholderLast { try payload.withUnsafeBytes { try kernel.update(key, payload: $0) } }
            }
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey { throw ItemVanished() }
            throw failure.keychainError(doing())
        }
    }

    /// A layout-2 attributes key for `item` in `target`, displacing one left over.
    private func placeAttributesKey(of item: KeychainItem, as description: ItemKeyDescription,
                                    in target: key_serial_t) throws -> key_serial_t {
        let payload = try Self.checkedLayout2Payload(of: item, storedIn: target, secretKey: nil)
        return try payload.withUnsafeBytes {
            try addKey(Self.attributesDescription(description), payload: $0, to: target, exclusive: false,
                       permissions: Self.keyPermissions)
        }
    }

    /// The item key of `secret`, built in the thread keyring.
    private func stageItemKey(_ secret: SecretBytes?, as description: ItemKeyDescription) throws -> key_serial_t {
        try Self.itemKeyPayload(secret).withUnsafeBytes { try stageKey(description.text, payload: $0) }
    }

    /// What the item key of `secret` holds: the secret, or the placeholder for an empty one.
    private static func itemKeyPayload(_ secret: SecretBytes?) -> SecretBytes {
        guard let secret, !secret.isEmpty else { return SecretBytes(Data(emptySecretPlaceholder)) }
        return secret
    }
}
