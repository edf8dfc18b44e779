import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls
import KeychainBuiltInBackends

/// Writing to the standard streams.
///
/// Every write goes through `write(2)` and is checked, unlike `FileHandle.write(_:)`, which
/// crashes the process when a stream is full or closed (`> /dev/full`, a reader that went away
/// with SIGPIPE ignored): stdout that cannot be written is a failure with exit status 1, and
/// stderr that cannot be written is given up on, keeping the exit status.
enum Terminal {
    /// Writes one line to stderr, prefixed with the program name, and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        note(message)
        exit(status)
    }

    /// Writes one line to stderr, prefixed with the program name; a stderr that cannot be
    /// written is ignored.
    static func note(_ message: String) {
        try? writeAll(Data("\(KeychainVersion.command): \(message)\n".utf8), to: STDERR_FILENO)
    }

    /// Redraws one counter line on stderr (a terminal), ending it with a newline when `done`.
    static func progress(_ text: String, done: Bool) {
        try? writeAll(Data("\r\u{1B}[K\(KeychainVersion.command): \(text)\(done ? "\n" : "")".utf8), to: STDERR_FILENO)
    }

    /// Writes text to stdout, or fails the command when stdout cannot take it.
    static func write(_ text: String) {
        do {
            try writeAll(Data(text.utf8), to: STDOUT_FILENO)
        } catch {
            fail("could not write to standard output: \(error.reason)", status: CLIStatus.failure)
        }
    }

    /// Writes the secret's exact bytes to stdout, with no newline added, straight from its
    /// zeroed-on-release storage.
    static func writeSecret(_ secret: SecretBytes) throws {
        var failure: SystemCallError?
        secret.withUnsafeBytes { bytes in
            do throws(SystemCallError) { try writeAll(bytes, to: STDOUT_FILENO) } catch { failure = error }
        }
        if let failure {
            throw KeychainError(errSecIO, "could not write to standard output: \(failure.reason)", failedCall: "write")
        }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) throws(SystemCallError) {
        var failure: SystemCallError?
        data.withUnsafeBytes { bytes in
            do throws(SystemCallError) { try writeAll(bytes, to: descriptor) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes`, however many `write` calls that takes.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            offset += try syscall("write") { Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
        }
    }
}
