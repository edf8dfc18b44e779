import Foundation

/// Writes and reads the JSON of `StoredAttributes` directly.
///
/// Foundation's `JSONEncoder` and `JSONDecoder` cost more for an item's attributes than all
/// the kernel calls of reading the item together. This writes the
/// one shape `StoredAttributes` has, and reads it back; anything else it declines, and
/// `StoredAttributes` hands that to `JSONDecoder`, which stays the judge of what is valid.
enum StoredAttributesJSON {
    /// `stored` as one JSON object with its keys sorted. In strings only `"`, `\` and control
    /// characters are escaped, so the text stays readable in `keyctl print`.
    static func encode(_ stored: StoredAttributes) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        // Appended piece by piece, each straight from its UTF-8: an update writes this on every call.
        out.append(contentsOf: #"{"attributes":{"#.utf8)
        for (index, (name, value)) in stored.attributes.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            appendString(value, to: &out)
        }
        out.append(contentsOf: #"},"format":"#.utf8)
        out.append(contentsOf: String(stored.format).utf8)
        if let keyring = stored.keyring {
            out.append(contentsOf: #","keyring":"#.utf8)
            out.append(contentsOf: String(keyring).utf8)
        }
        if let secret = stored.secret {
            out.append(contentsOf: #","secret":"#.utf8)
            out.append(contentsOf: String(secret).utf8)
        }
        if let secretIsEmpty = stored.secretIsEmpty {
            out.append(contentsOf: #","secretIsEmpty":"#.utf8)
            out.append(contentsOf: (secretIsEmpty ? "true" : "false").utf8)
        }
        if let unset = stored.unset {
            out.append(contentsOf: #","unset":"#.utf8)
            appendString(unset, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    private static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        guard text.utf8.contains(where: needsEscape) else {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                out += Array(String(format: "\\u%04x", byte).utf8)
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }

    /// The attributes in `payload` when it is one JSON object with nothing but the fields of
    /// `StoredAttributes`, each once and of its type; nil for anything else.
    static func decode(_ payload: [UInt8]) -> StoredAttributes? {
        var reader = Reader(bytes: payload)
        var attributes: [String: String]?
        var format: Int?
        var secretIsEmpty: Bool?
        var keyring: Int32?
        var secret: Int32?
        var unset: String?
        // The fields seen so far, as a set of bits in the order of `fieldNames`.
        var seen: UInt8 = 0
        guard reader.consume("{") else { return nil }
        repeat {
            guard let field = reader.string(), let bit = fieldNames.firstIndex(of: field),
                  seen & (1 << bit) == 0, reader.consume(":") else { return nil }
            seen |= 1 << bit
            switch field {
            case "attributes":
                guard let object = reader.stringObject() else { return nil }
                attributes = object
            case "format":
                guard let number = reader.integer().flatMap({ Int(exactly: $0) }) else { return nil }
                format = number
            case "secretIsEmpty":
                guard let flag = reader.bool() else { return nil }
                secretIsEmpty = flag
            case "keyring":
                if reader.consumeWord("null") { continue }
                guard let serial = reader.integer().flatMap({ Int32(exactly: $0) }) else { return nil }
                keyring = serial
            case "secret":
                if reader.consumeWord("null") { continue }
                guard let serial = reader.integer().flatMap({ Int32(exactly: $0) }) else { return nil }
                secret = serial
            case "unset":
                if reader.consumeWord("null") { continue }
                guard let text = reader.string() else { return nil }
                unset = text
            default:
                return nil
            }
        } while reader.consume(",")
        guard reader.consume("}"), reader.isAtEnd(), let attributes, let format else { return nil }
        return StoredAttributes(format: format, attributes: attributes, secretIsEmpty: secretIsEmpty, keyring: keyring,
                                secret: secret, unset: unset)
    }

    /// Every field `StoredAttributes` has.
    private static let fieldNames = ["attributes", "format", "secretIsEmpty", "keyring", "secret", "unset"]

    /// Reads JSON values from the front of `bytes`; each method returns nil, or false, and
    /// may leave the position anywhere when the next value is not what it reads.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func isAtEnd() -> Bool {
            skipSpace()
            return index == bytes.count
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func consume(_ character: Unicode.Scalar) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func bool() -> Bool? {
            if consumeWord("true") { return true }
            if consumeWord("false") { return false }
            return nil
        }

        mutating func consumeWord(_ word: StaticString) -> Bool {
            skipSpace()
            return consumeExactly(word)
        }

        /// `text` right at the current position, not after white space.
        private mutating func consumeExactly(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count,
                  bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: count)) else {
                return false
            }
            index += count
            return true
        }

        /// An integer without fraction, exponent or leading zero.
        mutating func integer() -> Int64? {
            skipSpace()
            let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            let digits = index
            // Accumulated negatively, so that Int64.min fits too.
            var value: Int64 = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = times10.subtractingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                value = next
                index += 1
            }
            guard index > digits, index - digits == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
            if negative { return value }
            return value == .min ? nil : -value
        }

        /// An object whose values are all strings.
        mutating func stringObject() -> [String: String]? {
            guard consume("{") else { return nil }
            var object: [String: String] = [:]
            if consume("}") { return object }
            repeat {
                guard let name = string(), consume(":"), let value = string(),
                      object.updateValue(value, forKey: name) == nil else { return nil }
            } while consume(",")
            return consume("}") ? object : nil
        }

        mutating func string() -> String? {
            guard consume("\"") else { return nil }
            // Most strings hold no escape: they are taken from the payload in one piece.
            let start = index
            var isASCII = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return isASCII ? Self.asciiString(bytes, start..<index - 1)
                                   : String(validating: bytes[start..<index - 1], as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                isASCII = isASCII && byte < 0x80
                index += 1
            }
            var text = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let unescaped = escape() else { return nil }
                    text += unescaped
                case 0..<0x20:
                    return nil
                default:
                    text.append(byte)
                }
            }
            return nil
        }

        /// `bytes[range]`, all ASCII and so valid UTF-8, as a string; without the generic
        /// validation `String(validating:)` runs.
        private static func asciiString(_ bytes: [UInt8], _ range: Range<Int>) -> String {
            bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        }

        /// The UTF-8 of the escape after a backslash.
        private mutating func escape() -> [UInt8]? {
            guard index < bytes.count else { return nil }
            let letter = bytes[index]
            index += 1
            switch letter {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return [letter]
            case UInt8(ascii: "b"): return [0x08]
            case UInt8(ascii: "f"): return [0x0C]
            case UInt8(ascii: "n"): return [0x0A]
            case UInt8(ascii: "r"): return [0x0D]
            case UInt8(ascii: "t"): return [0x09]
            case UInt8(ascii: "u"):
                guard let unit = hexUnit() else { return nil }
                var scalar = Unicode.Scalar(unit)
                if (0xD800..<0xDC00).contains(unit) {
                    // A high surrogate must be followed by an escaped low one.
                    guard consumeExactly("\\u"), let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return nil }
                    scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
                }
                return scalar.map { Array(String($0).utf8) }
            default:
                return nil
            }
        }

        private mutating func hexUnit() -> UInt16? {
            guard bytes.count - index >= 4 else { return nil }
            let digits = String(decoding: bytes[index..<index + 4], as: UTF8.self)
            index += 4
            return digits.allSatisfy(\.isHexDigit) ? UInt16(digits, radix: 16) : nil
        }
    }
}
