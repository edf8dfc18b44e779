#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Glibc
public import KeychainCore
import KeychainSystemCalls

/// Where the store's passphrase comes from.
public enum PassphraseSource: Sendable {
    /// `KEYCHAIN_FILE_PASSPHRASE`, read from the process environment when needed.
    case environmentVariable
    /// A regular file holding the passphrase (`KEYCHAIN_FILE_PASSPHRASE_FILE`); one trailing
    /// line ending (`\n`, `\r\n` or a lone `\r`) is not part of it, so `echo secret > file`,
    /// files edited on Windows and systemd credentials all work. `KEYCHAIN_FILE_PASSPHRASE`,
    /// by contrast, is used exactly: the rule is documented in docs/file.md, and kept, since
    /// stores were made with passphrases read under it.
    case file(path: String)
    /// The systemd credential `keychain-passphrase` in `$CREDENTIALS_DIRECTORY`, as
    /// `LoadCredential=` and `LoadCredentialEncrypted=` lay it out; read like `file`.
    case credential(path: String)
    /// A prompt without echo on the controlling terminal (`/dev/tty`).
    case terminal
    /// A passphrase the program supplies itself.
    case given(SecretBytes)

    /// `KEYCHAIN_FILE_PASSPHRASE`: the passphrase itself.
    public static let variable = "KEYCHAIN_FILE_PASSPHRASE"
    /// `KEYCHAIN_FILE_PASSPHRASE_FILE`: a file holding the passphrase (systemd's `LoadCredential=`).
    public static let fileVariable = "KEYCHAIN_FILE_PASSPHRASE_FILE"
    /// `CREDENTIALS_DIRECTORY`: where systemd puts a service's credentials.
    public static let credentialsDirectoryVariable = "CREDENTIALS_DIRECTORY"
    /// `keychain-passphrase`: the credential name looked for in `$CREDENTIALS_DIRECTORY`.
    public static let credentialName = "keychain-passphrase"

    /// The largest passphrase read from a file or terminal; only keeps a wrong file (a disk
    /// image, say) from being read into memory.
    static let maximumLength = 64 * 1024

    /// How to supply a passphrase, for errors that find none.
    static let howToSupply = "Set \(fileVariable) to a file holding the passphrase, give a systemd service the credential \(credentialName) (LoadCredential= or LoadCredentialEncrypted=), set \(variable), or run on a terminal to be asked."

    /// The first source configured in `environment`, in the documented order, or nil:
    /// `KEYCHAIN_FILE_PASSPHRASE`, `KEYCHAIN_FILE_PASSPHRASE_FILE`, the systemd credential
    /// (when its file exists), the terminal.
    static func configured(in environment: [String: String]) -> PassphraseSource? {
        if let value = environment[variable], !value.isEmpty { return .environmentVariable }
        if let path = environment[fileVariable], !path.isEmpty { return .file(path: path) }
        if let path = credentialPath(in: environment) { return .credential(path: path) }
        if TerminalPrompt.isAvailable { return .terminal }
        return nil
    }

    /// `$CREDENTIALS_DIRECTORY/keychain-passphrase` when that directory is absolute and the
    /// entry exists (its kind is checked when it is read, with an error that says what is wrong).
    private static func credentialPath(in environment: [String: String]) -> String? {
        guard let directory = environment[credentialsDirectoryVariable], directory.hasPrefix("/") else { return nil }
        let path = directory + "/" + credentialName
        return access(path, F_OK) == 0 ? path : nil
    }

    /// Whether obtaining the passphrase asks a person.
    public var needsPrompt: Bool {
        if case .terminal = self { return true }
        return false
    }

    /// Where the passphrase comes from, for messages.
    public var summary: String {
        switch self {
        case .environmentVariable: return Self.variable
        case .file(let path): return "the file \(path) (\(Self.fileVariable))"
        case .credential(let path): return "the systemd credential \(path) (\(Self.credentialsDirectoryVariable))"
        case .terminal: return "a prompt on the terminal"
        case .given: return "the program"
        }
    }

    /// The passphrase. For a store about to be created, a terminal asks twice, so that a typo
    /// cannot lock the user out of a new store.
    func obtain(forNewStoreAt newStorePath: String?, existingStorePath: String) throws -> SecretBytes {
        let passphrase: SecretBytes
        switch self {
        case .environmentVariable:
            guard let value = getenv(Self.variable) else {
                throw KeychainError.fileBackend(errSecAuthFailed, "\(Self.variable) is no longer set. \(Self.howToSupply)")
            }
            passphrase = SecretBytes(copying: UnsafeRawBufferPointer(start: value, count: strlen(value)))
        case .file(let path):
            passphrase = try Self.read(file: path, namedBy: Self.fileVariable)
        case .credential(let path):
            passphrase = try Self.read(file: path, namedBy: Self.credentialsDirectoryVariable)
        case .terminal:
            if let newStorePath {
                passphrase = try TerminalPrompt.readPassphrase(prompt: "New passphrase for the keychain store at \(newStorePath): ",
                                                               confirmation: "Repeat the new passphrase: ")
            } else {
                passphrase = try TerminalPrompt.readPassphrase(prompt: "Passphrase for the keychain store at \(existingStorePath): ")
            }
        case .given(let secret):
            passphrase = secret
        }
        guard !passphrase.isEmpty else {
            throw KeychainError.fileBackend(errSecAuthFailed, "The passphrase from \(summary) is empty. \(Self.howToSupply)")
        }
        return passphrase
    }

    private static func read(file path: String, namedBy setting: String) throws -> SecretBytes {
        let file: Int32
        do {
            // O_NONBLOCK: a FIFO must not hang the open; fstat below refuses it.
            file = try syscall("open") { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw KeychainError.fileBackend(errSecAuthFailed,
                "Could not open the passphrase file \(path) named by \(setting): \(error.reason).", failedCall: error.call)
        }
        defer { try? closeDescriptor(file) }  // read-only
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw KeychainError.fileBackend(errSecParam,
                "The passphrase file \(path) named by \(setting) is not a regular file (a FIFO, a device or a directory); give a regular file, such as a systemd credential.")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maximumLength + 1, alignment: 1)
        defer {
            SecretBytes.zero(buffer)
            buffer.deallocate()
        }
        var filled = 0
        while filled < buffer.count {
            let count: Int
            do {
                count = try syscall("read") { Glibc.read(file, buffer.baseAddress! + filled, buffer.count - filled) }
            } catch {
                throw KeychainError.fileBackend(errSecAuthFailed,
                    "Could not read the passphrase file \(path): \(error.reason).", failedCall: error.call)
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= maximumLength else {
            throw KeychainError.fileBackend(errSecParam, "The passphrase file \(path) is larger than \(maximumLength) bytes; is it the right file?")
        }
        if filled > 0 && buffer[filled - 1] == UInt8(ascii: "\n") { filled -= 1 }
        if filled > 0 && buffer[filled - 1] == UInt8(ascii: "\r") { filled -= 1 }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
    }
}

/// Asking for a passphrase on the controlling terminal, without echo.
package enum TerminalPrompt {
    /// Whether this process has a controlling terminal to ask on.
    static var isAvailable: Bool {
        let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { return false }
        try? closeDescriptor(terminal)
        return true
    }

    /// Reads one line without echo from `/dev/tty`. With a `confirmation` prompt, asks again and
    /// fails unless both answers are equal.
    package static func readPassphrase(prompt: String, confirmation: String? = nil) throws -> SecretBytes {
        let terminal: Int32
        do {
            terminal = try syscall("open") { open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC) }
        } catch {
            throw KeychainError.fileBackend(errSecInteractionNotAllowed,
                "No terminal to ask for the passphrase on. \(PassphraseSource.howToSupply)", failedCall: error.call)
        }
        defer { try? closeDescriptor(terminal) }
        let first = try readLine(terminal, prompt: prompt)
        guard let confirmation else { return first }
        let second = try readLine(terminal, prompt: confirmation)
        guard first.constantTimeEquals(second) else {
            throw KeychainError.fileBackend(errSecAuthFailed, "The two passphrases differ; nothing was changed. Try again.")
        }
        return first
    }

    private static func readLine(_ terminal: Int32, prompt: String) throws -> SecretBytes {
        // Echo goes off before the prompt appears, as getpass does: TCSAFLUSH discards input
        // typed before the change, so an answer typed (or pasted) after the prompt is neither
        // echoed nor lost.
        var original = termios()
        let echoOff = tcgetattr(terminal, &original) == 0
        if echoOff {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            // If this fails the terminal echoes; the passphrase is still read correctly.
            _ = tcsetattr(terminal, TCSAFLUSH, &silent)
        }
        writeAll(terminal, prompt)
        defer {
            if echoOff { _ = tcsetattr(terminal, TCSAFLUSH, &original) }
            writeAll(terminal, "\n")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: PassphraseSource.maximumLength, alignment: 1)
        defer {
            SecretBytes.zero(buffer)
            buffer.deallocate()
        }
        var filled = 0
        while filled < buffer.count {
            var byte: UInt8 = 0
            let count: Int
            do {
                count = try syscall("read") { Glibc.read(terminal, &byte, 1) }
            } catch {
                throw KeychainError.fileBackend(errSecIO, "Could not read the passphrase from the terminal: \(error.reason).", failedCall: error.call)
            }
            if count == 0 || byte == UInt8(ascii: "\n") { break }
            buffer[filled] = byte
            filled += 1
            byte = 0
        }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
    }

    private static func writeAll(_ terminal: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            // A prompt that cannot be shown is not fatal: the read that follows still works.
            guard let written = try? syscall("write", { bytes.withUnsafeBytes { Glibc.write(terminal, $0.baseAddress, $0.count) } }),
                  written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
