import CCurl
import Foundation

/// A bare HTTP request to the same KV v2 path shape the `vault` backend uses: GET to read,
/// POST to write, through libcurl's easy interface on one reused handle (so one kept-alive
/// connection), with the address and token from the environment. This is what the backend's
/// own client does, without the backend around it.
final class VaultRawBaseline: RawBaseline {
    let getName = "libcurl GET kv/data"
    let setName = "libcurl POST kv/data"
    private let url: String
    private let tokenHeader: String
    private let handle: UnsafeMutableRawPointer

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let address = environment["VAULT_ADDR"] ?? environment["BAO_ADDR"],
              let token = environment["VAULT_TOKEN"] ?? environment["BAO_TOKEN"] else {
            throw BaselineError(description: "VAULT_ADDR and VAULT_TOKEN are not set")
        }
        var reason = [CChar](repeating: 0, count: 512)
        guard ccurl_load(nil, &reason, reason.count) == 0, let handle = ccurl_handle_new() else {
            throw BaselineError(description: "libcurl cannot be loaded: \(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        self.handle = handle
        url = "\(address)/v1/secret/data/keychain-bench-raw/\(ProcessInfo.processInfo.processIdentifier)"
        tokenHeader = "X-Vault-Token: \(token)"
    }

    deinit { ccurl_handle_free(handle) }

    let addName = "libcurl POST kv/data"

    /// Each to a path of its own under the baseline's, left for the throwaway server.
    func addMany(_ count: Int) throws -> Double {
        try seconds { for index in 0..<count { try send("POST", body: writeBody, to: "\(url)-bundle/\(index)") } }
    }

    private func send(_ method: String, body: [UInt8]?, to url: String? = nil) throws {
        let url = url ?? self.url
        var response = CCurlResponse()
        defer { ccurl_response_free(&response) }
        let performed = method.withCString { methodPointer in
            url.withCString { urlPointer in
                tokenHeader.withCString { header in
                    var headers: [UnsafePointer<CChar>?] = [header]
                    return headers.withUnsafeMutableBufferPointer { headerPointers in
                        (body ?? []).withUnsafeBufferPointer { bodyBytes in
                            var request = CCurlRequest()
                            request.method = methodPointer
                            request.url = urlPointer
                            request.headers = UnsafePointer(headerPointers.baseAddress)
                            request.header_count = 1
                            request.has_body = body == nil ? 0 : 1
                            request.body = bodyBytes.baseAddress
                            request.body_length = bodyBytes.count
                            request.connect_timeout_ms = 10_000
                            request.total_timeout_ms = 10_000
                            request.max_response_bytes = 1 << 20
                            return ccurl_perform(handle, &request, &response)
                        }
                    }
                }
            }
        }
        guard performed == 0, (200..<300).contains(response.status) else {
            throw BaselineError(description: "\(method) \(url) failed (status \(response.status), libcurl error \(response.code))")
        }
    }

    private var writeBody: [UInt8] { Array(#"{"data":{"password":"ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"}}"#.utf8) }

    func measureSet(iterations: Int) throws -> LatencySample {
        try LatencySample.measure(iterations: iterations) { _ in try send("POST", body: writeBody) }
    }

    func measureGet(iterations: Int) throws -> LatencySample {
        try send("POST", body: writeBody)
        return try LatencySample.measure(iterations: iterations) { _ in try send("GET", body: nil) }
    }
}
