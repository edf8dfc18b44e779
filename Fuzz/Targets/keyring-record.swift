import Foundation
@testable import KeychainCore
@testable import KeychainKeyring

// The kernel keyring's record payload (ItemRecord): read from record keys, which any process
// of the same user can write with `keyctl`.

func fuzzSeeds() -> [Data] {
    var entries = fuzzSampleItems().enumerated().compactMap { index, item in
        ItemRecordEntry(item, nameHash: UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15, itemKey: Int32(1000 + index),
                        secretIsEmpty: item.secret?.count == 0)
    }
    entries.append(.pointingToAttributesKey(nameHash: 42, itemKey: 77, secretIsEmpty: false))
    return [
        ItemRecord(log2BucketCount: 0, entries: []),
        ItemRecord(log2BucketCount: 4, entries: entries),
        ItemRecord(log2BucketCount: ItemRecords.maximumLog2BucketCount, entries: Array(entries.prefix(1))),
    ].map { Data($0.encoded()) }
}

func fuzzCheck(_ input: Data) {
    let payload = [UInt8](input)
    guard var record = ItemRecord(decoding: payload) else { return }
    guard record.encoded() == payload else { fuzzFailure("a decoded record does not keep its bytes") }
    let entries = record.entries
    for entry in entries where record.entry(entry.nameHash) == nil {
        fuzzFailure("an entry of the record is not found by its hash")
    }
    // The entries written into a new record read back the same.
    let rebuilt = ItemRecord(log2BucketCount: record.log2BucketCount, entries: entries)
    guard let reread = ItemRecord(decoding: rebuilt.encoded()), reread.entries == entries else {
        fuzzFailure("a record rebuilt from its entries reads back different entries")
    }
    // Removing entries one by one, as deletes do, leaves a record that still parses.
    for entry in entries {
        record.replace(entry.nameHash, with: nil)
        guard ItemRecord(decoding: record.encoded()) != nil else { fuzzFailure("a record with an entry removed does not parse") }
    }
}
