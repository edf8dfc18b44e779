#if canImport(Glibc)
import Glibc
#endif
public import FoundationEssentials
import KeychainCore

/// Where the encrypted-file store lives and how it is unlocked.
public struct FileStoreSettings: Sendable {
    /// The store directory (absolute; trailing slashes are dropped).
    public var directory: String
    /// Where the passphrase comes from; nil when none is configured (the backend is then unavailable).
    public var passphrase: PassphraseSource?
    /// Seconds the unlocked master key stays in the kernel keyring; 0 disables the cache.
    public var cacheLifetime: UInt32
    /// Argon2id settings for new stores and passphrase changes (existing headers keep theirs).
    public var kdf: KDFParameters
    /// Seconds a call waits for the store's lock while another process holds it, before it
    /// fails naming that process; 0 fails at once.
    public var lockTimeout: Double

    /// `KEYCHAIN_FILE_DIR`: the store directory.
    public static let directoryVariable = "KEYCHAIN_FILE_DIR"
    /// `KEYCHAIN_FILE_CACHE_SECONDS`: how long an unlock is cached; 0 disables the cache.
    public static let cacheVariable = "KEYCHAIN_FILE_CACHE_SECONDS"
    /// `KEYCHAIN_FILE_LOCK_TIMEOUT`: seconds a call waits for another process's lock on the store.
    public static let lockTimeoutVariable = "KEYCHAIN_FILE_LOCK_TIMEOUT"

    /// Five minutes, as sudo caches a password and gpg-agent a passphrase for about that long:
    /// a script or a burst of commands pays Argon2id once, and an unattended session does not
    /// leave the store open for long.
    public static let defaultCacheLifetime: UInt32 = 300

    /// Thirty seconds: far longer than any writer holds the lock (a write is one file and a
    /// rename; a passphrase change one Argon2id run), yet a stopped writer (SIGSTOP, ^Z, a
    /// debugger) costs the others a bounded wait and a message instead of a silent hang.
    public static let defaultLockTimeout = 30.0

    /// Settings for the store in `directory` (absolute), unlocked with `passphrase`.
    public init(directory: String, passphrase: PassphraseSource?, cacheLifetime: UInt32 = defaultCacheLifetime,
                kdf: KDFParameters = .default, lockTimeout: Double = defaultLockTimeout) {
        self.directory = Self.withoutTrailingSlashes(directory)
        self.passphrase = passphrase
        self.cacheLifetime = cacheLifetime
        self.kdf = kdf
        self.lockTimeout = lockTimeout
    }

    /// The settings the environment gives: `KEYCHAIN_FILE_DIR` (default
    /// `$XDG_DATA_HOME/linux-keychain`, then `~/.local/share/linux-keychain`), the passphrase
    /// source, `KEYCHAIN_FILE_CACHE_SECONDS` and `KEYCHAIN_FILE_LOCK_TIMEOUT` (seconds, a
    /// decimal number). Malformed values are `errSecParam`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> FileStoreSettings {
        var lifetime = defaultCacheLifetime
        if let text = environment[cacheVariable], !text.isEmpty {
            guard let seconds = UInt32(text) else {
                throw KeychainError.fileBackend(errSecParam, "\(cacheVariable) must be a whole number of seconds (0 disables the cache), not '\(text)'.")
            }
            lifetime = seconds
        }
        var lockTimeout = defaultLockTimeout
        if let text = environment[lockTimeoutVariable], !text.isEmpty {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
                throw KeychainError.fileBackend(errSecParam, "\(lockTimeoutVariable) must be a number of seconds from 0 to 86400, not '\(text)'.")
            }
            lockTimeout = seconds
        }
        return FileStoreSettings(directory: try storeDirectory(environment), passphrase: PassphraseSource.configured(in: environment),
                                 cacheLifetime: lifetime, lockTimeout: lockTimeout)
    }

    /// `a/b/` names the target of `b` even with `O_NOFOLLOW`; dropping the slash keeps the
    /// symlink check meaningful.
    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    private static func storeDirectory(_ environment: [String: String]) throws -> String {
        if let explicit = environment[directoryVariable], !explicit.isEmpty {
            guard explicit.hasPrefix("/") else {
                throw KeychainError.fileBackend(errSecParam, "\(directoryVariable) must be an absolute path, not '\(explicit)'.")
            }
            return explicit
        }
        // The XDG spec says to ignore a relative XDG_DATA_HOME.
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/linux-keychain" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/share/linux-keychain" }
        if let entry = getpwuid(geteuid()), let home = entry.pointee.pw_dir, home.pointee == UInt8(ascii: "/") {
            return String(cString: home) + "/.local/share/linux-keychain"
        }
        throw KeychainError.fileBackend(errSecNotAvailable, "No home directory to keep the keychain store in; set \(directoryVariable).")
    }
}
