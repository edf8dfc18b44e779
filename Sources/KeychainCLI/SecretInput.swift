import Foundation
import LinuxKeychain

/// Reads a secret from standard input.
enum SecretInput {
    /// Largest secret accepted from standard input; far above any backend's own limit, it only
    /// keeps a stray pipe from filling memory.
    static let maximumSize = 16 * 1024 * 1024

    /// On a terminal, prompts on stderr and reads one line without echo (the newline is not
    /// part of the secret). Otherwise reads standard input to its end and keeps every byte,
    /// so binary secrets and trailing newlines survive exactly, like `secret-tool store`.
    static func read(prompt: String) throws -> SecretBytes {
        if isatty(STDIN_FILENO) == 1 {
            return try readWithoutEcho(prompt: prompt)
        }
        var data = Data()
        defer { SecretBytes.zero(&data) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        defer { chunk.withUnsafeMutableBytes { SecretBytes.zero($0) } }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
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

    private static func readWithoutEcho(prompt: String) throws -> SecretBytes {
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        let canRestore = tcgetattr(STDIN_FILENO, &original) == 0
        if canRestore {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if canRestore { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        var line = Data()
        defer { SecretBytes.zero(&line) }
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        byte = 0
        return SecretBytes(line)
    }
}
