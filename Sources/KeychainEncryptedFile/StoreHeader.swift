import CSodium
import FoundationEssentials
import Glibc
import KeychainCore

/// The store header, the file `store-header`: the versioned KDF settings and the master key
/// wrapped under the passphrase, 191 bytes, integers big-endian:
///
///     "LKCS"  u16 version (1)  u8 KDF (2 = Argon2id 1.3)  u64 passes  u64 memory  16 salt
///     16 store id  32 key commitment = BLAKE2b(key: master key, "LinuxKeychain key commitment" || store id)
///     24 nonce  48 master key sealed with XChaCha20-Poly1305, associated data = all of the above
///     32 BLAKE2b-256 checksum of everything before it
///
/// The checksum tells damage (`errSecDecode`) from a wrong passphrase (`errSecAuthFailed`); the
/// associated data stops deliberate changes, such as a lowered KDF cost. See docs/file.md#format-version-1.
struct StoreHeader {
    static let fileName = "store-header"
    static let magic = Data("LKCS".utf8)
    static let formatVersion: UInt16 = 1
    static let argon2idAlgorithm = UInt8(crypto_pwhash_ALG_ARGON2ID13)
    static let saltBytes = Int(crypto_pwhash_SALTBYTES)
    static let storeIDBytes = 16
    static let commitmentBytes = 32
    static let checksumBytes = 32
    static let wrappedKeyBytes = Sodium.nonceBytes + Sodium.keyBytes + Sodium.tagBytes
    static let size = 4 + 2 + 1 + 8 + 8 + saltBytes + storeIDBytes + commitmentBytes + wrappedKeyBytes + checksumBytes

    let kdf: KDFParameters
    let salt: Data
    /// Random per store; binds every item to this store.
    let storeID: Data
    /// Lets a master key from the cache be checked against this store without the passphrase.
    let keyCommitment: Data
    let wrappedMasterKey: Data

    /// The fields the wrapping authenticates.
    private var authenticatedPart: Data {
        var writer = ByteWriter()
        writer.append(Self.magic)
        writer.append(Self.formatVersion)
        writer.append(Self.argon2idAlgorithm)
        writer.append(kdf.operations)
        writer.append(kdf.memoryBytes)
        writer.append(salt)
        writer.append(storeID)
        writer.append(keyCommitment)
        return writer.bytes
    }

    var encoded: Data {
        let body = authenticatedPart + wrappedMasterKey
        return body + Sodium.checksum(body)
    }

    private init(kdf: KDFParameters, salt: Data, storeID: Data, keyCommitment: Data, wrappedMasterKey: Data) {
        self.kdf = kdf
        self.salt = salt
        self.storeID = storeID
        self.keyCommitment = keyCommitment
        self.wrappedMasterKey = wrappedMasterKey
    }

    /// A header for `masterKey` in store `storeID`, wrapped under `passphrase` with a fresh salt.
    init(wrapping masterKey: GuardedBytes, storeID: Data, passphrase: SecretBytes, kdf: KDFParameters) throws {
        let salt = Sodium.randomData(Self.saltBytes)
        let unsealed = StoreHeader(kdf: kdf, salt: salt, storeID: storeID,
                                   keyCommitment: Self.commitment(to: masterKey, storeID: storeID), wrappedMasterKey: Data())
        let wrappingKey = try kdf.deriveKey(from: passphrase, salt: salt)
        let wrapped = masterKey.withUnsafeBytes { Sodium.seal($0, associatedData: unsealed.authenticatedPart, key: wrappingKey) }
        self.init(kdf: kdf, salt: salt, storeID: storeID, keyCommitment: unsealed.keyCommitment, wrappedMasterKey: wrapped)
    }

    /// Parses a header file. Anything malformed, of an unknown version or with KDF settings
    /// outside the accepted range is `errSecDecode` naming `path`, before any hashing.
    init(parsing data: Data, path: String) throws {
        do {
            self = try data.withUnsafeBytes { raw throws(MalformedBytes) in
                var reader = ByteReader(raw)
                guard Data(try reader.take(4, "magic")) == Self.magic else { throw MalformedBytes("it is not a keychain store header") }
                let version = try reader.integer(UInt16.self, "format version")
                guard version == Self.formatVersion else {
                    throw MalformedBytes("format version \(version); this library reads version \(Self.formatVersion) only")
                }
                guard raw.count == Self.size else { throw MalformedBytes("it is \(raw.count) bytes instead of \(Self.size)") }
                let body = Data(raw[0..<(Self.size - Self.checksumBytes)])
                guard Sodium.checksum(body) == Data(raw[(Self.size - Self.checksumBytes)...]) else {
                    throw MalformedBytes("its checksum does not match")
                }
                guard try reader.integer(UInt8.self, "KDF algorithm") == Self.argon2idAlgorithm else {
                    throw MalformedBytes("unknown key derivation algorithm")
                }
                let kdf = KDFParameters(operations: try reader.integer(UInt64.self, "Argon2 passes"),
                                        memoryBytes: try reader.integer(UInt64.self, "Argon2 memory"))
                guard kdf.isAcceptable else {
                    throw MalformedBytes("Argon2id settings t=\(kdf.operations), m=\(kdf.memoryBytes) bytes are outside the accepted range (t \(KDFParameters.minimum.operations)...\(KDFParameters.maximum.operations), m \(KDFParameters.minimum.memoryBytes)...\(KDFParameters.maximum.memoryBytes))")
                }
                return StoreHeader(kdf: kdf, salt: try reader.data(Self.saltBytes, "salt"),
                                   storeID: try reader.data(Self.storeIDBytes, "store id"),
                                   keyCommitment: try reader.data(Self.commitmentBytes, "key commitment"),
                                   wrappedMasterKey: try reader.data(Self.wrappedKeyBytes, "wrapped key"))
            }
        } catch let malformed as MalformedBytes {
            throw KeychainError.damagedFile(path, malformed.reason)
        }
    }

    /// The master key, or nil when `passphrase` is not the one it was wrapped with (or the
    /// authenticated part was altered, which looks the same by design).
    func unwrapMasterKey(with passphrase: SecretBytes) throws -> GuardedBytes? {
        let wrappingKey = try kdf.deriveKey(from: passphrase, salt: salt)
        let associatedData = authenticatedPart
        var opened = true
        let masterKey = try GuardedBytes(count: Sodium.keyBytes) { out in
            opened = Sodium.open(wrappedMasterKey, associatedData: associatedData, key: wrappingKey, into: out)
        }
        guard opened, matches(masterKey) else { return nil }
        return masterKey
    }

    /// Whether `masterKey` is this store's, in constant time.
    func matches(_ masterKey: GuardedBytes) -> Bool {
        Self.commitment(to: masterKey, storeID: storeID).withUnsafeBytes { expected in
            keyCommitment.withUnsafeBytes { stored in
                stored.count == expected.count && sodium_memcmp(stored.baseAddress!, expected.baseAddress!, stored.count) == 0
            }
        }
    }

    private static func commitment(to masterKey: GuardedBytes, storeID: Data) -> Data {
        Sodium.keyedHash(Data("LinuxKeychain key commitment".utf8) + storeID, key: masterKey, length: commitmentBytes)
    }
}
