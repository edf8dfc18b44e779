#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed C call: its name and the errno it left, read right after the call.
package struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The C function that failed, as its manual page names it (`open`, `keyctl_read`).
    package let call: String
    package let errno: Errno

    package init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// The C library's text for the errno (`strerror`).
    package var reason: String { errno.description }

    package var description: String { "\(call): \(reason)" }
}

/// Runs a C call that signals failure by returning -1 and setting errno.
///
/// errno is read immediately after the call, before anything else can overwrite it. With
/// `retryOnInterrupt` (the default) an `EINTR` failure is repeated, since the call did nothing;
/// pass `false` for calls whose interrupted form must reach the caller. Never use this for
/// `close`: see `closeDescriptor`.
@discardableResult
package func syscall<Result: FixedWidthInteger & SignedInteger>(
    _ call: String, retryOnInterrupt: Bool = true, _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let errno = Errno.current
        if retryOnInterrupt && errno == .interrupted { continue }
        throw SystemCallError(call: call, errno: errno)
    }
}

/// Closes a descriptor, once. On Linux the descriptor is gone even when `close` fails
/// (`EINTR` included), so retrying could close a descriptor another thread just opened, and an
/// `EINTR` failure is no failure at all.
package func closeDescriptor(_ descriptor: Int32) throws(SystemCallError) {
    if close(descriptor) == -1 {
        let errno = Errno.current
        if errno != .interrupted { throw SystemCallError(call: "close", errno: errno) }
    }
}
