import FoundationEssentials
import Glibc
import KeychainCore

/// A parsed JSON value whose strings stay bytes, in storage that is zeroed when released.
///
/// Vault's answers carry secrets inside JSON strings. Foundation's `JSONSerialization` would
/// turn them into `String`s, which can be neither zeroed nor kept out of copies, so the
/// backend reads JSON with this small parser instead: every string value is a `SecretBytes`,
/// and only non-secret values are turned into text, by the caller, on request.
enum VaultJSON {
    case object([String: VaultJSON])
    case array([VaultJSON])
    case string(SecretBytes)
    /// The number as written, for exact integer parsing.
    case number(String)
    case bool(Bool)
    case null

    /// The member `key` of an object, or nil for anything else.
    subscript(key: String) -> VaultJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string value as text. Only for values that are not secrets.
    var text: String? {
        guard case .string(let bytes) = self else { return nil }
        return bytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The string value as bytes, for secrets.
    var bytes: SecretBytes? {
        if case .string(let bytes) = self { return bytes }
        return nil
    }

    /// An integer written as a JSON number (Vault's versions).
    var integer: Int64? {
        if case .number(let digits) = self { return Int64(digits) }
        return nil
    }

    var bool: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    var array: [VaultJSON]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var members: [String: VaultJSON]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Parses a whole JSON document; nil when it is not valid JSON.
    static func parse(_ data: Data) -> VaultJSON? {
        data.withUnsafeBytes(parse)
    }

    /// Parses the whole JSON document in `buffer`; nil when it is not valid JSON.
    static func parse(_ buffer: UnsafeRawBufferPointer) -> VaultJSON? {
        var parser = VaultJSONParser(buffer)
        return parser.parseDocument()
    }
}

/// A recursive-descent parser over the response bytes. Nesting is limited, so a hostile or
/// broken server cannot exhaust the stack.
private struct VaultJSONParser {
    private static let maximumDepth = 64
    private let input: UnsafeRawBufferPointer
    private var position = 0
    private var depth = 0

    init(_ input: UnsafeRawBufferPointer) { self.input = input }

    mutating func parseDocument() -> VaultJSON? {
        guard let value = parseValue() else { return nil }
        skipWhitespace()
        return position == input.count ? value : nil
    }

    private var current: UInt8? { position < input.count ? input[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let bytes = UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard input.count - position >= bytes.count else { return false }
        for (offset, byte) in bytes.enumerated() where input[position + offset] != byte { return false }
        position += bytes.count
        return true
    }

    private mutating func parseValue() -> VaultJSON? {
        skipWhitespace()
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return nested { $0.parseObject() }
        case UInt8(ascii: "["): return nested { $0.parseArray() }
        case UInt8(ascii: "\""): return parseString().map { .string($0) }
        case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consume("null") ? .null : nil
        default: return parseNumber()
        }
    }

    private mutating func nested(_ body: (inout VaultJSONParser) -> VaultJSON?) -> VaultJSON? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        return body(&self)
    }

    private mutating func parseObject() -> VaultJSON? {
        position += 1
        var members: [String: VaultJSON] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = parseString() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            position += 1
            guard let value = parseValue() else { return nil }
            members[key.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }] = value
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            default: return nil
            }
        }
    }

    private mutating func parseArray() -> VaultJSON? {
        position += 1
        var elements: [VaultJSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { position += 1; return .array(elements) }
        while true {
            guard let element = parseValue() else { return nil }
            elements.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(elements)
            default: return nil
            }
        }
    }

    private mutating func parseNumber() -> VaultJSON? {
        let start = position
        while let byte = current, (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            position += 1
        }
        guard position > start else { return nil }
        return .number(String(decoding: UnsafeRawBufferPointer(rebasing: input[start..<position]), as: UTF8.self))
    }

    /// Decodes a string into zeroed-on-release storage. The decoded bytes are never longer
    /// than the escaped ones, so one scratch buffer of that size suffices and is wiped after.
    private mutating func parseString() -> SecretBytes? {
        position += 1
        let start = position
        while let byte = current, byte != UInt8(ascii: "\"") {
            position += byte == UInt8(ascii: "\\") ? 2 : 1
        }
        guard position < input.count else { return nil }
        let escaped = UnsafeRawBufferPointer(rebasing: input[start..<position])
        position += 1
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(escaped.count, 1), alignment: 1)
        defer {
            SecretBytes.zero(scratch)
            scratch.deallocate()
        }
        guard let length = Self.unescape(escaped, into: scratch) else { return nil }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<length]))
    }

    private static func unescape(_ escaped: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        var reader = 0
        var writer = 0
        func put(_ byte: UInt8) { output[writer] = byte; writer += 1 }
        while reader < escaped.count {
            let byte = escaped[reader]
            reader += 1
            guard byte == UInt8(ascii: "\\") else {
                guard byte >= 0x20 else { return nil }
                put(byte)
                continue
            }
            guard reader < escaped.count else { return nil }
            let code = escaped[reader]
            reader += 1
            switch code {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(code)
            case UInt8(ascii: "b"): put(0x08)
            case UInt8(ascii: "f"): put(0x0C)
            case UInt8(ascii: "n"): put(0x0A)
            case UInt8(ascii: "r"): put(0x0D)
            case UInt8(ascii: "t"): put(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hexQuad(escaped, at: reader) else { return nil }
                reader += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard reader + 6 <= escaped.count, escaped[reader] == UInt8(ascii: "\\"),
                          escaped[reader + 1] == UInt8(ascii: "u"),
                          let low = hexQuad(escaped, at: reader + 2), (0xDC00...0xDFFF).contains(low) else { return nil }
                    reader += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return nil
                }
                // A \u escape takes 6 bytes and its UTF-8 form at most 4, so `output` has room.
                switch scalar {
                case 0..<0x80:
                    put(UInt8(scalar))
                case 0x80..<0x800:
                    put(UInt8(0xC0 | scalar >> 6)); put(UInt8(0x80 | scalar & 0x3F))
                case 0x800..<0x10000:
                    put(UInt8(0xE0 | scalar >> 12)); put(UInt8(0x80 | scalar >> 6 & 0x3F)); put(UInt8(0x80 | scalar & 0x3F))
                default:
                    put(UInt8(0xF0 | scalar >> 18)); put(UInt8(0x80 | scalar >> 12 & 0x3F))
                    put(UInt8(0x80 | scalar >> 6 & 0x3F)); put(UInt8(0x80 | scalar & 0x3F))
                }
            default:
                return nil
            }
        }
        return writer
    }

    private static func hexQuad(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = hexDigit(bytes[index + offset]) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}

/// The value of an ASCII hex digit, or nil.
func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
