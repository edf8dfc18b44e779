#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
public import Musl
#endif
public import FoundationEssentials

/// Secret bytes held in memory that is zeroed when released.
///
/// Every secret inside the library lives in one of these. The contents are never turned into
/// a `String`, never printed and never put into an error: `description` says only that the
/// value is redacted. Copies handed out with `makeData()` are the caller's to clear.
public final class SecretBytes: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    // Immutable after init, which is what makes the unchecked Sendable sound.
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into fresh storage.
    public init(copying bytes: UnsafeRawBufferPointer) {
        storage = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        if let base = bytes.baseAddress, bytes.count > 0 {
            storage.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
        }
        count = bytes.count
    }

    /// Copies the bytes of `data`. The caller still owns, and should clear, `data`.
    public convenience init(_ data: Data) {
        self.init(count: data.count) { target in
            data.withUnsafeBytes { source in target.copyMemory(from: source) }
        }
    }

    /// Lets `initializer` write exactly `count` bytes into the new storage.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        self.count = count
        // Every stored property is set, so if `initializer` throws, Swift runs `deinit`, which
        // zeroes and frees the storage; freeing it here as well would be a double free.
        try initializer(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    deinit {
        SecretBytes.zero(storage)
        storage.deallocate()
    }

    /// The number of secret bytes.
    public let count: Int

    /// Whether the secret has no bytes.
    public var isEmpty: Bool { count == 0 }

    /// Reads the secret without copying it. Do not let the pointer escape.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// A copy as `Data`, for APIs such as `SecItemCopyMatching` that must hand one out.
    public func makeData() -> Data {
        withUnsafeBytes { Data($0) }
    }

    /// Compares in time that depends only on the lengths, not on where the bytes differ.
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in
                var difference: UInt8 = 0
                for index in 0..<count { difference |= mine[index] ^ theirs[index] }
                return difference == 0
            }
        }
    }

    /// Never the secret: `SecretBytes(redacted)`.
    public var description: String { "SecretBytes(redacted)" }
    /// Never the secret, as `description`.
    public var debugDescription: String { description }

    /// Zeroes memory in a way the optimizer may not remove.
    public static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }

    /// Zeroes the contents of a `Data` that held a secret, in place.
    public static func zero(_ data: inout Data) {
        data.withUnsafeMutableBytes { zero($0) }
    }
}
