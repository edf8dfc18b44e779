import FoundationEssentials
import Glibc
import KeychainCore

/// The KV fields of an item: its secret (see `VaultSecretEncoding`) and one readable field per
/// attribute, each value a string in `AttributeValue.encoded` form (dates as seconds since
/// 1970 with their fraction, data as base64, flags as `1`/`0`).
///
/// The primary-key fields (`service`, `account`, ...) are written for operators to read, but
/// when an item is read back its path decides its primary key: the path is what makes two
/// items duplicates, and an item an operator wrote by hand with only a `password` field reads
/// as well.
enum VaultItemFields {
    /// The field name of each attribute, chosen to read well in `bao kv get`.
    static func fieldName(_ key: AttributeKey) -> String {
        switch key {
        case .accessGroup: return "access_group"
        case .service: return "service"
        case .account: return "account"
        case .server: return "server"
        case .protocol: return "protocol"
        case .port: return "port"
        case .path: return "path"
        case .authenticationType: return "authentication_type"
        case .securityDomain: return "security_domain"
        case .label: return "label"
        case .itemDescription: return "description"
        case .comment: return "comment"
        case .generic: return "generic"
        case .creator: return "creator"
        case .type: return "type"
        case .accessible: return "accessible"
        case .synchronizable: return "synchronizable"
        case .isInvisible: return "invisible"
        case .isNegative: return "negative"
        case .creationDate: return "created"
        case .modificationDate: return "modified"
        case .valueTypes: return "value_types"
        case .keyClass: return "key_class"
        case .applicationLabel: return "application_label"
        case .applicationTag: return "application_tag"
        case .keySizeInBits: return "key_size"
        case .effectiveKeySize: return "effective_key_size"
        case .certificateType: return "certificate_type"
        case .certificateEncoding: return "certificate_encoding"
        case .issuer: return "issuer"
        case .serialNumber: return "serial_number"
        case .subject: return "subject"
        case .publicKeyHash: return "public_key_hash"
        }
    }

    private static let attributesByFieldName: [String: AttributeKey] =
        Dictionary(uniqueKeysWithValues: AttributeKey.allCases.map { (fieldName($0), $0) })

    /// The `data` object of a KV write storing `item`.
    static func body(of item: KeychainItem, secret: SecretBytes) -> VaultRequestBody {
        let secretField = VaultSecretEncoding.field(for: secret)
        return .object([(secretField.name, secretField.value)] + attributeFields(item.attributes))
    }

    /// The `data` object of a KV merge patch applying `changes` to a stored item: the new
    /// secret (with JSON null for the other secret field, so an item keeps exactly one of
    /// `password` and `password_base64`) and each changed attribute. Fields it does not name,
    /// the creation date and an operator's own fields among them, keep their stored values.
    static func patch(applying changes: ItemChanges) -> VaultRequestBody {
        var fields: [(String, VaultRequestBody)] = []
        if let secret = changes.secret {
            let secretField = VaultSecretEncoding.field(for: secret)
            fields.append((secretField.name, secretField.value))
            fields.append((VaultSecretEncoding.otherField(than: secretField.name), .json(.null)))
        }
        return .object(fields + attributeFields(changes.attributes))
    }

    /// One string field per attribute, in field-name order.
    private static func attributeFields(_ attributes: ItemAttributes) -> [(String, VaultRequestBody)] {
        attributes.values.sorted { fieldName($0.key) < fieldName($1.key) }.map { (fieldName($0.key), .text($0.value.encoded)) }
    }

    /// Rebuilds the item stored at `path` from its fields. Throws `errSecDecode` for fields
    /// that cannot be read, so a damaged item is an error and never "not found".
    static func item(at path: String, primaryKey: PrimaryKey, fields: [String: VaultJSON],
                     includeSecret: Bool) throws -> KeychainItem {
        var attributes = ItemAttributes()
        for (name, json) in fields {
            guard let key = attributesByFieldName[name] else { continue }
            guard let text = scalarText(json), let value = AttributeValue(encoded: text, kind: key.valueKind) else {
                throw malformed(path, "its field '\(name)' does not hold a valid \(key.valueKind) value")
            }
            attributes[key] = value
        }
        // Defaults the caller never set stay absent, as they were when the item was added.
        let fromPath = primaryKey.attributes
        let defaults = PrimaryKey(itemClass: primaryKey.itemClass, attributes: ItemAttributes()).attributes
        for key in primaryKey.itemClass.primaryKeyAttributes {
            guard let pathValue = fromPath[key], attributes[key] != nil || pathValue != defaults[key] else { continue }
            attributes[key] = pathValue
        }
        let secret = try storedSecret(at: path, fields: fields)
        return KeychainItem(itemClass: primaryKey.itemClass, attributes: attributes, secret: includeSecret ? secret : nil)
    }

    private static func storedSecret(at path: String, fields: [String: VaultJSON]) throws -> SecretBytes {
        let plain = fields[VaultSecretEncoding.plainField]
        let encoded = fields[VaultSecretEncoding.base64Field]
        switch (plain?.bytes, encoded?.bytes) {
        case (let secret?, nil):
            return secret
        case (nil, let base64?):
            guard let secret = VaultSecretEncoding.decodeBase64(base64) else {
                throw malformed(path, "its field '\(VaultSecretEncoding.base64Field)' is not valid base64")
            }
            return secret
        case (_?, _?):
            throw malformed(path, "it has both '\(VaultSecretEncoding.plainField)' and '\(VaultSecretEncoding.base64Field)' fields")
        case (nil, nil):
            throw malformed(path, "it has no string field '\(VaultSecretEncoding.plainField)' or '\(VaultSecretEncoding.base64Field)'")
        }
    }

    /// A non-secret field as text; numbers and booleans are accepted for items written by
    /// other tools through the JSON API.
    private static func scalarText(_ json: VaultJSON) -> String? {
        switch json {
        case .string: return json.text
        case .number(let digits): return digits
        case .bool(let flag): return flag ? "1" : "0"
        default: return nil
        }
    }

    private static func malformed(_ path: String, _ reason: String) -> KeychainError {
        KeychainError(errSecDecode, "The Vault item at '\(path)' cannot be read: \(reason). Fix or delete it with `bao kv`.",
                      backend: VaultBackend.backendName)
    }
}
