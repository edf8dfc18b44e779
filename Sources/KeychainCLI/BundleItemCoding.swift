import FoundationEssentials
import Glibc
import KeychainCore

/// One item as a bundle message's plaintext (`BundleFormat`), all integers little-endian:
///
///     4 bytes  class, Apple's code ("genp", "inet")
///     2 bytes  number of attributes, then for each:
///              1 byte name length, the name (Apple's, e.g. "acct"),
///              1 byte kind (0 string, 1 data, 2 integer, 3 bool, 4 date),
///              4 bytes value length, the value (UTF-8; bytes; Int64; 0 or 1; the Double of
///              seconds since 1970 as its 8 bit-pattern bytes, so dates round-trip exactly)
///     4 bytes  secret length, the secret's bytes
///
/// The plaintext holds the secret, so it is built and read only in storage zeroed on release.
/// An attribute name this version does not know is skipped (a newer writer's), as the stores do.
enum BundleItemCoding {
    /// The plaintext of `item`, which must carry its secret.
    static func encode(_ item: KeychainItem) -> SecretBytes {
        let writer = SecretAccumulator(initialCapacity: 256)
        func put(_ bytes: UnsafeRawBufferPointer) {
            _ = writer.append(atLeast: bytes.count) { free in
                free.copyMemory(from: bytes)
                return bytes.count
            }
        }
        func put(_ data: Data) { data.withUnsafeBytes { put($0) } }
        put(Data(item.itemClass.rawValue.utf8))
        let attributes = item.attributes.values.sorted { $0.key < $1.key }
        put(withUnsafeBytes(of: UInt16(attributes.count).littleEndian) { Data($0) })
        for (key, value) in attributes {
            let name = Data(key.rawValue.utf8)
            put(Data([UInt8(name.count)]) + name)
            let (kind, body) = encoded(value)
            put(Data([kind]) + BundleFormat.littleEndian(UInt32(body.count)) + body)
        }
        let secret = item.secret ?? SecretBytes(Data())
        put(BundleFormat.littleEndian(UInt32(secret.count)))
        secret.withUnsafeBytes { put($0) }
        return writer.makeSecretBytes()
    }

    private static func encoded(_ value: AttributeValue) -> (UInt8, Data) {
        switch value {
        case .string(let text): return (0, Data(text.utf8))
        case .data(let data): return (1, data)
        case .integer(let number): return (2, withUnsafeBytes(of: number.littleEndian) { Data($0) })
        case .bool(let flag): return (3, Data([flag ? 1 : 0]))
        case .date(let date): return (4, BundleFormat.littleEndian(date.timeIntervalSince1970.bitPattern))
        }
    }

    /// The item in `bytes`; `errSecDecode` for anything malformed.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> KeychainItem {
        var offset = 0
        func take(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count >= 0, bytes.count - offset >= count else { throw malformed }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        }
        func integer(_ size: Int) throws -> UInt64 {
            try take(size).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        guard let itemClass = ItemClass(rawValue: String(decoding: try take(4), as: UTF8.self)) else { throw malformed }
        var attributes = ItemAttributes()
        for _ in 0..<(try integer(2)) {
            let name = String(decoding: try take(Int(try integer(1))), as: UTF8.self)
            let kind = try integer(1)
            let body = try take(Int(try integer(4)))
            guard let key = AttributeKey(rawValue: name) else { continue }
            let value: AttributeValue
            switch kind {
            case 0:
                guard let text = String(validating: body, as: UTF8.self) else { throw malformed }
                value = .string(text)
            case 1: value = .data(Data(body))
            case 2 where body.count == 8: value = .integer(Int64(bitPattern: body.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
            case 3 where body.count == 1: value = .bool(body[0] != 0)
            case 4 where body.count == 8:
                let seconds = Double(bitPattern: body.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                guard seconds.isFinite else { throw malformed }
                value = .date(Date(timeIntervalSince1970: seconds))
            default: throw malformed
            }
            guard value.kind == key.valueKind else { throw malformed }
            attributes[key] = value
        }
        let secret = SecretBytes(copying: try take(Int(try integer(4))))
        guard offset == bytes.count else { throw malformed }
        return KeychainItem(itemClass: itemClass, attributes: attributes, secret: secret)
    }

    private static let malformed = KeychainError(errSecDecode, "The bundle holds a malformed item; it is damaged, or not a keychain bundle.")
}
