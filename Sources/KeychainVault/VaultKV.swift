import FoundationEssentials
import Glibc
import KeychainCore

/// The KV version 2 calls the backend makes, with every answer other than the expected ones
/// turned into a `KeychainError` by `VaultFailures`.
///
/// Paths are relative to the mount (`linux-keychain/generic/app/alice`).
struct VaultKV: Sendable {
    let client: VaultHTTPClient
    let configuration: VaultConfiguration
    let failures: VaultFailures
    let session: VaultSession

    init(configuration: VaultConfiguration) {
        self.configuration = configuration
        self.client = VaultHTTPClient(address: configuration.address, namespace: configuration.namespace, tls: configuration.tls,
                                      indexes: VaultIndexTracker(address: configuration.address, location: configuration.tokenCache))
        self.failures = VaultFailures(configuration: configuration)
        self.session = VaultSession(configuration: configuration, client: client, failures: failures)
    }

    /// One request with the session's current token. A 403 to a login token that turns out to
    /// be dead is retried once with a new login.
    func send(_ method: String, _ apiPath: String, query: String? = nil, body: SecretBytes? = nil, inNamespace: Bool = true,
              authenticated: Bool = true, timeout: TimeInterval, probing: Bool = false) throws -> VaultHTTPResponse {
        let request = VaultHTTPRequest(method: method, path: apiPath, query: query, body: body, token: nil,
                                       inNamespace: inNamespace, timeout: timeout)
        return try sendAll([request], authenticated: authenticated, probing: probing)[0]
    }

    /// `requests` side by side (their tokens are set here), with `send`'s retry.
    private func sendAll(_ requests: [VaultHTTPRequest], authenticated: Bool = true, probing: Bool = false) throws -> [VaultHTTPResponse] {
        for attempt in 1...2 {
            let (token, results) = authenticated ? try session.send(requests, probing: probing) : (nil, client.sendAll(requests))
            var responses: [VaultHTTPResponse] = []
            for (request, result) in zip(requests, results) {
                switch result {
                case .success(let response): responses.append(response)
                case .failure(let failure): throw failures.error(failure, call: "\(request.method) \(request.path)", probing: probing)
                }
            }
            if attempt == 1, responses.contains(where: { $0.status == 403 }), let token, session.refused(token) { continue }
            return responses
        }
        throw failures.make(errSecAuthFailed, "Vault refused a new login token too.", requests.map { "\($0.method) \($0.path)" }.joined(separator: ", "))
    }

    /// Reads `path` and lists `folder` side by side: one round trip for both.
    func readAndList(_ path: String, folder: String) throws -> (read: ReadResult, entries: [String]) {
        let requests = [readRequest(path), listRequest(folder)]
        let responses = try sendAll(requests)
        return (try readResult(responses[0], path: path), try listResult(responses[1], folder: folder))
    }

    enum ReadResult {
        /// The current version's fields.
        case present(fields: [String: VaultJSON], version: Int64)
        /// No live version. `deletedVersion` is the current version when it was soft-deleted
        /// or destroyed (by `bao kv delete`), which a new write must name in its check-and-set.
        case absent(deletedVersion: Int64?)
    }

    enum WriteResult {
        case written
        /// The check-and-set version did not match: someone else wrote first.
        case versionMismatch
    }

    /// GET `<mount>/data/<path>`.
    func read(_ path: String) throws -> ReadResult {
        try readResult(try sendAll([readRequest(path)])[0], path: path)
    }

    private func readRequest(_ path: String) -> VaultHTTPRequest {
        VaultHTTPRequest(method: "GET", path: apiPath("data", path), token: nil, timeout: configuration.requestTimeout)
    }

    private func readResult(_ response: VaultHTTPResponse, path: String) throws -> ReadResult {
        let call = "GET \(apiPath("data", path))"
        switch response.status {
        case 200:
            guard let payload = response.json?["data"], let fields = payload["data"]?.members,
                  let version = payload["metadata"]?["version"]?.integer else {
                throw failures.make(errSecDecode, "The Vault item at '\(path)' is not a KV version 2 secret with fields; is KEYCHAIN_VAULT_MOUNT a KV version 2 mount?", call)
            }
            return .present(fields: fields, version: version)
        case 404 where response.errorText.isEmpty:
            return .absent(deletedVersion: response.json?["data"]?["metadata"]?["version"]?.integer)
        default:
            throw failures.error(response, action: "reading", path: path, call: call)
        }
    }

    enum PatchResult {
        /// The server merged the fields into a new version of the item.
        case patched
        /// No live version: the path holds nothing, or its current version is soft-deleted or
        /// destroyed. Nothing was written.
        case absent
        /// The server would not patch this path: the mount (`cas_required`) or the secret's
        /// metadata demands a check-and-set version (400), the token's policy lacks the `patch`
        /// capability (403), or the server has no KV `PATCH` (405, as before Vault 1.9).
        /// Nothing was written, and a read followed by a check-and-set write may still succeed.
        case refused
    }

    /// POST `<mount>/data/<path>` with `options.cas`: 0 creates only a new item, a version
    /// replaces only that version.
    func write(_ path: String, fields: VaultRequestBody, checkAndSet version: Int64) throws -> WriteResult {
        let body = try sizeChecked(VaultRequestBody.object([("options", .object([("cas", .integer(version))])), ("data", fields)]),
                                   path: path, call: "POST \(apiPath("data", path))")
        let response = try exchange("POST", "data", path, body: body, action: "writing")
        switch response.status {
        case 200, 204:
            return .written
        case 400 where response.errorText.contains("check-and-set"):
            return .versionMismatch
        default:
            throw failures.error(response, action: "writing", path: path, call: "POST \(apiPath("data", path))")
        }
    }

    /// PATCH `<mount>/data/<path>`: a JSON merge patch (RFC 7396) of the current version's
    /// fields, which the server applies under its lock on the path, so a concurrent writer's
    /// version is never overwritten with stale fields. A field given as JSON null is removed;
    /// fields not named keep their values. The server refuses it on a path without a live
    /// version, so it never creates an item.
    func patch(_ path: String, fields: VaultRequestBody) throws -> PatchResult {
        let call = "PATCH \(apiPath("data", path))"
        let body = try sizeChecked(VaultRequestBody.object([("data", fields)]), path: path, call: call)
        let request = VaultHTTPRequest(method: "PATCH", path: apiPath("data", path), body: body,
                                       contentType: "application/merge-patch+json", token: nil,
                                       timeout: configuration.requestTimeout)
        let response = try sendAll([request])[0]
        switch response.status {
        case 200, 204:
            return .patched
        case 404 where response.errorText.isEmpty:
            return .absent
        case 400 where response.errorText.contains("check-and-set parameter required"), 403, 405:
            return .refused
        default:
            throw failures.error(response, action: "updating", path: path, call: call)
        }
    }

    /// `body` serialized, or `errSecParam` before anything is sent when it is larger than
    /// Vault accepts.
    private func sizeChecked(_ body: VaultRequestBody, path: String, call: String) throws -> SecretBytes {
        let serialized = body.serialized()
        guard serialized.count <= VaultLimits.maximumRequestBytes else {
            throw failures.make(errSecDataTooLarge, "The item for '\(path)' is too large: \(serialized.count >> 20) MiB as a Vault request, and Vault accepts at most \(VaultLimits.maximumRequestBytes >> 20) MiB (its max_request_size).", call)
        }
        return serialized
    }

    /// LIST `<mount>/metadata/<folder>/`: the entry names, folders ending in `/`.
    func list(_ folder: String) throws -> [String] {
        try listResult(try sendAll([listRequest(folder)])[0], folder: folder)
    }

    private func listRequest(_ folder: String) -> VaultHTTPRequest {
        VaultHTTPRequest(method: "GET", path: apiPath("metadata", folder + "/"), query: "list=true", token: nil,
                         timeout: configuration.requestTimeout)
    }

    private func listResult(_ response: VaultHTTPResponse, folder: String) throws -> [String] {
        switch response.status {
        case 200:
            guard let keys = response.json?["data"]?["keys"]?.array else {
                throw failures.make(errSecDecode, "Vault's listing of '\(folder)' has no keys.", "LIST \(apiPath("metadata", folder))")
            }
            return keys.compactMap(\.text)
        case 404 where response.errorText.isEmpty:
            return []
        default:
            throw failures.error(response, action: "listing", path: folder, call: "LIST \(apiPath("metadata", folder))")
        }
    }

    /// DELETE `<mount>/metadata/<path>`: the item's metadata and every version, for good.
    func destroy(_ path: String) throws {
        let response = try exchange("DELETE", "metadata", path, action: "deleting")
        guard response.status == 204 || response.status == 200 else {
            throw failures.error(response, action: "deleting", path: path, call: "DELETE \(apiPath("metadata", path))")
        }
    }

    /// DELETE `<mount>/data/<path>`: a soft delete of the current version, which
    /// `bao kv undelete` can bring back.
    func deleteCurrentVersion(_ path: String) throws {
        let response = try exchange("DELETE", "data", path, action: "deleting")
        guard response.status == 204 || response.status == 200 else {
            throw failures.error(response, action: "deleting", path: path, call: "DELETE \(apiPath("data", path))")
        }
    }

    private func apiPath(_ area: String, _ path: String) -> String {
        "\(configuration.mount)/\(area)/\(path)"
    }

    private func exchange(_ method: String, _ area: String, _ path: String, query: String? = nil,
                          body: SecretBytes? = nil, action: String) throws -> VaultHTTPResponse {
        try send(method, apiPath(area, path), query: query, body: body, timeout: configuration.requestTimeout)
    }
}
