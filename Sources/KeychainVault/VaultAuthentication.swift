import FoundationEssentials
import Glibc
import KeychainCore

/// How the backend gets its token: one given to it, or a login of its own.
public enum VaultAuthentication: Sendable, CustomStringConvertible {
    /// A token made elsewhere (`VAULT_TOKEN`, `~/.vault-token`). Nil only with a Vault Agent
    /// (`VAULT_AGENT_ADDR`), which adds its own auto-auth token to each request.
    /// `source` names where it came from, for messages.
    case token(VaultToken?, source: String)
    /// AppRole login at `auth/<mount>/login`. The secret ID is nil for a role that binds none.
    case appRole(mount: String, roleID: VaultCredential, secretID: VaultCredential?)
    /// TLS certificate login at `auth/<mount>/login` with the client certificate of the TLS
    /// settings; `role` picks one of the mount's certificate roles, nil lets Vault choose.
    case certificate(mount: String, role: String?)

    /// True for the methods that log in, whose tokens this backend makes and may replace.
    var logsIn: Bool {
        if case .token = self { return false }
        return true
    }

    /// Names the method and where its credentials come from, never a credential.
    public var description: String {
        switch self {
        case .token(_, let source): return "the token from \(source)"
        case .appRole(let mount, let roleID, _): return "AppRole login at auth/\(mount) (role ID from \(roleID.source))"
        case .certificate(let mount, let role): return "certificate login at auth/\(mount)\(role.map { " (role '\($0)')" } ?? "")"
        }
    }

    /// Reads `KEYCHAIN_VAULT_AUTH` (`token`, the default; `approle`; `cert`),
    /// `KEYCHAIN_VAULT_AUTH_MOUNT` (default: the method's name), `KEYCHAIN_VAULT_ROLE_ID` or
    /// `KEYCHAIN_VAULT_ROLE_ID_FILE`, `KEYCHAIN_VAULT_SECRET_ID` or
    /// `KEYCHAIN_VAULT_SECRET_ID_FILE`, and `KEYCHAIN_VAULT_CERT_ROLE`. `staticToken` reads
    /// the token for the `token` method.
    static func fromEnvironment(_ environment: [String: String], tls: VaultTLSSettings,
                                staticToken: () throws -> VaultAuthentication) throws -> VaultAuthentication {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let method = value("KEYCHAIN_VAULT_AUTH")?.lowercased() ?? "token"
        let mount = try value("KEYCHAIN_VAULT_AUTH_MOUNT").map { try VaultConfiguration.folderPath($0, variable: "KEYCHAIN_VAULT_AUTH_MOUNT") }
        switch method {
        case "token":
            return try staticToken()
        case "approle":
            guard let roleID = try VaultCredential.fromEnvironment(environment, "KEYCHAIN_VAULT_ROLE_ID") else {
                throw invalid("KEYCHAIN_VAULT_AUTH=approle needs the role ID: set KEYCHAIN_VAULT_ROLE_ID or KEYCHAIN_VAULT_ROLE_ID_FILE.")
            }
            let secretID = try VaultCredential.fromEnvironment(environment, "KEYCHAIN_VAULT_SECRET_ID")
            return .appRole(mount: mount ?? "approle", roleID: roleID, secretID: secretID)
        case "cert":
            guard tls.clientCertificate != nil else {
                throw invalid("KEYCHAIN_VAULT_AUTH=cert logs in with the TLS client certificate: set VAULT_CLIENT_CERT and VAULT_CLIENT_KEY.")
            }
            return .certificate(mount: mount ?? "cert", role: value("KEYCHAIN_VAULT_CERT_ROLE"))
        default:
            throw invalid("KEYCHAIN_VAULT_AUTH must be token, approle or cert, not '\(method)'.")
        }
    }

    private static func invalid(_ message: String) -> KeychainError {
        KeychainError(errSecParam, message, backend: VaultBackend.backendName)
    }
}

/// A login credential (an AppRole role ID or secret ID), read when the backend logs in, so a
/// file that systemd's `LoadCredential=` or an orchestrator rotates is read afresh each time.
public struct VaultCredential: Sendable, CustomStringConvertible {
    private enum Origin: Sendable {
        case value(SecretBytes)
        case file(String)
    }

    private let origin: Origin
    /// The variable, or the variable and the file, it comes from; for messages.
    public let source: String

    /// A credential given as `value`, read from `source` (a variable's name), for messages.
    public init(_ value: String, source: String) {
        origin = .value(SecretBytes(Data(value.utf8)))
        self.source = source
    }

    /// A credential read from `file` when needed, named by `source`, for messages.
    public init(file: String, source: String) {
        origin = .file(file)
        self.source = source
    }

    /// Never the credential: its source only.
    public var description: String { "VaultCredential(\(source), redacted)" }

    /// The credential's bytes, without surrounding whitespace (files end with a newline).
    func read() throws -> SecretBytes {
        switch origin {
        case .value(let bytes):
            return bytes
        case .file(let path):
            guard var contents = FileManager.default.contents(atPath: path) else {
                throw KeychainError(errSecAuthFailed, "\(source) cannot be read; check that it exists and its permissions.",
                                    backend: VaultBackend.backendName, failedCall: "open")
            }
            defer { SecretBytes.zero(&contents) }
            let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            let start = contents.firstIndex { !isSpace($0) } ?? contents.endIndex
            let end = contents.lastIndex { !isSpace($0) }.map { contents.index(after: $0) } ?? start
            guard start < end else {
                throw KeychainError(errSecAuthFailed, "\(source) is empty.", backend: VaultBackend.backendName)
            }
            return contents[start..<end].withUnsafeBytes { SecretBytes(copying: $0) }
        }
    }

    /// The credential `NAME` or `NAME_FILE` sets (the value wins when both are set), or nil.
    static func fromEnvironment(_ environment: [String: String], _ name: String) throws -> VaultCredential? {
        if let value = environment[name], !value.isEmpty {
            let trimmed = value.trimmingWhitespaceAndNewlines()
            guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw KeychainError(errSecParam, "\(name) must be a single line.", backend: VaultBackend.backendName)
            }
            return VaultCredential(trimmed, source: name)
        }
        if let path = environment["\(name)_FILE"], !path.isEmpty {
            return VaultCredential(file: path, source: "\(name)_FILE (\(path))")
        }
        return nil
    }
}
