import FoundationEssentials
import Glibc
import KeychainCore

/// A JSON request body that may hold secrets.
///
/// It is serialized straight into a `SecretBytes` of the exact size (a counting pass first,
/// then a writing pass), so no growing buffer leaves stray copies of a secret behind and the
/// result is zeroed when released. Secret values are written from their bytes; they never
/// become a `String`.
indirect enum VaultRequestBody {
    case object([(String, VaultRequestBody)])
    case text(String)
    /// A secret that is valid UTF-8, written as a JSON string.
    case secretText(SecretBytes)
    /// A secret of any bytes, written as a base64 JSON string.
    case secretBase64(SecretBytes)
    case integer(Int64)
    /// A value read from the server, written back as it was (an operator's other fields).
    case json(VaultJSON)

    /// The serialized JSON.
    func serialized() -> SecretBytes {
        var counter = ByteCounter()
        write(to: &counter)
        return SecretBytes(count: counter.count) { storage in
            var writer = ByteWriter(storage)
            write(to: &writer)
        }
    }

    private func write<Sink: ByteSink>(to sink: inout Sink) {
        switch self {
        case .object(let members):
            sink.put(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { sink.put(UInt8(ascii: ",")) }
                Self.writeString(Array(key.utf8), to: &sink)
                sink.put(UInt8(ascii: ":"))
                value.write(to: &sink)
            }
            sink.put(UInt8(ascii: "}"))
        case .text(let text):
            Self.writeString(Array(text.utf8), to: &sink)
        case .secretText(let secret):
            secret.withUnsafeBytes { Self.writeString($0, to: &sink) }
        case .secretBase64(let secret):
            sink.put(UInt8(ascii: "\""))
            secret.withUnsafeBytes { Self.writeBase64($0, to: &sink) }
            sink.put(UInt8(ascii: "\""))
        case .integer(let number):
            for byte in String(number).utf8 { sink.put(byte) }
        case .json(let value):
            Self.writeJSON(value, to: &sink)
        }
    }

    private static func writeJSON<Sink: ByteSink>(_ value: VaultJSON, to sink: inout Sink) {
        switch value {
        case .object(let members):
            VaultRequestBody.object(members.sorted { $0.key < $1.key }.map { ($0.key, .json($0.value)) }).write(to: &sink)
        case .array(let elements):
            sink.put(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { sink.put(UInt8(ascii: ",")) }
                writeJSON(element, to: &sink)
            }
            sink.put(UInt8(ascii: "]"))
        case .string(let bytes):
            bytes.withUnsafeBytes { writeString($0, to: &sink) }
        case .number(let digits):
            for byte in digits.utf8 { sink.put(byte) }
        case .bool(let flag):
            for byte in (flag ? "true" : "false").utf8 { sink.put(byte) }
        case .null:
            for byte in "null".utf8 { sink.put(byte) }
        }
    }

    private static func writeString<Bytes: Collection<UInt8>, Sink: ByteSink>(_ bytes: Bytes, to sink: inout Sink) {
        sink.put(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                sink.put(UInt8(ascii: "\\"))
                sink.put(byte)
            case 0..<0x20:
                for escapeByte in "\\u00".utf8 { sink.put(escapeByte) }
                sink.put(hexDigits[Int(byte >> 4)])
                sink.put(hexDigits[Int(byte & 0x0F)])
            default:
                sink.put(byte)
            }
        }
        sink.put(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard padded base64, as Go's `encoding/base64.StdEncoding` and `base64 -d` read it.
    private static func writeBase64<Sink: ByteSink>(_ bytes: UnsafeRawBufferPointer, to sink: inout Sink) {
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = UInt32(bytes[index])
            let second = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let third = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = first << 16 | second << 8 | third
            sink.put(base64Alphabet[Int(group >> 18 & 0x3F)])
            sink.put(base64Alphabet[Int(group >> 12 & 0x3F)])
            sink.put(remaining > 1 ? base64Alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            sink.put(remaining > 2 ? base64Alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
    }
}

private protocol ByteSink {
    mutating func put(_ byte: UInt8)
}

private struct ByteCounter: ByteSink {
    var count = 0
    mutating func put(_ byte: UInt8) { count += 1 }
}

private struct ByteWriter: ByteSink {
    let storage: UnsafeMutableRawBufferPointer
    var position = 0
    init(_ storage: UnsafeMutableRawBufferPointer) { self.storage = storage }
    mutating func put(_ byte: UInt8) {
        storage[position] = byte
        position += 1
    }
}
