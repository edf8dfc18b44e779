import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// The connection a backend keeps open between requests, in a process that lives long.
@Suite("vault backend keeps one connection open, and replaces it when it is gone")
struct VaultConnectionTests {
    let prefix = VaultTestServer.uniquePrefix("connections")

    private func connections(in log: URL) throws -> Int {
        try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("connection ") }.count
    }

    @Test func requestsInARowShareOneConnectionAndAClosedOneIsReplaced() throws {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("traffic.log")
        let upstream = try VaultTestServer.root().address
        var proxy = try TestServerProcess.countingProxy(upstream: upstream, log: log)
        defer { proxy.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: proxy.address,
                                                                        token: VaultToken(try VaultTestServer.root().token), prefix: prefix))
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        try backend.add(genericItem("app", "alice", Data("s".utf8)))
        for _ in 0..<3 { #expect(try storedSecret(backend, "app", "alice") == Data("s".utf8)) }
        #expect(try connections(in: log) == 1)

        // The server side of the idle connection goes away, as when a server restarts or drops
        // idle connections: the next request opens a new one and is answered.
        let port = try #require(URLComponents(string: proxy.address)?.port)
        proxy.stop()
        Thread.sleep(forTimeInterval: 0.2)
        proxy = try TestServerProcess.countingProxy(upstream: upstream, log: log, port: port)
        #expect(try storedSecret(backend, "app", "alice") == Data("s".utf8))
        #expect(try connections(in: log) == 1)
    }
}
