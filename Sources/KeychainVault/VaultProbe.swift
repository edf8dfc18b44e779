import KeychainCore

/// The checks behind `availability()`: the server answers, is unsealed, accepts the token,
/// and has a KV version 2 engine at the mount.
///
/// One request for the mount tells a healthy server; only when it fails do the separate checks
/// run (health, token, mount), so the error names the first fault. Each request waits at most
/// `configuration.probeTimeout`. See docs/vault.md#errors.
struct VaultProbe: Sendable {
    let kv: VaultKV

    private var configuration: VaultConfiguration { kv.configuration }
    private var failures: VaultFailures { kv.failures }

    func availability() -> BackendAvailability {
        do {
            try check()
        } catch let error as KeychainError {
            return .unavailable(error)
        } catch {
            return .unavailable(failures.make(errSecNotAvailable, "The Vault probe failed: \(error)", "availability"))
        }
        let namespace = configuration.namespace.map { ", namespace '\($0)'" } ?? ""
        return .available("Vault/OpenBao at \(configuration.address)\(namespace), KV v2 mount '\(configuration.mount)', items under '\(configuration.prefix)/'")
    }

    private func check() throws {
        let mount: VaultHTTPResponse
        do {
            mount = try probe(mountPath, call: mountCall)
        } catch let error as KeychainError where error.status != errSecNotAvailable {
            // A refused lookup, login or renewal, or a failure answer: a sealed or uninitialized
            // server explains it better. Unreachable, timed out, TLS and sealed are clear already.
            try checkHealth()
            throw error
        }
        if (try? checkMount(mount)) != nil { return }
        // Something is wrong: the checks in order say what.
        try checkHealth()
        try checkToken()
        try checkMount(mount)
    }

    /// `sys/health` needs no token, so it tells an unreachable or sealed server apart from a
    /// bad token. The query makes standby nodes answer 200 too; only the root namespace
    /// answers it.
    private func checkHealth() throws {
        let call = "GET sys/health"
        let response = try probe("sys/health", query: "standbyok=true&perfstandbyok=true", inNamespace: false,
                                 authenticated: false, call: call)
        if response.json?["sealed"]?.bool == true { throw failures.sealed(call) }
        if response.json?["initialized"]?.bool == false {
            throw failures.make(errSecNotAvailable, "The Vault server at \(configuration.address) is not initialized; run `bao operator init`.", call)
        }
        guard response.status == 200 else {
            throw failures.error(response, action: "checking the health of", path: "sys/health", call: call)
        }
    }

    private func checkToken() throws {
        let call = "GET auth/token/lookup-self"
        let response = try probe("auth/token/lookup-self", call: call)
        guard response.status == 200 else {
            if response.status == 403 || response.status == 401 {
                throw failures.make(errSecAuthFailed, "The Vault server rejected \(configuration.authentication) (HTTP \(response.status)): it is invalid or expired, or lacks the default policy. \(configuration.authentication.logsIn ? "Check the login's role and policies." : "Set VAULT_TOKEN (or BAO_TOKEN) or run `bao login`.")", call)
            }
            throw failures.error(response, action: "looking up", path: "auth/token/lookup-self", call: call)
        }
    }

    private var mountPath: String { "sys/internal/ui/mounts/\(configuration.mount)" }
    private var mountCall: String { "GET \(mountPath)" }

    /// Writing KV version 2 requests to a version 1 mount would store them as plain secrets,
    /// so the engine's version, in the server's `response` about the mount, is checked before
    /// any item is touched.
    private func checkMount(_ response: VaultHTTPResponse) throws {
        let call = mountCall
        guard response.status == 200, let mount = response.json?["data"] else {
            throw failures.make(errSecNotAvailable, "No KV mount '\(configuration.mount)' is visible to this token on \(configuration.address) (HTTP \(response.status)). Enable one (`bao secrets enable -path=\(configuration.mount) kv-v2`), grant the token access, or set KEYCHAIN_VAULT_MOUNT.", call)
        }
        let type = ForeignText.printable(mount["type"]?.text ?? "unknown")
        let version = ForeignText.printable(mount["options"]?["version"]?.text ?? "1")
        guard type == "kv", version == "2" else {
            throw failures.make(errSecNotAvailable, "The mount '\(configuration.mount)' is a '\(type)' engine, version \(version), not KV version 2. Point KEYCHAIN_VAULT_MOUNT at a KV version 2 mount.", call)
        }
    }

    private func probe(_ path: String, query: String? = nil, inNamespace: Bool = true, authenticated: Bool = true,
                       call: String) throws -> VaultHTTPResponse {
        try kv.send("GET", path, query: query, inNamespace: inNamespace, authenticated: authenticated,
                    timeout: configuration.probeTimeout, probing: true)
    }
}
