import KeychainCore
import KeychainBuiltInBackends

/// The exit statuses `linux-keychain` documents in its help and man page; scripts rely on them.
enum CLIStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let notFound: Int32 = 3
    static let duplicate: Int32 = 4
    static let locked: Int32 = 5
    static let unavailable: Int32 = 6

    /// Every status with its meaning, for the help text and the man page.
    static let documented: [(status: Int32, meaning: String)] = [
        (success, "success"),
        (failure, "any other failure"),
        (usage, "usage error (wrong command, option or operand)"),
        (notFound, "the item does not exist"),
        (duplicate, "the item already exists (add), or items conflict with the target's (migrate, import)"),
        (locked, "the store is locked and would need a prompt to unlock"),
        (unavailable, "the backend cannot run here (or, for backends, no backend is usable)"),
    ]

    static func exitStatus(for error: KeychainError) -> Int32 {
        switch error.status {
        case errSecItemNotFound: return notFound
        case errSecDuplicateItem: return duplicate
        case errSecInteractionNotAllowed: return locked
        case errSecNotAvailable: return unavailable
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
