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
        let hex = Array("0123456789abcdef")
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{8}": text += "\\b"
            case "\u{C}": text += "\\f"
            case "\u{0}"..."\u{1F}":
                text += "\\u00" + String(hex[Int(scalar.value >> 4)]) + String(hex[Int(scalar.value & 0xF)])
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
