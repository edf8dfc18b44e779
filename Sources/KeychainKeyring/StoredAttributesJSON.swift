import FoundationEssentials
import Glibc

/// Writes the JSON of `StoredAttributes` in the pinned spelling (docs/pinned-formats.md), which `JSONEncoder` does not
/// produce: keys sorted, and in strings only `"`, `\` and control characters escaped (as `\u00XX`), so the text stays
/// readable in `keyctl print`. `JSONDecoder` reads it back.
enum StoredAttributesJSON {
    /// `stored` as one JSON object.
    static func encode(_ stored: StoredAttributes) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
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
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }
}
