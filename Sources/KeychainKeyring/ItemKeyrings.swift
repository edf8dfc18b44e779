import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore

/// How items are laid out in the kernel: one keyring per item, named by the item's
/// `ItemKeyDescription` and linked in the target keyring, holding
///
/// - a `user` key with the same description whose payload is exactly the secret (absent when
///   the secret is empty, which the kernel cannot store), and
/// - a `user` key `linux-keychain-attributes` holding `StoredAttributes`.
///
/// An item keyring is built complete in the calling thread's private thread keyring and then
/// moved into the target in one `keyctl_move`: exclusively for an add, so the kernel itself
/// decides which of racing adds wins, and displacing the old keyring for an update, so readers
/// see the old item or the new one and never neither.
struct ItemKeyrings: Sendable {
    let kernel: KernelKeys

    /// What each key grants. Nothing for group and other, and nothing for the user as such:
    /// the library always possesses its keys, through the target keyring linked into the
    /// thread keyring. The possessor gets view (to list), read and search (to read and to
    /// prove possession); item keyrings add link, which `keyctl_move` requires.
    static let dataKeyPermissions = key_perm_t(KEY_POS_VIEW | KEY_POS_READ | KEY_POS_SEARCH)
    static let itemKeyringPermissions = dataKeyPermissions | key_perm_t(KEY_POS_LINK)

    /// The kernel's limit on a `user` key's payload.
    static let maximumPayload = 32767

    // MARK: - Writing

    /// The attributes payload of `item`, after checking that it and the secret fit in kernel
    /// keys; call before anything reaches the kernel.
    static func checkedAttributesPayload(of item: KeychainItem) throws -> Data {
        let name = item.primaryKey.readableName
        try checkSecretSize(item.secret, of: "the item with \(name)")
        let attributes = try StoredAttributes(item).encoded()
        guard attributes.count <= maximumPayload else {
            throw KeychainError.keyring(errSecDataTooLarge,
                "The attributes of the item with \(name) take \(attributes.count) bytes; a kernel key holds at most \(maximumPayload). Shorten the comment, description or generic data.")
        }
        return attributes
    }

    /// Throws `errSecDataTooLarge` for a secret the kernel cannot hold in one `user` key.
    static func checkSecretSize(_ secret: SecretBytes?, of item: String) throws {
        let size = secret?.count ?? 0
        guard size <= maximumPayload else {
            throw KeychainError.keyring(errSecDataTooLarge,
                "The secret of \(item) is \(size) bytes; a kernel key holds at most \(maximumPayload). Use KEYCHAIN_BACKEND=file for larger secrets.")
        }
    }

    /// Builds the keyring of `item` in the thread keyring and returns its serial. Sizes are
    /// checked before the kernel is called; on failure nothing is left behind.
    func stage(_ item: KeychainItem, as description: ItemKeyDescription) throws -> key_serial_t {
        let name = description.primaryKey.readableName
        let attributes = try Self.checkedAttributesPayload(of: item)
        let doing = "storing the item with \(name)"
        let keyring: key_serial_t
        do {
            keyring = try kernel.addKeyring(description.text, to: KernelKeys.threadKeyring)
        } catch let failure as KeyctlFailure {
            throw failure.keychainError(doing)
        }
        do {
            if let secret = item.secret, !secret.isEmpty {
                let key = try secret.withUnsafeBytes { try kernel.addUserKey(description.text, payload: $0, to: keyring) }
                try kernel.setPermissions(key, Self.dataKeyPermissions)
            }
            let attributesKey = try attributes.withUnsafeBytes {
                try kernel.addUserKey(StoredAttributes.keyDescription, payload: $0, to: keyring)
            }
            try kernel.setPermissions(attributesKey, Self.dataKeyPermissions)
            try kernel.setPermissions(keyring, Self.itemKeyringPermissions)
            return keyring
        } catch let failure as KeyctlFailure {
            discardStaged(keyring)
            throw failure.keychainError(doing)
        }
    }

    /// Moves a staged item keyring into `target`. With `exclusive`, an existing item of the
    /// same description makes it fail with `errSecDuplicateItem`; without, it replaces it.
    func commit(_ staged: key_serial_t, as description: ItemKeyDescription, into target: key_serial_t,
                exclusive: Bool) throws {
        do {
            try kernel.move(staged, from: KernelKeys.threadKeyring, to: target, exclusive: exclusive)
        } catch let failure as KeyctlFailure {
            discardStaged(staged)
            if failure.code == EEXIST {
                throw KeychainError.keyring(errSecDuplicateItem,
                    "An item with \(description.primaryKey.readableName) already exists in the kernel keyring.",
                    failedCall: failure.call)
            }
            throw failure.keychainError("storing the item with \(description.primaryKey.readableName)")
        }
    }

    /// Unlinks a staged keyring; the kernel then frees it and the secret key inside.
    private func discardStaged(_ keyring: key_serial_t) {
        // Nothing else holds it: if this fails, the thread keyring keeps it until the thread ends.
        try? kernel.unlink(keyring, from: KernelKeys.threadKeyring)
    }

    // MARK: - Reading

    /// One reading of a target keyring: the items `wanted` accepted, and every serial examined.
    struct Listing {
        var items: [FoundItem]
        var serials: Set<key_serial_t>
    }

    /// The items in `target` whose description `wanted` accepts, with their attributes.
    ///
    /// An item keyring that disappears while it is read was deleted or replaced by another
    /// process. The keyring is then listed again and only the keys that are new since are
    /// read, so a replacement is found without starting over (which could starve a reader
    /// while others write); when an item was read in both forms, the later one wins.
    func items(in target: key_serial_t, where wanted: (PrimaryKey) -> Bool) throws -> Listing {
        var examined: Set<key_serial_t> = []
        var byDescription: [String: FoundItem] = [:]
        for _ in 0..<Self.listingRounds {
            let serials: [key_serial_t]
            do {
                serials = try kernel.contents(of: target)
            } catch let failure as KeyctlFailure {
                throw failure.keychainError("listing keyring \(target)")
            }
            var sawVanished = false
            for serial in serials where examined.insert(serial).inserted {
                do {
                    if let item = try examine(serial, in: target, wanted) { byDescription[item.description.text] = item }
                } catch is ItemVanished {
                    sawVanished = true
                }
            }
            if !sawVanished { return Listing(items: Array(byDescription.values), serials: examined) }
        }
        throw KeychainError.keyring(errSecIO,
            "The items in keyring \(target) kept changing during \(Self.listingRounds) attempts to read them; try again.")
    }

    private static let listingRounds = 50

    /// The item in `serial`, or nil for a key that is not an item `wanted` accepts.
    private func examine(_ serial: key_serial_t, in target: key_serial_t,
                         _ wanted: (PrimaryKey) -> Bool) throws -> FoundItem? {
        let record: KeyDescriptionRecord
        do {
            record = try kernel.describe(serial)
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey || !isLinked(serial, in: target) { throw ItemVanished() }
            // A key that cannot be described (revoked, expired, not viewable) is not known to
            // be an item; `KernelKeyringBackend.checkNamedItem` reports the one a query names.
            return nil
        }
        guard record.type == "keyring", let description = ItemKeyDescription(parsing: record.description),
              wanted(description.primaryKey) else { return nil }
        return try load(serial, description, in: target)
    }

    /// Whether `key` is linked in `target` now; true when that cannot be read, so that a
    /// failure is reported rather than retried.
    private func isLinked(_ key: key_serial_t, in target: key_serial_t) -> Bool {
        (try? kernel.contents(of: target).contains(key)) ?? true
    }

    private func load(_ keyring: key_serial_t, _ description: ItemKeyDescription,
                      in target: key_serial_t) throws -> FoundItem {
        let name = description.primaryKey.readableName
        return try whileLinked(keyring, in: target, doing: "reading the item with \(name)") {
            var secretKey: key_serial_t?
            var attributesKey: key_serial_t?
            var unreadable: KeyctlFailure?
            for child in try kernel.contents(of: keyring) {
                do {
                    let record = try kernel.describe(child)
                    guard record.type == "user" else { continue }
                    if record.description == description.text { secretKey = child }
                    if record.description == StoredAttributes.keyDescription { attributesKey = child }
                } catch let failure as KeyctlFailure {
                    unreadable = unreadable ?? failure
                }
            }
            guard let attributesKey else {
                if let unreadable { throw unreadable }
                throw KeychainError.keyring(errSecDecode,
                    "The item with \(name) has no attributes key in its keyring \(keyring); delete the item and add it again.")
            }
            let stored = try StoredAttributes(decoding: try kernel.readPublicPayload(attributesKey), item: name)
            let attributes = try stored.itemAttributes()
            let item = KeychainItem(itemClass: description.primaryKey.itemClass, attributes: attributes)
            guard item.primaryKey == description.primaryKey else {
                throw KeychainError.keyring(errSecDecode,
                    "The attributes stored in keyring \(keyring) do not belong to the item with \(name); delete the item and add it again.")
            }
            let secret: FoundItem.Secret
            if stored.secretIsEmpty {
                secret = .empty
            } else if let secretKey {
                secret = .key(secretKey)
            } else {
                secret = .unreadable(unreadable)
            }
            return FoundItem(keyring: keyring, description: description, item: item, secret: secret)
        }
    }

    /// The secret of `found`, read from the kernel.
    func secret(of found: FoundItem, in target: key_serial_t) throws -> SecretBytes {
        let name = found.description.primaryKey.readableName
        switch found.secret {
        case .empty:
            return SecretBytes(Data())
        case .key(let key):
            return try whileLinked(found.keyring, in: target, doing: "reading the secret of the item with \(name)") {
                try kernel.readSecret(key)
            }
        case .unreadable(let failure?):
            throw failure.keychainError("reading the secret of the item with \(name)")
        case .unreadable(nil):
            throw KeychainError.keyring(errSecDecode,
                "The secret key of the item with \(name) is missing from its keyring \(found.keyring) (it may have expired and been collected); delete the item and add it again.")
        }
    }

    /// Runs `body`, which reads keys under `keyring`. A failure while `keyring` is no longer
    /// linked in `target` means another process replaced or deleted the item: that is
    /// `ItemVanished`, not an error of the item. Any other failure is reported as what it is.
    private func whileLinked<Result>(_ keyring: key_serial_t, in target: key_serial_t, doing: String,
                                     _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let failure as KeyctlFailure {
            if failure.isNoSuchKey || !isLinked(keyring, in: target) { throw ItemVanished() }
            throw failure.keychainError(doing)
        }
    }
}

/// An item read from the kernel, without its secret.
struct FoundItem: Sendable {
    enum Secret: Sendable {
        case empty
        case key(key_serial_t)
        /// The secret key could not be described; the failure says why, if there was one.
        case unreadable(KeyctlFailure?)
    }

    let keyring: key_serial_t
    let description: ItemKeyDescription
    let item: KeychainItem
    let secret: Secret
}

/// An item keyring disappeared while it was being read.
struct ItemVanished: Error {}
