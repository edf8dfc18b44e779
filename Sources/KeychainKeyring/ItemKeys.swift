import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore

/// Layout 2, which the previous version wrote, and the lookup by name of every layout: an item
/// is two `user` keys linked directly in the target keyring.
///
/// - The **secret key**, described by the item's `ItemKeyDescription`
///   (`linux-keychain:genp:SERVICE:ACCOUNT`), whose payload is exactly the secret. An item
///   with an empty secret has none (the kernel refuses an empty `user` key), until
///   `LayoutThreeRecord` gives it a placeholder.
/// - The **attributes key**, described by the same name with the prefix
///   `linux-keychain-attributes` (`attributesDescription`), holding `StoredAttributes` in
///   format 2: the attributes outside the primary key (dates, label, ...), the target's serial
///   and the secret key's serial. It is the item: a layout-2 item exists exactly while its
///   attributes key is linked in the target.
///
/// This version reads layout-2 items, deletes them (the attributes key, then the secret key),
/// and rewrites one in layout 3 when it is updated (`rewriteInLayout3`). It writes layout 3
/// (`LayoutThreeItems`), whose item key has the name of the layout-2 secret key, so a lookup
/// by name searches that name first: the item key of a layout-3 item with its entry, or the
/// secret key of a layout-2 item, whose attributes key is searched next. Attributes keys
/// are still written for layout-3 items whose attributes are too large for an entry.
/// `addLayout2` is kept to build the previous version's items in tests.
///
/// Items in layout 1 (`ItemKeyrings`, a keyring per item) are still read, and an item read by
/// name is rewritten in layout 3 on the spot (`migrate`).
extension ItemKeyrings {
    static let attributesPrefix = "linux-keychain-attributes"

    /// What a layout-2 key grants its possessor: as `permissions`, plus write, for the
    /// in-place updates.
    static let keyPermissions = permissions | key_perm_t(KEY_POS_WRITE)

    /// The description of the attributes key of the item `description` names.
    static func attributesDescription(_ description: ItemKeyDescription) -> String {
        // From contiguous bytes: `String + Substring` would append the rest one `Character` at
        // a time, and a `Substring.UTF8View` one byte at a time.
        var bytes = Array(attributesPrefix.utf8)
        var text = description.text
        text.withUTF8 { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0.dropFirst(ItemKeyDescription.prefix.utf8.count))) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The item description an attributes key's description names, or nil for any other text.
    static func itemDescription(ofAttributesKey text: String) -> ItemKeyDescription? {
        guard text.utf8.starts(with: (attributesPrefix + ":").utf8) else { return nil }
        return ItemKeyDescription(parsing: ItemKeyDescription.prefix + text.dropFirst(attributesPrefix.count))
    }

    // MARK: - Finding

    /// The item `description` names in `target`, in either layout; nil when `target` has none.
    /// An item in layout 1 is migrated to layout 2 first, where the quota allows. `secretOnly`:
    /// see `itemByItemKey(named:in:checkAttributesKeyAlone:secretOnly:)`.
    func item(named description: ItemKeyDescription, in target: key_serial_t, secretOnly naming: ItemAttributes? = nil) throws -> FoundItem? {
        try inEitherLayout(target, current: { try itemByItemKey(named: description, in: target, checkAttributesKeyAlone: $0,
                                                                secretOnly: naming) },
                           layout1: { try migratedLegacyItem(named: description, in: target) })
    }

    /// The layout-1 item `description` names in `target`, rewritten in layout 2 where the
    /// quota allows; nil when `target` has none.
    func migratedLegacyItem(named description: ItemKeyDescription, in target: key_serial_t) throws -> FoundItem? {
        guard let legacy = try legacyItem(named: description, in: target) else { return nil }
        // A migration that fails (no quota left, a broken secret key, another process migrating
        // it at the same moment) leaves the item where it is, and the read goes on; the item's
        // own errors show when its secret is read.
        return (try? migrate(legacy, in: target)) ?? legacy
    }

    /// The serial whose link in `target` makes the item `description` names exist (its
    /// attributes key, or its item keyring in layout 1), or nil; throws the item's own error
    /// when it is there but revoked, expired or not accessible.
    func anchor(named description: ItemKeyDescription, in target: key_serial_t) throws -> key_serial_t? {
        try inEitherLayout(target, current: { try itemByItemKey(named: description, in: target, checkAttributesKeyAlone: $0)?.anchor },
                           layout1: { try itemKeyring(named: description, in: target) })
    }

    /// What `current` (layouts 3 and 2) finds, else what `layout1` finds while `target` may
    /// hold layout-1 items. `current` is told whether the target may still hold a layout-2 item
    /// without an item key (`LayoutThreeRecord`).
    ///
    /// Another process (or thread) may migrate the item between the search by item key and the
    /// look at layout 1: a migration moves the new item in before it unlinks the item keyring,
    /// and a listing writes the `layout-3` record after its last migration. So, unless the
    /// record was known before the first search, a miss in both searches the current layouts
    /// once more, which then finds any item migrated in between.
    private func inEitherLayout<Found>(_ target: key_serial_t, current: (_ mayHoldKeylessItems: Bool) throws -> Found?,
                                       layout1: () throws -> Found?) throws -> Found? {
        let goneBefore = isLayoutThreeKnown(target)
        if let found = try current(!goneBefore) { return found }
        if goneBefore { return nil }
        if layoutThreeState(target) == .mayRemain, let found = try layout1() { return found }
        // An item migrated meanwhile has its item key.
        return try current(!isLayoutThreeKnown(target))
    }

    func layout2Item(named description: ItemKeyDescription, in target: key_serial_t) throws -> FoundItem? {
        guard let key = try searchAttributesKey(description, in: target) else { return nil }
        let found = try loadLayout2(key, description, in: target)
        // The recorded keyring confirms it cheaply; a key of that name in a keyring nested in
        // the target belongs to another store.
        return found.storedIn == target || isLinked(key, in: target) ? found : nil
    }

    /// The attributes key `description` names in `target` (or a keyring nested in it), or nil.
    func searchAttributesKey(_ description: ItemKeyDescription, in target: key_serial_t) throws -> key_serial_t? {
        do {
            return try kernel.search(target, type: "user", description: Self.attributesDescription(description))
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            return nil
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("looking up the item with \(description.primaryKey.readableName)")
        }
    }

    /// Reads the layout-2 item whose attributes key is `key`.
    func loadLayout2(_ key: key_serial_t, _ description: ItemKeyDescription, in target: key_serial_t) throws -> FoundItem {
        var name: String { description.primaryKey.readableName }
        let payload: [UInt8]
        do {
            payload = try kernel.readPublicPayload(key)
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey || !isLinked(key, in: target) { throw ItemVanished() }
            throw failure.keychainError("reading the item with \(name)")
        }
        let (stored, item) = try StoredAttributes.item(decoding: payload, format: StoredAttributes.currentFormat,
                                                       of: description, place: "\(key)")
        return FoundItem(storage: .keys(attributes: key, secret: stored.secret), description: description, item: item,
                         secretIsEmpty: stored.hasEmptySecret, storedIn: stored.keyring)
    }

    // MARK: - Reading the secret

    /// The secret of the layout-2 item `found`: one read by the serial its attributes name.
    ///
    /// When that read fails, the item may have been replaced or deleted since it was found,
    /// or be in the instant between its attributes key and its secret key landing: the
    /// attributes key decides. If it is still the one found, the secret key is looked up by
    /// name (a key replaced by hand with `keyctl` is still the item's secret); with none, the
    /// read is retried, and reported as a missing secret once retries are exhausted.
    func layout2Secret(of found: FoundItem, attributesKey: key_serial_t, secretKey: key_serial_t?,
                       in target: key_serial_t) throws -> SecretBytes {
        guard let secretKey else { return SecretBytes(Data()) }
        var name: String { found.description.primaryKey.readableName }
        if let secret = try? kernel.readSecretOnce(secretKey) {
            // Perhaps rewritten in layout 3 with an empty secret since it was found.
            return try secretReadingPlaceholders(secret, of: found.description, itemKey: secretKey, in: target, key: secretKey)
        }
        guard (try? searchAttributesKey(found.description, in: target)) == attributesKey else { throw ItemVanished() }
        let byName: key_serial_t
        do {
            byName = try kernel.search(target, type: "user", description: found.description.text)
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            throw SecretKeyMissing()
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("reading the secret of the item with \(name)")
        }
        do {
            return try kernel.readSecret(byName)
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey { throw ItemVanished() }
            throw failure.keychainError("reading the secret of the item with \(name)")
        }
    }

    // MARK: - Writing

    /// Adds `item` to `target` in layout 2, as the previous version did (for tests that this
    /// version reads such items), failing with `errSecDuplicateItem` when a layout-2 item of its
    /// name is there. Returns the serials of the keys it linked in `target`.
    @discardableResult
    func addLayout2(_ item: KeychainItem, as description: ItemKeyDescription,
                    into target: key_serial_t) throws -> (attributes: key_serial_t, secret: key_serial_t?) {
        func doing() -> String { "storing the item with \(description.primaryKey.readableName)" }
        var secretKey: key_serial_t?
        let attributes: key_serial_t
        do {
            secretKey = try stageSecret(item.secret, as: description)
            attributes = try stageAttributes(of: item, as: description, storedIn: target, secretKey: secretKey)
        } catch {
            if let secretKey { discardStaged(secretKey) }
            if let failure = error as? KeyctlFailure { throw failure.keychainError(doing()) }
            throw error
        }
        do {
            try kernel.move(attributes, from: KernelKeys.threadKeyring, to: target, exclusive: true)
        } catch let failure as KeyctlFailure {
            for key in [secretKey, attributes].compactMap({ $0 }) { discardStaged(key) }
            if failure.code == EEXIST {
                throw KeychainError.keyring(errSecDuplicateItem,
                    "An item with \(description.primaryKey.readableName) already exists in the kernel keyring.",
                    failedCall: failure.call)
            }
            throw failure.keychainError(doing())
        }
        guard let secretKey else { return (attributes, nil) }
        do {
            try kernel.move(secretKey, from: KernelKeys.threadKeyring, to: target, exclusive: false)
        } catch let failure as KeyctlFailure {
            // The item is in place without its secret: take it out again, so the add fails whole.
            try? kernel.unlink(attributes, from: target)
            discardStaged(secretKey)
            throw failure.keychainError(doing())
        }
        return (attributes, secretKey)
    }

    /// Unlinks the layout-2 item `description` names from `target`: its attributes key first,
    /// which ends the item, then its secret key (or the placeholder item key `LayoutThreeRecord`
    /// gave an empty secret). Throws `KeyctlFailure` when the attributes key is no longer
    /// linked there.
    func removeLayout2(attributesKey: key_serial_t, secretKey: key_serial_t?, of description: ItemKeyDescription,
                       from target: key_serial_t) throws {
        try kernel.unlink(attributesKey, from: target)
        // The item is gone with its attributes key; a key left over is no item.
        if let key = secretKey ?? (try? searchItemKey(description, in: target)) { try? kernel.unlink(key, from: target) }
    }

    /// Rewrites the layout-1 item `legacy` in layout 2 and unlinks its item keyring; nil when
    /// that cannot be done now (no quota, another process migrating it at the same moment),
    /// and the item is read where it is.
    private func migrate(_ legacy: FoundItem, in target: key_serial_t) throws -> FoundItem? {
        guard case .itemKeyring(let keyring) = legacy.storage else { return legacy }
        var item = legacy.item
        item.secret = try secret(of: legacy, in: target)
        // A tagged layout-1 item is about to become a tagged layout-2 item (`TaggedItemsMarker`).
        try recordWrite(of: legacy.description, in: target)
        try addLayout3(item, as: legacy.description, into: target)
        // From here the layout-3 item is the item; the keyring is left over.
        do {
            try kernel.unlink(keyring, from: target)
        } catch let failure as KeyctlFailure where failure.code == ENOENT || failure.isNoSuchKey {
            // Not linked there any more: a delete or a rename of the item unlinked it since it
            // was read, and this copy would bring the item back. Unless the keyring is still
            // reachable (moved by hand below the target, `legacyItem`), the copy goes too.
            if (try? searchItemKeyring(legacy.description, in: target)) != keyring {
                if let copy = try? itemByItemKey(named: legacy.description, in: target, checkAttributesKeyAlone: false) {
                    try? removeLayout3(copy.storage, of: legacy.description, from: target)
                }
                throw ItemVanished()
            }
        } catch {
            // Not unlinked for another reason: the layout-3 item is the item all the same.
        }
        return try itemByItemKey(named: legacy.description, in: target, checkAttributesKeyAlone: false)
    }

    // MARK: - Staging

    /// The secret key of `secret`, built in the thread keyring; nil for an empty secret.
    private func stageSecret(_ secret: SecretBytes?, as description: ItemKeyDescription) throws -> key_serial_t? {
        guard let secret, !secret.isEmpty else { return nil }
        return try secret.withUnsafeBytes { try stageKey(description.text, payload: $0) }
    }

    private func stageAttributes(of item: KeychainItem, as description: ItemKeyDescription, storedIn target: key_serial_t,
                                 secretKey: key_serial_t?) throws -> key_serial_t {
        let payload = try Self.checkedLayout2Payload(of: item, storedIn: target, secretKey: secretKey)
        return try payload.withUnsafeBytes { try stageKey(Self.attributesDescription(description), payload: $0) }
    }

    /// A `user` key in the thread keyring with the layout's permissions.
    func stageKey(_ description: String, payload: UnsafeRawBufferPointer) throws -> key_serial_t {
        let key = try kernel.addUserKey(description, payload: payload, to: KernelKeys.threadKeyring)
        do {
            try kernel.setPermissions(key, Self.keyPermissions)
        } catch {
            discardStaged(key)
            throw error
        }
        return key
    }

    static func checkedLayout2Payload(of item: KeychainItem, storedIn target: key_serial_t,
                                      secretKey: key_serial_t?) throws -> Data {
        let payload = StoredAttributes(layout2: item, storedIn: target, secretKey: secretKey).encoded()
        guard payload.count <= maximumPayload else {
            throw KeychainError.keyring(errSecDataTooLarge,
                "The attributes of the item with \(item.primaryKey.readableName) take \(payload.count) bytes; a kernel key holds at most \(maximumPayload). Shorten the comment, description or generic data.")
        }
        return payload
    }
}

/// A layout-2 item's attributes key names a secret key that is not there: the instant before
/// an add moves it in, or an add that died in that instant.
struct SecretKeyMissing: Error {}
