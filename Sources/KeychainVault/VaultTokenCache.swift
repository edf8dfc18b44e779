import CKeyutils
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainKernelKeyCalls
import KeychainSystemCalls

/// Where tokens are kept between processes.
public enum VaultTokenCacheLocation: String, Sendable {
    /// The user's kernel keyring (`@u`), shared by every process of the user: the default.
    case userKeyring = "user"
    /// The session keyring (`@s`), shared by the processes of one login session.
    case sessionKeyring = "session"
    /// Nowhere: each process logs in (or looks its token up) for itself.
    case processOnly = "off"

    /// `KEYCHAIN_VAULT_TOKEN_CACHE`: `user` (the default), `session` or `off`.
    static func fromEnvironment(_ environment: [String: String]) throws -> VaultTokenCacheLocation {
        guard let text = environment["KEYCHAIN_VAULT_TOKEN_CACHE"], !text.isEmpty else { return .userKeyring }
        guard let location = VaultTokenCacheLocation(rawValue: text.lowercased()) else {
            throw KeychainError(errSecParam, "KEYCHAIN_VAULT_TOKEN_CACHE must be user, session or off, not '\(text)'.",
                                backend: VaultBackend.backendName)
        }
        return location
    }

    var keyring: key_serial_t? {
        switch self {
        case .userKeyring: return KEY_SPEC_USER_KEYRING
        case .sessionKeyring: return KEY_SPEC_SESSION_KEYRING
        case .processOnly: return nil
        }
    }
}

/// What is known about one token, and the token itself.
struct VaultTokenState: Sendable {
    let token: VaultToken
    /// Nil for a token that never expires (a root token).
    let expiresAt: Date?
    /// The TTL it had when made or last renewed (its period for a periodic token); renewal
    /// is due once less than half of it is left.
    let fullTTL: TimeInterval
    let renewable: Bool
    /// The token's accessor, which names it in messages and cannot be used to authenticate.
    let accessor: String?

    func remaining(at now: Date) -> TimeInterval? {
        expiresAt.map { $0.timeIntervalSince(now) }
    }

    func isRenewalDue(at now: Date) -> Bool {
        guard let remaining = remaining(at: now) else { return false }
        return remaining < fullTTL / 2
    }

    /// Too close to expiry to send: a request must not carry a token that dies on the way.
    func isSpent(at now: Date) -> Bool {
        guard let remaining = remaining(at: now) else { return false }
        return remaining < min(2, fullTTL / 10)
    }

    var accessorText: String { accessor.map { "accessor \($0)" } ?? "unknown accessor" }
}

/// Keeps tokens in a kernel keyring between processes, so twenty `linux-keychain get`s in a row
/// log in once, and what a lookup learned about a given token is not asked again.
///
/// Each entry is a `user` key named `linux-keychain:vault:<hash>`, where the hash covers the
/// server address, namespace and login method (and the given token or the role ID), so
/// neither credential shows in `/proc/keys`. Like the file backend's unlock cache, a key is
/// made in the process keyring, given possessor-only permissions and a timeout at which the
/// kernel destroys it (the token's expiry), and only then linked into the cache keyring. When
/// the keyring is unusable every method quietly does nothing.
struct VaultTokenCache: Sendable {
    let location: VaultTokenCacheLocation
    /// Identifies the server and credential the entry belongs to.
    let identity: String

    /// How long an entry for a token that never expires is kept before it is looked up again.
    static let neverExpiringLifetime: TimeInterval = 600

    private var description: String { "linux-keychain:vault:\(VaultHash.hex(of: identity))" }

    func load() -> VaultTokenState? {
        guard let keyring = location.keyring else { return nil }
        guard let found = try? KernelKeyCalls.search(keyring, type: "user", description: description) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 8192)
        defer { buffer.withUnsafeMutableBytes { SecretBytes.zero($0) } }
        guard let length = buffer.withUnsafeMutableBytes({ try? KernelKeyCalls.read(found, into: $0) }),
              length > 0, length <= buffer.count else { return nil }
        return Self.decode(buffer[..<Int(length)])
    }

    func store(_ state: VaultTokenState) {
        guard let keyring = location.keyring else { return }
        let lifetime = state.remaining(at: Date()) ?? Self.neverExpiringLifetime
        guard lifetime >= 1 else { return }
        var record = Array(Self.encode(state).utf8)
        defer { record.withUnsafeMutableBytes { SecretBytes.zero($0) } }
        record.withUnsafeBytes {
            _ = try? KernelKeyCalls.putExpiring(description, payload: $0, lifetime: UInt32(lifetime), into: keyring)
        }
    }

    func forget() {
        guard let keyring = location.keyring else { return }
        if let found = try? KernelKeyCalls.search(keyring, type: "user", description: description) {
            _ = try? KernelKeyCalls.invalidate(found)
        }
    }

    // The record: "v1", expiry (Unix seconds, or "never"), full TTL, renewable (0/1),
    // accessor, token; one per line. Neither a token nor an accessor holds a newline.
    private static func encode(_ state: VaultTokenState) -> String {
        let expiry = state.expiresAt.map { String($0.timeIntervalSince1970) } ?? "never"
        return ["v1", expiry, String(state.fullTTL), state.renewable ? "1" : "0", state.accessor ?? "", state.token.value]
            .joined(separator: "\n")
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> VaultTokenState? {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count == 6, lines[0] == "v1", let fullTTL = TimeInterval(lines[2]), !lines[5].isEmpty else { return nil }
        let expiresAt: Date?
        if lines[1] == "never" {
            expiresAt = nil
        } else {
            guard let seconds = TimeInterval(lines[1]) else { return nil }
            expiresAt = Date(timeIntervalSince1970: seconds)
        }
        return VaultTokenState(token: VaultToken(lines[5]), expiresAt: expiresAt, fullTTL: fullTTL, renewable: lines[3] == "1",
                               accessor: lines[4].isEmpty ? nil : lines[4])
    }
}
