import CSodium
import FoundationEssentials
import Glibc
import KeychainCore

/// The layout of a `linux-keychain export` bundle, version 1: a header (magic "LKBUNDLE",
/// version, Argon2id parameters, salt, secretstream header; bytes 0..<66, every message's
/// additional data), then length-prefixed secretstream messages, one per item, and a FINAL
/// message "END1" with the item count; a bundle without it, or with bytes after it, is refused
/// whole. Laid out byte by byte in docs/pinned-formats.md#the-export-bundle-version-1, pinned by
/// Tests/KeychainEncryptedFileTests/Fixtures/bundle-v1.lkb. Never change it in place: a new
/// layout gets a new version byte, and readers keep reading the old one.
enum BundleFormat {
    static let magic = Data("LKBUNDLE".utf8)
    static let version: UInt8 = 1
    static let argon2id: UInt8 = 1
    static let headerSize = 66
    static let saltSize = 16
    static let streamHeaderSize = 24
    static let endMarker = Data("END1".utf8)
    /// The largest message read: an item's attributes and a secret far above any store's limit.
    static let maximumMessage = 64 * 1024 * 1024

    /// The Argon2id cost an export uses: libsodium's MODERATE by default (about 0.7 s here),
    /// or INTERACTIVE or SENSITIVE from `KEYCHAIN_BUNDLE_KDF`.
    static func exportLimits(_ environment: [String: String]) throws -> (ops: UInt64, memory: UInt64) {
        switch environment["KEYCHAIN_BUNDLE_KDF"] ?? "" {
        case "", "moderate": return (UInt64(crypto_pwhash_argon2id_opslimit_moderate()), UInt64(crypto_pwhash_argon2id_memlimit_moderate()))
        case "interactive": return (UInt64(crypto_pwhash_argon2id_opslimit_interactive()), UInt64(crypto_pwhash_argon2id_memlimit_interactive()))
        case "sensitive": return (UInt64(crypto_pwhash_argon2id_opslimit_sensitive()), UInt64(crypto_pwhash_argon2id_memlimit_sensitive()))
        case let other:
            throw KeychainError.badParameter("KEYCHAIN_BUNDLE_KDF is '\(other)'; use interactive, moderate or sensitive")
        }
    }

    /// The limits a reader accepts from a file: libsodium's minimums up to 16 passes and 4 GiB,
    /// so that a hostile bundle cannot make import spend hours or exhaust memory.
    static func acceptsLimits(ops: UInt64, memory: UInt64) -> Bool {
        ops >= UInt64(crypto_pwhash_argon2id_opslimit_min()) && ops <= 16
            && memory >= UInt64(crypto_pwhash_argon2id_memlimit_min()) && memory <= 4 << 30
    }

    /// The stream key from `passphrase`, in storage zeroed on release.
    static func key(_ passphrase: SecretBytes, salt: Data, ops: UInt64, memory: UInt64) throws -> SecretBytes {
        let size = Int(crypto_secretstream_xchacha20poly1305_keybytes())
        return try SecretBytes(count: size) { key in
            let status = passphrase.withUnsafeBytes { phrase in
                salt.withUnsafeBytes { saltBytes in
                    crypto_pwhash(key.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(size),
                                  phrase.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(phrase.count),
                                  saltBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), ops, Int(memory),
                                  crypto_pwhash_alg_argon2id13())
                }
            }
            guard status == 0 else {
                throw KeychainError(errSecAllocate, "Could not derive the bundle key: Argon2id needs \(memory >> 20) MiB of memory", failedCall: "crypto_pwhash")
            }
        }
    }

    static func littleEndian(_ value: UInt64) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
    static func littleEndian(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }

    static func uint64(_ data: Data, at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(data[data.startIndex + offset + $1]) << (8 * UInt64($1)) }
    }

    static func uint32(_ data: Data, at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[data.startIndex + offset + $1]) << (8 * UInt32($1)) }
    }
}
