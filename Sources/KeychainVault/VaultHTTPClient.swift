import CCurl
import FoundationEssentials
import Glibc
import KeychainSystemCalls
import KeychainCore

/// A parsed answer from the server. The raw body is wiped as soon as it is parsed, because
/// it may hold secrets; the secrets live on only inside `json`'s zeroed-on-release strings.
struct VaultHTTPResponse {
    let status: Int
    /// The body as JSON, or nil when it was empty or not JSON.
    let json: VaultJSON?
    /// The answer's `X-Vault-Index`, when it had one.
    var storageIndex: VaultStorageIndex? = nil

    /// Vault's `errors` array joined for a message; these are server texts, never secrets,
    /// and their control characters and escape sequences are removed (`ForeignText`).
    var errorText: String {
        let texts = json?["errors"]?.array?.compactMap(\.text) ?? []
        let joined = texts.joined(separator: "; ").split(whereSeparator: \.isNewline)
            .map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }.joined(separator: " ")
        return String(ForeignText.printable(joined).prefix(300))
    }
}

/// Why no HTTP answer arrived.
enum VaultTransportFailure: Error {
    /// The connection could not be made: refused, unknown host, no route.
    case unreachable(String)
    /// The connection or the whole request passed its deadline.
    case timedOut
    /// The TLS handshake failed, usually an untrusted certificate.
    case tls(String)
    /// The answer was longer than `VaultLimits.maximumResponseBytes`; the transfer was stopped.
    case tooLarge
    /// libcurl could not be loaded.
    case noHTTPLibrary(String)
    /// The connection closed after the request went out, before any answer.
    case connectionLost(String)
    case other(String)

    /// Whether the request may have reached the server and been applied: anything but a
    /// connection that was never made.
    var mayHaveBeenApplied: Bool {
        switch self {
        case .unreachable, .tls, .noHTTPLibrary: return false
        case .timedOut, .tooLarge, .connectionLost, .other: return true
        }
    }
}

/// The sizes a request and an answer may have.
enum VaultLimits {
    /// Vault's and OpenBao's default `max_request_size`: a larger item cannot be stored, so
    /// the backend refuses it before sending.
    static let maximumRequestBytes = 32 << 20
    /// The largest answer read: an item of the largest storable size, grown by JSON escaping,
    /// or a listing of a very large folder. A server sending more is refused, so a hostile or
    /// broken one cannot exhaust memory.
    static let maximumResponseBytes = 80 << 20
}

/// Talks HTTP to one server through libcurl.
///
/// Each request runs synchronously on the calling thread (no thread some other caller may
/// occupy is waited on), on a pooled lane (`CurlLanePool`) that keeps one connection open to
/// the server. Every request carries the newest storage index `indexes` knows, and a node that
/// is behind and will not forward (429 or 412: nothing was done) is asked again after a short
/// pause until the request's timeout. See docs/vault.md#requests-per-operation.
final class VaultHTTPClient: Sendable {
    private let address: String
    fileprivate let namespace: String?
    fileprivate let tls: VaultTLSSettings
    fileprivate let target: (url: String, connectTo: String?)
    private let lanes = CurlLanePool()
    private let indexes: VaultIndexTracker?

    init(address: String, namespace: String?, tls: VaultTLSSettings, indexes: VaultIndexTracker? = nil) {
        self.address = address
        self.namespace = namespace
        self.tls = tls
        self.target = Self.target(address: address, serverName: tls.serverName)
        self.indexes = indexes
    }

    /// Performs one request and waits at most `timeout` seconds for its whole answer.
    ///
    /// `path` is the API path after `/v1/`, unencoded; every segment is percent-encoded here,
    /// so names containing `%`, `?` or `#` reach Vault exactly as given. `token` goes into
    /// `X-Vault-Token` (nil for the calls that need none: health, login).
    /// `inNamespace: false` leaves out the namespace header, for the calls (`sys/health`)
    /// that only the root namespace answers.
    func send(_ method: String, _ path: String, query: String? = nil, body: SecretBytes? = nil, token: VaultToken?,
              inNamespace: Bool = true, timeout: TimeInterval) -> Result<VaultHTTPResponse, VaultTransportFailure> {
        sendAll([VaultHTTPRequest(method: method, path: path, query: query, body: body, token: token,
                                  inNamespace: inNamespace, timeout: timeout)])[0]
    }

    /// Performs `requests` at once, on the calling thread (libcurl's multi interface, driven
    /// here), each within its own timeout, and returns their answers in order. They share the
    /// lane's one connection: over HTTP/2 (TLS) two requests side by side cost one round trip,
    /// over HTTP/1.1 they take turns, which costs less than a second connection's handshake.
    func sendAll(_ requests: [VaultHTTPRequest]) -> [Result<VaultHTTPResponse, VaultTransportFailure>] {
        let started = Date()
        var index = indexes?.indexToSend()
        var results = sendAllOnce(requests, index: index)
        if index?.position == UInt64.max, let acknowledged = indexes?.indexToSend(acknowledgedOnly: true) {
            // Sent to the active node after a write whose answer was lost (`VaultIndexTracker`):
            // when there is none (an election), the standby answers up to the acknowledged writes.
            let unanswered = results.indices.filter { position in
                guard requests[position].method == "GET" else { return false }
                guard case .success(let response) = results[position] else { return true }
                return response.status >= 500 || response.status == 307 || response.status == 308
            }
            if !unanswered.isEmpty {
                let again = sendAllOnce(unanswered.map { requests[$0] }, index: acknowledged)
                for (position, result) in zip(unanswered, again) { results[position] = result }
            }
            index = acknowledged
        }
        if index != nil { results = answeredLocallyWhenNoActiveNode(requests, results) }
        // Bounded by each request's timeout.
        var pause: TimeInterval = 0.02
        while true {
            let waiting = results.indices.filter { position in
                guard case .success(let response) = results[position], Self.isPassing(response, sentIndex: index != nil) else { return false }
                return Date().addingTimeInterval(pause) < started.addingTimeInterval(requests[position].timeout)
            }
            guard !waiting.isEmpty else { break }
            SystemThread.sleep(.milliseconds(Int64((pause * 1000).rounded())))
            pause = min(pause * 2, 0.5)
            index = indexes?.indexToSend()
            let again = sendAllOnce(waiting.map { position in
                var request = requests[position]
                request.timeout = max(0.001, started.addingTimeInterval(request.timeout).timeIntervalSinceNow)
                return request
            }, index: index)
            for (position, result) in zip(waiting, again) { results[position] = result }
        }
        return results
    }

    /// During an election a standby behind the index has no active node to pass a request to,
    /// and answers 307 or 5xx. A read of one item or a folder's listing is then asked again
    /// without the index, from the standby's own copy: its answer is taken when it found the
    /// item or a non-empty folder, possibly lagging the last writes before the leader died, so
    /// reads keep answering. "Not there" from a copy that may lag is not an answer: the first
    /// error stands, so an item read by its name is never reported missing this way.
    private func answeredLocallyWhenNoActiveNode(_ requests: [VaultHTTPRequest],
                                                 _ results: [Result<VaultHTTPResponse, VaultTransportFailure>])
        -> [Result<VaultHTTPResponse, VaultTransportFailure>] {
        let stranded = results.indices.filter { position in
            guard requests[position].method == "GET", case .success(let response) = results[position] else { return false }
            return response.status >= 500 || response.status == 307 || response.status == 308
        }
        guard !stranded.isEmpty else { return results }
        var results = results
        let local = sendAllOnce(stranded.map { requests[$0] }, index: nil)
        for (position, result) in zip(stranded, local) {
            if case .success(let response) = result, response.status == 200 { results[position] = result }
        }
        return results
    }

    /// Whether `response` refused the request for a moment, having done nothing, so it is sent
    /// again: a node behind the index it carried (429 from OpenBao's `fail`, 412 from Vault
    /// Enterprise; from a server that ignores the headers these mean something else), or a KV
    /// version 2 mount just enabled, which a standby refuses until the leader has set it up.
    private static func isPassing(_ response: VaultHTTPResponse, sentIndex: Bool) -> Bool {
        switch response.status {
        case 412, 429: return sentIndex
        case 400: return response.errorText.contains("Waiting for the primary to upgrade")
        default: return false
        }
    }

    private func sendAllOnce(_ requests: [VaultHTTPRequest], index: VaultStorageIndex?) -> [Result<VaultHTTPResponse, VaultTransportFailure>] {
        guard requests.count <= Int(CCURL_MAXIMUM_PARALLEL) else {
            return requests.map { _ in .failure(.other("at most \(CCURL_MAXIMUM_PARALLEL) requests can travel at once")) }
        }
        guard !requests.isEmpty else { return [] }
        if let failure = VaultCurlLibrary.loadFailure { return requests.map { _ in .failure(.noHTTPLibrary(failure)) } }
        guard let lane = lanes.take(handleCount: requests.count) else {
            return requests.map { _ in .failure(.other("libcurl could not make a request handle")) }
        }
        defer { lanes.giveBack(lane) }
        let handles: [UnsafeMutableRawPointer?] = Array(lane.handles.prefix(requests.count))
        if tls.skipVerify {
            VaultWarnings.write("warning: VAULT_SKIP_VERIFY is set: the certificate of \(address) is not verified, so anyone on the network path can read and change what is sent.")
        }

        let prepared = requests.map { PreparedRequest($0, client: self, index: index) }
        let cRequests = prepared.map(\.request)
        var responses = [CCurlResponse](repeating: CCurlResponse(), count: requests.count)
        defer { for index in responses.indices { ccurl_response_free(&responses[index]) } }
        withExtendedLifetime(prepared) {
            _ = ccurl_perform_all(lane.multi, handles, cRequests, &responses, requests.count)
        }
        return zip(requests, responses).map { request, response in
            guard response.failure == CCURL_FAILURE_NONE else {
                let failure = Self.failure(of: response)
                if request.method != "GET", failure.mayHaveBeenApplied { indexes?.noteUnansweredWrite() }
                return .failure(failure)
            }
            let json = response.length == 0 ? nil : VaultJSON.parse(UnsafeRawBufferPointer(start: response.body, count: response.length))
            let storageIndex = withUnsafeBytes(of: response.vault_index) {
                VaultStorageIndex(header: String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self))
            }
            if let storageIndex { indexes?.observe(storageIndex, toWrite: request.method != "GET") }
            return .success(VaultHTTPResponse(status: Int(response.status), json: json, storageIndex: storageIndex))
        }
    }

    /// A request in libcurl's terms, owning copies of its strings for as long as it lives.
    /// The header copies hold the token, so they are wiped before they are freed.
    private final class PreparedRequest {
        private(set) var request = CCurlRequest()
        private var strings: [(pointer: UnsafeMutablePointer<CChar>, count: Int)] = []
        private var headerPointers: UnsafeMutablePointer<UnsafePointer<CChar>?>
        private let headerCount: Int
        // Kept alive: libcurl reads the body and the CA text in place.
        private let body: SecretBytes?
        private let caPEM: UnsafeMutableRawBufferPointer?

        init(_ source: VaultHTTPRequest, client: VaultHTTPClient, index: VaultStorageIndex?) {
            let url = "\(client.target.url)/v1/\(VaultHTTPClient.percentEncoded(source.path))\(source.query.map { "?\($0)" } ?? "")"
            // The header the vault CLI sends; servers may require it as a guard against SSRF.
            var headers = ["X-Vault-Request: true"]
            if let token = source.token { headers.append("X-Vault-Token: \(token.value)") }
            if let namespace = client.namespace, source.inNamespace { headers.append("X-Vault-Namespace: \(namespace)") }
            if source.body != nil { headers.append("Content-Type: \(source.contentType)") }
            if let index {
                // A standby that has not applied the index passes the request to the active node.
                headers.append("X-Vault-Index: \(index.header)")
                headers.append("X-Vault-Inconsistent: forward-active-node")
            }
            headerCount = headers.count
            headerPointers = .allocate(capacity: headers.count)
            body = source.body
            caPEM = (client.tls.caFile == nil ? client.tls.caPEM : nil).map { text in
                let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: text.count, alignment: 1)
                copy.copyBytes(from: text)
                return copy
            }

            for (index, header) in headers.enumerated() { headerPointers[index] = UnsafePointer(copy(header)) }
            let milliseconds = max(1, Int((source.timeout * 1000).rounded(.up)))
            request.method = UnsafePointer(copy(source.method))
            request.url = UnsafePointer(copy(url))
            request.headers = UnsafePointer(headerPointers)
            request.header_count = headers.count
            request.has_body = body == nil ? 0 : 1
            request.body = body?.withUnsafeBytes { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
            request.body_length = body?.count ?? 0
            request.connect_timeout_ms = milliseconds
            request.total_timeout_ms = milliseconds
            request.max_response_bytes = VaultLimits.maximumResponseBytes
            request.ca_file = client.tls.caFile.map { UnsafePointer(copy($0)) }
            request.ca_pem = caPEM.flatMap { UnsafePointer($0.baseAddress?.assumingMemoryBound(to: UInt8.self)) }
            request.ca_pem_length = caPEM?.count ?? 0
            request.client_cert = client.tls.clientCertificate.map { UnsafePointer(copy($0)) }
            request.client_key = client.tls.clientKey.map { UnsafePointer(copy($0)) }
            request.connect_to = client.target.connectTo.map { UnsafePointer(copy($0)) }
            request.skip_verify = client.tls.skipVerify ? 1 : 0
        }

        private func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
            let count = text.utf8.count + 1
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: count)
            text.withCString { pointer.initialize(from: $0, count: count) }
            strings.append((pointer, count))
            return pointer
        }

        deinit {
            for (pointer, count) in strings {
                pointer.update(repeating: 0, count: count)
                pointer.deallocate()
            }
            headerPointers.deallocate()
            caPEM?.deallocate()
        }
    }

    // MARK: - Helpers

    /// The base URL requests go to, and libcurl's connect-to rule when `VAULT_TLS_SERVER_NAME`
    /// differs from the address's host: the URL then names the server name (so SNI and the
    /// certificate check use it) and the rule sends the connection to the real host.
    private static func target(address: String, serverName: String?) -> (url: String, connectTo: String?) {
        guard let serverName, var components = URLComponents(string: address), let host = components.host,
              host != serverName else { return (address, nil) }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        components.host = serverName
        components.port = port
        let connectHost = host.contains(":") ? "[\(host)]" : host
        return (components.string ?? address, "\(serverName):\(port):\(connectHost):\(port)")
    }

    /// libcurl's message may quote the server (a certificate's names, a proxy's answer).
    private static func failure(of response: CCurlResponse) -> VaultTransportFailure {
        let message = ForeignText.printable(withUnsafeBytes(of: response.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        switch response.failure {
        case CCURL_FAILURE_UNREACHABLE: return .unreachable(message)
        case CCURL_FAILURE_TIMED_OUT: return .timedOut
        case CCURL_FAILURE_TLS: return .tls(message)
        case CCURL_FAILURE_TOO_LARGE: return .tooLarge
        case CCURL_FAILURE_CONNECTION_LOST: return .connectionLost("\(message), libcurl error \(response.code)")
        default: return .other("\(message) (libcurl error \(response.code))")
        }
    }

    private static let unreservedOrSlash = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8)

    /// `path` with every UTF-8 byte but the unreserved characters and `/` percent-encoded (RFC 3986).
    fileprivate static func percentEncoded(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in path.utf8 {
            if unreservedOrSlash.contains(byte) { encoded.append(byte) }
            else { encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]] }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}

/// libcurl, loaded once per process at the first request.
enum VaultCurlLibrary {
    /// Nil once libcurl is loaded, else why it cannot be.
    static var loadFailure: String? {
        var reason = [CChar](repeating: 0, count: 512)
        guard ccurl_load(nil, &reason, reason.count) != 0 else { return nil }
        let text = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return "libcurl.so.4 cannot be loaded (\(text)); install libcurl4 (Debian/Ubuntu: apt-get install libcurl4)"
    }
}

/// One request: see `VaultHTTPClient.send` for the meaning of each part.
struct VaultHTTPRequest {
    var method: String
    var path: String
    var query: String? = nil
    var body: SecretBytes? = nil
    /// The body's media type, sent only with a body. KV v2's `PATCH` accepts nothing but
    /// `application/merge-patch+json`; every other call takes plain JSON.
    var contentType = "application/json"
    var token: VaultToken?
    var inNamespace = true
    var timeout: TimeInterval
}

/// Warnings the backend writes to stderr, where a program's operator sees them.
enum VaultWarnings {
    static func write(_ line: String) {
        // A closed or full stderr loses the line; it never stops the program.
        let bytes = Array("linux-keychain: \(line)\n".utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
