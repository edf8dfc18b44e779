import KeychainCore

/// Turns what went wrong talking to the server into keychain errors with Apple's statuses.
///
/// | condition                                   | status                |
/// |---------------------------------------------|-----------------------|
/// | server unreachable, TLS refused, no mount   | `errSecNotAvailable`  |
/// | sealed server                               | `errSecNotAvailable`, message says "sealed" |
/// | no active node (500, shutting down, electing) | `errSecNotAvailable`, "retry in a few seconds" |
/// | bad or expired token, policy refusal (403)  | `errSecAuthFailed`    |
/// | 5xx answer, timeout during an operation     | `errSecIO`            |
/// | connection lost after the request went out  | `errSecIO`, message says a write may have been applied |
/// | request rejected as malformed (400)         | `errSecParam`         |
/// | item larger than the server's limits        | `errSecDataTooLarge`  |
///
/// Messages name the server and paths (never the token) and say what to do.
struct VaultFailures: Sendable {
    let configuration: VaultConfiguration

    /// The error for a request that got no HTTP answer. During `availability()` a timeout
    /// means the server is unreachable; during an operation it is an I/O failure.
    func error(_ failure: VaultTransportFailure, call: String, probing: Bool) -> KeychainError {
        let server = "the Vault server at \(configuration.address)"
        switch failure {
        case .unreachable(let detail):
            return make(errSecNotAvailable, "Cannot reach \(server) (\(detail)). Check VAULT_ADDR and that the server is running.", call)
        case .timedOut where probing:
            return make(errSecNotAvailable, "No answer from \(server) within \(Self.seconds(configuration.probeTimeout)). Check VAULT_ADDR and the network, or raise KEYCHAIN_VAULT_PROBE_TIMEOUT.", call)
        case .timedOut:
            return make(errSecIO, "No answer from \(server) within \(Self.seconds(configuration.requestTimeout)). Retry, or raise KEYCHAIN_VAULT_TIMEOUT.", call)
        case .tls(let detail):
            return make(errSecNotAvailable, "TLS with \(server) failed (\(detail)). For a private CA set VAULT_CACERT or VAULT_CAPATH; for a server that requires client certificates set VAULT_CLIENT_CERT and VAULT_CLIENT_KEY.", call)
        case .tooLarge:
            return make(errSecIO, "\(server.prefix(1).uppercased() + server.dropFirst()) sent an answer larger than \(VaultLimits.maximumResponseBytes >> 20) MiB; it was refused unread. Check VAULT_ADDR points at a Vault server.", call)
        case .noHTTPLibrary(let detail):
            return make(errSecNotAvailable, "The vault backend needs libcurl: \(detail).", call)
        case .connectionLost(let detail):
            return make(errSecIO, "The connection to \(server) closed before it answered (\(detail)). The server may have stopped or restarted: retry once it runs. A write may have been applied, so it was not sent again.", call)
        case .other(let detail):
            return make(errSecIO, "Talking to \(server) failed: \(detail).", call)
        }
    }

    /// The error for an HTTP answer that is not the expected success.
    func error(_ response: VaultHTTPResponse, action: String, path: String, call: String) -> KeychainError {
        let detail = response.errorText.isEmpty ? "HTTP \(response.status)" : "HTTP \(response.status): \(response.errorText)"
        switch response.status {
        case 503 where response.errorText.lowercased().contains("sealed"):
            return sealed(call)
        case 401, 403:
            return make(errSecAuthFailed, "Vault denied \(action) '\(path)' to \(configuration.authentication) (\(detail)). The token is invalid or expired, or its policies do not allow this path; check it with `bao token lookup`.", call)
        case 404 where response.errorText.contains("no handler for route"):
            return make(errSecNotAvailable, "The Vault server has no mount '\(configuration.mount)' (\(detail)). Enable a KV version 2 engine there, or set KEYCHAIN_VAULT_MOUNT.", call)
        case 500 where response.errorText.contains("active cluster node not found"):
            return make(errSecNotAvailable, "The Vault server at \(configuration.address) has no active node to serve \(action) '\(path)' (\(detail)): it is shutting down, starting or electing a leader. Retry in a few seconds.", call)
        case 307, 308:
            return make(errSecNotAvailable, "The Vault server at \(configuration.address) redirected \(action) '\(path)' (\(detail)): a standby node with no active node to pass it to, during a leader election or with request forwarding off. Retry in a few seconds, or set VAULT_ADDR to the active node.", call)
        case 413:
            return tooLarge(action, path, detail, call)
        case 500 where response.errorText.lowercased().contains("too large"):
            return tooLarge(action, path, detail, call)
        case 400:
            return make(errSecParam, "Vault rejected \(action) '\(path)' (\(detail)).", call)
        default:
            return make(errSecIO, "Vault failed \(action) '\(path)' (\(detail)). Retry later; if it persists, check the server's log.", call)
        }
    }

    private func tooLarge(_ action: String, _ path: String, _ detail: String, _ call: String) -> KeychainError {
        make(errSecDataTooLarge, "The Vault server refused \(action) '\(path)' as too large (\(detail)). Store a smaller item: the server's limits are its max_request_size and, on raft storage, max_entry_size.", call)
    }

    private static func seconds(_ interval: Double) -> String {
        interval == interval.rounded() ? "\(Int(interval)) s" : "\(interval) s"
    }

    func sealed(_ call: String) -> KeychainError {
        make(errSecNotAvailable, "The Vault server at \(configuration.address) is sealed. Unseal it with `bao operator unseal`, then retry.", call)
    }

    func make(_ status: OSStatus, _ message: String, _ call: String) -> KeychainError {
        KeychainError(status, message, backend: VaultBackend.backendName, failedCall: call)
    }
}
