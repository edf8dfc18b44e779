import FoundationEssentials
import Glibc
import KeychainCore

/// An item's attributes outside its primary key, as an entry (`ItemRecordEntry`) and an
/// attributes key (`AttributesKey`, as JSON with `"format":2`, pinned) keep them:
///
/// - `attributes`: Apple attribute names to lossless text (`ItemAttributes.encodedFields`),
///   only those outside the primary key (the item key's name carries those), and the
///   modification date only when it differs from the creation date;
/// - `unset`: the primary-key attributes the item did not have, comma-separated, so that an
///   item reads back with exactly the attributes it was written with;
/// - `keyring`: in an attributes key, the target's serial, which tells its own key from one of
///   the same name that a search found in a keyring nested in it.
struct StoredAttributes: Codable, Equatable, Sendable {
    /// The `format` an attributes key states.
    static let format = 2

    var format: Int
    var attributes: [String: String]
    var keyring: Int32?
    var unset: String?

    /// The attributes of `item` outside its primary key.
    init(_ item: KeychainItem, storedIn keyring: Int32?) {
        format = Self.format
        let primaryKeyAttributes = item.itemClass.primaryKeyAttributes
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
    }

    init(attributes: [String: String], keyring: Int32? = nil, unset: String? = nil) {
        format = Self.format
        self.attributes = attributes
        self.keyring = keyring
        self.unset = unset
    }

    func encoded() -> Data {
        StoredAttributesJSON.encode(self)
    }

    /// Parses an attributes key's payload; `item` names the item in the error when it is not one.
    init(decoding payload: [UInt8], item: @autoclosure () -> String) throws {
        let stored: StoredAttributes
        do {
            stored = try JSONDecoder().decode(StoredAttributes.self, from: Data(payload))
        } catch {
            throw KeychainError.keyring(errSecDecode,
                "The attributes key of the item with \(item()) is not valid; delete the item and add it again.")
        }
        guard stored.format == Self.format else {
            throw KeychainError.keyring(errSecDecode,
                "The attributes key of the item with \(item()) states format \(stored.format), which this version does not read; delete the item and add it again.")
        }
        self = stored
    }

    /// The item's attributes, with those of `primaryKey` that `unset` does not name.
    ///
    /// As if each value `primaryKey` supplies were written into `attributes` as text and every
    /// field then parsed (`ItemAttributes(encodedFields:)`), which is what it means; but the
    /// supplied values are taken as they are, and the fields they replace are not parsed.
    func itemAttributes(primaryKey: PrimaryKey) throws -> ItemAttributes {
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

    private func isUnset(_ key: AttributeKey) -> Bool {
        guard let unset else { return false }
        return unset.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .contains { $0.elementsEqual(key.rawValue.utf8) }
    }
}
