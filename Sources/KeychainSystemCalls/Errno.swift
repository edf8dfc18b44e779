#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A C `errno` value, named by what it means rather than by its number.
///
/// Each static name says which C constant it stands for, so that `catch Errno.noSuchKey`
/// reads as the C code it replaces (`errno == ENOKEY`). Values this type has no name for are
/// kept as they are: `Errno(rawValue:)` accepts any number.
package struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now. Read it right after the failed call, before anything
    /// else (an allocation, a log line) can overwrite it.
    package static var current: Errno { Errno(rawValue: errno) }

    /// The C library's text for this value (`strerror`), which names no secret.
    package var description: String { String(cString: strerror(rawValue)) }

    /// `EINTR`: a signal arrived before the call finished; the call did nothing and may be repeated.
    package static let interrupted = Errno(rawValue: EINTR)
    /// `EPERM`
    package static let notPermitted = Errno(rawValue: EPERM)
    /// `ENOENT`
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EACCES`
    package static let permissionDenied = Errno(rawValue: EACCES)
    /// `EEXIST`
    package static let fileExists = Errno(rawValue: EEXIST)
    /// `ENOTDIR`
    package static let notDirectory = Errno(rawValue: ENOTDIR)
    /// `ENOTEMPTY`
    package static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    /// `ELOOP`: too many symbolic links, or one met where `O_NOFOLLOW` refuses it.
    package static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    /// `EWOULDBLOCK` (the same number as `EAGAIN` on Linux)
    package static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    /// `ENOMEM`
    package static let noMemory = Errno(rawValue: ENOMEM)
    /// `ENOSPC`
    package static let noSpace = Errno(rawValue: ENOSPC)
    /// `EDQUOT`
    package static let quotaExceeded = Errno(rawValue: EDQUOT)
    /// `EROFS`
    package static let readOnlyFileSystem = Errno(rawValue: EROFS)
    /// `ENOSYS`
    package static let notImplemented = Errno(rawValue: ENOSYS)
    /// `EOPNOTSUPP`
    package static let notSupported = Errno(rawValue: EOPNOTSUPP)
    /// `EBADMSG`
    package static let badMessage = Errno(rawValue: EBADMSG)
    /// `ENOKEY`: no key of that type and description is reachable.
    package static let noSuchKey = Errno(rawValue: ENOKEY)
    /// `EKEYREVOKED`
    package static let keyRevoked = Errno(rawValue: EKEYREVOKED)
    /// `EKEYEXPIRED`
    package static let keyExpired = Errno(rawValue: EKEYEXPIRED)

    /// Lets `catch Errno.noSuchKey` match an `Errno` or a `SystemCallError` carrying it.
    package static func ~= (pattern: Errno, error: any Error) -> Bool {
        switch error {
        case let errno as Errno: return errno == pattern
        case let failure as SystemCallError: return failure.errno == pattern
        default: return false
        }
    }
}
