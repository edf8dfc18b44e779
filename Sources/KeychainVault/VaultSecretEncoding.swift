import KeychainCore

/// How a secret is stored in an item's KV fields, without ever turning it into a `String`.
///
/// A secret that is printable UTF-8 goes into the field `password` as it is, so that
/// `bao kv get` shows it to an operator. Any other secret goes base64-encoded into the field
/// `password_base64`; the field's name is the marker that says how to read it.
enum VaultSecretEncoding {
    static let plainField = "password"
    static let base64Field = "password_base64"

    /// Whether `bytes` can be stored in the plain field: valid UTF-8 (no overlong forms, no
    /// surrogates) with no control characters other than tab, line feed and carriage return,
    /// so an operator's terminal shows exactly the secret.
    static func isPrintableUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length: Int
            var scalar: UInt32
            switch lead {
            case 0x09, 0x0A, 0x0D, 0x20..<0x7F: index += 1; continue
            case 0xC2...0xDF: length = 2; scalar = UInt32(lead & 0x1F)
            case 0xE0...0xEF: length = 3; scalar = UInt32(lead & 0x0F)
            case 0xF0...0xF4: length = 4; scalar = UInt32(lead & 0x07)
            default: return false
            }
            guard index + length <= bytes.count else { return false }
            for offset in 1..<length {
                let continuation = bytes[index + offset]
                guard continuation & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
            }
            let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
            guard scalar >= smallest, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar),
                  !(0x80...0x9F).contains(scalar) else { return false }
            index += length
        }
        return true
    }

    /// The field name and body value that store `secret`.
    static func field(for secret: SecretBytes) -> (name: String, value: VaultRequestBody) {
        if secret.withUnsafeBytes(isPrintableUTF8) { return (plainField, .secretText(secret)) }
        return (base64Field, .secretBase64(secret))
    }

    /// The secret field an item must not have beside `field`.
    static func otherField(than field: String) -> String {
        field == plainField ? base64Field : plainField
    }

    /// Decodes standard padded base64 into fresh secret storage; nil when it is not base64.
    static func decodeBase64(_ encoded: SecretBytes) -> SecretBytes? {
        encoded.withUnsafeBytes { text -> SecretBytes? in
            guard text.count % 4 == 0 else { return nil }
            var padding = 0
            if text.count >= 4, text[text.count - 1] == UInt8(ascii: "=") {
                padding = text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1
            }
            for index in 0..<(text.count - padding) where sextet(text[index]) == nil { return nil }
            let count = text.count / 4 * 3 - padding
            return SecretBytes(count: count) { output in
                var written = 0
                var index = 0
                while index < text.count {
                    var group: UInt32 = 0
                    for offset in 0..<4 {
                        let byte = text[index + offset]
                        group = group << 6 | UInt32(byte == UInt8(ascii: "=") ? 0 : sextet(byte) ?? 0)
                    }
                    for shift in [16, 8, 0] where written < count {
                        output[written] = UInt8(group >> UInt32(shift) & 0xFF)
                        written += 1
                    }
                    index += 4
                }
            }
        }
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
