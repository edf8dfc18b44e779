import FoundationEssentials
import Glibc
import KeychainCore
import KeychainEncryptedFile
import KeychainSystemCalls

/// The passphrase of an export bundle, from the first of: `KEYCHAIN_BUNDLE_PASSPHRASE` (the
/// passphrase itself), `KEYCHAIN_BUNDLE_PASSPHRASE_FILE` (a file holding it; one trailing line
/// ending is not part of it), or a prompt without echo on the terminal (asked twice for export,
/// so a typo cannot make a bundle nobody can open). Never from a command-line argument.
enum BundlePassphrase {
    static let variable = "KEYCHAIN_BUNDLE_PASSPHRASE"
    static let fileVariable = "KEYCHAIN_BUNDLE_PASSPHRASE_FILE"
    private static let maximumLength = 64 * 1024

    static func obtain(for path: String, confirming: Bool) throws -> SecretBytes {
        let environment = ProcessInfo.processInfo.environment
        let passphrase: SecretBytes
        if let value = getenv(variable), value.pointee != 0 {
            passphrase = SecretBytes(copying: UnsafeRawBufferPointer(start: value, count: strlen(value)))
        } else if let file = environment[fileVariable], !file.isEmpty {
            passphrase = try read(file)
        } else if isatty(STDIN_FILENO) == 1 {
            passphrase = try TerminalPrompt.readPassphrase(prompt: "Passphrase for the bundle \(path): ",
                                                           confirmation: confirming ? "Repeat the passphrase: " : nil)
        } else {
            throw KeychainError(errSecAuthFailed, "no passphrase for the bundle \(path): set \(fileVariable) to a file holding it, or \(variable), or run on a terminal to be asked")
        }
        guard !passphrase.isEmpty else {
            throw KeychainError(errSecAuthFailed, "the passphrase for the bundle \(path) is empty")
        }
        return passphrase
    }

    /// The file's bytes, less one trailing `\n` or `\r\n`, read into storage zeroed on release.
    private static func read(_ path: String) throws -> SecretBytes {
        let collected = SecretAccumulator(initialCapacity: 4096)
        do {
            let descriptor = try syscall("open") { open(path, O_RDONLY | O_CLOEXEC) }
            defer { close(descriptor) }
            while try collected.append(atLeast: 4096, { free in
                try syscall("read") { Glibc.read(descriptor, free.baseAddress, free.count) }
            }) > 0 {
                guard collected.count <= maximumLength else {
                    throw KeychainError.badParameter("the passphrase file \(path) (\(fileVariable)) is larger than \(maximumLength) bytes; is it the right file?")
                }
            }
        } catch let error as SystemCallError {
            throw KeychainError(errSecAuthFailed, "could not read the passphrase file \(path) named by \(fileVariable): \(error.reason)", failedCall: error.call)
        }
        let whole = collected.makeSecretBytes()
        return whole.withUnsafeBytes { bytes in
            var end = bytes.count
            if end > 0 && bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
            if end > 0 && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
        }
    }
}
