public import FoundationEssentials
import Glibc
import KeychainCore

/// A Vault token. It is sent only in the `X-Vault-Token` header; `description` never shows it,
/// so it cannot leak into an error, a log line or a debugger's summary by accident.
public struct VaultToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String

    /// A token with the secret `value`.
    public init(_ value: String) { self.value = value }

    /// Never the token: `VaultToken(redacted)`.
    public var description: String { "VaultToken(redacted)" }
    /// Never the token, as `description`.
    public var debugDescription: String { description }
}

/// How to reach the server and where the items live.
///
/// `fromEnvironment` reads the settings the way the `vault` and `bao` CLIs do, so a shell that
/// works with `bao kv get` works with this backend unchanged.
public struct VaultConfiguration: Sendable {
    /// The server's base URL, e.g. `https://vault.example.com:8200`, without a trailing slash.
    /// With `VAULT_AGENT_ADDR` set, the agent's address, as with the `vault` CLI.
    public let address: String
    /// Where the token comes from: given, or a login of the backend's own.
    public let authentication: VaultAuthentication
    /// Where tokens this backend logs in for, and what it learned about given tokens, are
    /// kept between processes.
    public let tokenCache: VaultTokenCacheLocation
    /// The Vault Enterprise / OpenBao namespace, sent as `X-Vault-Namespace`, or nil.
    public let namespace: String?
    /// The KV version 2 mount, e.g. `secret`.
    public let mount: String
    /// The folder inside the mount that holds every item, e.g. `linux-keychain`.
    public let prefix: String
    /// Seconds an operation waits for each answer before failing with `errSecIO`.
    public let requestTimeout: TimeInterval
    /// Seconds `availability()` waits for each of its checks before calling the server unreachable.
    public let probeTimeout: TimeInterval
    /// How TLS connections verify the server and present this machine's certificate.
    public let tls: VaultTLSSettings

    /// The KV version 2 mount a dev server has: `secret`.
    public static let defaultMount = "secret"
    /// The folder holding every item: `linux-keychain`.
    public static let defaultPrefix = "linux-keychain"
    /// Ten seconds for each answer.
    public static let defaultRequestTimeout: TimeInterval = 10
    /// One second for each availability check, so `auto` and `linux-keychain backends` stay quick.
    public static let defaultProbeTimeout: TimeInterval = 1

    /// The given token, or nil when the backend logs in (or a Vault Agent adds the token).
    public var token: VaultToken? {
        if case .token(let token, _) = authentication { return token }
        return nil
    }

    /// A configuration with a given token; see the designated initializer.
    public init(address: String, token: VaultToken, namespace: String? = nil, mount: String = defaultMount,
                prefix: String = defaultPrefix, requestTimeout: TimeInterval = defaultRequestTimeout,
                probeTimeout: TimeInterval = defaultProbeTimeout, tls: VaultTLSSettings = VaultTLSSettings(),
                tokenCache: VaultTokenCacheLocation = .processOnly) throws {
        try self.init(address: address, authentication: .token(token, source: "the configuration"), namespace: namespace,
                      mount: mount, prefix: prefix, requestTimeout: requestTimeout, probeTimeout: probeTimeout, tls: tls,
                      tokenCache: tokenCache)
    }

    /// Validates and normalizes the settings; throws `errSecParam` saying which one is wrong.
    public init(address: String, authentication: VaultAuthentication, namespace: String? = nil, mount: String = defaultMount,
                prefix: String = defaultPrefix, requestTimeout: TimeInterval = defaultRequestTimeout,
                probeTimeout: TimeInterval = defaultProbeTimeout, tls: VaultTLSSettings = VaultTLSSettings(),
                tokenCache: VaultTokenCacheLocation = .processOnly) throws {
        var address = address.trimmingWhitespace()
        while address.hasSuffix("/") { address.removeLast() }
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.path.isEmpty, url.query == nil else {
            throw Self.invalid("The Vault address '\(address)' is not an http:// or https:// URL of a server (e.g. https://vault.example.com:8200); set VAULT_ADDR or BAO_ADDR to one.")
        }
        if case .token(let token?, _) = authentication,
           token.value.isEmpty || token.value.contains(where: { $0.isNewline || $0 == "\0" }) {
            throw Self.invalid("The Vault token is empty or not a single line; set VAULT_TOKEN or BAO_TOKEN, or run `bao login`.")
        }
        guard requestTimeout > 0, requestTimeout <= 3600, probeTimeout > 0, probeTimeout <= 60 else {
            throw Self.invalid("Vault timeouts are seconds: KEYCHAIN_VAULT_TIMEOUT above 0 and at most 3600, KEYCHAIN_VAULT_PROBE_TIMEOUT above 0 and at most 60.")
        }
        self.address = address
        self.authentication = authentication
        self.tokenCache = tokenCache
        guard !(namespace ?? "").contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw Self.invalid("The Vault namespace must be a single line; check VAULT_NAMESPACE or BAO_NAMESPACE.")
        }
        self.namespace = namespace.flatMap { $0.isEmpty ? nil : $0 }
        self.mount = try Self.folderPath(mount, variable: "KEYCHAIN_VAULT_MOUNT")
        self.prefix = try Self.folderPath(prefix, variable: "KEYCHAIN_VAULT_PREFIX")
        self.requestTimeout = requestTimeout
        self.probeTimeout = probeTimeout
        self.tls = tls
    }

    /// Reads the settings from `environment`, as the `bao` and `vault` CLIs read theirs: each
    /// `BAO_` variable before its `VAULT_` twin, the token from `~/.vault-token` when no
    /// variable gives one, and no default address (sending secrets to a server must be
    /// configured on purpose). Every variable is listed in docs/environment.md#vault.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> VaultConfiguration {
        // The variable that sets `name`, BAO_ first as the bao CLI reads them, and its value.
        func source(_ name: String) -> (variable: String, value: String)? {
            for variable in ["BAO_\(name)", "VAULT_\(name)"] {
                if let value = environment[variable], !value.isEmpty { return (variable, value) }
            }
            return nil
        }
        func setting(_ name: String) -> String? { source(name)?.value }
        // A Vault Agent's address replaces the server's, as with the vault CLI.
        guard let address = setting("AGENT_ADDR") ?? setting("ADDR") else {
            throw KeychainError(errSecNotAvailable, "No Vault server is configured: set VAULT_ADDR (or BAO_ADDR) to its URL, e.g. https://vault.example.com:8200.",
                                backend: VaultBackend.backendName)
        }
        let tls = try VaultTLSSettings.fromEnvironment(source)
        let viaAgent = setting("AGENT_ADDR") != nil
        let authentication = try VaultAuthentication.fromEnvironment(environment, tls: tls) {
            try staticToken(source("TOKEN"), environment: environment, viaAgent: viaAgent)
        }
        return try VaultConfiguration(
            address: address, authentication: authentication,
            namespace: setting("NAMESPACE"),
            mount: environment["KEYCHAIN_VAULT_MOUNT"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultMount,
            prefix: environment["KEYCHAIN_VAULT_PREFIX"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultPrefix,
            requestTimeout: try seconds(environment, "KEYCHAIN_VAULT_TIMEOUT", default: defaultRequestTimeout),
            probeTimeout: try seconds(environment, "KEYCHAIN_VAULT_PROBE_TIMEOUT", default: defaultProbeTimeout),
            tls: tls, tokenCache: try VaultTokenCacheLocation.fromEnvironment(environment))
    }

    /// The `token` method's token: the variable, else `~/.vault-token`, else none when a Vault
    /// Agent adds its own.
    private static func staticToken(_ fromVariable: (variable: String, value: String)?, environment: [String: String],
                                    viaAgent: Bool) throws -> VaultAuthentication {
        if let fromVariable {
            return .token(VaultToken(fromVariable.value.trimmingWhitespaceAndNewlines()), source: fromVariable.variable)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        let tokenFile = URL(fileURLWithPath: home).appendingPathComponent(".vault-token").path
        guard FileManager.default.fileExists(atPath: tokenFile) else {
            if viaAgent { return .token(nil, source: "the Vault Agent at VAULT_AGENT_ADDR") }
            throw KeychainError(errSecNotAvailable, "No Vault token is configured: set VAULT_TOKEN (or BAO_TOKEN), or run `bao login` to write \(tokenFile).",
                                backend: VaultBackend.backendName)
        }
        guard let contents = FileManager.default.contents(atPath: tokenFile) else {
            throw KeychainError(errSecAuthFailed, "The Vault token file \(tokenFile) cannot be read; check its owner and permissions.",
                                backend: VaultBackend.backendName, failedCall: "open")
        }
        return .token(VaultToken(String(decoding: contents, as: UTF8.self).trimmingWhitespaceAndNewlines()),
                      source: tokenFile)
    }

    private static func seconds(_ environment: [String: String], _ variable: String,
                                default value: TimeInterval) throws -> TimeInterval {
        guard let text = environment[variable], !text.isEmpty else { return value }
        guard let seconds = TimeInterval(text), seconds.isFinite else {
            throw invalid("\(variable) must be a number of seconds such as 5 or 0.5, not '\(text)'.")
        }
        return seconds
    }

    /// A mount or prefix as `a/b`: no empty, `.` or `..` segments, so it cannot point elsewhere.
    static func folderPath(_ text: String, variable: String) throws -> String {
        let segments = text.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.isEmpty, !segments.contains(where: { $0 == "." || $0 == ".." }) else {
            throw invalid("\(variable) must be a folder path such as 'secret' or 'team/keychain', not '\(text)'.")
        }
        return segments.joined(separator: "/")
    }

    private static func invalid(_ message: String) -> KeychainError {
        KeychainError(errSecParam, message, backend: VaultBackend.backendName)
    }
}
