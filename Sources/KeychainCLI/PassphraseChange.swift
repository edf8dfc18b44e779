import FoundationEssentials
import Glibc
import KeychainEncryptedFile
import KeychainCore
import KeychainBuiltInBackends

/// `linux-keychain passwd`: re-wraps the encrypted-file store's master key under a new passphrase.
///
/// The current passphrase comes from the backend's usual source (KEYCHAIN_FILE_PASSPHRASE,
/// KEYCHAIN_FILE_PASSPHRASE_FILE or the terminal) and is always checked, even while the store
/// is unlocked in the cache. The new one is typed twice on a terminal, or read from standard
/// input (one trailing newline dropped, as for a passphrase file).
enum PassphraseChange {
    static func run(backendName: String?) throws {
        if let backendName, backendName != EncryptedFileBackend.backendName {
            throw UsageError("passwd changes the passphrase of the '\(EncryptedFileBackend.backendName)' backend only, not '\(backendName)'")
        }
        let registered = try KeychainBackendRegistry.withBuiltIns.backend(named: EncryptedFileBackend.backendName)
        guard let backend = registered as? EncryptedFileBackend else {
            throw KeychainError(errSecUnimplemented, "the '\(EncryptedFileBackend.backendName)' backend was replaced by one without passphrases")
        }
        if case .unavailable(let reason) = backend.availability() { throw reason.attributed(to: backend.name) }
        try backend.changePassphrase(to: try newPassphrase())
        Terminal.note("the passphrase was changed; update KEYCHAIN_FILE_PASSPHRASE or KEYCHAIN_FILE_PASSPHRASE_FILE to match.")
    }

    private static func newPassphrase() throws -> SecretBytes {
        if isatty(STDIN_FILENO) == 1 {
            return try TerminalPrompt.readPassphrase(prompt: "New passphrase: ", confirmation: "Repeat the new passphrase: ")
        }
        let input = try SecretInput.read(prompt: "")
        return input.withUnsafeBytes { bytes in
            var length = bytes.count
            if length > 0 && bytes[length - 1] == UInt8(ascii: "\n") { length -= 1 }
            if length > 0 && bytes[length - 1] == UInt8(ascii: "\r") { length -= 1 }
            return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
        }
    }
}
