/// Collects secret bytes of unknown length (a secret piped to standard input) in storage that
/// is zeroed whenever it is let go: when it grows, the old storage is zeroed before it is
/// freed, unlike a growing `Data` or `Array`, whose reallocation leaves the earlier copy in
/// the heap.
package final class SecretAccumulator {
    private var storage: UnsafeMutableRawBufferPointer
    /// How many bytes have been filled.
    package private(set) var count = 0
    private let release: (UnsafeMutableRawBufferPointer) -> Void

    /// `release` frees storage after it was zeroed; tests observe it, everyone else keeps the
    /// default, which deallocates.
    package init(initialCapacity: Int = 4096,
                release: @escaping (UnsafeMutableRawBufferPointer) -> Void = { $0.deallocate() }) {
        storage = .allocate(byteCount: max(initialCapacity, 1), alignment: 1)
        self.release = release
    }

    deinit {
        SecretBytes.zero(storage)
        release(storage)
    }

    /// Room for at least `minimum` more bytes at the end, for `fill` to write into; `fill`
    /// returns how many it wrote (or a negative number, passed through, for a failed read).
    package func append(atLeast minimum: Int, _ fill: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        if storage.count - count < minimum { grow(toHold: count + minimum) }
        let free = UnsafeMutableRawBufferPointer(rebasing: storage[count...])
        let written = try fill(free)
        if written > 0 { count += min(written, free.count) }
        return written
    }

    /// The bytes collected so far, copied into `SecretBytes`.
    package func makeSecretBytes() -> SecretBytes {
        SecretBytes(copying: UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    private func grow(toHold needed: Int) {
        var capacity = storage.count
        while capacity < needed { capacity *= 2 }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[0..<count]))
        SecretBytes.zero(storage)
        release(storage)
        storage = larger
    }
}

/// Not Sendable: it is filled in place by one reader at a time.
@available(*, unavailable)
extension SecretAccumulator: Sendable {}
