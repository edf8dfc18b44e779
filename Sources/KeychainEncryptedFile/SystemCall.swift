import KeychainCore
import KeychainSystemCalls

extension KeychainError {
    /// A failed file operation on the store, with a status that says what kind of failure it
    /// was (a full disk, a read-only place, or an I/O error), as `Errno.status(on: .files)` says.
    static func fileStore(_ failure: SystemCallError, _ doing: String, _ path: String) -> KeychainError {
        let status = failure.errno.status(on: .files)
        let advice: String
        switch status {
        case errSecDiskFull: advice = " Free some space; the previous contents were kept."
        case errSecReadOnly: advice = " Make the store directory writable (KEYCHAIN_FILE_DIR), or use another one."
        default: advice = ""
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

    /// `error` itself when it is a KeychainError, else an errSecIO naming it.
    static func fileBackend(_ error: any Error) -> KeychainError {
        (error as? KeychainError) ?? .fileBackend(errSecIO, "\(error)")
    }
}
