public import FoundationEssentials
import Glibc

/// `error.localizedDescription` is the message, which says what went wrong and what to do,
/// rather than Foundation's "The operation could not be completed. (KeychainCore.KeychainError
/// error 1.)": that is what SwiftUI alerts and most loggers show. `description` keeps the
/// backend, the failing call and the status for logs.
extension KeychainError: LocalizedError {
    /// The message, e.g. "The Secret Service keyring 'login' is locked; unlock it ...".
    public var errorDescription: String? { message }

    /// Which backend and call failed, and Apple's status, when known.
    public var failureReason: String? {
        var parts: [String] = []
        if let backend { parts.append("backend \(backend)") }
        if let failedCall { parts.append("call \(failedCall)") }
        parts.append("OSStatus \(status)")
        return parts.joined(separator: ", ")
    }
}
