import CSodium
import KeychainCore

/// A one-way digest (BLAKE2b-256) that names an identity without revealing it.
enum VaultHash {
    static func hex(of text: String) -> String {
        _ = sodium_init()  // idempotent and thread-safe; picks the fastest implementation
        var digest = [UInt8](repeating: 0, count: 32)
        var bytes = Array(text.utf8)
        defer { bytes.withUnsafeMutableBytes { SecretBytes.zero($0) } }
        _ = crypto_generichash(&digest, digest.count, bytes, UInt64(bytes.count), nil, 0)
        return digest.map { byte in
            let digits = Array("0123456789abcdef")
            return "\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0F)])"
        }.joined()
    }
}
