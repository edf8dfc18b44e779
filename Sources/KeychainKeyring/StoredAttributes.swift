import Foundation
import KeychainCore

/// The payload of an item's attributes key: every attribute of the item as JSON, readable
/// with `keyctl print`, kept apart from the secret key so that the secret's payload stays raw.
///
/// The secret's absence is recorded here because the kernel refuses an empty `user` key: an
/// item with an empty secret has no secret key, and only this flag tells it from an item
/// whose secret key was lost.
struct StoredAttributes: Codable, Equatable, Sendable {
    /// The description of the attributes key inside an item's keyring.
    static let keyDescription = "linux-keychain-attributes"
    static let currentFormat = 1

    var format: Int
    /// `ItemAttributes.encodedFields`: Apple attribute names to lossless text.
    var attributes: [String: String]
    var secretIsEmpty: Bool
    /// The serial of the keyring the item was stored in; absent in items written by versions
    /// before it was recorded. It tells the target's own item from one of the same name that
    /// a lookup by name found in a keyring nested in the target (a session keyring usually
    /// holds the user keyring), without reading the whole target.
    var keyring: Int32?

    init(_ item: KeychainItem, storedIn keyring: Int32?) {
        format = Self.currentFormat
        attributes = item.attributes.encodedFields
        secretIsEmpty = item.secret?.isEmpty ?? true
        self.keyring = keyring
    }

    init(format: Int, attributes: [String: String], secretIsEmpty: Bool, keyring: Int32?) {
        self.format = format
        self.attributes = attributes
        self.secretIsEmpty = secretIsEmpty
        self.keyring = keyring
    }

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
        guard stored.format == Self.currentFormat else {
            throw KeychainError.keyring(errSecDecode,
                "The item with \(item()) was written in format \(stored.format) by another version of this library; use that version to read it.")
        }
        self = stored
    }

    func itemAttributes() throws -> ItemAttributes {
        try ItemAttributes(encodedFields: attributes)
    }
}
