import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc
import KeychainCore

/// The records of a target: the attributes of many items in a few `user` keys, so that an
/// item costs one key of the user's quota, its item key.
///
/// The record of bucket B of a target is the `user` key `linux-keychain:records:SERIAL:B` (`ItemRecord` gives the
/// payload), and an item's entry is in bucket `nameHash & (count - 1)`. Writers hold the target's `KeyringRecordLock`
/// from reading a record to writing it back. The bucket count only doubles, when a record grows past `splitThreshold`;
/// every record states the count it was written for, record 0 the target's, and a split writes each upper record before
/// it rewrites its lower one, record 0 last, so readers follow a record that states a higher count, and the next writer
/// finishes a split a killed writer left. A record other than record 0 that loses its last entry is unlinked.
/// docs/keyring.md ("The records") has the whole argument.
struct ItemRecords: Sendable {
    let kernel: KernelKeys

    static func recordDescription(_ target: key_serial_t, bucket: Int) -> String {
        "linux-keychain:records:\(target):\(bucket)"
    }

    /// The 64-bit FNV-1a hash of the item key's name: its entry's name, and its bucket. Pinned with the record format.
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
    static let maximumLog2BucketCount: UInt8 = 20

    private static func bucket(_ hash: UInt64, _ log2: UInt8) -> Int { Int(hash & ((1 << UInt64(log2)) - 1)) }

    // MARK: - Reading

    /// The entry of the item `description` names in `target`'s records, or nil when it has none.
    func entry(named description: ItemKeyDescription, in target: key_serial_t) throws -> ItemRecordEntry? {
        let hash = Self.nameHash(description)
        for _ in 0..<2 {
            switch try reader(for: target).locate(hash, from: RecordKnowledge.log2BucketCount(of: target)) {
            case .found(let entry): return entry
            case .absent: return nil
            case .countTooHigh:
                // Remembered from a keyring of the same serial that is gone.
                RecordKnowledge.forgetCount(of: target)
            }
        }
        return nil
    }

    enum Location {
        case found(ItemRecordEntry)
        case absent
        /// A record states a lower count than the one started from, which record 0 never does.
        case countTooHigh
    }

    /// Where the entry `hash` is, starting from bucket count `1 << log2` (record 0's, now or
    /// earlier) and following records that state a higher one; `record` reads a bucket's record.
    static func locate(_ hash: UInt64, from log2: UInt8, in record: (Int) throws -> ItemRecord?) throws -> Location {
        var log2 = log2
        for _ in 0..<Int(maximumLog2BucketCount) + 1 {
            guard let found = try record(bucket(hash, log2)) else { return .absent }
            if found.log2BucketCount == log2 { return found.entry(hash).map(Location.found) ?? .absent }
            if found.log2BucketCount < log2 { return .countTooHigh }
            log2 = found.log2BucketCount
        }
        return .countTooHigh
    }

    /// `target`'s records as one lookup or listing reads them: each record read once, when an entry in it is first
    /// asked for, so that a listing pays for the records of the items it finds, not for every record.
    func reader(for target: key_serial_t) -> RecordReader { RecordReader(records: self, target: target) }

    final class RecordReader {
        private let records: ItemRecords
        private let target: key_serial_t
        private var read: [Int: ItemRecord?] = [:]

        fileprivate init(records: ItemRecords, target: key_serial_t) {
            self.records = records
            self.target = target
        }

        /// The entry `hash` names, where a reader would find it; nil when it has none.
        func entry(_ hash: UInt64) throws -> ItemRecordEntry? {
            if case .found(let entry) = try locate(hash, from: nil) { return entry }
            return nil
        }

        /// Where the entry `hash` is, starting from the bucket count `known` (remembered from
        /// record 0) or else from record 0's, which is then remembered.
        func locate(_ hash: UInt64, from known: UInt8?) throws -> Location {
            let log2: UInt8
            if let known {
                log2 = known
            } else {
                guard let first = try record(0) else { return .absent }
                log2 = first.log2BucketCount
                RecordKnowledge.remember(log2BucketCount: log2, of: target)
            }
            return try ItemRecords.locate(hash, from: log2, in: record)
        }

        private func record(_ bucket: Int) throws -> ItemRecord? {
            if let known = read[bucket] { return known }
            let record = try records.readRecord(target, bucket: bucket)?.record
            read[bucket] = record
            return record
        }
    }

    /// The record of `bucket` in `target` and its serial, or nil when it has none.
    func readRecord(_ target: key_serial_t, bucket: Int) throws -> (serial: key_serial_t, record: ItemRecord)? {
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
            } catch let failure as KeyctlFailure where kernel.isUnlinkedKey(failure, key, in: target) {
                // Remembered from a keyring of the same serial that is gone, or unlinked since (by hand, by a write).
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
    /// makes of the current one (nil: none); writes nothing when `change` returns it as it
    /// was. The caller holds the target's `KeyringRecordLock`.
    func changeEntryLocked(_ hash: UInt64, in target: key_serial_t,
                                 _ change: (ItemRecordEntry?) throws -> ItemRecordEntry?) throws {
        var (log2, bucket, current) = try currentRecord(for: hash, in: target)
        let old = current?.record.entry(hash)
        let new = try change(old)
        if new == old { return }
        func changed() -> ItemRecord {
            var record = current?.record ?? ItemRecord(log2BucketCount: log2, entries: [])
            record.replace(hash, with: new)
            return record
        }
        var record = changed()
        if record.isEmpty, bucket != 0, let current, current.record.log2BucketCount == log2,
           (try? kernel.unlink(current.serial, from: target)) != nil {
            // A missing record reads as an empty one: taken away, it gives its key back to the quota and costs listings
            // nothing. (Not record 0, which states the count, nor one a split left stating another count.)
            RecordKnowledge.forget(target, bucket: bucket)
            return
        }
        var payload = record.encoded()
        if payload.count > Self.splitThreshold, log2 < Self.maximumLog2BucketCount,
           (try? split(target, to: log2 + 1)) != nil {
            (log2, bucket, current) = try currentRecord(for: hash, in: target)
            record = changed()
            payload = record.encoded()
        }
        guard payload.count <= KernelKeys.maximumPayload else {
            throw KeychainError.keyring(errSecDiskFull,
                "The item record \(Self.recordDescription(target, bucket: bucket)) is full and the key quota has no room to split it; raise /proc/sys/kernel/keys/maxkeys and maxbytes.")
        }
        try writeRecord(payload, of: target, bucket: bucket, over: current?.serial)
    }

    /// The bucket of `hash` and its record, after finishing a split an interrupted writer left.
    private func currentRecord(for hash: UInt64, in target: key_serial_t) throws
        -> (log2: UInt8, bucket: Int, record: (serial: key_serial_t, record: ItemRecord)?) {
        for _ in 0..<2 {
            let first = try readRecord(target, bucket: 0)
            let log2 = first?.record.log2BucketCount ?? 0
            RecordKnowledge.remember(log2BucketCount: log2, of: target)
            let bucket = Self.bucket(hash, log2)
            let current = bucket == 0 ? first : try readRecord(target, bucket: bucket)
            guard let current, current.record.log2BucketCount > log2 else { return (log2, bucket, current) }
            try split(target, to: log2 + 1)
        }
        throw KeychainError.keyring(errSecIO,
            "The item records in keyring \(target) could not be brought to one bucket count; try again.")
    }

    /// Doubles `target`'s bucket count to `1 << log2`, or finishes doing so (see the type's comment for the order).
    /// Throws, with record 0 still stating the old count, when the quota has no room for the new records.
    private func split(_ target: key_serial_t, to log2: UInt8) throws {
        let half = 1 << Int(log2 - 1)
        var unusedUpper: Int?
        do {
            // Record 0 last: it states the target's count.
            for bucket in Array(1..<half) + [0] {
                guard let (serial, record) = try readRecord(target, bucket: bucket),
                      record.log2BucketCount == log2 - 1 else { continue }
                let moving = record.entries.filter { Self.bucket($0.nameHash, log2) != bucket }
                try writeRecord(ItemRecord(log2BucketCount: log2, entries: moving).encoded(), of: target,
                                bucket: bucket + half, over: nil)
                unusedUpper = bucket + half
                let staying = record.entries.filter { Self.bucket($0.nameHash, log2) == bucket }
                try writeRecord(ItemRecord(log2BucketCount: log2, entries: staying).encoded(), of: target,
                                bucket: bucket, over: serial)
                unusedUpper = nil
            }
        } catch {
            // An upper record whose lower one was not rewritten is never read; it only costs quota.
            if let unusedUpper { try? unlinkRecord(of: target, bucket: unusedUpper) }
            throw error
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
            let key = try payload.withUnsafeBytes { try kernel.placeUserKey(description, payload: $0, in: target, exclusive: false) }
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

    private static let known = Locked(Known())

    static func log2BucketCount(of target: key_serial_t) -> UInt8? { known.withLock { $0.log2BucketCounts[target] } }

    static func remember(log2BucketCount: UInt8, of target: key_serial_t) {
        known.withLock { $0.log2BucketCounts[target] = log2BucketCount }
    }

    static func serial(of target: key_serial_t, bucket: Int) -> key_serial_t? { known.withLock { $0.serials[target]?[bucket] } }

    static func remember(serial: key_serial_t, of target: key_serial_t, bucket: Int) {
        known.withLock { $0.serials[target, default: [:]][bucket] = serial }
    }

    static func forgetCount(of target: key_serial_t) { known.withLock { _ = $0.log2BucketCounts.removeValue(forKey: target) } }

    static func forget(_ target: key_serial_t, bucket: Int) {
        known.withLock { _ = $0.serials[target]?.removeValue(forKey: bucket) }
    }
}
