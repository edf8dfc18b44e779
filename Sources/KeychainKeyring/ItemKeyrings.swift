import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore

/// The items of a target keyring, in the kernel. This version writes layout 2 (`ItemKeys`:
/// two keys per item, directly in the target) and reads and migrates layout 1, which this file
/// reads, and which versions before layout 2 wrote: one keyring per item, named by the item's
/// `ItemKeyDescription` and linked in the target keyring, holding
///
/// - a `user` key with the same description whose payload is exactly the secret (absent when
///   the secret is empty, which the kernel cannot store), and
/// - a `user` key `linux-keychain-attributes` holding `StoredAttributes`.
///
/// **Keys two levels down are never named by serial where they are.** Every keyctl call that
/// names a key by serial makes the kernel prove that the caller possesses it, by searching the
/// thread keyring and the keyrings nested in it. A key inside an item keyring is found only
/// after the kernel has walked the item keyrings of the target (linked in the thread keyring)
/// one by one, so every such call would cost more the more items there are. So a key inside
/// an item keyring is created in the thread keyring itself and moved into its item keyring,
/// and is linked into the thread keyring for as long as it is read; the kernel then finds it
/// at once.
struct ItemKeyrings: Sendable {
    let kernel: KernelKeys

    /// What each key grants. Nothing for group and other, and nothing for the user as such:
    /// the library always possesses its keys, through the target keyring linked into the
    /// thread keyring. The possessor gets view (to list), read, search (to read and to prove
    /// possession) and link, which `keyctl_move` requires and which lets a key be linked into
    /// the thread keyring while it is read.
    static let permissions = key_perm_t(KEY_POS_VIEW | KEY_POS_READ | KEY_POS_SEARCH | KEY_POS_LINK)

    /// The kernel's limit on a `user` key's payload.
    static let maximumPayload = 32767

    // MARK: - Writing

    /// Throws `errSecDataTooLarge` for a secret the kernel cannot hold in one `user` key.
    static func checkSecretSize(_ secret: SecretBytes?, of item: @autoclosure () -> String) throws {
        let size = secret?.count ?? 0
        guard size <= maximumPayload else {
            throw KeychainError.keyring(errSecDataTooLarge,
                "The secret of \(item()) is \(size) bytes; a kernel key holds at most \(maximumPayload). Use KEYCHAIN_BACKEND=file for larger secrets.")
        }
    }

    /// Adds a `user` key to `keyring` (the target, for the `TaggedItemsMarker`): created in the
    /// thread keyring, where the kernel finds it at once while its permissions are set, then
    /// moved, exclusively or displacing a key of the same name. (`add_key` would update a
    /// `user` key of the same name already in the thread keyring instead; there is none, as a
    /// read unlinks the keys it linked there before it returns.)
    @discardableResult
    func addKey(_ description: String, payload: UnsafeRawBufferPointer, to keyring: key_serial_t,
                exclusive: Bool = true, permissions: key_perm_t = Self.permissions) throws -> key_serial_t {
        let key = try kernel.addUserKey(description, payload: payload, to: KernelKeys.threadKeyring)
        do {
            try kernel.setPermissions(key, permissions)
            try kernel.move(key, from: KernelKeys.threadKeyring, to: keyring, exclusive: exclusive)
        } catch {
            discardStaged(key)
            throw error
        }
        return key
    }

    /// Unlinks a staged key from the thread keyring; the kernel then frees it and any key inside.
    func discardStaged(_ key: key_serial_t) {
        // Nothing else holds it: if this fails, the thread keyring keeps it until the thread ends.
        try? kernel.unlink(key, from: KernelKeys.threadKeyring)
    }

    // MARK: - Finding one item in layout 1

    /// The layout-1 item `description` names in `target`, or nil when `target` has none.
    ///
    /// The kernel finds an item keyring linked in `target` by name whatever the number of items
    /// (see `KernelKeys.search`). Its search also reaches keyrings nested in `target`; an item
    /// found there belongs to another store, and is not reported.
    func legacyItem(named description: ItemKeyDescription, in target: key_serial_t) throws -> FoundItem? {
        guard let keyring = try searchItemKeyring(description, in: target) else { return nil }
        let found = try load(keyring, description, in: target)
        // The recorded keyring confirms it cheaply; without it (an item written by an earlier
        // version, or moved by hand with `keyctl move`) the target's list of keys decides.
        return found.storedIn == target || isLinked(keyring, in: target) ? found : nil
    }

    /// The serial of the item keyring `description` names, linked in `target` itself; throws
    /// the item's own error when it is there but revoked, expired or not accessible. Reads the
    /// whole target when there is one: for checks that are rare, not for reading items.
    func itemKeyring(named description: ItemKeyDescription, in target: key_serial_t) throws -> key_serial_t? {
        guard let keyring = try searchItemKeyring(description, in: target) else { return nil }
        return isLinked(keyring, in: target) ? keyring : nil
    }

    /// The item keyring `description` names, in `target` or a keyring nested in it; nil when
    /// the kernel says there is none.
    func searchItemKeyring(_ description: ItemKeyDescription, in target: key_serial_t) throws -> key_serial_t? {
        try searchByName(description, type: "keyring", in: target)
    }

    /// The key of `type` that `description` names, in `target` or a keyring nested in it; nil
    /// when the kernel says there is none.
    func searchByName(_ description: ItemKeyDescription, type: String, in target: key_serial_t) throws -> key_serial_t? {
        do {
            return try kernel.search(target, type: type, description: description.text)
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            return nil
        } catch let failure as KeyctlFailure {
            // Revoked, expired or not accessible: the kernel says so only for a key of that name.
            throw failure.keychainError("looking up the item with \(description.primaryKey.readableName)")
        }
    }

    // MARK: - Reading every item

    /// One reading of a target keyring: the items `wanted` accepted, and every serial examined.
    struct Listing {
        var items: [FoundItem]
        var serials: Set<key_serial_t>
    }

    /// The items in `target` whose description begins with `leadingText` and names a primary
    /// key `wanted` accepts, with their attributes.
    ///
    /// An item keyring that disappears while it is read was deleted or replaced by another
    /// process. The keyring is then listed again and only the keys that are new since are
    /// read, so a replacement is found without starting over (which could starve a reader
    /// while others write); when an item was read in both forms, the later one wins.
    func items(in target: key_serial_t, describedFrom leadingText: String,
               where wanted: (PrimaryKey) -> Bool) throws -> Listing {
        var examined: Set<key_serial_t> = []
        // Keyed by the description's exact bytes: `String` keys would merge canonically
        // equivalent names (café in NFC and NFD), which are two items.
        var byDescription: [[UInt8]: FoundItem] = [:]
        for _ in 0..<Self.listingRounds {
            let serials: [key_serial_t]
            do {
                serials = try kernel.contents(of: target)
            } catch let failure as KeyctlFailure {
                throw failure.keychainError("listing keyring \(target)")
            }
            // Read after the listing: an item key listed before its add wrote the entry is
            // then found with it, and one whose entry is gone was deleted after the listing.
            let entries = recordReader(for: target)
            var sawVanished = false
            // Keys that were no item with these entries: a layout-2 item's secret key, say,
            // whose item is rewritten in layout 3 meanwhile (its entry written, then its
            // attributes key unlinked), is its item key by the next round.
            var notItems: Set<key_serial_t> = []
            for serial in serials where examined.insert(serial).inserted {
                do {
                    if let item = try examine(serial, in: target, leadingText, wanted, entries) {
                        byDescription[Array(item.description.text.utf8)] = item
                    } else {
                        notItems.insert(serial)
                    }
                } catch is ItemVanished {
                    sawVanished = true
                }
            }
            if !sawVanished { return Listing(items: Array(byDescription.values), serials: examined) }
            examined.subtract(notItems)
        }
        throw KeychainError.keyring(errSecIO,
            "The items in keyring \(target) kept changing during \(Self.listingRounds) attempts to read them; try again.")
    }

    private static let listingRounds = 50

    /// The item in `serial`, or nil for a key that is not an item `items(in:)` asks for.
    private func examine(_ serial: key_serial_t, in target: key_serial_t, _ leadingText: String,
                         _ wanted: (PrimaryKey) -> Bool, _ entries: RecordReader) throws -> FoundItem? {
        let record: KeyDescriptionRecord
        do {
            record = try kernel.describe(serial)
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey || !isLinked(serial, in: target) { throw ItemVanished() }
            // A key that cannot be described (revoked, expired, not viewable) is not known to
            // be an item; `KernelKeyringBackend` reports the one a query names.
            return nil
        }
        switch record.type {
        case "user":
            if record.description.utf8.starts(with: leadingText.utf8) {
                // An item key: a layout-3 item when it has an entry (one that points to an
                // attributes key is also listed with that key, below, unless an update placed
                // the key after the keyring's contents were read).
                guard let description = ItemKeyDescription(parsing: record.description), wanted(description.primaryKey),
                      let entry = try entries.entry(Self.nameHash(description)),
                      entry.itemKey == serial || !isEntryOfAnotherItem(entry, than: description, in: target) else { return nil }
                return try layout3Item(description, key: serial, entry: entry, in: target)
            }
            guard record.description.utf8.starts(with: (Self.attributesPrefix + leadingText.dropFirst(ItemKeyDescription.prefix.count)).utf8),
                  let description = Self.itemDescription(ofAttributesKey: record.description),
                  wanted(description.primaryKey) else { return nil }
            if let entry = try entries.entry(Self.nameHash(description)) {
                // A layout-3 item whose attributes are too large for an entry; or, with an entry
                // that keeps them, an attributes key left over (by an update that made them
                // smaller, or a delete overtaken by an add), which is not the item.
                guard let key = try searchItemKey(description, in: target) else {
                    if entry.inAttributesKey { throw ItemVanished() }
                    return nil
                }
                return try layout3Item(description, key: key, entry: entry, in: target)
            }
            // Once every item has its item key (`LayoutThreeRecord`), an attributes key without
            // one is no item, as for a lookup by name: left by an add or a delete that died.
            if isLayoutThreeKnown(target), try searchItemKey(description, in: target) == nil { return nil }
            return try loadLayout2(serial, description, in: target)
        case "keyring":
            // By bytes: a name that begins with a combining mark forms one Character with the ':' before it.
            guard record.description.utf8.starts(with: leadingText.utf8),
                  let description = ItemKeyDescription(parsing: record.description),
                  wanted(description.primaryKey) else { return nil }
            return try load(serial, description, in: target)
        default:
            return nil
        }
    }

    /// How long a reader waits before its `attempt`-th look again for a layout-2 item's secret
    /// key (an earlier version's add between its two moves, `ItemKeys`): 50 µs more each time,
    /// about 10 ms over 20 attempts.
    static func pauseForLanding(_ attempt: Int) { usleep(useconds_t(50 * (attempt + 1))) }

    /// Whether `key` is linked in `target` now; true when that cannot be read, so that a
    /// failure is reported rather than retried. Reads the whole target.
    func isLinked(_ key: key_serial_t, in target: key_serial_t) -> Bool {
        (try? kernel.contents(of: target).contains(key)) ?? true
    }

    // MARK: - Reading one item

    private func load(_ keyring: key_serial_t, _ description: ItemKeyDescription,
                      in target: key_serial_t) throws -> FoundItem {
        var name: String { description.primaryKey.readableName }
        let payload = try whileLinked(keyring, in: target, doing: "reading the item with \(name)") {
            try readKey(StoredAttributes.keyDescription, in: keyring, of: target, kernel.readPublicPayload)
        }
        guard let payload else {
            throw KeychainError.keyring(errSecDecode,
                "The item with \(name) has no attributes key in its keyring \(keyring); delete the item and add it again.")
        }
        let (stored, item) = try StoredAttributes.item(decoding: payload, format: StoredAttributes.itemKeyringFormat,
                                                       of: description, place: "in keyring \(keyring)")
        return FoundItem(storage: .itemKeyring(keyring), description: description, item: item,
                         secretIsEmpty: stored.hasEmptySecret, storedIn: stored.keyring)
    }

    /// The secret of `found`, read from the kernel.
    func secret(of found: FoundItem, in target: key_serial_t) throws -> SecretBytes {
        if found.secretIsEmpty { return SecretBytes(Data()) }
        let keyring: key_serial_t
        switch found.storage {
        case .itemKey(let key, _, let emptySecret, _):
            return try layout3Secret(of: found, key: key, emptySecret: emptySecret, in: target)
        case .keys(let attributes, let secret):
            return try layout2Secret(of: found, attributesKey: attributes, secretKey: secret, in: target)
        case .itemKeyring(let serial):
            keyring = serial
        }
        var name: String { found.description.primaryKey.readableName }
        let secret = try whileLinked(keyring, in: target, doing: "reading the secret of the item with \(name)") {
            try readKey(found.description.text, in: keyring, of: target, kernel.readSecret)
        }
        guard let secret else {
            throw KeychainError.keyring(errSecDecode,
                "The secret key of the item with \(name) is missing from its keyring \(keyring) (it may have expired and been collected); delete the item and add it again.")
        }
        return secret
    }

    /// The `user` key `description` in item keyring `keyring` (linked in `target`), read by
    /// `read` while it is also linked into the thread keyring; nil when the item keyring holds
    /// no such key.
    private func readKey<Payload>(_ description: String, in keyring: key_serial_t, of target: key_serial_t,
                                  _ read: (key_serial_t) throws -> Payload) throws -> Payload? {
        let key: key_serial_t
        do {
            key = try kernel.search(keyring, type: "user", description: description,
                                    linkingInto: KernelKeys.threadKeyring)
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            // The kernel says the same when the item keyring itself is gone.
            guard isLinked(keyring, in: target) else { throw ItemVanished() }
            return nil
        } catch let failure as KeyctlFailure where failure.code == EACCES || failure.code == EDQUOT {
            // A key that does not grant link (written by an earlier version), or no quota left for
            // the link: read it where it is, and pay for the walk. A key that cannot be searched
            // fails here too, with its own error.
            return try read(try kernel.search(keyring, type: "user", description: description))
        }
        defer { try? kernel.unlink(key, from: KernelKeys.threadKeyring) }
        return try read(key)
    }

    /// Runs `body`, which reads keys under `keyring`. A failure while `keyring` is no longer
    /// linked in `target` means another process replaced or deleted the item: that is
    /// `ItemVanished`, not an error of the item. Any other failure is reported as what it is.
    private func whileLinked<Result>(_ keyring: key_serial_t, in target: key_serial_t, doing: @autoclosure () -> String,
                                     _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey || !isLinked(keyring, in: target) { throw ItemVanished() }
            throw failure.keychainError(doing())
        }
    }
}

/// An item read from the kernel, without its secret.
struct FoundItem: Sendable {
    /// Where the item's keys are.
    enum Storage: Sendable, Equatable {
        /// Layout 3: its item key as found, and as its entry names it (the two differ for a key
        /// replaced by hand); whether the secret is empty (the key holds a placeholder); its
        /// attributes key when the attributes are too large for an entry.
        case itemKey(key_serial_t, entryKey: key_serial_t, emptySecret: Bool, attributesKey: key_serial_t?)
        /// Layout 2: its attributes key and its secret key (nil for an empty secret).
        case keys(attributes: key_serial_t, secret: key_serial_t?)
        /// Layout 1: its item keyring.
        case itemKeyring(key_serial_t)
    }

    let storage: Storage
    let description: ItemKeyDescription
    let item: KeychainItem
    /// Whether the item has an empty secret, and so no secret key.
    let secretIsEmpty: Bool
    /// The keyring the item was stored in, if it recorded that (`StoredAttributes.keyring`).
    let storedIn: key_serial_t?

    /// The serial whose link in the target makes the item exist.
    var anchor: key_serial_t {
        switch storage {
        case .itemKey(let key, _, _, _): return key
        case .keys(let attributes, _): return attributes
        case .itemKeyring(let keyring): return keyring
        }
    }
}

extension FoundItem.Storage {
    /// Written by a version before layout 3: migrated when it is written.
    var isFromEarlierLayout: Bool {
        if case .itemKey = self { return false }
        return true
    }
}

/// An item keyring disappeared while it was being read.
struct ItemVanished: Error {}
