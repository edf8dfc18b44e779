import Foundation

/// The details of the last failed keychain call on the current thread.
///
/// Apple's SecItem functions return only a status; this keeps the full error (which backend,
/// which underlying call, what to do) for the typed API, the CLI and for logging by the caller.
/// It never holds a secret, because `KeychainError` never does.
public enum KeychainLastError {
    private static let threadKey = "LinuxKeychain.lastError"

    /// The last error recorded on this thread, or nil if the last call succeeded.
    public static var current: KeychainError? {
        Thread.current.threadDictionary[threadKey] as? KeychainError
    }

    /// Records the outcome of a call: the error, or nil for success.
    public static func record(_ error: KeychainError?) {
        Thread.current.threadDictionary[threadKey] = error
    }
}
