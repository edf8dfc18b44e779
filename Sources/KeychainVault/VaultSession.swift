import CCurl
import FoundationEssentials
import Glibc
import KeychainCore

/// The token each request carries, kept valid: looked up, renewed, or logged in for.
///
/// - A **given token** (`VAULT_TOKEN`) is looked up once (`auth/token/lookup-self`) to learn
///   its TTL; what is learned is cached (`VaultTokenCache`). Once less than half its TTL is
///   left, a renewable one is renewed (`auth/token/renew-self`) before the next request, so a
///   periodic token never expires while the machine keeps using it. A lookup the token's
///   policies refuse leaves it in use as it is, never renewed.
/// - A **login token** (AppRole, certificate) is cached for the user and reused until half
///   its TTL is gone; it is then renewed, and once renewal cannot extend it past half its TTL
///   again (its max TTL is near, or it is not renewable), replaced by a new login.
///
/// Thread-safe: one lock serializes the decisions, so a process's threads log in once.
final class VaultSession: Sendable {
    private let configuration: VaultConfiguration
    private let client: VaultHTTPClient
    private let failures: VaultFailures
    private let cache: VaultTokenCache
    /// What is known about the token in use; every decision about it is made holding this.
    private let current = Locked<VaultTokenState?>(nil)

    init(configuration: VaultConfiguration, client: VaultHTTPClient, failures: VaultFailures) {
        self.configuration = configuration
        self.client = client
        self.failures = failures
        cache = VaultTokenCache(location: configuration.tokenCache, identity: Self.identity(of: configuration))
    }

    /// Sends `requests` (side by side) with the token `token(probing:)` gives, and returns it
    /// with their answers in order.
    ///
    /// A given token that nobody has looked up yet (not in this process, not in the token
    /// cache) is looked up beside `requests` rather than before them: the lookup only learns its
    /// TTL and renewability, for later requests, and what is sent is the same token either
    /// way, so over HTTP/2 the first requests of a process cost no extra round trip. Only reads
    /// travel beside it: a failed lookup fails the call, and a write sent beside it might have
    /// been applied all the same, so writes wait for the lookup as before.
    func send(_ requests: [VaultHTTPRequest], probing: Bool = false) throws
        -> (token: VaultToken?, results: [Result<VaultHTTPResponse, VaultTransportFailure>]) {
        if let sent = try sendLookingUpBeside(requests, probing: probing) { return sent }
        let token = try token(probing: probing)
        return (token, client.sendAll(requests.map { var request = $0; request.token = token; return request }))
    }

    /// `send`'s answer when the lookup travels beside `requests`, nil when there is no given
    /// token left to look up (the caller then goes through `token(probing:)`).
    private func sendLookingUpBeside(_ requests: [VaultHTTPRequest], probing: Bool) throws
        -> (token: VaultToken?, results: [Result<VaultHTTPResponse, VaultTransportFailure>])? {
        guard case .token(let token?, let source) = configuration.authentication,
              requests.count < Int(CCURL_MAXIMUM_PARALLEL), requests.allSatisfy({ $0.method == "GET" }) else { return nil }
        return try current.withLock { state in
            if state == nil { state = cache.load() }
            guard state == nil else { return nil }
            let limits = Limits(configuration, probing: probing)
            let lookup = VaultHTTPRequest(method: "GET", path: Self.lookupPath, token: token, timeout: limits.timeout)
            let results = client.sendAll([lookup] + requests.map { var request = $0; request.token = token; return request })
            let learned = try lookedUp(token, source: source, answer: results[0], limits)
            state = learned
            cache.store(learned)
            return (token, Array(results.dropFirst()))
        }
    }

    /// The token to send now, after any lookup, renewal or login that is due; nil when a
    /// Vault Agent adds the token. Errors name the token or role and say what failed.
    /// `probing` (for `availability()`) gives those requests the probe's timeout, and calls a
    /// server that does not answer unreachable rather than failing an operation.
    func token(probing: Bool = false) throws -> VaultToken? {
        try current.withLock { (state) throws -> VaultToken? in
            let now = Date()
            if state == nil { state = cache.load() }
            let before = state
            let limits = Limits(configuration, probing: probing)
            if state == nil || state!.isSpent(at: now) {
                state = try freshState(replacing: state, limits)
            } else if let current = state, current.isRenewalDue(at: now) {
                state = try renewedOrReplaced(current, limits)
            }
            if let state, state.token.value != before?.token.value || state.expiresAt != before?.expiresAt
                || state.renewable != before?.renewable {
                cache.store(state)
            }
            return state?.token
        }
    }

    /// Called when the server answered 403 to a request that carried `token`. For a login
    /// token, checks whether the token itself is dead (revoked, or expired early) rather than
    /// merely not allowed that path; a dead one is forgotten, here and in the cache, and the
    /// answer is true: retry, and the next `token()` logs in. A policy refusal, or a given
    /// token, answers false, so a refused path never costs a new token.
    func refused(_ token: VaultToken) -> Bool {
        guard configuration.authentication.logsIn else { return false }
        let lookup = client.send("GET", Self.lookupPath, token: token, timeout: configuration.requestTimeout)
        guard case .success(let response) = lookup, response.status == 403 else { return false }
        current.withLock { state in
            if state?.token.value == token.value {
                state = nil
                cache.forget()
            }
        }
        return true
    }

    // MARK: - Steps

    /// How long each request of a step may take, and what a missing answer means.
    private struct Limits {
        let timeout: TimeInterval
        let probing: Bool

        init(_ configuration: VaultConfiguration, probing: Bool) {
            timeout = probing ? configuration.probeTimeout : configuration.requestTimeout
            self.probing = probing
        }
    }

    /// A token to start with, in place of `state` (nil or spent): the given one, looked up, or
    /// a new login.
    private func freshState(replacing state: VaultTokenState?, _ limits: Limits) throws -> VaultTokenState? {
        switch configuration.authentication {
        case .token(nil, _):
            return nil
        case .token(let token?, let source):
            if let state, state.token.value == token.value, state.isSpent(at: Date()) {
                throw failures.make(errSecAuthFailed, "The Vault token from \(source) (\(state.accessorText)) has expired and cannot be renewed. Make a new one (`bao token create -period=24h ...`) and set it.", "auth/token/lookup-self")
            }
            return try lookUp(token, source: source, limits)
        case .appRole, .certificate:
            return try logIn(limits)
        }
    }

    private func renewedOrReplaced(_ current: VaultTokenState, _ limits: Limits) throws -> VaultTokenState? {
        let logsIn = configuration.authentication.logsIn
        guard current.renewable else { return logsIn ? try logIn(limits) : current }
        let renewed: VaultTokenState
        do {
            renewed = try renew(current, limits)
        } catch let error as KeychainError {
            // A login token that cannot be renewed any more is replaced; a given one must be
            // replaced by its operator, and the error says so.
            if logsIn { return try logIn(limits) }
            throw error
        }
        // Renewal that cannot give back half the TTL has reached the token's max TTL.
        guard renewed.isRenewalDue(at: Date()) else { return renewed }
        if logsIn { return try logIn(limits) }
        return VaultTokenState(token: renewed.token, expiresAt: renewed.expiresAt, fullTTL: renewed.fullTTL, renewable: false,
                               accessor: renewed.accessor)
    }

    private static let lookupPath = "auth/token/lookup-self"

    private func lookUp(_ token: VaultToken, source: String, _ limits: Limits) throws -> VaultTokenState {
        let answer = client.send("GET", Self.lookupPath, token: token, timeout: limits.timeout)
        return try lookedUp(token, source: source, answer: answer, limits)
    }

    /// What the `answer` to a lookup of `token` says about it.
    private func lookedUp(_ token: VaultToken, source: String, answer: Result<VaultHTTPResponse, VaultTransportFailure>,
                          _ limits: Limits) throws -> VaultTokenState {
        let call = "GET \(Self.lookupPath)"
        let response = try answered(answer, call: call, limits)
        guard response.status == 200, let data = response.json?["data"] else {
            if response.status == 403 {
                // Its policies may allow the KV paths but not the lookup: use it as it is.
                return VaultTokenState(token: token, expiresAt: nil, fullTTL: 0, renewable: false, accessor: nil)
            }
            throw failures.error(response, action: "looking up the token from \(source) at", path: Self.lookupPath, call: call)
        }
        let ttl = TimeInterval(data["ttl"]?.integer ?? 0)
        let period = TimeInterval(data["period"]?.integer ?? 0)
        let creationTTL = TimeInterval(data["creation_ttl"]?.integer ?? 0)
        return VaultTokenState(token: token, expiresAt: ttl > 0 ? Date().addingTimeInterval(ttl) : nil,
                               fullTTL: period > 0 ? period : max(creationTTL, ttl), renewable: data["renewable"]?.bool ?? false,
                               accessor: data["accessor"]?.text)
    }

    private func renew(_ current: VaultTokenState, _ limits: Limits) throws -> VaultTokenState {
        let call = "POST auth/token/renew-self"
        let response = try send("POST", "auth/token/renew-self", body: VaultRequestBody.object([]).serialized(), token: current.token,
                                call: call, limits)
        guard response.status == 200, let auth = response.json?["auth"] else {
            throw failures.make(errSecAuthFailed, "Renewing \(describe(current)) failed (HTTP \(response.status)\(response.errorText.isEmpty ? "" : ": \(response.errorText)")).", call)
        }
        return state(from: auth, fallbackToken: current.token, fullTTL: current.fullTTL)
    }

    private func logIn(_ limits: Limits) throws -> VaultTokenState {
        let (mount, body) = try loginRequest()
        let call = "POST auth/\(mount)/login"
        let response = try send("POST", "auth/\(mount)/login", body: body, token: nil, call: call, limits)
        guard response.status == 200, let auth = response.json?["auth"], auth["client_token"]?.text?.isEmpty == false else {
            let detail = response.errorText.isEmpty ? "HTTP \(response.status)" : "HTTP \(response.status): \(response.errorText)"
            let status = response.status == 400 || response.status == 403 || response.status == 401 ? errSecAuthFailed : errSecIO
            throw failures.make(status, "Vault refused \(configuration.authentication) (\(detail)). Check the credentials and that the method is enabled at auth/\(mount).", call)
        }
        return state(from: auth, fallbackToken: nil, fullTTL: nil)
    }

    private func loginRequest() throws -> (mount: String, body: SecretBytes) {
        switch configuration.authentication {
        case .appRole(let mount, let roleID, let secretID):
            var members: [(String, VaultRequestBody)] = [("role_id", .secretText(try roleID.read()))]
            if let secretID { members.append(("secret_id", .secretText(try secretID.read()))) }
            return (mount, VaultRequestBody.object(members).serialized())
        case .certificate(let mount, let role):
            return (mount, VaultRequestBody.object(role.map { [("name", .text($0))] } ?? []).serialized())
        case .token:
            throw failures.make(errSecParam, "A given token cannot log in; set KEYCHAIN_VAULT_AUTH to approle or cert.", "login")
        }
    }

    /// The state an `auth` block (of a login or a renewal) describes.
    private func state(from auth: VaultJSON, fallbackToken: VaultToken?, fullTTL: TimeInterval?) -> VaultTokenState {
        let token = auth["client_token"]?.text.flatMap { $0.isEmpty ? nil : VaultToken($0) } ?? fallbackToken ?? VaultToken("")
        let lease = TimeInterval(auth["lease_duration"]?.integer ?? 0)
        return VaultTokenState(token: token, expiresAt: lease > 0 ? Date().addingTimeInterval(lease) : nil,
                               fullTTL: max(fullTTL ?? lease, lease), renewable: auth["renewable"]?.bool ?? false,
                               accessor: auth["accessor"]?.text)
    }

    private func describe(_ state: VaultTokenState) -> String {
        switch configuration.authentication {
        case .token(_, let source): return "the token from \(source) (\(state.accessorText))"
        default: return "the token of \(configuration.authentication) (\(state.accessorText))"
        }
    }

    private func send(_ method: String, _ path: String, body: SecretBytes?, token: VaultToken?, call: String,
                      _ limits: Limits) throws -> VaultHTTPResponse {
        try answered(client.send(method, path, body: body, token: token, timeout: limits.timeout), call: call, limits)
    }

    private func answered(_ answer: Result<VaultHTTPResponse, VaultTransportFailure>, call: String, _ limits: Limits) throws -> VaultHTTPResponse {
        switch answer {
        case .success(let response): return response
        case .failure(let failure): throw failures.error(failure, call: call, probing: limits.probing)
        }
    }

    /// What a cache entry belongs to: the server, the namespace and the credential.
    private static func identity(of configuration: VaultConfiguration) -> String {
        let credential: String
        switch configuration.authentication {
        case .token(let token, _): credential = "token:\(token?.value ?? "")"
        case .appRole(let mount, let roleID, _): credential = "approle:\(mount):\(roleID.source):\((try? roleID.read()).map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } ?? "")"
        case .certificate(let mount, let role): credential = "cert:\(mount):\(role ?? ""):\(configuration.tls.clientCertificate ?? "")"
        }
        return [configuration.address, configuration.namespace ?? "", credential].joined(separator: "\n")
    }
}
