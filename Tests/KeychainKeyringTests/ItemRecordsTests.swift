import CKeyutils
import Foundation
import Glibc
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// The records (`ItemRecords`, `ItemRecordFormat`): the pinned format, and the bucket
/// count that doubles as a target grows, including a split left half done by a killed process.
///
/// Each test works in a keyring of its own, nested in the default target, whose serial no
/// other test has seen (the process remembers what it learned per serial).
@Suite("kernel keyring item records")
struct ItemRecordsTests {
    let kernel = KernelKeys()

    // MARK: - Pinned

    @Test func theNamesAndTheHashArePinned() throws {
        #expect(ItemRecords.recordDescription(526362194, bucket: 3) == "linux-keychain:records:526362194:3")
        #expect(KeyringRecordLock.lockDescription(526362194) == "linux-keychain:lock:526362194")
        let description = try #require(ItemKeyDescription(parsing: "linux-keychain:genp:myapp:alice"))
        #expect(ItemRecords.nameHash(description) == 0x1882_e8e4_c01a_4c5d)
        #expect(ItemLookup.emptySecretPlaceholder == [0])
    }

    static let pinnedRecord = "4c4b5201010807060504030201443322110101046c61626c02004869040061677270"

    @Test func theRecordPayloadIsPinned() throws {
        let entry = ItemRecordEntry(nameHash: 0x0102_0304_0506_0708, itemKey: 0x1122_3344, secretIsEmpty: true,
                                    inAttributesKey: false, attributes: ["labl": "Hi"], unset: "agrp")
        let record = ItemRecord(log2BucketCount: 1, entries: [entry])
        #expect(record.encoded().map { String(format: "%02x", $0) }.joined() == Self.pinnedRecord)
        let bytes = stride(from: 0, to: Self.pinnedRecord.count, by: 2).map { offset -> UInt8 in
            let start = Self.pinnedRecord.index(Self.pinnedRecord.startIndex, offsetBy: offset)
            return UInt8(Self.pinnedRecord[start..<Self.pinnedRecord.index(start, offsetBy: 2)], radix: 16)!
        }
        #expect(ItemRecord(decoding: bytes) == record)
        // Anything else is not a record: another magic, a truncated entry, unknown flags.
        #expect(ItemRecord(decoding: [0x4C, 0x4B, 0x52, 0x02, 0]) == nil)
        #expect(ItemRecord(decoding: Array(bytes.dropLast())) == nil)
        var flagged = bytes
        flagged[17] = 4
        #expect(ItemRecord(decoding: flagged) == nil)
    }

    /// Found by the keyring-record fuzz target (Fuzz/Targets/keyring-record.swift): two entries
    /// of one name hash, the first with text that is not UTF-8. A lookup saw the first (and
    /// answered "not found"), a listing the second, and a delete removed only the first, which
    /// would bring the second back. No writer makes such a record, so it is not one.
    @Test func aRecordWithTwoEntriesOfOneNameHashIsNotARecord() {
        func entry(_ hash: UInt64, label: [UInt8]) -> [UInt8] {
            withUnsafeBytes(of: hash.littleEndian, Array.init) + [0, 0, 0, 0, 0, 1, 4] + Array("labl".utf8)
                + withUnsafeBytes(of: UInt16(label.count).littleEndian, Array.init) + label + [0, 0]
        }
        let header = ItemRecord.magic + [0]
        #expect(ItemRecord(decoding: header + entry(7, label: [0xFF]) + entry(7, label: Array("a".utf8))) == nil)
        #expect(ItemRecord(decoding: header + entry(7, label: Array("a".utf8)) + entry(7, label: Array("b".utf8))) == nil)
        let distinct = ItemRecord(decoding: header + entry(7, label: [0xFF]) + entry(8, label: Array("a".utf8)))
        #expect(distinct?.entries.map(\.nameHash) == [8])
    }

    // MARK: - Growing

    /// Enough items, with labels, to split the records more than once.
    func fill(_ backend: KernelKeyringBackend, _ service: String, count: Int) throws {
        for index in 0..<count {
            try backend.add(genericItem(service, "user\(index)", Data("secret-\(index)".utf8),
                                        extra: [.label: .string("The label of item \(index)")]))
        }
    }

    func log2BucketCount(_ target: key_serial_t) throws -> UInt8 {
        let record = try kernel.search(target, type: "user", description: ItemRecords.recordDescription(target, bucket: 0))
        return try #require(ItemRecord(decoding: try kernel.readPublicPayload(record))).log2BucketCount
    }

    func expectEveryItem(_ backend: KernelKeyringBackend, _ service: String, count: Int,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        for index in 0..<count {
            let found = try backend.search(primaryKeyQuery(service, "user\(index)", secrets: true)).first
            #expect(found?.secret?.makeData() == Data("secret-\(index)".utf8), "user\(index)", sourceLocation: sourceLocation)
            #expect(found?.attributes[.label] == .string("The label of item \(index)"), sourceLocation: sourceLocation)
        }
        let listed = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                               limit: .all, includeSecrets: false)
        #expect(try backend.search(listed).count == count, "the listing", sourceLocation: sourceLocation)
    }

    @Test func theBucketCountDoublesAsItemsArriveAndEveryItemStaysFound() throws {
        let own = try kernel.ownKeyring("growing")
        defer { own.remove() }
        let service = uniqueService("grow")
        try fill(own.backend, service, count: 300)
        #expect(try log2BucketCount(own.serial) >= 2)
        for bucket in 0..<(1 << Int(try log2BucketCount(own.serial))) {
            let key = try kernel.search(own.serial, type: "user", description: ItemRecords.recordDescription(own.serial, bucket: bucket))
            #expect(try kernel.readPublicPayload(key).count <= 2 * ItemRecords.splitThreshold, "bucket \(bucket)")
        }
        try expectEveryItem(own.backend, service, count: 300)
        // A process that remembered the old count follows the records to the new one.
        let fresh = KernelKeyringBackend(testingIn: own.serial)
        #expect(try fresh.search(primaryKeyQuery(service, "user7", secrets: true)).first?.secret?.makeData()
                == Data("secret-7".utf8))
        let listed = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                               limit: .all, includeSecrets: false)
        #expect(try own.backend.delete(listed) == 300)
        #expect(try ItemRecords(kernel: kernel).allEntries(in: own.serial).isEmpty, "entries outlived their items")
        // The emptied records gave their keys back; record 0, which states the count, stays.
        let records = try kernel.contents(of: own.serial).filter {
            (try? kernel.describe($0).description.hasPrefix("linux-keychain:records:")) == true
        }
        #expect(records.count == 1, "\(records.count) records left after every item was deleted")
        try fill(own.backend, service, count: 40)
        try expectEveryItem(own.backend, service, count: 40)
    }

    /// A process killed in the middle of a split leaves a lower record rewritten (stating the
    /// new count) with record 0 still stating the old one, and an upper record whose lower one
    /// was never rewritten. Readers find every item, and the next writer finishes the split.
    @Test func aSplitLeftHalfDoneIsReadThroughAndFinishedByTheNextWriter() throws {
        let own = try kernel.ownKeyring("half-split")
        defer { own.remove() }
        let service = uniqueService("half")
        try fill(own.backend, service, count: 80)
        let old = try log2BucketCount(own.serial)
        try #require(old >= 1, "too few items to have two lower records")
        let new = old + 1
        let half = 1 << Int(old)
        func record(_ bucket: Int) throws -> (key_serial_t, ItemRecord) {
            let key = try kernel.search(own.serial, type: "user", description: ItemRecords.recordDescription(own.serial, bucket: bucket))
            return (key, try #require(ItemRecord(decoding: try kernel.readPublicPayload(key))))
        }
        func place(_ record: ItemRecord, bucket: Int) throws {
            try record.encoded().withUnsafeBytes {
                _ = try kernel.placeUserKey(ItemRecords.recordDescription(own.serial, bucket: bucket), payload: $0, in: own.serial,
                                            exclusive: false)
            }
        }
        func bucket(_ entry: ItemRecordEntry, _ log2: UInt8) -> Int { Int(entry.nameHash & ((1 << UInt64(log2)) - 1)) }
        // Lower record 1 split as a split does it: its upper one, then itself.
        let (oneKey, one) = try record(1)
        try place(ItemRecord(log2BucketCount: new, entries: one.entries.filter { bucket($0, new) != 1 }), bucket: 1 + half)
        try ItemRecord(log2BucketCount: new, entries: one.entries.filter { bucket($0, new) == 1 }).encoded()
            .withUnsafeBytes { try kernel.update(oneKey, payload: $0) }
        // Lower record 0 not rewritten, but an upper record made for it, empty, before the kill.
        try place(ItemRecord(log2BucketCount: new, entries: []), bucket: half)
        #expect(try log2BucketCount(own.serial) == old)

        try expectEveryItem(KernelKeyringBackend(testingIn: own.serial), service, count: 80)
        // A writer to a record that was not rewritten writes there; one to the rewritten record
        // finishes the split first.
        let untouched = try #require((81..<400).first { index in
            let description = try? ItemKeyDescription(genericItem(service, "user\(index)", Data()).primaryKey)
            return description.map { Int(ItemRecords.nameHash($0) & UInt64(half - 1)) == 0 } ?? false
        })
        try own.backend.add(genericItem(service, "user\(untouched)", Data("u".utf8)))
        #expect(try log2BucketCount(own.serial) == old)
        #expect(try own.backend.search(primaryKeyQuery(service, "user\(untouched)", secrets: true)).first?.secret?.makeData()
                == Data("u".utf8))
        #expect(try own.backend.delete(primaryKeyQuery(service, "user\(untouched)", secrets: false)) == 1)
        try own.backend.add(genericItem(service, "user80", Data("secret-80".utf8), extra: [.label: .string("The label of item 80")]))
        let inRewritten = try #require((81..<400).first { index in
            let description = try? ItemKeyDescription(genericItem(service, "user\(index)", Data()).primaryKey)
            return description.map { Int(ItemRecords.nameHash($0) & UInt64(half - 1)) == 1 } ?? false
        })
        try own.backend.add(genericItem(service, "user\(inRewritten)", Data("r".utf8)))
        #expect(try log2BucketCount(own.serial) >= new, "the writer did not finish the split")
        #expect(try own.backend.delete(primaryKeyQuery(service, "user\(inRewritten)", secrets: false)) == 1)
        try expectEveryItem(own.backend, service, count: 81)
    }

    /// A record stating a bucket count beyond any this version makes (changed by hand, or
    /// damaged) is not valid: a listing says so at once, rather than searching for a billion
    /// records first.
    @Test func aRecordStatingAnImpossibleBucketCountIsADecodeErrorNotAHang() throws {
        let own = try kernel.ownKeyring("huge-count")
        defer { own.remove() }
        let service = uniqueService("huge")
        try own.backend.add(genericItem(service, "acct", Data("s".utf8)))
        let key = try kernel.search(own.serial, type: "user", description: ItemRecords.recordDescription(own.serial, bucket: 0))
        var payload = try kernel.readPublicPayload(key)
        payload[4] = 30
        try payload.withUnsafeBytes { try kernel.update(key, payload: $0) }
        let all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]), limit: .all)
        let start = ContinuousClock.now
        expectKeychainError(errSecDecode) { try own.backend.search(all) }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    // MARK: - Processes

    /// Four `linux-keychain` processes add items to one keyring at once, splitting its records as they
    /// go: every item has its entry (an item without one is not found), and nothing is left twice.
    @Test func processesAddingAtOnceLoseNoEntry() throws {
        guard let cli = ConformanceContext.locateCLI() else { try skipOrFail("the linux-keychain executable was not built") }
        let script = #"""
        exec </dev/null
        cli=$1; per=$2; processes=$3
        p=0
        while [ "$p" -lt "$processes" ]; do
            (
                i=0
                while [ "$i" -lt "$per" ]; do
                    printf 'secret-%d-%d' "$p" "$i" | "$cli" --backend keyring set "proc$p" "user$i" 2>&1 || echo "bad: set proc$p user$i"
                    i=$((i + 1))
                done
            ) &
            p=$((p + 1))
        done
        wait
        p=0
        while [ "$p" -lt "$processes" ]; do
            i=0
            while [ "$i" -lt "$per" ]; do
                got=$("$cli" --backend keyring get "proc$p" "user$i" 2>&1)
                [ "$got" = "secret-$p-$i" ] || echo "bad: proc$p user$i read as: $got"
                i=$((i + 1))
            done
            p=$((p + 1))
        done
        keyctl search @s user "linux-keychain:lock:$(keyctl id @s)" >/dev/null 2>&1 && echo "bad: the lock is left"
        echo "listed: $("$cli" --backend keyring list 2>/dev/null | grep -c proc)"
        """#
        let perProcess = 40, processes = 4
        let result = try runInOwnSessionKeyring(script, cli: cli, ["\(perProcess)", "\(processes)"], timeout: 120)
        #expect(result.status == 0, "the script failed: \(result.status) timed out \(result.timedOut) \(result.errorText)")
        let lines = result.outputText.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("bad") }.isEmpty, "\(lines.filter { $0.hasPrefix("bad") })")
        #expect(lines.contains("listed: \(perProcess * processes)"), "\(lines.last ?? "")")
    }
}
