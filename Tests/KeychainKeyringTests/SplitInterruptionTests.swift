import CKeyutils
import Dispatch
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// A split of the records (`ItemRecords`) interrupted after each of its steps, as a process
/// killed there leaves it: after the upper record of a lower one is written, and after the
/// lower one is rewritten, for every lower record in the order a split takes them (record 0
/// last). Readers find every item; then threads adding and deleting at once (and finishing the
/// split) lose nothing and leave no entry twice.
@Suite("kernel keyring records: a split interrupted at every step")
struct SplitInterruptionTests {
    let kernel = KernelKeys()
    let records = ItemRecordsTests()

    @Test(arguments: 0..<16)
    func aSplitInterruptedAtThisStepLosesNothing(step: Int) throws {
        let own = try kernel.ownKeyring("split-step-\(step)")
        defer { own.remove() }
        let service = uniqueService("step\(step)")
        try records.fill(own.backend, service, count: 80)
        let old = try records.log2BucketCount(own.serial)
        let half = 1 << Int(old)
        let order = Array(1..<half) + [0]
        try #require(old >= 1, "too few items for two lower records")
        guard step <= 2 * order.count else { return }
        let new = old + 1
        let store = ItemRecords(kernel: kernel)
        func bucket(_ entry: ItemRecordEntry, _ log2: UInt8) -> Int { Int(entry.nameHash & ((1 << UInt64(log2)) - 1)) }
        for index in 0..<step {
            let lower = order[index / 2]
            let key = try kernel.search(own.serial, type: "user", description: ItemRecords.recordDescription(own.serial, bucket: lower))
            let record = try #require(ItemRecord(decoding: try kernel.readPublicPayload(key)))
            if index % 2 == 0 {
                let moving = ItemRecord(log2BucketCount: new, entries: record.entries.filter { bucket($0, new) != lower })
                try moving.encoded().withUnsafeBytes {
                    _ = try kernel.placeUserKey(ItemRecords.recordDescription(own.serial, bucket: lower + half), payload: $0,
                                                in: own.serial, exclusive: false)
                }
            } else {
                try ItemRecord(log2BucketCount: new, entries: record.entries.filter { bucket($0, new) == lower }).encoded()
                    .withUnsafeBytes { try kernel.update(key, payload: $0) }
            }
        }
        try records.expectEveryItem(KernelKeyringBackend(testingIn: own.serial), service, count: 80)

        // Four threads, each with a backend of its own: ten adds and five deletes apiece.
        let failures = Locked<[String]>([])
        let target = own.serial
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            let backend = KernelKeyringBackend(testingIn: target)
            do {
                // The test's keyring is nested in the default target, which a thread possesses
                // only once it has linked it into its process keyring (`resolve`).
                _ = try KernelKeys().resolve(nil)
                for index in 0..<10 {
                    let account = "user\(80 + thread * 10 + index)"
                    try backend.add(genericItem(service, account, Data("secret-\(80 + thread * 10 + index)".utf8),
                                                extra: [.label: .string("The label of item \(80 + thread * 10 + index)")]))
                    if index < 5, try backend.delete(primaryKeyQuery(service, "user\(thread * 5 + index)", secrets: false)) != 1 {
                        failures.withLock { $0.append("thread \(thread): user\(thread * 5 + index) was not deleted") }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let reader = KernelKeyringBackend(testingIn: own.serial)
        for index in 0..<20 {
            #expect(try reader.search(primaryKeyQuery(service, "user\(index)", secrets: false)).isEmpty, "user\(index) deleted")
        }
        for index in 20..<120 {
            let found = try reader.search(primaryKeyQuery(service, "user\(index)", secrets: true)).first
            #expect(found?.secret?.makeData() == Data("secret-\(index)".utf8), "user\(index)")
        }
        let listed = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                               limit: .all, includeSecrets: false)
        #expect(try reader.search(listed).count == 100)
        #expect(try store.allEntries(in: own.serial).count == 100, "entries left over or lost")
    }
}
