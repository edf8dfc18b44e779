import KeychainCore
import LinuxKeychain

/// The exit statuses `keychain` documents in its usage text; scripts rely on them.
enum CLIStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let notFound: Int32 = 3
    static let duplicate: Int32 = 4

    static func exitStatus(for error: KeychainError) -> Int32 {
        switch error.status {
        case errSecItemNotFound: return notFound
        case errSecDuplicateItem: return duplicate
        default: return failure
        }
    }

    /// One line for stderr. It carries the backend and the failing call when known, because
    /// that is what an operator needs; `KeychainError` guarantees it holds no secret.
    static func describe(_ error: KeychainError) -> String {
        var text = error.message
        if let backend = error.backend { text = "\(backend): " + text }
        if let call = error.failedCall { text += " (\(call))" }
        return text
    }
}
