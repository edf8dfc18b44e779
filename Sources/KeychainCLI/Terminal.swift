import Foundation
import KeychainCore
import KeychainSystemCalls
import LinuxKeychain

/// Writing to the standard streams.
enum Terminal {
    /// Writes one line to stderr, prefixed with the program name, and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("keychain: \(message)\n".utf8))
        exit(status)
    }

    /// Writes text to stdout.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes the secret's exact bytes to stdout, with no newline added, straight from its
    /// zeroed-on-release storage.
    static func writeSecret(_ secret: SecretBytes) throws {
        try secret.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written: Int
                do {
                    written = try syscall("write") { Glibc.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset) }
                } catch let error as SystemCallError {
                    throw KeychainError(errSecIO, "could not write to standard output: \(error.reason)", failedCall: "write")
                }
                offset += written
            }
        }
    }
}
