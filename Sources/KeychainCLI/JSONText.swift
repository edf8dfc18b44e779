/// A JSON value as the CLI prints it (`--json`), written here rather than with Foundation's
/// JSONSerialization so that the CLI starts without Foundation (docs/performance.md).
enum JSONValue {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value laid out as JSONSerialization's `[.prettyPrinted, .sortedKeys,
    /// .withoutEscapingSlashes]` did: two-space indents, `"key" : value`, keys in byte order
    /// (the CLI's keys are lowercase ASCII, where that is Foundation's order too), an empty
    /// array or object as `[` and `]` two lines apart, and in strings only `"`, `\` and the
    /// control characters escaped.
    var prettyText: String {
        var text = ""
        write(to: &text, indent: "")
        return text
    }

    private func write(to text: inout String, indent: String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &text)
        case .integer(let value): text += String(value)
        case .bool(let value): text += value ? "true" : "false"
        case .null: text += "null"
        case .array(let values):
            text += "[\n"
            for (index, value) in values.enumerated() {
                text += indent + "  "
                value.write(to: &text, indent: indent + "  ")
                text += index == values.count - 1 ? "\n" : ",\n"
            }
            text += (values.isEmpty ? "\n" : "") + indent + "]"
        case .object(let fields):
            text += "{\n"
            let keys = fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                text += indent + "  "
                Self.writeString(key, to: &text)
                text += " : "
                fields[key]!.write(to: &text, indent: indent + "  ")
                text += index == keys.count - 1 ? "\n" : ",\n"
            }
            text += (keys.isEmpty ? "\n" : "") + indent + "}"
        }
    }

    private static func writeString(_ value: String, to text: inout String) {
        var escaped: [UInt8] = []
        escape(value.utf8) { escaped.append($0) }
        text += "\"" + String(decoding: escaped, as: UTF8.self) + "\""
    }

    /// The content of a JSON string holding the UTF-8 text `bytes`, byte by byte into `emit`:
    /// `"`, `\` and the control characters escaped (as JSONSerialization does), the rest as it is.
    /// `ItemJSON` passes a secret through it without making a `String` of it.
    static func escape<Bytes: Sequence<UInt8>>(_ bytes: Bytes, _ emit: (UInt8) -> Void) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            let shorthand: UInt8? = switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
            case UInt8(ascii: "\n"): UInt8(ascii: "n")
            case UInt8(ascii: "\r"): UInt8(ascii: "r")
            case UInt8(ascii: "\t"): UInt8(ascii: "t")
            case 0x08: UInt8(ascii: "b")
            case 0x0C: UInt8(ascii: "f")
            default: nil
            }
            if let shorthand {
                emit(UInt8(ascii: "\\"))
                emit(shorthand)
            } else if byte < 0x20 {
                for character in "\\u00".utf8 { emit(character) }
                emit(hex[Int(byte >> 4)])
                emit(hex[Int(byte & 0xF)])
            } else {
                emit(byte)
            }
        }
    }
}
