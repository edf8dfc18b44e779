import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// One item as `list --json`, `search --json` and `get --json` print it: `class`, every
/// attribute `AttributeName` knows that the item has, `authentication-type` (Apple's code) and
/// `synchronizable` (true) when set, `group` ("" for a shared item), and
/// `created`/`modified` in ISO 8601. Only `get --json` adds the secret, which `get` prints
/// anyway: `secret`, the bytes as text when they are UTF-8, else in base64, as
/// `secret-encoding` ("utf-8" or "base64") says.
enum ItemJSON {
    /// The item's fields, without its secret.
    static func object(for item: KeychainItem) -> JSONValue {
        var object: [String: JSONValue] = ["class": .string(item.itemClass.displayName)]
        for name in AttributeName.all {
            guard let text = name.text(in: item.attributes) else { continue }
            object[name.name] = name.key == .port ? Int(text).map(JSONValue.integer) ?? .string(text) : .string(text)
        }
        // Not search terms, but what Apple's API returns and a move carries.
        if let type = item.attributes.string(.authenticationType), !type.isEmpty { object["authentication-type"] = .string(type) }
        if item.attributes.flag(.synchronizable) { object["synchronizable"] = .bool(true) }
        // Always present: "" marks a shared item, which every program reads.
        object["group"] = .string(item.attributes.string(.accessGroup) ?? "")
        if let created = ItemListing.date(.creationDate, in: item.attributes) { object["created"] = .string(created) }
        if let modified = ItemListing.date(.modificationDate, in: item.attributes) { object["modified"] = .string(modified) }
        return .object(object)
    }

    /// `object(for: item)` with `secret` and `secret-encoding` last, and a newline, in storage
    /// that is zeroed on release: the secret is copied only into it, never into a `String`.
    static func text(of item: KeychainItem, secret: SecretBytes) throws -> SecretBytes {
        let fields = Data(object(for: item).prettyText.utf8)
        // Pretty-printed, the object ends with "\n}": the secret's fields go before that.
        guard fields.count >= 2, fields.suffix(2) == Data("\n}".utf8) else {
            throw KeychainError(errSecInternalError, "could not lay out the item as JSON")
        }
        return secret.withUnsafeBytes { bytes in
            let isText = isUTF8(bytes)
            let prefix = fields.dropLast(2) + Data(",\n  \"secret\" : \"".utf8)
            let suffix = Data("\",\n  \"secret-encoding\" : \"\(isText ? "utf-8" : "base64")\"\n}\n".utf8)
            var length = 0
            encode(bytes, asText: isText) { _ in length += 1 }
            return SecretBytes(count: prefix.count + length + suffix.count) { target in
                var offset = 0
                func put(_ byte: UInt8) {
                    target[offset] = byte
                    offset += 1
                }
                prefix.forEach(put)
                encode(bytes, asText: isText, put)
                suffix.forEach(put)
            }
        }
    }

    /// Whether `bytes` are well-formed UTF-8, checked in place.
    private static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// The bytes of a JSON string's content: UTF-8 text with `"`, `\` and control characters
    /// escaped, or base64.
    private static func encode(_ bytes: UnsafeRawBufferPointer, asText: Bool, _ emit: (UInt8) -> Void) {
        guard asText else { return base64(bytes, emit) }
        JSONValue.escape(bytes, emit)
    }

    private static func base64(_ bytes: UnsafeRawBufferPointer, _ emit: (UInt8) -> Void) {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group: UInt32 = 0
            for offset in 0..<3 { group = group << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
            for position in 0..<4 {
                emit(position <= count ? alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)] : UInt8(ascii: "="))
            }
            group = 0
            index += 3
        }
    }
}
