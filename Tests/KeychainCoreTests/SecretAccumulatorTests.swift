import KeychainCore
import Testing

@Suite("SecretAccumulator")
struct SecretAccumulatorTests {
    /// Every piece of storage the accumulator lets go of, as it grows and when it is released,
    /// holds only zeros by then; and the bytes come out exactly.
    @Test func storageIsZeroedWheneverItIsLetGo() throws {
        nonisolated(unsafe) var released: [[UInt8]] = []
        let pattern = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251 + 1) }
        do {
            let accumulator = SecretAccumulator(initialCapacity: 16) { storage in
                released.append(Array(storage))
                storage.deallocate()
            }
            var offset = 0
            while offset < pattern.count {
                let step = min(7_001, pattern.count - offset)
                _ = accumulator.append(atLeast: step) { free in
                    free.copyBytes(from: pattern[offset..<offset + step])
                    return step
                }
                offset += step
            }
            let collected = accumulator.makeSecretBytes()
            #expect(collected.withUnsafeBytes { Array($0) } == pattern)
            #expect(released.count >= 5, "it grew only \(released.count) times")
        }
        #expect(released.count >= 6, "the final storage was not released")
        for (index, storage) in released.enumerated() {
            #expect(storage.allSatisfy { $0 == 0 }, "storage \(index) of \(storage.count) bytes was freed unzeroed")
        }
    }
}
