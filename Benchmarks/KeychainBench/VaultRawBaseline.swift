import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A bare HTTP request to the same KV v2 path shape the `vault` backend uses: GET to read,
/// POST to write, on one reused URLSession, with the address and token from the environment.
struct VaultRawBaseline: RawBaseline {
    let getName = "HTTP GET kv/data"
    let setName = "HTTP POST kv/data"
    private let address: URL
    private let token: String
    private let session = URLSession(configuration: .ephemeral)

    init() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let addressText = environment["VAULT_ADDR"] ?? environment["BAO_ADDR"],
              let address = URL(string: addressText),
              let token = environment["VAULT_TOKEN"] ?? environment["BAO_TOKEN"] else {
            throw BaselineError(description: "VAULT_ADDR and VAULT_TOKEN are not set")
        }
        self.address = address
        self.token = token
    }

    private var url: URL {
        address.appendingPathComponent("v1/secret/data/keychain-bench-raw/\(ProcessInfo.processInfo.processIdentifier)")
    }

    private func send(_ method: String, body: Data?) throws {
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = method
        request.setValue(token, forHTTPHeaderField: "X-Vault-Token")
        request.httpBody = body
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        session.dataTask(with: request) { _, response, error in
            outcome.status = (response as? HTTPURLResponse)?.statusCode
            outcome.failed = error != nil
            done.signal()
        }.resume()
        done.wait()
        guard !outcome.failed, let status = outcome.status, (200..<300).contains(status) else {
            throw BaselineError(description: "\(method) \(url.path) failed (status \(outcome.status.map(String.init) ?? "none"))")
        }
    }

    private var writeBody: Data { Data(#"{"data":{"password":"ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"}}"#.utf8) }

    func measureSet(iterations: Int) throws -> LatencySample {
        try LatencySample.measure(iterations: iterations) { _ in try send("POST", body: writeBody) }
    }

    func measureGet(iterations: Int) throws -> LatencySample {
        try send("POST", body: writeBody)
        return try LatencySample.measure(iterations: iterations) { _ in try send("GET", body: nil) }
    }
}

/// Carries a completion handler's findings back to the waiting thread.
private final class OutcomeBox: @unchecked Sendable {
    var status: Int?
    var failed = false
}
