import CSodium
import KeychainCore

/// Key material in libsodium's guarded memory: `sodium_malloc` places it between guard pages,
/// locks it into RAM (`mlock`, so it is never swapped out) and excludes it from core dumps;
/// `sodium_free` zeroes it before release.
///
/// Holds keys only (master key, derived keys, the passphrase-derived key). Immutable after
/// initialization, which makes the unchecked Sendable sound.
final class GuardedBytes: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer
    let count: Int

    /// Lets `fill` write exactly `count` bytes into fresh guarded memory.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        try Sodium.ensureInitialized()
        guard let allocated = sodium_malloc(count) else {
            throw KeychainError.fileBackend(errSecAllocate, "Could not allocate guarded memory for a key.", failedCall: "sodium_malloc")
        }
        // Fill before storing: a class init that throws once every property is set still runs
        // deinit, which would free the memory a second time.
        do {
            try fill(UnsafeMutableRawBufferPointer(start: allocated, count: count))
        } catch {
            sodium_free(allocated)
            throw error
        }
        pointer = allocated
        self.count = count
    }

    /// `count` random bytes.
    convenience init(randomCount count: Int) throws {
        try self.init(count: count) { buffer in randombytes_buf(buffer.baseAddress!, buffer.count) }
    }

    deinit { sodium_free(pointer) }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
