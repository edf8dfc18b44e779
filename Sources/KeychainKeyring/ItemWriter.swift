import CKeyutils
import FoundationEssentials
import Glibc
import KeychainCore

/// Adding, rewriting and removing the items of a target keyring (`ItemLookup` describes an
/// item), each holding the target's `KeyringRecordLock` from its check to its last move:
///
/// - **Add** records the write in the `TaggedItemsMarker`, stages the item key in the process
///   keyring, checks that the target holds no item of that name, writes the entry (and the
///   attributes key, if needed), and moves the item key in last: the item appears whole.
/// - **Replace** rewrites the item key in place with `keyctl_update` (a reader sees the old
///   secret or the new one), then the entry.
/// - **Remove** unlinks the item key, which ends the item, then the attributes key and the entry.
struct ItemWriter: Sendable {
    let kernel: KernelKeys
    private var lookup: ItemLookup { ItemLookup(kernel: kernel) }
    private var records: ItemRecords { ItemRecords(kernel: kernel) }
    private var lock: KeyringRecordLock { KeyringRecordLock(kernel: kernel) }

    /// Throws `errSecDataTooLarge` for a secret the kernel cannot hold in one `user` key.
    static func checkSecretSize(_ secret: SecretBytes?, of item: @autoclosure () -> String) throws {
        let size = secret?.count ?? 0
        guard size <= KernelKeys.maximumPayload else {
            throw KeychainError.keyring(errSecDataTooLarge,
                "The secret of \(item()) is \(size) bytes; a kernel key holds at most \(KernelKeys.maximumPayload). Use KEYCHAIN_BACKEND=file for larger secrets.")
        }
    }

    /// Adds `item` to `target`, failing with `errSecDuplicateItem` when an item of its name is
    /// there. The caller has checked the size.
    func add(_ item: KeychainItem, as description: ItemKeyDescription, into target: key_serial_t) throws {
        func doing() -> String { "storing the item with \(description.primaryKey.readableName)" }
        let secretIsEmpty = item.secret?.isEmpty ?? true
        let hash = ItemRecords.nameHash(description)
        do {
            try lock.withLock(in: target) {
                // Before the item can be seen: readers rely on it.
                try TaggedItemsMarker(kernel: kernel).recordWrite(of: description, in: target)
                let itemKey = try Self.itemKeyPayload(item.secret).withUnsafeBytes { try kernel.stageUserKey(description.text, payload: $0) }
                var attributesKey: key_serial_t?
                var moved = false
                do {
                    if try lookup.item(named: description, in: target) != nil {
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
                    try records.changeEntryLocked(hash, in: target) { old in
                        if let old, lookup.isEntryOfAnotherItem(old, than: description, in: target) {
                            throw KeychainError.keyring(errSecParam,
                                "The name of the item with \(description.primaryKey.readableName) has the same 64-bit record hash as another item's name in kernel keyring \(target), and the keyring backend cannot keep both; use another name.")
                        }
                        leftoverAttributesKey = old?.inAttributesKey == true && attributesKey == nil
                        return entry
                    }
                    do {
                        // Displacing a key of that name that is no item (checked above).
                        try kernel.move(itemKey, from: KernelKeys.processKeyring, to: target, exclusive: false)
                    } catch {
                        try? records.changeEntryLocked(hash, in: target) { $0?.itemKey == itemKey ? nil : $0 }
                        throw error
                    }
                    moved = true
                    if leftoverAttributesKey,
                       let leftover = try? kernel.search(target, type: "user", description: AttributesKey.description(of: description)) {
                        try? kernel.unlink(leftover, from: target)
                    }
                } catch {
                    // Still under the lock, so that the key unlinked by its name is this add's, and
                    // in this thread's turn, the only one in which a key of this name is staged.
                    if !moved, let attributesKey { try? kernel.unlink(attributesKey, from: target) }
                    if !moved { kernel.discardStaged(itemKey) }
                    throw error
                }
            }
        } catch {
            if let failure = error as? KeyctlFailure { throw failure.keychainError(doing()) }
            throw error
        }
    }

    /// Rewrites in place the item `found` with `item` (same primary key); `secret` nil keeps the
    /// secret. The secret goes first, then the attributes. Throws `ItemVanished` when the item
    /// was deleted (or deleted and added again) since it was found.
    func replace(_ found: FoundItem, with item: KeychainItem, secret: SecretBytes?, in target: key_serial_t) throws {
        let key = found.keys.key, entryKey = found.keys.entryKey
        func doing() -> String { "updating the item with \(found.description.primaryKey.readableName)" }
        let hash = ItemRecords.nameHash(found.description)
        do {
            try lock.withLock(in: target) {
                var superseded: key_serial_t?
                var previousSecret: SecretBytes?
                var placedAttributesKey: key_serial_t?
                do {
                    try records.changeEntryLocked(hash, in: target) { current in
                        // Gone, or replaced by another add, since it was found.
                        guard let current, current.itemKey == entryKey else { throw ItemVanished() }
                        // Under the lock, so that two updates land one after the other, secret and all.
                        // An empty secret goes after the entry that says so (`ItemLookup.secret`).
                        if let secret, !secret.isEmpty {
                            previousSecret = try kernel.readSecretOnce(key)
                            try secret.withUnsafeBytes { try kernel.update(key, payload: $0) }
                        }
                        // As it is now: another update may have placed or dropped one since.
                        let attributesKey = current.inAttributesKey
                            ? try kernel.searchUserKey(AttributesKey.description(of: found.description), in: target,
                                                       of: found.description.primaryKey.readableName)
                            : nil
                        let secretIsEmpty = secret.map(\.isEmpty) ?? current.secretIsEmpty
                        if let entry = ItemRecordEntry(item, nameHash: hash, itemKey: key, secretIsEmpty: secretIsEmpty) {
                            superseded = attributesKey
                            return entry
                        }
                        // Too large for an entry: the attributes key first, then the entry says so.
                        if let attributesKey {
                            let payload = try AttributesKey.payload(of: item, storedIn: target)
                            try payload.withUnsafeBytes { try kernel.update(attributesKey, payload: $0) }
                        } else {
                            placedAttributesKey = try placeAttributesKey(of: item, as: found.description, in: target)
                        }
                        return .pointingToAttributesKey(nameHash: hash, itemKey: key, secretIsEmpty: secretIsEmpty)
                    }
                } catch {
                    // Refused before the entry was written (the quota, say): the old secret goes
                    // back, and an attributes key placed for it goes, still under the lock.
                    if let previousSecret { try? previousSecret.withUnsafeBytes { try kernel.update(key, payload: $0) } }
                    if let placedAttributesKey { try? kernel.unlink(placedAttributesKey, from: target) }
                    throw error
                }
                if let secret, secret.isEmpty {
                    try ItemLookup.emptySecretPlaceholder.withUnsafeBytes { try kernel.update(key, payload: $0) }
                }
                // Under the lock: the kernel unlinks whichever key of that name the target holds.
                if let superseded { try? kernel.unlink(superseded, from: target) }
            }
        } catch let failure as KeyctlFailure {
            if kernel.isUnlinkedKey(failure, key, in: target) { throw ItemVanished() }
            throw failure.keychainError(doing())
        }
    }

    /// Unlinks the item kept in `keys` from `target`: its item key, which ends the item, then
    /// its attributes key and its entry, if the entry is still the one read (a later add of the
    /// name writes its own). Throws `KeyctlFailure` when the item key is no longer linked there.
    func remove(_ keys: FoundItem.Keys, of description: ItemKeyDescription, from target: key_serial_t) throws {
        try kernel.unlink(keys.key, from: target)
        var attributesKeyDone = keys.attributesKey == nil
        do {
            try lock.withLock(in: target) {
                var removed = false
                try records.changeEntryLocked(ItemRecords.nameHash(description), in: target) { current in
                    guard let current, current.itemKey == keys.entryKey else { return current }
                    removed = true
                    return nil
                }
                attributesKeyDone = true
                if removed, let attributesKey = keys.attributesKey { try? kernel.unlink(attributesKey, from: target) }
            }
        } catch {
            // The entry stays, no item's, until an add of the name replaces it. The attributes key (many bytes of
            // quota) is invalidated: unlinking by its name without the lock could take the one a later add placed.
            if !attributesKeyDone, let attributesKey = keys.attributesKey { try? kernel.invalidate(attributesKey) }
        }
    }

    /// An attributes key for `item` in `target`, displacing one left over.
    private func placeAttributesKey(of item: KeychainItem, as description: ItemKeyDescription,
                                    in target: key_serial_t) throws -> key_serial_t {
        try AttributesKey.payload(of: item, storedIn: target).withUnsafeBytes {
            try kernel.placeUserKey(AttributesKey.description(of: description), payload: $0, in: target, exclusive: false)
        }
    }

    /// What the item key of `secret` holds: the secret, or the placeholder for an empty one.
    private static func itemKeyPayload(_ secret: SecretBytes?) -> SecretBytes {
        guard let secret, !secret.isEmpty else { return SecretBytes(Data(ItemLookup.emptySecretPlaceholder)) }
        return secret
    }
}
