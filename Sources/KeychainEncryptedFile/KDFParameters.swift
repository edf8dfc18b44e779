import CSodium
import FoundationEssentials
import Glibc
import KeychainCore

/// Argon2id cost settings, as stored in the store header.
///
/// The default is libsodium's INTERACTIVE level, 64 MiB and 2 passes, meant for an unlock a
/// person waits for. That is three times the memory of OWASP's minimum recommendation for
/// Argon2id (19 MiB, 2 passes, 1 lane), and the master-key cache means a user pays it about
/// once per session rather than once per command. Headers are checked against `minimum` and `maximum`
/// *before* any hashing, so an altered header can neither weaken the stretching of the
/// passphrase nor make an unlock allocate gigabytes or run for hours.
public struct KDFParameters: Hashable, Sendable {
    /// Passes over memory (Argon2's t).
    public var operations: UInt64
    /// Memory in bytes (Argon2's m).
    public var memoryBytes: UInt64

    /// Argon2id with `operations` passes over `memoryBytes` of memory.
    public init(operations: UInt64, memoryBytes: UInt64) {
        self.operations = operations
        self.memoryBytes = memoryBytes
    }

    /// libsodium's `crypto_pwhash_argon2id_*_INTERACTIVE`: 2 passes, 64 MiB.
    public static let `default` = KDFParameters(operations: UInt64(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
                                                memoryBytes: UInt64(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))

    /// OWASP's floor for Argon2id: 19 MiB and 2 passes. Nothing weaker is accepted.
    public static let minimum = KDFParameters(operations: 2, memoryBytes: 19 * 1024 * 1024)

    /// Anything above is treated as damage, not a choice: 4 GiB or 32 passes would already
    /// make every unlock take many seconds.
    public static let maximum = KDFParameters(operations: 32, memoryBytes: 4 * 1024 * 1024 * 1024)

    /// Whether these lie between `minimum` and `maximum` (and within libsodium's own limits).
    public var isAcceptable: Bool {
        operations >= Self.minimum.operations && operations <= Self.maximum.operations
            && memoryBytes >= Self.minimum.memoryBytes && memoryBytes <= Self.maximum.memoryBytes
            && operations >= UInt64(crypto_pwhash_argon2id_OPSLIMIT_MIN)
            && memoryBytes >= UInt64(crypto_pwhash_argon2id_MEMLIMIT_MIN)
    }

    /// Derives a key-wrapping key from `passphrase` and `salt` with Argon2id.
    func deriveKey(from passphrase: SecretBytes, salt: Data) throws -> GuardedBytes {
        guard isAcceptable else {
            throw KeychainError.fileBackend(errSecParam, "The Argon2id parameters (t=\(operations), m=\(memoryBytes) bytes) are outside the accepted range.")
        }
        return try GuardedBytes(count: Sodium.keyBytes) { out in
            let result = passphrase.withUnsafeBytes { secret in
                salt.withUnsafeBytes { saltBytes in
                    // Passphrases are never empty (`PassphraseSource.obtain` refuses those).
                    crypto_pwhash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(out.count),
                                  secret.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(secret.count),
                                  saltBytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                  operations, Int(memoryBytes), crypto_pwhash_ALG_ARGON2ID13)
                }
            }
            guard result == 0 else {
                throw KeychainError.fileBackend(errSecAllocate,
                    "Argon2id could not run with \(memoryBytes / 1024 / 1024) MiB of memory; free some memory and retry.",
                    failedCall: "crypto_pwhash")
            }
        }
    }
}
