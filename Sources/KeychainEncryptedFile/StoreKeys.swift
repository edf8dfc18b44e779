import FoundationEssentials
import Glibc
import KeychainCore

/// Where an item lives: `items/<bucket>/<file>`.
///
/// Both names are keyed BLAKE2b digests, so they reveal nothing about the item without the
/// master key, and no part of an item's name ever becomes part of a path. The bucket is the
/// digest of what nearly every lookup names (class, service or server, and account), so a
/// get or set opens one small directory however large the store is; the file is the digest of
/// the whole primary key.
struct ItemLocation: Hashable {
    let bucket: String
    let file: String

    static let bucketNameLength = 32
    static let fileNameLength = 64

    static func isBucketName(_ name: String) -> Bool { isHex(name, length: bucketNameLength) }
    static func isFileName(_ name: String) -> Bool { isHex(name, length: fileNameLength) }

    private static func isHex(_ name: String, length: Int) -> Bool {
        name.utf8.count == length && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// An unlocked store's keys: the master key and the subkeys derived from it, all in guarded
/// memory, plus the store id they belong to.
///
/// - The item key seals item files (XChaCha20-Poly1305, random nonce per write).
/// - The name key makes file names (keyed BLAKE2b).
/// Deriving separate subkeys keeps the two uses from ever sharing a key.
final class StoreKeys: Sendable {
    let masterKey: GuardedBytes
    let storeID: Data
    private let itemKey: GuardedBytes
    private let nameKey: GuardedBytes

    static let itemMagic = Data("LKCI".utf8)
    static let itemFormatVersion: UInt16 = 1
    /// The largest plaintext (attributes and secret) one item may have.
    static let maximumPlaintext = 4 * 1024 * 1024
    /// The largest item file that can be valid.
    static let maximumItemFile = maximumPlaintext + 6 + Sodium.nonceBytes + Sodium.tagBytes

    init(masterKey: GuardedBytes, storeID: Data) throws {
        self.masterKey = masterKey
        self.storeID = storeID
        itemKey = try Sodium.subkey(of: masterKey, id: 1, context: "LKCitems")
        nameKey = try Sodium.subkey(of: masterKey, id: 2, context: "LKCnames")
    }

    // MARK: Names

    /// The lookup attributes of each class: those the bucket is named after.
    static func lookupAttributes(of itemClass: ItemClass) -> [AttributeKey] {
        let names = itemClass.nameAttributes
        return [names.group, names.name]
    }

    func location(of key: PrimaryKey) -> ItemLocation {
        // Picked from the components by position, rather than through `key.attributes`, which
        // builds a dictionary: this runs for every item file opened.
        let order = key.itemClass.primaryKeyAttributes
        let lookup = Self.lookupAttributes(of: key.itemClass).map { attribute in
            order.firstIndex(of: attribute).map { key.components[$0] } ?? .string("")
        }
        return ItemLocation(bucket: bucketName(key.itemClass, lookup),
                            file: digest("file", key.itemClass, key.components, length: ItemLocation.fileNameLength / 2))
    }

    /// The one bucket that can hold matches of `query`, or nil when the query leaves a lookup
    /// attribute open and every bucket must be searched.
    func bucket(for query: ItemQuery) -> String? {
        let lookup = Self.lookupAttributes(of: query.itemClass).compactMap { query.constraints[$0] }
        guard lookup.count == Self.lookupAttributes(of: query.itemClass).count else { return nil }
        return bucketName(query.itemClass, lookup)
    }

    private func bucketName(_ itemClass: ItemClass, _ values: [AttributeValue]) -> String {
        let key = BucketNameKey(itemClass: itemClass, values: values)
        if let known = knownBucketNames.withLock({ $0[key] }) { return known }
        let name = digest("bucket", itemClass, values, length: ItemLocation.bucketNameLength / 2)
        knownBucketNames.withLock { names in
            if names.count >= Self.knownBucketNamesLimit { names.removeAll(keepingCapacity: true) }
            names[key] = name
        }
        return name
    }

    private struct BucketNameKey: Hashable {
        let itemClass: ItemClass
        let values: [AttributeValue]
    }

    /// Bucket names computed before: a get needs the same one twice (for the query, then to
    /// check the item it opened), and each is a keyed BLAKE2b, several times the cost of a
    /// lookup here. Emptied when full, so its size stays bounded. It holds only item names,
    /// which this process has in memory anyway while it works on them.
    private let knownBucketNames = Locked<[BucketNameKey: String]>([:])
    private static let knownBucketNamesLimit = 1024

    /// Keyed digest of a purpose, a class and typed values, each length-prefixed so that no two
    /// different inputs encode alike.
    ///
    /// The pieces are hashed where they lie: this runs two or three times per get, and copying
    /// them into one buffer first cost more than all of a get's file operations together.
    private func digest(_ purpose: String, _ itemClass: ItemClass, _ values: [AttributeValue], length: Int) -> String {
        var hasher = Sodium.KeyedHasher(key: nameKey, length: length)
        hasher.updateField(purpose)
        hasher.updateField(itemClass.rawValue)
        for value in values {
            hasher.update(bigEndian: UInt8(value.kindTag))
            hasher.updateField(value.encoded)
        }
        return hexString(hasher.finalize())
    }

    // MARK: Item files

    /// The contents of the item file for `item` at its location.
    ///
    /// Layout: "LKCI", u16 format version (1), 24-byte nonce, then the sealed `ItemPlaintext`.
    /// The associated data is the magic, the version, the store id and the location, so a
    /// file moved to another name, another store, or read as another version fails to open.
    func sealedFile(for item: KeychainItem) throws -> Data {
        let plaintext = ItemPlaintext.encode(item)
        guard plaintext.count <= Self.maximumPlaintext else {
            throw KeychainError.fileBackend(errSecDataTooLarge,
                "The item with \(item.primaryKey.readableName) is \(plaintext.count) bytes; the encrypted-file store holds at most \(Self.maximumPlaintext) per item.")
        }
        var writer = ByteWriter()
        writer.append(Self.itemMagic)
        writer.append(Self.itemFormatVersion)
        let location = location(of: item.primaryKey)
        writer.append(plaintext.withUnsafeBytes { Sodium.seal($0, associatedData: associatedData(location), key: itemKey) })
        return writer.bytes
    }

    /// Opens an item file found at `location`. Anything that does not verify, or that decodes
    /// to an item that does not belong at `location`, is `errSecDecode` naming `path` (only
    /// built on failure: a search opens many files).
    func openFile(_ contents: Data, at location: ItemLocation, path: @autoclosure () -> String) throws -> KeychainItem {
        do {
            let plaintext = try contents.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                guard try reader.take(4, "magic").elementsEqual(Self.itemMagic) else { throw MalformedBytes("it is not a keychain item file") }
                let version = try reader.integer(UInt16.self, "format version")
                guard version == Self.itemFormatVersion else {
                    throw MalformedBytes("format version \(version); this library reads version \(Self.itemFormatVersion) only")
                }
                return try open(try reader.take(reader.remaining, "sealed item"), at: location)
            }
            let item = try ItemPlaintext.decode(plaintext)
            guard self.location(of: item.primaryKey) == location else { throw MalformedBytes("it holds another item than its name says") }
            return item
        } catch let malformed as MalformedBytes {
            throw KeychainError.damagedFile(path(), malformed.reason)
        }
    }

    private func open(_ sealed: UnsafeRawBufferPointer, at location: ItemLocation) throws -> SecretBytes {
        guard let count = Sodium.openedCount(of: sealed.count), count > 0 else { throw MalformedBytes("it is too short") }
        let associatedData = associatedData(location)
        return try SecretBytes(count: count) { out in
            guard Sodium.open(sealed, associatedData: associatedData, key: itemKey, into: out) else {
                throw MalformedBytes("it does not verify under this store's key: altered, truncated, or copied from elsewhere")
            }
        }
    }

    private func associatedData(_ location: ItemLocation) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.itemMagic.count + 2 + storeID.count + ItemLocation.bucketNameLength + 1 + ItemLocation.fileNameLength)
        bytes += Self.itemMagic
        withUnsafeBytes(of: Self.itemFormatVersion.bigEndian) { bytes += $0 }
        bytes += storeID
        bytes += location.bucket.utf8
        bytes.append(UInt8(ascii: "/"))
        bytes += location.file.utf8
        return bytes
    }
}

extension AttributeValue {
    /// A stable number per kind, for unambiguous encodings.
    var kindTag: Int {
        switch kind {
        case .string: return 0
        case .data: return 1
        case .integer: return 2
        case .bool: return 3
        case .date: return 4
        }
    }
}
