import CKeyutils
import FoundationEssentials
import Glibc
import KeychainCore

/// The key that holds an item's attributes when they are too large for an entry (`ItemRecordEntry.maximumEncodedSize`):
/// the `user` key `linux-keychain-attributes:genp:...`, named like the item key, next to it in the target, holding
/// `StoredAttributes` as JSON. Only an entry that says so makes it the item's; otherwise it is one a delete left.
enum AttributesKey {
    static let prefix = "linux-keychain-attributes"

    /// The name of the attributes key of the item `description` names.
    static func description(of description: ItemKeyDescription) -> String {
        // From contiguous bytes: `String + Substring` would append the rest one `Character` at
        // a time, and a `Substring.UTF8View` one byte at a time.
        var bytes = Array(prefix.utf8)
        var text = description.text
        text.withUTF8 { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0.dropFirst(ItemKeyDescription.prefix.utf8.count))) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The item description an attributes key's name names, or nil for any other text.
    static func itemDescription(ofKeyNamed text: String) -> ItemKeyDescription? {
        guard text.utf8.starts(with: (prefix + ":").utf8) else { return nil }
        return ItemKeyDescription(parsing: ItemKeyDescription.prefix + text.dropFirst(prefix.count))
    }

    /// The payload for `item` in `target`; `errSecDataTooLarge` when it exceeds a key.
    static func payload(of item: KeychainItem, storedIn target: key_serial_t) throws -> Data {
        let payload = StoredAttributes(item, storedIn: target).encoded()
        guard payload.count <= KernelKeys.maximumPayload else {
            throw KeychainError.keyring(errSecDataTooLarge,
                "The attributes of the item with \(item.primaryKey.readableName) take \(payload.count) bytes; a kernel key holds at most \(KernelKeys.maximumPayload). Shorten the comment, description or generic data.")
        }
        return payload
    }

    /// The item `description` names, built from an attributes key's `payload` (`key`, for errors).
    static func item(decoding payload: [UInt8], key: key_serial_t,
                     of description: ItemKeyDescription) throws -> (stored: StoredAttributes, item: KeychainItem) {
        // Names for errors only: building them costs more than decoding the payload.
        var name: String { description.primaryKey.readableName }
        let stored = try StoredAttributes(decoding: payload, item: name)
        let item = KeychainItem(itemClass: description.primaryKey.itemClass,
                                attributes: try stored.itemAttributes(primaryKey: description.primaryKey))
        // Every primary-key attribute comes from the name unless `unset` names it, so without
        // `unset` the item's primary key is the name's by construction.
        guard stored.unset == nil || item.primaryKey == description.primaryKey else {
            throw KeychainError.keyring(errSecDecode,
                "The attributes key \(key) does not belong to the item with \(name); delete the item and add it again.")
        }
        return (stored, item)
    }
}
