import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KeychainCore

/// A parsed answer from the server. The raw body is zeroed as soon as it is parsed, because
/// it may hold secrets; the secrets live on only inside `json`'s zeroed-on-release strings.
struct VaultHTTPResponse {
    let status: Int
    /// The body as JSON, or nil when it was empty or not JSON.
    let json: VaultJSON?

    /// Vault's `errors` array joined for a message; these are server texts, never secrets.
    var errorText: String {
        let texts = json?["errors"]?.array?.compactMap(\.text) ?? []
        let joined = texts.joined(separator: "; ").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        return String(joined.prefix(300))
    }
}

/// Why no HTTP answer arrived.
enum VaultTransportFailure: Error {
    /// The connection could not be made: refused, unknown host, no route.
    case unreachable(String)
    /// No progress within the timeout.
    case timedOut
    /// The TLS handshake failed, usually an untrusted certificate.
    case tls(String)
    case other(String)
}

/// The one URLSession through which a backend talks to its server, with blocking calls.
///
/// The backend protocol is synchronous, so each call starts a data task and waits on a
/// semaphore. The completion handler runs on this client's own `OperationQueue`, never on
/// Swift's cooperative pool or the caller's queue, so waiting cannot starve the thread that
/// would deliver the answer. One session is reused for every call, keeping connections alive.
final class VaultHTTPClient: @unchecked Sendable {
    // URLSession is thread-safe; the other properties are immutable. That is what the
    // unchecked Sendable relies on.
    private let session: URLSession
    private let address: String
    private let token: VaultToken
    private let namespace: String?

    init(configuration: VaultConfiguration) {
        address = configuration.address
        token = configuration.token
        namespace = configuration.namespace
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.name = "LinuxKeychain.vault.http"
        session = URLSession(configuration: sessionConfiguration, delegate: VaultRedirectRefusal(), delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Performs one request and waits at most `timeout` seconds for its answer.
    ///
    /// `path` is the API path after `/v1/`, unencoded; every segment is percent-encoded here,
    /// so names containing `%`, `?` or `#` reach Vault exactly as given.
    /// `inNamespace: false` leaves out the namespace header, for the calls (`sys/health`)
    /// that only the root namespace answers.
    func send(_ method: String, _ path: String, query: String? = nil, body: SecretBytes? = nil,
              inNamespace: Bool = true, timeout: TimeInterval) -> Result<VaultHTTPResponse, VaultTransportFailure> {
        guard let url = URL(string: "\(address)/v1/\(Self.percentEncoded(path))\(query.map { "?\($0)" } ?? "")") else {
            return .failure(.other("no valid URL can be formed for the path '\(path)'"))
        }
        // FoundationNetworking's own timeout is whole seconds only and was seen never to fire
        // on a server that accepts the connection and stays silent, so the wait below is what
        // enforces `timeout`; this one is a second line of defence.
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: max(1, timeout.rounded(.up)))
        request.httpMethod = method
        request.setValue(token.value, forHTTPHeaderField: "X-Vault-Token")
        // The header the vault CLI sends; servers may require it as a guard against SSRF.
        request.setValue("true", forHTTPHeaderField: "X-Vault-Request")
        if let namespace, inNamespace { request.setValue(namespace, forHTTPHeaderField: "X-Vault-Namespace") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Self.borrowedData(body)
        }

        let exchange = VaultExchange()
        let task = session.dataTask(with: request) { data, response, error in
            exchange.finish(data: data, response: response, error: error)
        }
        task.resume()
        guard let (response, error) = exchange.wait(seconds: timeout) else {
            task.cancel()
            return .failure(.timedOut)
        }
        var bodyData = exchange.takeBody()
        defer { SecretBytes.zero(&bodyData) }
        if let error { return .failure(Self.transportFailure(error)) }
        guard let http = response as? HTTPURLResponse else { return .failure(.other("the answer was not HTTP")) }
        return .success(VaultHTTPResponse(status: http.statusCode, json: bodyData.isEmpty ? nil : VaultJSON.parse(bodyData)))
    }

    /// A `Data` that reads the secret's own storage instead of copying it. The deallocator
    /// holds the `SecretBytes` alive until the last user of the `Data` (ours or
    /// FoundationNetworking's) lets go, and its storage is zeroed when it is finally released.
    private static func borrowedData(_ secret: SecretBytes) -> Data {
        guard !secret.isEmpty else { return Data() }
        let base = secret.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
        return Data(bytesNoCopy: base, count: secret.count, deallocator: .custom { _, _ in withExtendedLifetime(secret) {} })
    }

    private static let unreservedOrSlash =
        CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")

    private static func percentEncoded(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: unreservedOrSlash) ?? path
    }

    private static func transportFailure(_ error: any Error) -> VaultTransportFailure {
        guard let urlError = error as? URLError else { return .other(String(describing: error)) }
        switch urlError.code {
        case .timedOut:
            return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
             .notConnectedToInternet, .cannotLoadFromNetwork:
            return .unreachable(urlError.localizedDescription)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired:
            return .tls(urlError.localizedDescription)
        // libcurl's certificate failures arrive as NSURLErrorUnknown with curl's own text.
        case .unknown where ["SSL", "certificate"].contains { urlError.localizedDescription.contains($0) }:
            return .tls(urlError.localizedDescription)
        default:
            return .other("\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))")
        }
    }
}

/// Hands one task's result from the session's queue to the waiting caller.
private final class VaultExchange: @unchecked Sendable {
    // Written once, before `done` is signalled; read after the wait. The lock orders the two.
    private var body: Data?
    private var response: URLResponse?
    private var error: (any Error)?
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)

    func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
        lock.withLock {
            body = data
            self.response = response
            self.error = error
        }
        done.signal()
    }

    /// The response and error, or nil when nothing arrived within `seconds`.
    func wait(seconds: TimeInterval) -> (response: URLResponse?, error: (any Error)?)? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return lock.withLock { (response, error) }
    }

    /// Hands over the body and forgets it, so the caller holds the only reference and zeroing
    /// it clears the bytes in place rather than a copy.
    func takeBody() -> Data {
        lock.withLock {
            defer { body = nil }
            return body ?? Data()
        }
    }
}

/// Refuses redirects, so the token in the request headers is never replayed to another host.
/// Vault only redirects from a standby node with request forwarding disabled; the error then
/// says to point the address at the active node.
private final class VaultRedirectRefusal: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
