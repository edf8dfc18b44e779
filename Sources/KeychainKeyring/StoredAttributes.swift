import Foundation
import KeychainCore

/// The payload of an item's attributes key: the item's attributes as JSON, readable with
/// `keyctl print`, kept apart from the secret key so that the secret's payload stays raw.
///
/// Two formats exist (`ItemKeys` describes the layouts):
///
/// - **Format 1**, the attributes key `linux-keychain-attributes` inside an item keyring,
///   written by versions before layout 2: every attribute of the item, and `secretIsEmpty`.
/// - **Format 2**, the attributes key of layout 2: only the attributes that are not part of
///   the primary key (the key's description carries those, and `unset` names the ones the item
///   did not have), the modification date only when it differs from the creation date, and
///   `secret`, the serial of the secret key, absent for an empty secret. Every byte counts
///   against the user's key quota.
///
/// The secret's absence is recorded because the kernel refuses an empty `user` key: an item
/// with an empty secret has no secret key, and only this tells it from one whose key was lost.
struct StoredAttributes: Codable, Equatable, Sendable {
    /// The description of the attributes key inside an item keyring (format 1).
    static let keyDescription = "linux-keychain-attributes"
    /// The format of the keyring-per-item layout, which this version reads and migrates.
    static let itemKeyringFormat = 1
    /// The format this version writes.
    static let currentFormat = 2

    var format: Int
    /// `ItemAttributes.encodedFields`: Apple attribute names to lossless text. In format 2,
    /// only the attributes outside the primary key.
    var attributes: [String: String]
    /// Format 1 only; format 2 says it with `secret`.
    var secretIsEmpty: Bool?
    /// The serial of the keyring the item was stored in; absent in items written by versions
    /// before it was recorded. It tells the target's own item from one of the same name that
    /// a lookup by name found in a keyring nested in the target (a session keyring usually
    /// holds the user keyring), without reading the whole target.
    var keyring: Int32?
    /// Format 2: the serial of the secret key, so that a read needs no search for it.
    var secret: Int32?
    /// Format 2: the primary-key attributes the item did not have, comma-separated (the
    /// description gives every other one its value, defaults included), so that an item reads
    /// back with exactly the attributes it was written with.
    var unset: String?

    /// Format 1, as the keyring-per-item layout wrote it (kept for tests of the migration).
    init(_ item: KeychainItem, storedIn keyring: Int32?) {
        format = Self.itemKeyringFormat
        attributes = item.attributes.encodedFields
        secretIsEmpty = item.secret?.isEmpty ?? true
        self.keyring = keyring
    }

    /// Format 2: the attributes of `item` outside its primary key, and its secret key's serial.
    init(layout2 item: KeychainItem, storedIn keyring: Int32, secretKey: Int32?) {
        format = Self.currentFormat
        let primaryKeyAttributes = item.itemClass.primaryKeyAttributes
        // Only the attributes outside the primary key are encoded at all.
        var fields: [String: String] = Dictionary(minimumCapacity: item.attributes.values.count)
        for (key, value) in item.attributes where !primaryKeyAttributes.contains(key) {
            fields[key.rawValue] = value.encoded
        }
        var unsetKeys: [String] = []
        for key in primaryKeyAttributes where item.attributes[key] == nil { unsetKeys.append(key.rawValue) }
        unset = unsetKeys.isEmpty ? nil : unsetKeys.joined(separator: ",")
        let modified = AttributeKey.modificationDate.rawValue, created = AttributeKey.creationDate.rawValue
        if fields[modified] != nil, fields[modified] == fields[created] { fields[modified] = nil }
        attributes = fields
        self.keyring = keyring
        secret = secretKey
    }

    init(format: Int, attributes: [String: String], secretIsEmpty: Bool?, keyring: Int32?, secret: Int32? = nil,
         unset: String? = nil) {
        self.format = format
        self.attributes = attributes
        self.secretIsEmpty = secretIsEmpty
        self.keyring = keyring
        self.secret = secret
        self.unset = unset
    }

    /// Whether the item has an empty secret, and so no secret key.
    var hasEmptySecret: Bool { format == Self.itemKeyringFormat ? secretIsEmpty ?? true : secret == nil }

    func encoded() -> Data {
        StoredAttributesJSON.encode(self)
    }

    /// Parses a payload; `item` names the item in the error when it is not ours or malformed.
    init(decoding payload: [UInt8], item: @autoclosure () -> String) throws {
        let stored: StoredAttributes
        do {
            stored = try StoredAttributesJSON.decode(payload)
                ?? JSONDecoder().decode(StoredAttributes.self, from: Data(payload))
        } catch {
            throw KeychainError.keyring(errSecDecode,
                "The attributes key of the item with \(item()) is not valid; delete the item and add it again.")
        }
        guard stored.format == Self.currentFormat
                || (stored.format == Self.itemKeyringFormat && stored.secretIsEmpty != nil && stored.secret == nil) else {
            throw KeychainError.keyring(errSecDecode,
                "The item with \(item()) was written in format \(stored.format) by another version of this library; use that version to read it.")
        }
        self = stored
    }

    /// Parses `payload` as the attributes, in `format`, of the item `description` names, and
    /// builds the item (without its secret). `place` names the key for errors.
    static func item(decoding payload: [UInt8], format: Int, of description: ItemKeyDescription,
                     place: @autoclosure () -> String) throws -> (stored: StoredAttributes, item: KeychainItem) {
        // Names for errors only: building them costs more than decoding the payload.
        var name: String { description.primaryKey.readableName }
        let stored = try StoredAttributes(decoding: payload, item: name)
        guard stored.format == format else {
            throw KeychainError.keyring(errSecDecode,
                "The attributes key \(place()) of the item with \(name) is not in the format of its layout; delete the item and add it again.")
        }
        let item = KeychainItem(itemClass: description.primaryKey.itemClass,
                                attributes: try stored.itemAttributes(primaryKey: description.primaryKey))
        // Format 2 takes every primary-key attribute from the description unless `unset` names
        // it, so without `unset` the item's primary key is the description's by construction.
        let keyFromDescription = stored.format == currentFormat && stored.unset == nil
        guard keyFromDescription || item.primaryKey == description.primaryKey else {
            throw KeychainError.keyring(errSecDecode,
                "The attributes key \(place()) does not belong to the item with \(name); delete the item and add it again.")
        }
        return (stored, item)
    }

    /// The item's attributes; `primaryKey` supplies those format 2 leaves to the key's description.
    ///
    /// As if each value `primaryKey` supplies were written into `attributes` as text and every
    /// field then parsed (`ItemAttributes(encodedFields:)`), which is what it means; but the
    /// supplied values are taken as they are, and the fields they replace are not parsed.
    func itemAttributes(primaryKey: PrimaryKey) throws -> ItemAttributes {
        guard format == Self.currentFormat else { return try ItemAttributes(encodedFields: attributes) }
        let keys = primaryKey.itemClass.primaryKeyAttributes
        var values: [AttributeKey: AttributeValue] = Dictionary(minimumCapacity: attributes.count + keys.count + 1)
        for (key, value) in zip(keys, primaryKey.components) where !isUnset(key) {
            values[key] = value
        }
        for (name, text) in attributes {
            guard let key = AttributeKey(rawValue: name), !keys.contains(key) || isUnset(key) else { continue }
            values[key] = try AttributeValue(storedField: text, of: key)
        }
        if values[.modificationDate] == nil, let created = attributes[AttributeKey.creationDate.rawValue] {
            values[.modificationDate] = try AttributeValue(storedField: created, of: .modificationDate)
        }
        return ItemAttributes(values)
    }

    /// Whether format 2's `unset` lists `key`.
    private func isUnset(_ key: AttributeKey) -> Bool {
        guard let unset else { return false }
        return unset.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .contains { $0.elementsEqual(key.rawValue.utf8) }
    }
}
