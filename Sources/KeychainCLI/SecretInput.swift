import FoundationEssentials
import Glibc
import KeychainEncryptedFile
import KeychainCore
import KeychainSystemCalls
import KeychainBuiltInBackends

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
        // Read straight into storage that is zeroed whenever it grows or is released: a growing
        // Data would leave its earlier, unzeroed copies in the heap.
        let collected = SecretAccumulator(initialCapacity: 64 * 1024)
        while true {
            let count: Int
            do {
                count = try collected.append(atLeast: 64 * 1024) { free in
                    try syscall("read") { Glibc.read(STDIN_FILENO, free.baseAddress, free.count) }
                }
            } catch {
                throw KeychainError(errSecIO, "could not read the secret from standard input (\(error))",
                                    failedCall: "read")
            }
            if count == 0 { break }
            guard collected.count <= maximumSize else {
                throw KeychainError(errSecDataTooLarge, "the secret on standard input is larger than \(maximumSize) bytes")
            }
        }
        return collected.makeSecretBytes()
    }
}
