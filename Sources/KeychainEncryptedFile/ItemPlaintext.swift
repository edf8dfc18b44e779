import FoundationEssentials
import Glibc
import KeychainCore

/// The plaintext of an item file, before sealing: the class, every attribute and the secret.
///
/// Layout (integers big-endian; "field" = u32 length + bytes):
///
///     field class ("genp" / "inet")   u16 attribute count
///     per attribute: field name (Apple's, e.g. "svce")  u8 kind  field value
///         kinds: 0 string (UTF-8), 1 data, 2 integer (8 bytes), 3 bool (1 byte), 4 date
///         (8 bytes: the IEEE 754 bits of seconds since 1970, so nothing is rounded)
///     field secret
///
/// It lives in zeroed-on-release memory, because it holds the secret.
enum ItemPlaintext {
    static func encode(_ item: KeychainItem) -> SecretBytes {
        var writer = ByteWriter()
        writer.appendField(Data(item.itemClass.rawValue.utf8))
        let attributes = item.attributes.values.sorted { $0.key < $1.key }
        writer.append(UInt16(attributes.count))
        for (key, value) in attributes {
            writer.appendField(Data(key.rawValue.utf8))
            writer.append(UInt8(value.kindTag))
            writer.appendField(encode(value))
        }
        let described = writer.bytes
        let secret = item.secret ?? SecretBytes(Data())
        return SecretBytes(count: described.count + 4 + secret.count) { out in
            var offset = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                guard let base = bytes.baseAddress, bytes.count > 0 else { return }
                out.baseAddress!.advanced(by: offset).copyMemory(from: base, byteCount: bytes.count)
                offset += bytes.count
            }
            described.withUnsafeBytes(put)
            withUnsafeBytes(of: UInt32(secret.count).bigEndian, put)
            secret.withUnsafeBytes(put)
        }
    }

    /// `AttributeKey(rawValue:)` compares the name with every case in turn; a get decodes
    /// several names, so they are looked up by hash instead.
    private static let keysByName = Dictionary(uniqueKeysWithValues: AttributeKey.allCases.map { ($0.rawValue, $0) })

    /// The item, with its secret copied into its own `SecretBytes`.
    /// Throws `MalformedBytes` for anything that is not a whole, valid plaintext.
    static func decode(_ plaintext: SecretBytes) throws -> KeychainItem {
        try plaintext.withUnsafeBytes { raw throws(MalformedBytes) in
            var reader = ByteReader(raw)
            guard let itemClass = ItemClass(rawValue: try text(reader.field("class"), "class")) else {
                throw MalformedBytes("unknown item class")
            }
            var attributes = ItemAttributes()
            let count = try reader.integer(UInt16.self, "attribute count")
            for _ in 0..<count {
                let name = try text(reader.field("attribute name"), "attribute name")
                let kind = try reader.integer(UInt8.self, "attribute kind")
                let bytes = try reader.field("attribute value")
                // Names a newer version added are skipped, so its items still read here.
                guard let key = keysByName[name] else { continue }
                let value = try decode(kind: kind, bytes)
                guard value.kind == key.valueKind else { throw MalformedBytes("attribute \(name) has the wrong kind") }
                attributes[key] = value
            }
            let secret = SecretBytes(copying: try reader.field("secret"))
            try reader.expectEnd("the secret")
            return KeychainItem(itemClass: itemClass, attributes: attributes, secret: secret)
        }
    }

    /// The value's bytes; its kind is written beside them as `AttributeValue.kindTag`.
    private static func encode(_ value: AttributeValue) -> Data {
        var writer = ByteWriter()
        switch value {
        case .string(let text): return Data(text.utf8)
        case .data(let data): return data
        case .integer(let number): writer.append(number)
        case .bool(let flag): writer.append(UInt8(flag ? 1 : 0))
        case .date(let date): writer.append(date.timeIntervalSince1970.bitPattern)
        }
        return writer.bytes
    }

    private static func decode(kind: UInt8, _ bytes: UnsafeRawBufferPointer) throws(MalformedBytes) -> AttributeValue {
        var reader = ByteReader(bytes)
        let value: AttributeValue
        switch kind {
        case 0: return .string(try text(bytes, "attribute value"))
        case 1: return .data(Data(bytes))
        case 2: value = .integer(try reader.integer(Int64.self, "integer attribute"))
        case 3:
            let flag = try reader.integer(UInt8.self, "flag attribute")
            guard flag <= 1 else { throw MalformedBytes("flag attribute is neither 0 nor 1") }
            value = .bool(flag == 1)
        case 4:
            let seconds = Double(bitPattern: try reader.integer(UInt64.self, "date attribute"))
            guard seconds.isFinite else { throw MalformedBytes("date attribute is not finite") }
            value = .date(Date(timeIntervalSince1970: seconds))
        default: throw MalformedBytes("unknown attribute kind \(kind)")
        }
        try reader.expectEnd("an attribute value")
        return value
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, _ what: String) throws(MalformedBytes) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw MalformedBytes("\(what) is not UTF-8") }
        return text
    }
}
