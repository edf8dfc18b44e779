import CKeyutils
import FoundationEssentials
import Glibc
import KeychainCore

/// One item's entry in a record (`ItemRecords`): the item's attributes outside its primary key in a few bytes, since
/// every byte counts against the user's key quota. `attributes` and `unset` mean what they mean in `StoredAttributes`.
struct ItemRecordEntry: Equatable, Sendable {
    /// `ItemRecords.nameHash` of the item key's name.
    var nameHash: UInt64
    /// The item key's serial when the entry was written: a key of that name with another serial
    /// is the item only if linked in the target itself (replaced with `keyctl add`), not nested.
    var itemKey: key_serial_t
    /// The item key holds one placeholder byte, as the kernel refuses an empty `user` key.
    var secretIsEmpty: Bool
    /// Attributes too large for an entry live in its `AttributesKey`; `attributes`, `unset` are empty.
    var inAttributesKey: Bool
    var attributes: [String: String]
    var unset: String?

    /// Entries larger than this keep their attributes in an attributes key.
    static let maximumEncodedSize = 1024

    /// The same attributes as `StoredAttributes`, for building the item.
    var storedAttributes: StoredAttributes { StoredAttributes(attributes: attributes, unset: unset) }

    /// An entry that sends readers to the item's attributes key.
    static func pointingToAttributesKey(nameHash: UInt64, itemKey: key_serial_t, secretIsEmpty: Bool) -> ItemRecordEntry {
        ItemRecordEntry(nameHash: nameHash, itemKey: itemKey, secretIsEmpty: secretIsEmpty, inAttributesKey: true,
                        attributes: [:], unset: nil)
    }

    var encodedSize: Int {
        var size = 8 + 4 + 1 + 1
        for (name, value) in attributes { size += 1 + name.utf8.count + 2 + value.utf8.count }
        return size + 2 + (unset?.utf8.count ?? 0)
    }
}

extension ItemRecordEntry {
    /// The attributes of `item` as an entry, or nil when they take more than `maximumEncodedSize`.
    init?(_ item: KeychainItem, nameHash: UInt64, itemKey: key_serial_t, secretIsEmpty: Bool) {
        let stored = StoredAttributes(item, storedIn: nil)
        self.init(nameHash: nameHash, itemKey: itemKey, secretIsEmpty: secretIsEmpty,
                  inAttributesKey: false, attributes: stored.attributes, unset: stored.unset)
        guard encodedSize <= Self.maximumEncodedSize else { return nil }
    }
}

/// The payload of one record key: a header, then entries, all little-endian.
///
/// ```
/// record: "LKR" 0x01 (format 1) | log2 of the bucket count: UInt8 | entry*
/// entry:  name hash: UInt64 | item key serial: Int32 | flags: UInt8 (1: empty secret,
///         2: attributes in the attributes key) | field count: UInt8 |
///         field*: name length UInt8, name, value length UInt16, value |
///         unset length: UInt16, unset (comma-separated attribute names)
/// ```
///
/// This format is pinned (`ItemRecordsTests`, docs/pinned-formats.md).
struct ItemRecord: Equatable, Sendable {
    static let magic: [UInt8] = [0x4C, 0x4B, 0x52, 0x01]

    /// The payload as read or to be written: bytes, so that one entry is decoded or encoded alone.
    private(set) var bytes: [UInt8]
    /// Where each entry's bytes are, in order.
    private var spans: [(hash: UInt64, range: Range<Int>)]

    static func == (left: ItemRecord, right: ItemRecord) -> Bool { left.bytes == right.bytes }

    /// The record belongs to a target with `1 << log2BucketCount` buckets.
    var log2BucketCount: UInt8 {
        get { bytes[4] }
        set { bytes[4] = newValue }
    }

    init(log2BucketCount: UInt8, entries: [ItemRecordEntry]) {
        bytes = Self.magic + [log2BucketCount]
        spans = []
        for entry in entries { append(entry) }
    }

    /// Parses a record payload; nil for bytes this format does not describe, including two
    /// entries of one name hash, which no writer makes (lookups and deletes find the first).
    init?(decoding payload: [UInt8]) {
        // A count beyond any a writer makes would have a listing look for that many records.
        guard payload.count >= 5, payload.prefix(4).elementsEqual(Self.magic),
              payload[4] <= ItemRecords.maximumLog2BucketCount else { return nil }
        var reader = Reader(bytes: payload, offset: 5)
        var spans: [(hash: UInt64, range: Range<Int>)] = []
        var hashes = Set<UInt64>()
        while !reader.isAtEnd {
            let start = reader.offset
            guard let hash = reader.integer(UInt64.self), reader.skip(4), let flags = reader.byte(), flags & ~3 == 0,
                  let count = reader.byte() else { return nil }
            for _ in 0..<count {
                guard let nameLength = reader.byte(), reader.skip(Int(nameLength)),
                      let valueLength = reader.integer(UInt16.self), reader.skip(Int(valueLength)) else { return nil }
            }
            guard let unsetLength = reader.integer(UInt16.self), reader.skip(Int(unsetLength)),
                  hashes.insert(hash).inserted else { return nil }
            spans.append((hash, start..<reader.offset))
        }
        bytes = payload
        self.spans = spans
    }

    func encoded() -> [UInt8] { bytes }

    var isEmpty: Bool { spans.isEmpty }

    /// Every entry, decoded; nil entries (text that is not UTF-8) are left out.
    var entries: [ItemRecordEntry] { spans.compactMap { decode($0.range) } }

    func entry(_ nameHash: UInt64) -> ItemRecordEntry? {
        spans.first { $0.hash == nameHash }.flatMap { decode($0.range) }
    }

    /// The record with the entry of `nameHash` removed, and `entry` (if any) appended.
    mutating func replace(_ nameHash: UInt64, with entry: ItemRecordEntry?) {
        if let index = spans.firstIndex(where: { $0.hash == nameHash }) {
            let range = spans[index].range
            bytes.removeSubrange(range)
            spans.remove(at: index)
            for later in index..<spans.count {
                let moved = spans[later].range
                spans[later].range = (moved.lowerBound - range.count)..<(moved.upperBound - range.count)
            }
        }
        if let entry { append(entry) }
    }

    private mutating func append(_ entry: ItemRecordEntry) {
        let start = bytes.count
        Self.append(entry.nameHash, to: &bytes)
        Self.append(UInt32(bitPattern: entry.itemKey), to: &bytes)
        bytes.append((entry.secretIsEmpty ? 1 : 0) | (entry.inAttributesKey ? 2 : 0))
        bytes.append(UInt8(entry.attributes.count))
        // Sorted, so that one record always encodes to the same bytes.
        for (name, value) in entry.attributes.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            bytes.append(UInt8(name.utf8.count))
            bytes.append(contentsOf: name.utf8)
            Self.append(UInt16(value.utf8.count), to: &bytes)
            bytes.append(contentsOf: value.utf8)
        }
        let unset = Array((entry.unset ?? "").utf8)
        Self.append(UInt16(unset.count), to: &bytes)
        bytes.append(contentsOf: unset)
        spans.append((entry.nameHash, start..<bytes.count))
    }

    /// The entry in `range`, which `init(decoding:)` checked for shape.
    private func decode(_ range: Range<Int>) -> ItemRecordEntry? {
        var reader = Reader(bytes: bytes, offset: range.lowerBound)
        guard let hash = reader.integer(UInt64.self), let serial = reader.integer(UInt32.self),
              let flags = reader.byte(), let count = reader.byte() else { return nil }
        var attributes: [String: String] = Dictionary(minimumCapacity: Int(count))
        for _ in 0..<count {
            guard let nameLength = reader.byte(), let name = reader.text(Int(nameLength)),
                  let valueLength = reader.integer(UInt16.self), let value = reader.text(Int(valueLength)) else { return nil }
            attributes[name] = value
        }
        guard let unsetLength = reader.integer(UInt16.self), let unset = reader.text(Int(unsetLength)) else { return nil }
        return ItemRecordEntry(nameHash: hash, itemKey: key_serial_t(bitPattern: serial), secretIsEmpty: flags & 1 != 0,
                               inAttributesKey: flags & 2 != 0, attributes: attributes, unset: unset.isEmpty ? nil : unset)
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        var isAtEnd: Bool { offset == bytes.count }

        mutating func skip(_ count: Int) -> Bool {
            guard count <= bytes.count - offset else { return false }
            offset += count
            return true
        }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
            let size = MemoryLayout<Integer>.size
            guard size <= bytes.count - offset else { return nil }
            var value = Integer(0)
            for index in (offset..<offset + size).reversed() { value = value << 8 | Integer(bytes[index]) }
            offset += size
            return value
        }

        mutating func text(_ count: Int) -> String? {
            guard count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return String(validating: bytes[offset..<offset + count], as: UTF8.self)
        }
    }
}
