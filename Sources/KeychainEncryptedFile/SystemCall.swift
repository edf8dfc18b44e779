#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import KeychainCore

/// A failed C call: its name and the errno it left, read right after the call.
struct SystemCallFailure: Error {
    let call: String
    let code: Int32

    var reason: String { String(cString: strerror(code)) }
}

/// Runs a C call that signals failure by returning -1 and setting errno, retrying `EINTR`.
///
/// errno is read immediately after the call, before anything else can overwrite it. Do not
/// use this for `close`, which must not be retried on Linux.
@discardableResult
func systemCall<Result: BinaryInteger>(_ name: String, _ body: () -> Result) throws(SystemCallFailure) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code != EINTR { throw SystemCallFailure(call: name, code: code) }
    }
}

/// Closes a descriptor, once. On Linux the descriptor is gone even when `close` fails
/// (`EINTR` included), so retrying could close a descriptor another thread just opened.
func closeDescriptor(_ descriptor: Int32) throws(SystemCallFailure) {
    if close(descriptor) == -1 {
        let code = errno
        if code != EINTR { throw SystemCallFailure(call: "close", code: code) }
    }
}

extension KeychainError {
    /// A failed file operation on the store, with a status that says what kind of failure it
    /// was: a full disk, a read-only place, or an I/O error.
    static func fileStore(_ failure: SystemCallFailure, _ doing: String, _ path: String) -> KeychainError {
        let status: OSStatus
        let advice: String
        switch failure.code {
        case ENOSPC, EDQUOT:
            status = errSecDiskFull
            advice = " Free some space; the previous contents were kept."
        case EROFS, EACCES, EPERM:
            status = errSecReadOnly
            advice = " Make the store directory writable (KEYCHAIN_FILE_DIR), or use another one."
        default:
            status = errSecIO
            advice = ""
        }
        return KeychainError(status, "Could not \(doing) \(path): \(failure.reason).\(advice)",
                             backend: EncryptedFileBackend.backendName, failedCall: failure.call)
    }

    /// `errSecDecode` for a file of the store that is damaged or was tampered with.
    static func damagedFile(_ path: String, _ what: String) -> KeychainError {
        KeychainError(errSecDecode,
                      "The keychain file \(path) is damaged or was altered (\(what)); it was not used. Restore it from a backup or delete it.",
                      backend: EncryptedFileBackend.backendName)
    }

    /// An error raised by this backend.
    static func fileBackend(_ status: OSStatus, _ message: String, failedCall: String? = nil) -> KeychainError {
        KeychainError(status, message, backend: EncryptedFileBackend.backendName, failedCall: failedCall)
    }
}
