import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import Testing

/// The connections and requests of one whole `linux-keychain get` process, counted by a TCP
/// forwarder in front of the dev server. Across a network each new connection costs a TCP
/// (and TLS) handshake and each request a round trip, so both are pinned.
@Suite("a one-shot linux-keychain get on vault opens one connection and sends only what it needs")
struct VaultCLIRoundTripTests {
    let prefix = VaultTestServer.uniquePrefix("trips")

    /// What one process did: how many connections it opened, and the requests sent on them,
    /// with the prefix shortened to `<p>` and sorted (requests sent side by side may go in either order).
    private struct Traffic: Equatable, CustomStringConvertible {
        let connections: Int
        let requests: [String]
        let onOneConnection: Bool

        var description: String { "\(connections) connection(s), \(onOneConnection ? "one" : "several") carrying \(requests)" }
    }

    private func run(_ arguments: [String], through log: URL, environment: [String: String], input: Data? = nil) throws -> (KeychainCLIProcess.Result, Traffic) {
        try Data().write(to: log)
        let result = try KeychainCLIProcess.run(try builtCLI(), ["--backend", "vault"] + arguments,
                                                input: input, environment: environment)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let connections = lines.filter { $0.hasPrefix("connection ") }
        let requests = lines.filter { !$0.hasPrefix("connection ") }.map { line -> (connection: String, request: String) in
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1].replacingOccurrences(of: prefix, with: "<p>") : "")
        }
        let traffic = Traffic(connections: connections.count, requests: requests.map(\.request).sorted(),
                              onOneConnection: Set(requests.map(\.connection)).count <= 1)
        return (result, traffic)
    }

    /// The process's environment for the proxy at `address`, with the token cache `cache`.
    private func environment(proxy address: String, cache: String) throws -> [String: String] {
        var environment = try VaultTestServer.cliEnvironment(prefix: prefix)
        environment["VAULT_ADDR"] = address
        environment["KEYCHAIN_VAULT_TOKEN_CACHE"] = cache
        return environment
    }

    /// Runs `linux-keychain set svc acct` (when `secret` is given), then `linux-keychain get svc acct`,
    /// both through a new counting proxy and with the token cache `cache`; returns the get's
    /// result and traffic.
    private func get(cache: String, afterSetting secret: String?) throws -> (KeychainCLIProcess.Result, Traffic) {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        let proxy = try TestServerProcess.countingProxy(upstream: try VaultTestServer.root().address, log: log)
        defer { proxy.stop() }
        let environment = try environment(proxy: proxy.address, cache: cache)
        if let secret {
            let (set, _) = try run(["set", "svc", "acct"], through: log, environment: environment, input: Data(secret.utf8))
            try #require(set.status == 0, "\(set.errorText)")
        }
        return try run(["get", "svc", "acct"], through: log, environment: environment)
    }

    private var item: String { "GET /v1/secret/data/<p>/generic/svc/acct" }
    private var listing: String { "GET /v1/secret/metadata/<p>/generic/svc/?list=true" }
    private let mount = "GET /v1/sys/internal/ui/mounts/secret"
    private let lookup = "GET /v1/auth/token/lookup-self"

    /// Without a token cache: the token is looked up once (its TTL decides renewal), the mount
    /// is checked once (it must be KV version 2), no separate health probe, and the item's read
    /// and its folder's listing reuse the one connection.
    @Test func getWithoutTokenCacheIsFourRequestsOnOneConnection() throws {
        let (get, traffic) = try get(cache: "off", afterSetting: "s3cret")
        #expect(get.status == 0, "\(get.errorText)")
        #expect(get.output == Data("s3cret".utf8))
        #expect(traffic == Traffic(connections: 1, requests: [lookup, item, listing, mount].sorted(), onOneConnection: true),
                "\(traffic)")
    }

    /// With the token cache (here the session keyring), a later process does not look the
    /// token up again: three requests, one connection.
    @Test func getWithCachedTokenIsThreeRequestsOnOneConnection() throws {
        let (get, traffic) = try get(cache: "session", afterSetting: "s3cret")
        #expect(get.status == 0, "\(get.errorText)")
        #expect(get.output == Data("s3cret".utf8))
        #expect(traffic == Traffic(connections: 1, requests: [item, listing, mount].sorted(), onOneConnection: true), "\(traffic)")
    }

    /// A missing item costs the requests of a present one, plus the same two for an internet
    /// password of that name (the CLI's hint names one when it exists), still on one connection.
    @Test func missingItemIsTheSameRequestsAndTheOtherClassOnOneConnection() throws {
        let (get, traffic) = try get(cache: "off", afterSetting: nil)
        #expect(get.status == CLIExit.notFound, "\(get.errorText)")
        let otherClass = [item, listing].map { $0.replacingOccurrences(of: "/generic/", with: "/internet/") }
        #expect(traffic == Traffic(connections: 1, requests: ([lookup, item, listing, mount] + otherClass).sorted(), onOneConnection: true),
                "\(traffic)")
    }
}
