import CSodium
import FoundationEssentials
import Glibc
import KeychainCore

/// The few libsodium primitives the store uses, with their sizes, in Swift terms.
///
/// - Item and key sealing: XChaCha20-Poly1305 (IETF), whose 192-bit nonces are safe to pick at
///   random for every write, so no nonce counter has to be kept consistent across processes.
/// - Names: keyed BLAKE2b (`crypto_generichash`), so file names reveal nothing without the key.
/// - Subkeys: `crypto_kdf` (BLAKE2b), so one master key yields independent keys per purpose.
enum Sodium {
    static let keyBytes = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    private static let initialization: Int32 = sodium_init()

    /// `sodium_init` once per process; it is what seeds the random generator.
    static func ensureInitialized() throws {
        guard initialization >= 0 else {
            throw KeychainError.fileBackend(errSecNotAvailable, "libsodium could not be initialized.", failedCall: "sodium_init")
        }
    }

    static func randomBytes(_ bytes: inout [UInt8]) {
        _ = initialization
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
    }

    static func randomData(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        randomBytes(&bytes)
        return Data(bytes)
    }

    /// Seals `plaintext` under `key` with a fresh random nonce; returns nonce followed by
    /// ciphertext and tag.
    static func seal(_ plaintext: UnsafeRawBufferPointer, associatedData: some ContiguousBytes, key: GuardedBytes) -> Data {
        let nonce = randomData(nonceBytes)
        var sealed = nonce + Data(count: plaintext.count + tagBytes)
        var sealedLength: UInt64 = 0
        sealed.withUnsafeMutableBytes { out in
            let cipher = out.baseAddress!.advanced(by: nonceBytes).assumingMemoryBound(to: UInt8.self)
            let noncePointer = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            associatedData.withUnsafeBytes { ad in
                key.withUnsafeBytes { keyBytes in
                    // Cannot fail for in-range lengths (it always returns 0).
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        cipher, &sealedLength, plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                        ad.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(ad.count), nil,
                        noncePointer, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return sealed
    }

    /// Opens what `seal` produced into `output`, which must hold `openedCount(of:)` of its size, at
    /// least one (the store never seals an empty plaintext). Returns false when the tag does
    /// not verify: wrong key, other associated data, or any changed bit; libsodium then
    /// leaves `output` without any unverified plaintext.
    static func open(_ sealed: Data, associatedData: some ContiguousBytes, key: GuardedBytes,
                     into output: UnsafeMutableRawBufferPointer) -> Bool {
        sealed.withUnsafeBytes { open($0, associatedData: associatedData, key: key, into: output) }
    }

    static func open(_ input: UnsafeRawBufferPointer, associatedData: some ContiguousBytes, key: GuardedBytes,
                     into output: UnsafeMutableRawBufferPointer) -> Bool {
        guard let target = output.baseAddress, input.count >= nonceBytes + tagBytes,
              output.count == input.count - nonceBytes - tagBytes else { return false }
        var openedLength: UInt64 = 0
        let result = associatedData.withUnsafeBytes { ad in
            key.withUnsafeBytes { keyBytes in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    target.assumingMemoryBound(to: UInt8.self),
                    &openedLength, nil,
                    input.baseAddress!.advanced(by: nonceBytes).assumingMemoryBound(to: UInt8.self),
                    UInt64(input.count - nonceBytes),
                    ad.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(ad.count),
                    input.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return result == 0 && Int(openedLength) == output.count
    }

    /// The plaintext length of a sealed blob, or nil when it is too short to be one.
    static func openedCount(of sealedCount: Int) -> Int? {
        let count = sealedCount - nonceBytes - tagBytes
        return count >= 0 ? count : nil
    }

    /// Keyed BLAKE2b of `message`, `length` bytes long.
    static func keyedHash(_ message: Data, key: GuardedBytes, length: Int) -> Data {
        var digest = Data(count: length)
        digest.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { input in
                key.withUnsafeBytes { keyBytes in
                    // Cannot fail for the sizes used here (16...64-byte output, 32-byte key).
                    _ = crypto_generichash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), length,
                                           input.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(input.count),
                                           keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
                }
            }
        }
        return digest
    }

    /// Keyed BLAKE2b over input fed in pieces, so that hot paths (every item name) hash their
    /// fields where they lie instead of first copying them into one buffer.
    struct KeyedHasher: ~Copyable {
        // libsodium's state wants 64-byte alignment (Swift imports it as opaque and cannot place one).
        private let state: UnsafeMutableRawPointer
        private let length: Int

        /// Starts a `length`-byte digest (16...64) under `key`.
        init(key: GuardedBytes, length: Int) {
            self.length = length
            state = .allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
            key.withUnsafeBytes { keyBytes in
                // Cannot fail for the sizes used here (16...64-byte output, 32-byte key).
                _ = crypto_generichash_init(OpaquePointer(state),
                                            keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count, length)
            }
        }

        deinit {
            // The state is derived from the key.
            sodium_memzero(state, crypto_generichash_statebytes())
            state.deallocate()
        }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            _ = crypto_generichash_update(OpaquePointer(state),
                                          bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        }

        mutating func update<Integer: FixedWidthInteger>(bigEndian value: Integer) {
            withUnsafeBytes(of: value.bigEndian) { update($0) }
        }

        /// `text` as a `ByteWriter.appendField` would write it: u32 length, then the UTF-8 bytes.
        mutating func updateField(_ text: String) {
            var text = text
            text.withUTF8 { bytes in
                update(bigEndian: UInt32(bytes.count))
                update(UnsafeRawBufferPointer(bytes))
            }
        }

        consuming func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: length)
            _ = crypto_generichash_final(OpaquePointer(state), &digest, length)
            return digest
        }
    }

    /// Unkeyed BLAKE2b-256, a checksum against accidental damage.
    static func checksum(_ message: Data) -> Data {
        var digest = Data(count: 32)
        digest.withUnsafeMutableBytes { out in
            message.withUnsafeBytes { input in
                _ = crypto_generichash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), 32,
                                       input.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(input.count), nil, 0)
            }
        }
        return digest
    }

    /// The subkey number `id` of `key` for `context`, which must be a literal of exactly
    /// `crypto_kdf_CONTEXTBYTES` (8) characters: libsodium reads that many bytes.
    static func subkey(of key: GuardedBytes, id: UInt64, context: StaticString) throws -> GuardedBytes {
        try GuardedBytes(count: keyBytes) { out in
            let result = key.withUnsafeBytes { master in
                context.withUTF8Buffer { contextBytes in
                    contextBytes.withMemoryRebound(to: CChar.self) { contextChars in
                        crypto_kdf_derive_from_key(out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, id,
                                                   contextChars.baseAddress!, master.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
            guard result == 0 else {
                throw KeychainError.fileBackend(errSecInternalComponent, "Could not derive a subkey.", failedCall: "crypto_kdf_derive_from_key")
            }
        }
    }
}
