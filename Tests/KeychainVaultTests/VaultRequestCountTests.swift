import Foundation
import KeychainConformance
import KeychainCore
import KeychainVault
import Testing

/// The requests each common operation sends, recorded by a proxy in front of the dev server:
/// the fast paths must stay fast, and no operation may probe the server's health or mount.
@Suite("vault operations send only the requests they need")
struct VaultRequestCountTests {
    let prefix = VaultTestServer.uniquePrefix("requests")

    /// A backend talking to the dev server through a recording proxy, the proxy, and its log.
    private struct Recorded {
        let backend: VaultBackend
        let proxy: TestServerProcess
        let log: URL

        /// The requests recorded since the last call, with the prefix shortened to `<p>`, sorted
        /// because requests sent side by side may arrive in either order.
        func takeRequests(prefix: String) throws -> [String] {
            let text = try String(contentsOf: log, encoding: .utf8)
            try Data().write(to: log)
            return text.split(separator: "\n").map { $0.replacingOccurrences(of: prefix, with: "<p>") }.sorted()
        }
    }

    private func recorded() throws -> Recorded {
        let log = try VaultTestServer.temporaryDirectory().appendingPathComponent("requests.log")
        try Data().write(to: log)
        let root = try VaultTestServer.root()
        let proxy = try TestServerProcess.recordingProxy(upstream: root.address, log: log)
        let configuration = try VaultConfiguration(address: proxy.address, token: VaultToken(root.token), prefix: prefix)
        let recorded = Recorded(backend: VaultBackend(configuration: configuration), proxy: proxy, log: log)
        // The first request of a process looks the given token up once, to learn its TTL.
        _ = try recorded.backend.search(ItemQuery(primaryKey: PrimaryKey(itemClass: .genericPassword, attributes:
            ItemAttributes([.service: .string("warm-up"), .account: .string("nobody")]))))
        let warmUp = try recorded.takeRequests(prefix: prefix)
        #expect(warmUp == ["GET /v1/auth/token/lookup-self", "GET /v1/secret/data/<p>/generic/warm-up/nobody"], "\(warmUp)")
        return recorded
    }

    private let itemPath = "/v1/secret/data/<p>/generic/app/alice"
    private let listing = "/v1/secret/metadata/<p>/generic/app/?list=true"
    private let metadataPath = "/v1/secret/metadata/<p>/generic/app/alice"

    private let serviceAndAccount = ItemAttributes([.service: .string("app"), .account: .string("alice")])

    private var plainKey: PrimaryKey { PrimaryKey(itemClass: .genericPassword, attributes: serviceAndAccount) }

    /// What `SecItemUpdate` and `SecItemDelete` with service and account send: every match.
    private var everyMatch: ItemQuery { ItemQuery(itemClass: .genericPassword, constraints: serviceAndAccount, limit: .all) }

    @Test func getWithServiceAndAccountIsOneGet() throws {
        let recorded = try recorded()
        try recorded.backend.add(VaultTestItems.generic("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        #expect(try VaultTestItems.secret(recorded.backend, "app", "alice") == Data("s".utf8))
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)"])
    }

    @Test func fullyNamedKeyIsOneGetAlsoWhenMissing() throws {
        let recorded = try recorded()
        #expect(try recorded.backend.search(ItemQuery(primaryKey: plainKey)).isEmpty)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)"])
    }

    @Test func updateOfFullyNamedKeyIsOneGetAndOnePost() throws {
        let recorded = try recorded()
        try recorded.backend.add(VaultTestItems.generic("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        let changed = try recorded.backend.update(ItemQuery(primaryKey: plainKey),
                                                  with: ItemChanges(secret: SecretBytes(Data("t".utf8))))
        #expect(changed == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)", "POST \(itemPath)"])
    }

    /// Other access groups may hold the same service and account, so the folder is listed,
    /// but the plain path read beside the listing is not read again.
    @Test func updateAndDeleteOfEveryMatchListOnceAndReadOnce() throws {
        let recorded = try recorded()
        try recorded.backend.add(VaultTestItems.generic("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        #expect(try recorded.backend.update(everyMatch, with: ItemChanges(secret: SecretBytes(Data("t".utf8)))) == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)", "GET \(listing)", "POST \(itemPath)"])
        #expect(try recorded.backend.delete(everyMatch) == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["DELETE \(metadataPath)", "GET \(itemPath)", "GET \(listing)"])
    }

    @Test func addIsOnePost() throws {
        let recorded = try recorded()
        try recorded.backend.add(VaultTestItems.generic("app", "alice", Data("s".utf8)))
        #expect(try recorded.takeRequests(prefix: prefix) == ["POST \(itemPath)"])
    }
}
