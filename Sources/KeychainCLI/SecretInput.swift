import Foundation
import KeychainEncryptedFile
import KeychainCore
import KeychainSystemCalls
import LinuxKeychain

/// Reads a secret from standard input.
enum SecretInput {
    /// Largest secret accepted from standard input; far above any backend's own limit, it only
    /// keeps a stray pipe from filling memory.
    static let maximumSize = 16 * 1024 * 1024

    /// On a terminal, prompts on it and reads one line without echo (the newline is not
    /// part of the secret). Otherwise reads standard input to its end and keeps every byte,
    /// so binary secrets and trailing newlines survive exactly, like `secret-tool store`.
    static func read(prompt: String) throws -> SecretBytes {
        if isatty(STDIN_FILENO) == 1 {
            // The same no-echo reader the file backend asks for its passphrase with, which
            // turns echo off before showing the prompt so nothing typed early is echoed.
            return try TerminalPrompt.readPassphrase(prompt: prompt)
        }
        var data = Data()
        defer { SecretBytes.zero(&data) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        defer { chunk.withUnsafeMutableBytes { SecretBytes.zero($0) } }
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { chunk in try syscall("read") { Glibc.read(STDIN_FILENO, chunk.baseAddress, chunk.count) } }
            } catch {
                throw KeychainError(errSecIO, "could not read the secret from standard input", failedCall: "read")
            }
            if count == 0 { break }
            guard data.count + count <= maximumSize else {
                throw KeychainError(errSecDataTooLarge, "the secret on standard input is larger than \(maximumSize) bytes")
            }
            data.append(contentsOf: chunk[0..<count])
        }
        return SecretBytes(data)
    }
}
