import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore
import Synchronization

/// Layout 3's records: the attributes of many items in a few `user` keys, so that an item
/// costs one key of the user's quota (its item key) instead of two.
///
/// - The record of bucket B of a target is the `user` key `linux-keychain:records:SERIAL:B`,
///   SERIAL being the target's, linked in the target (`ItemRecord` gives the payload). An
///   item's entry is in bucket `nameHash & (bucketCount - 1)`.
/// - **Writers hold the target's record lock** (`KeyringRecordLock`) from reading a record to
///   writing it back: the kernel has no compare-and-swap of a payload, and two writers would
///   otherwise lose each other's entries. A record is rewritten in place with
///   `keyctl_update`, so a reader sees it before or after a write, never half of one.
/// - **The bucket count only doubles**, when a record grows past `splitThreshold`, so that
///   reads and writes stay small whatever the number of items. Every record states the count
///   it was written for. A split first writes every new upper record (bucket B + half, with
///   the entries that move), then rewrites the lower ones, record 0 first, without them. So a
///   reader that looks an entry up with the count the record it read states always finds it:
///   an old lower record still holds every entry, and a rewritten one sends it to an upper
///   record that is already complete.
/// - Record 0 states the target's count for writers. A writer that finds its bucket's record
///   stating another count found a split interrupted (its process killed) and finishes it
///   before it writes; until then nothing was written after the split began, so the upper
///   records it made are still right.
/// - Records are never removed, and a target's first write creates record 0.
extension ItemKeyrings {
    static func recordDescription(_ target: key_serial_t, bucket: Int) -> String {
        "linux-keychain:records:\(target):\(bucket)"
    }

    /// The 64-bit FNV-1a hash of the item key's description: its entry's name, and its bucket.
    /// Pinned with the record format.
    static func nameHash(_ description: ItemKeyDescription) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var text = description.text
        text.withUTF8 { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return hash
    }

    /// A record over this many bytes makes its writer double the bucket count.
    static let splitThreshold = 2048
    private static let maximumLog2BucketCount: UInt8 = 20

    private static func bucket(_ hash: UInt64, _ log2: UInt8) -> Int { Int(hash & ((1 << UInt64(log2)) - 1)) }

    // MARK: - Reading

    /// The entry of the item `description` names in `target`'s records, or nil when it has none.
    func recordEntry(named description: ItemKeyDescription, in target: key_serial_t) throws -> ItemRecordEntry? {
        let hash = Self.nameHash(description)
        var log2 = RecordKnowledge.log2BucketCount(of: target) ?? 0
        for _ in 0..<Self.recordAttempts {
            let bucket = Self.bucket(hash, log2)
            guard let (_, record) = try readRecord(target, bucket: bucket) else {
                // No record of that bucket: no entry, if the count is right. Record 0 says.
                if bucket == 0 { return nil }
                let first = try readRecord(target, bucket: 0)?.record.log2BucketCount ?? 0
                if first == log2 { return nil }
                log2 = first
                continue
            }
            if record.log2BucketCount != log2 {
                log2 = record.log2BucketCount
                continue
            }
            RecordKnowledge.remember(log2BucketCount: log2, of: target)
            return record.entry(hash)
        }
        throw KeychainError.keyring(errSecIO,
            "The item records in keyring \(target) kept changing during \(Self.recordAttempts) attempts to read them; try again.")
    }

    private static let recordAttempts = 8

    /// Every entry in `target`'s records, by name hash.
    func allRecordEntries(in target: key_serial_t) throws -> [UInt64: ItemRecordEntry] {
        guard let first = try readRecord(target, bucket: 0)?.record else { return [:] }
        var entries: [UInt64: ItemRecordEntry] = [:]
        for bucket in 0..<(1 << Int(first.log2BucketCount)) {
            guard let record = bucket == 0 ? first : try readRecord(target, bucket: bucket)?.record else { continue }
            // A lower record not yet rewritten by a split holds entries its upper record also
            // holds; each entry belongs where the record's own count puts it.
            for entry in record.entries where Self.bucket(entry.nameHash, record.log2BucketCount) == bucket {
                entries[entry.nameHash] = entry
            }
        }
        return entries
    }

    /// The record of `bucket` in `target` and its serial, or nil when it has none.
    private func readRecord(_ target: key_serial_t, bucket: Int) throws -> (serial: key_serial_t, record: ItemRecord)? {
        let description = Self.recordDescription(target, bucket: bucket)
        var serial = RecordKnowledge.serial(of: target, bucket: bucket)
        for _ in 0..<2 {
            if serial == nil {
                do {
                    serial = try kernel.search(target, type: "user", description: description)
                } catch let failure as KeyctlFailure where failure.isNoSuchKey {
                    return nil
                } catch let failure as KeyctlFailure {
                    throw failure.keychainError("looking up the item record \(description)")
                }
            }
            guard let key = serial else { return nil }
            let payload: [UInt8]
            do {
                payload = try kernel.readPublicPayload(key)
            } catch let failure as KeyctlFailure where failure.isNoSuchKey {
                // Remembered from a keyring of the same serial that is gone, or unlinked by hand.
                RecordKnowledge.forget(target, bucket: bucket)
                serial = nil
                continue
            } catch let failure as KeyctlFailure {
                throw failure.keychainError("reading the item record \(description)")
            }
            guard let record = ItemRecord(decoding: payload) else {
                throw KeychainError.keyring(errSecDecode,
                    "The item record \(description) (key \(key)) is not valid; it holds the attributes of several items, which cannot be read until it is repaired.")
            }
            RecordKnowledge.remember(serial: key, of: target, bucket: bucket)
            return (key, record)
        }
        return nil
    }

    // MARK: - Writing

    /// Replaces the entry whose name hash is `hash` in `target`'s records with what `change`
    /// makes of the current one (nil: none). The caller holds the target's `KeyringRecordLock`.
    func changeRecordEntryLocked(_ hash: UInt64, in target: key_serial_t,
                                 _ change: (ItemRecordEntry?) throws -> ItemRecordEntry?) throws {
        var (bucket, current) = try currentRecord(for: hash, in: target)
        let new = try change(current?.record.entry(hash))
        var record = current?.record ?? ItemRecord(log2BucketCount: 0, entries: [])
        record.entries.removeAll { $0.nameHash == hash }
        if let new { record.entries.append(new) }
        var payload = record.encoded()
        if payload.count > Self.splitThreshold, record.log2BucketCount < Self.maximumLog2BucketCount,
           (try? split(target, to: record.log2BucketCount + 1)) != nil {
            (bucket, current) = try currentRecord(for: hash, in: target)
            record = current?.record ?? ItemRecord(log2BucketCount: record.log2BucketCount + 1, entries: [])
            record.entries.removeAll { $0.nameHash == hash }
            if let new { record.entries.append(new) }
            payload = record.encoded()
        }
        guard payload.count <= Self.maximumPayload else {
            throw KeychainError.keyring(errSecDiskFull,
                "The item record \(Self.recordDescription(target, bucket: bucket)) is full and the key quota has no room to split it; raise /proc/sys/kernel/keys/maxkeys and maxbytes.")
        }
        try writeRecord(payload, of: target, bucket: bucket, over: current?.serial)
    }

    /// The bucket of `hash` and its record, after finishing a split an interrupted writer left.
    private func currentRecord(for hash: UInt64, in target: key_serial_t) throws
        -> (bucket: Int, record: (serial: key_serial_t, record: ItemRecord)?) {
        let first = try readRecord(target, bucket: 0)
        let log2 = first?.record.log2BucketCount ?? 0
        let bucket = Self.bucket(hash, log2)
        let current = bucket == 0 ? first : try readRecord(target, bucket: bucket)
        guard let current, current.record.log2BucketCount != log2 else { return (bucket, current) }
        try split(target, to: log2)
        return (bucket, try readRecord(target, bucket: bucket))
    }

    /// Doubles `target`'s bucket count to `1 << log2`, or finishes doing so (see the type's
    /// comment for the order). Throws, leaving the count as it was, when the quota has no
    /// room for the new records.
    private func split(_ target: key_serial_t, to log2: UInt8) throws {
        let half = 1 << Int(log2 - 1)
        var lower: [(bucket: Int, serial: key_serial_t, record: ItemRecord)] = []
        var created: [Int] = []
        do {
            for bucket in 0..<half {
                guard let (serial, record) = try readRecord(target, bucket: bucket),
                      record.log2BucketCount == log2 - 1 else { continue }
                let moving = record.entries.filter { Self.bucket($0.nameHash, log2) != bucket }
                try writeRecord(ItemRecord(log2BucketCount: log2, entries: moving).encoded(), of: target,
                                bucket: bucket + half, over: nil)
                created.append(bucket + half)
                lower.append((bucket, serial, ItemRecord(log2BucketCount: log2,
                                                         entries: record.entries.filter { Self.bucket($0.nameHash, log2) == bucket })))
            }
        } catch {
            // Nothing says the new count yet: the upper records made so far are unused.
            for bucket in created { try? unlinkRecord(of: target, bucket: bucket) }
            throw error
        }
        for entry in lower {
            try writeRecord(entry.record.encoded(), of: target, bucket: entry.bucket, over: entry.serial)
        }
        RecordKnowledge.remember(log2BucketCount: log2, of: target)
    }

    /// Writes `payload` as the record of `bucket`: in place over `serial`, else as a new key
    /// displacing any left by an interrupted split.
    private func writeRecord(_ payload: [UInt8], of target: key_serial_t, bucket: Int, over serial: key_serial_t?) throws {
        let description = Self.recordDescription(target, bucket: bucket)
        do {
            if let serial {
                try payload.withUnsafeBytes { try kernel.update(serial, payload: $0) }
                return
            }
            let key = try payload.withUnsafeBytes {
                try addKey(description, payload: $0, to: target, exclusive: false, permissions: Self.keyPermissions)
            }
            RecordKnowledge.remember(serial: key, of: target, bucket: bucket)
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("writing the item record \(description)")
        }
    }

    private func unlinkRecord(of target: key_serial_t, bucket: Int) throws {
        guard let serial = RecordKnowledge.serial(of: target, bucket: bucket) else { return }
        RecordKnowledge.forget(target, bucket: bucket)
        try kernel.unlink(serial, from: target)
    }
}

/// What this process remembers of its targets' records: the bucket count last seen, and the
/// serial of each record (a record keeps its serial, as it is rewritten in place).
private enum RecordKnowledge {
    private struct Known {
        var log2BucketCounts: [key_serial_t: UInt8] = [:]
        var serials: [key_serial_t: [Int: key_serial_t]] = [:]
    }

    private static let known = Mutex(Known())

    static func log2BucketCount(of target: key_serial_t) -> UInt8? { known.withLock { $0.log2BucketCounts[target] } }

    static func remember(log2BucketCount: UInt8, of target: key_serial_t) {
        known.withLock { $0.log2BucketCounts[target] = log2BucketCount }
    }

    static func serial(of target: key_serial_t, bucket: Int) -> key_serial_t? { known.withLock { $0.serials[target]?[bucket] } }

    static func remember(serial: key_serial_t, of target: key_serial_t, bucket: Int) {
        known.withLock { $0.serials[target, default: [:]][bucket] = serial }
    }

    static func forget(_ target: key_serial_t, bucket: Int) {
        known.withLock { _ = $0.serials[target]?.removeValue(forKey: bucket) }
    }
}
