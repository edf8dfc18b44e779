#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import KeychainCore
import KeychainSystemCalls

/// Apple's handle for a random number generator; the only one is `kSecRandomDefault`.
public typealias SecRandomRef = OpaquePointer

/// The default generator. It is NULL on Apple platforms too; any value means the kernel's CSPRNG.
nonisolated(unsafe) public let kSecRandomDefault: SecRandomRef? = nil

/// Fills `bytes` with `count` cryptographically secure random bytes from the kernel's
/// generator (`/dev/urandom`, which never blocks once the kernel is seeded), as
/// `SecRandomCopyBytes` does on Apple platforms.
///
/// Returns `errSecSuccess`, or `errSecParam` for a negative count, or `errSecIO` when the
/// kernel cannot supply them; it never hands out predictable bytes.
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    guard count > 0 else { return errSecSuccess }
    guard let source = try? syscall("open", { open("/dev/urandom", O_RDONLY | O_CLOEXEC) }) else { return errSecIO }
    defer { _ = try? closeDescriptor(source) }  // read-only: a failed close loses nothing
    var filled = 0
    while filled < count {
        guard let got = try? syscall("read", { read(source, bytes + filled, count - filled) }), got > 0 else { return errSecIO }
        filled += got
    }
    return errSecSuccess
}
