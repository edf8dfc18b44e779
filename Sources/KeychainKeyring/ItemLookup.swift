import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc
import KeychainCore

/// Finding the items of a target keyring and reading their secrets.
///
/// An item is one `user` key linked directly in the target, its item key, named by its `ItemKeyDescription` and holding
/// exactly the secret; its other attributes are an entry in the target's records (`ItemRecords`), or in its
/// `AttributesKey` when too large for one. **An item exists while its item key is linked in the target and has an
/// entry**; a key of that name without one is no item. An empty secret is stored as `emptySecretPlaceholder`, and the
/// entry says so. `ItemWriter` keeps these rules; docs/keyring.md describes them for users.
struct ItemLookup: Sendable {
    let kernel: KernelKeys
    var records: ItemRecords { ItemRecords(kernel: kernel) }

    /// The payload of an item key whose secret is empty.
    static let emptySecretPlaceholder: [UInt8] = [0]

    static func isPlaceholder(_ secret: SecretBytes) -> Bool {
        secret.withUnsafeBytes { $0.elementsEqual(emptySecretPlaceholder) }
    }

    // MARK: - By name

    /// The item `description` names in `target`; nil when there is none.
    ///
    /// `secretOnly`: the caller reads only the item's secret, and gives the attributes that name it. An item key
    /// already confirmed as an item (`ConfirmedItemKeys`) is then returned with these attributes and without reading
    /// its entry; its secret is read as one that may be empty.
    func item(named description: ItemKeyDescription, in target: key_serial_t,
              secretOnly naming: ItemAttributes? = nil) throws -> FoundItem? {
        let key: key_serial_t
        do {
            guard let found = try searchItemKey(description, in: target) else { return nil }
            key = found
        } catch let error as KeychainError where error.status == errSecDataNotAvailable {
            // An item key revoked or expired by hand (its possessor may `keyctl revoke` it) is still the item, named by
            // its entry: its attributes read, and it can be deleted; its secret is "not available" when read.
            guard let entry = try? records.entry(named: description, in: target), kernel.isLinked(entry.itemKey, in: target) else {
                throw error
            }
            return try item(description, key: entry.itemKey, entry: entry, in: target)
        }
        if let naming, ConfirmedItemKeys.isConfirmed(key, in: target) {
            // Not told empty: a placeholder read from the key is checked against the entry then.
            return FoundItem(description: description,
                             item: KeychainItem(itemClass: description.primaryKey.itemClass, attributes: naming),
                             keys: FoundItem.Keys(key: key, entryKey: key, secretIsEmpty: false, attributesKey: nil))
        }
        guard let entry = try records.entry(named: description, in: target) else { return nil }
        // A key of that name in a keyring nested in the target belongs to another store, and an
        // entry that is another live item's (a name of the same hash) is not this key's.
        guard entry.itemKey == key
              || (kernel.isLinked(key, in: target) && !isEntryOfAnotherItem(entry, than: description, in: target)) else { return nil }
        return try item(description, key: key, entry: entry, in: target)
    }

    /// The serial of the key `description` names in `target` (or a keyring nested in it), or nil.
    func searchItemKey(_ description: ItemKeyDescription, in target: key_serial_t) throws -> key_serial_t? {
        try kernel.searchUserKey(description.text, in: target, of: description.primaryKey.readableName)
    }

    /// The item of item key `key` and entry `entry`; nil when its attributes key is gone.
    private func item(_ description: ItemKeyDescription, key: key_serial_t, entry: ItemRecordEntry,
                      in target: key_serial_t) throws -> FoundItem? {
        var attributesKey: key_serial_t?
        let item: KeychainItem
        if entry.inAttributesKey {
            var inKey: (key: key_serial_t, item: KeychainItem)?
            for _ in 0..<3 {
                do {
                    inKey = try readAttributesKey(description, in: target)
                } catch is ItemVanished {
                    inKey = nil
                }
                if inKey != nil { break }
                // An update made the attributes small since the entry was read (and perhaps
                // large again): the entry it wrote before it unlinked the key says where they are.
                guard let current = try records.entry(named: description, in: target),
                      current.itemKey == entry.itemKey else { return nil }
                if !current.inAttributesKey { return try self.item(description, key: key, entry: current, in: target) }
            }
            guard let inKey else { return nil }
            attributesKey = inKey.key
            item = inKey.item
        } else {
            item = KeychainItem(itemClass: description.primaryKey.itemClass,
                                attributes: try entry.storedAttributes.itemAttributes(primaryKey: description.primaryKey))
        }
        if entry.itemKey == key { ConfirmedItemKeys.confirm(key, in: target) }
        return FoundItem(description: description, item: item,
                         keys: FoundItem.Keys(key: key, entryKey: entry.itemKey, secretIsEmpty: entry.secretIsEmpty,
                                              attributesKey: attributesKey))
    }

    /// The attributes key of `description` in `target` itself and the item it holds; nil when
    /// there is none; `ItemVanished` when it went while it was read.
    func readAttributesKey(_ description: ItemKeyDescription,
                           in target: key_serial_t) throws -> (key: key_serial_t, item: KeychainItem)? {
        var name: String { description.primaryKey.readableName }
        guard let key = try kernel.searchUserKey(AttributesKey.description(of: description), in: target, of: name) else {
            return nil
        }
        let payload: [UInt8]
        do {
            payload = try kernel.readPublicPayload(key)
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey || !kernel.isLinked(key, in: target) { throw ItemVanished() }
            throw failure.keychainError("reading the item with \(name)")
        }
        let (stored, item) = try AttributesKey.item(decoding: payload, key: key, of: description)
        // The recorded keyring confirms it cheaply; a key of that name in a keyring nested in
        // the target belongs to another store.
        return stored.keyring == target || kernel.isLinked(key, in: target) ? (key, item) : nil
    }

    /// Whether `entry`, found under the name hash of `description`, is the entry of a live item of another name: an
    /// item key linked in `target` whose name differs and has the same hash. The hash is no defence against names
    /// chosen to collide, so an add refuses such a name rather than take the other item's entry. Any other entry there
    /// is one a delete left, whose key is gone, unlinked, or now a key of another kind.
    func isEntryOfAnotherItem(_ entry: ItemRecordEntry, than description: ItemKeyDescription,
                              in target: key_serial_t) -> Bool {
        guard let key = try? kernel.describe(entry.itemKey), key.type == "user", key.description != description.text,
              let other = ItemKeyDescription(parsing: key.description), ItemRecords.nameHash(other) == entry.nameHash else {
            return false
        }
        return kernel.isLinked(entry.itemKey, in: target)
    }


    // MARK: - Every item

    /// One reading of a target keyring: the items `wanted` accepted, and every serial examined.
    struct Listing {
        var items: [FoundItem]
        var serials: Set<key_serial_t>
    }

    /// The items in `target` whose name begins with `leadingText` and names a primary key
    /// `wanted` accepts, with their attributes.
    ///
    /// An item that disappears while it is read was deleted or replaced: the keyring is listed
    /// again and only the keys new since are read, so a reader is not starved by writers.
    func items(in target: key_serial_t, describedFrom leadingText: String,
               where wanted: (PrimaryKey) -> Bool) throws -> Listing {
        var examined: Set<key_serial_t> = []
        // Keyed by the name's exact bytes: `String` keys would merge canonically equivalent
        // names (café in NFC and NFD), which are two items.
        var byName: [[UInt8]: FoundItem] = [:]
        for _ in 0..<Self.listingRounds {
            let serials: [key_serial_t]
            do {
                serials = try kernel.contents(of: target)
            } catch let failure as KeyctlFailure {
                throw failure.keychainError("listing keyring \(target)")
            }
            // Read after the listing: an item key listed is found with its entry, which an add
            // writes before it moves the key in.
            let entries = records.reader(for: target)
            var sawVanished = false
            for serial in serials where examined.insert(serial).inserted {
                do {
                    if let item = try examine(serial, in: target, leadingText, wanted, entries) {
                        byName[Array(item.description.text.utf8)] = item
                    }
                } catch is ItemVanished {
                    sawVanished = true
                }
            }
            if !sawVanished { return Listing(items: Array(byName.values), serials: examined) }
        }
        throw KeychainError.keyring(errSecIO,
            "The items in keyring \(target) kept changing during \(Self.listingRounds) attempts to read them; try again.")
    }

    private static let listingRounds = 50

    /// What the keys linked in `target` say by their descriptions alone: the primary keys they name as item keys, and
    /// the keys an entry names as item keys that cannot be described (revoked, expired, not viewable), by serial, with
    /// why: items that `items(in:)` cannot tell from other keys, and so leaves out.
    func itemKeyNames(in target: key_serial_t) throws -> (names: [PrimaryKey], undescribable: [UnreadableEntry]) {
        var names: [PrimaryKey] = [], failing: [key_serial_t: KeychainError] = [:]
        for serial in try kernel.contents(of: target) {
            do {
                let key = try kernel.describe(serial)
                if key.type == "user", let name = ItemKeyDescription(parsing: key.description) { names.append(name.primaryKey) }
            } catch let failure as KeyctlFailure {
                // One deleted since the listing is no item any more.
                if !failure.isNoSuchKey { failing[serial] = failure.keychainError("reading kernel key \(serial) of keyring \(target)") }
            }
        }
        // Every record says which are item keys, one that states a higher count (a split in progress) included.
        var named = Set<key_serial_t>(), bucket = 0, count = failing.isEmpty ? 0 : 1
        while bucket < count {
            let record = try records.readRecord(target, bucket: bucket)?.record
            named.formUnion(record?.entries.map(\.itemKey) ?? [])
            count = max(count, 1 << Int(record?.log2BucketCount ?? 0))
            bucket += 1
        }
        return (names, failing.filter { named.contains($0.key) }.sorted { $0.key < $1.key }.map { UnreadableEntry(place: "kernel key \($0.key)", error: $0.value) })
    }

    /// The item whose item key is `serial`, or nil for a key that is not an item `items(in:)` asks for.
    private func examine(_ serial: key_serial_t, in target: key_serial_t, _ leadingText: String,
                         _ wanted: (PrimaryKey) -> Bool, _ entries: ItemRecords.RecordReader) throws -> FoundItem? {
        let record: KeyDescriptionRecord
        do {
            record = try kernel.describe(serial)
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey || !kernel.isLinked(serial, in: target) { throw ItemVanished() }
            // A key that cannot be described (revoked, expired, not viewable) is not known to
            // be an item; `KernelKeyringBackend` reports the one a query names.
            return nil
        }
        // By bytes: a name that begins with a combining mark forms one Character with the ':' before it.
        guard record.type == "user", record.description.utf8.starts(with: leadingText.utf8),
              let description = ItemKeyDescription(parsing: record.description), wanted(description.primaryKey),
              let entry = try entries.entry(ItemRecords.nameHash(description)),
              entry.itemKey == serial || !isEntryOfAnotherItem(entry, than: description, in: target) else { return nil }
        return try item(description, key: serial, entry: entry, in: target)
    }

    // MARK: - Secrets

    /// The secret of `found`: one read of its item key.
    func secret(of found: FoundItem, in target: key_serial_t) throws -> SecretBytes {
        let keys = found.keys
        let secret: SecretBytes
        do {
            secret = try kernel.readSecretOnce(keys.key)
        } catch let failure as KeyctlFailure {
            if kernel.isUnlinkedKey(failure, keys.key, in: target) { throw ItemVanished() }
            throw failure.keychainError("reading the secret of the item with \(found.description.primaryKey.readableName)")
        }
        // A placeholder changed by hand (`keyctl update`) is a secret.
        if keys.secretIsEmpty, Self.isPlaceholder(secret) { return SecretBytes(Data()) }
        return try secretReadingPlaceholders(secret, of: found.description, itemKey: keys.entryKey, in: target, key: keys.key)
    }

    /// `secret`, just read from the item key `key` whose entry (naming `itemKey`) said, or was not read to say
    /// (`ConfirmedItemKeys`), that the secret is not empty; or the empty secret, when it is the placeholder an update
    /// to an empty secret wrote since. Such an update writes its entry first; updates between the two reads are ruled
    /// out by reading both again under the record lock, where writers change them together (the caller must not hold
    /// it). Without the lock, or an entry naming the key, the key read again decides.
    private func secretReadingPlaceholders(_ secret: SecretBytes, of description: ItemKeyDescription, itemKey: key_serial_t,
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

    /// Whether the entry of `description` says its secret is empty; nil when no entry names `itemKey`.
    private func entrySaysSecretIsEmpty(_ description: ItemKeyDescription, itemKey: key_serial_t,
                                        in target: key_serial_t) throws -> Bool? {
        guard let current = try records.entry(named: description, in: target), current.itemKey == itemKey else { return nil }
        return current.secretIsEmpty
    }
}

/// An item read from the kernel, without its secret.
struct FoundItem: Sendable {
    /// Where the item is.
    struct Keys: Sendable, Equatable {
        /// The item key as found.
        let key: key_serial_t
        /// The item key as its entry names it: differs from `key` for a key replaced by hand.
        let entryKey: key_serial_t
        /// The entry says the secret is empty (the key holds the placeholder).
        let secretIsEmpty: Bool
        /// The attributes key, when the attributes are too large for an entry.
        let attributesKey: key_serial_t?
    }

    let description: ItemKeyDescription
    let item: KeychainItem
    let keys: Keys
}

/// A key of the item disappeared while it was being read: deleted or replaced meanwhile.
struct ItemVanished: Error {}
