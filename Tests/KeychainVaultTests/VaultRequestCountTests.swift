import Foundation
import KeychainConformance
import KeychainCore
import KeychainEntryPoints
import KeychainTestSupport
import KeychainVault
import LinuxKeychain
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

    /// A recorded backend on `mount`, with `token` instead of the root token when given.
    private func recorded(token: String? = nil, mount: String = "secret") throws -> Recorded {
        let log = try makeScratchDirectory("lkc-vault").appendingPathComponent("requests.log")
        try Data().write(to: log)
        let root = try VaultTestServer.root()
        let proxy = try TestServerProcess.recordingProxy(upstream: root.address, log: log)
        let configuration = try VaultConfiguration(address: proxy.address, token: VaultToken(token ?? root.token), mount: mount,
                                                   prefix: prefix)
        let recorded = Recorded(backend: VaultBackend(configuration: configuration), proxy: proxy, log: log)
        // The first request of a process looks the given token up once, to learn its TTL.
        _ = try recorded.backend.search(ItemQuery(primaryKey: PrimaryKey(itemClass: .genericPassword, attributes:
            ItemAttributes([.service: .string("warm-up"), .account: .string("nobody")]))))
        // In a cluster a node that has not yet applied a new mount answers its first read with
        // a "try again" (`VaultHTTPClient.sendAll`), so that read may be sent twice: a resent
        // read, not a probe, which is what this checks for.
        let warmUp = Array(Set(try recorded.takeRequests(prefix: prefix))).sorted()
        #expect(warmUp == ["GET /v1/auth/token/lookup-self", "GET /v1/\(mount)/data/<p>/generic/warm-up/nobody"], "\(warmUp)")
        return recorded
    }

    private let itemPath = "/v1/secret/data/<p>/generic/app/alice"
    private let listing = "/v1/secret/metadata/<p>/generic/app/?list=true"
    private let metadataPath = "/v1/secret/metadata/<p>/generic/app/alice"

    private let serviceAndAccount = ItemAttributes([.service: .string("app"), .account: .string("alice")])

    private var plainKey: PrimaryKey { PrimaryKey(itemClass: .genericPassword, attributes: serviceAndAccount) }

    /// What `SecItemUpdate` and `SecItemDelete` with service and account send: every match.
    private var everyMatch: ItemQuery { ItemQuery(itemClass: .genericPassword, constraints: serviceAndAccount, limit: .all) }

    /// Items of other access groups may share service and account, and the first one added is
    /// the answer, so the folder is listed too; the read of the leading path travels beside it.
    @Test func getWithServiceAndAccountIsOneGetBesideTheListing() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        #expect(try storedSecret(recorded.backend, "app", "alice") == Data("s".utf8))
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)", "GET \(listing)"])
    }

    @Test func fullyNamedKeyIsOneGetAlsoWhenMissing() throws {
        let recorded = try recorded()
        #expect(try recorded.backend.search(ItemQuery(primaryKey: plainKey)).isEmpty)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)"])
    }

    /// The server merges the changed fields itself, so the update reads nothing first.
    @Test func updateOfFullyNamedKeyIsOnePatch() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        let changed = try recorded.backend.update(ItemQuery(primaryKey: plainKey),
                                                  with: ItemChanges(secret: SecretBytes(Data("t".utf8))))
        #expect(changed == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["PATCH \(itemPath)"])
        #expect(try storedSecret(recorded.backend, "app", "alice") == Data("t".utf8))
    }

    /// A label is one of the attributes whose given type the item records in one field, which a
    /// patch could only overwrite; so such an update reads the record first.
    @Test func updateOfFullyNamedKeySettingALabelReadsFirst() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        let changed = try recorded.backend.update(ItemQuery(primaryKey: plainKey),
                                                  with: ItemChanges(attributes: ItemAttributes([.label: .string("L")])))
        #expect(changed == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)", "POST \(itemPath)"])
    }

    @Test func updateOfMissingFullyNamedKeyIsOnePatchThatWritesNothing() throws {
        let recorded = try recorded()
        let changed = try recorded.backend.update(ItemQuery(primaryKey: plainKey),
                                                  with: ItemChanges(secret: SecretBytes(Data("t".utf8))))
        #expect(changed == 0)
        #expect(try recorded.takeRequests(prefix: prefix) == ["PATCH \(itemPath)"])
        #expect(try recorded.backend.search(ItemQuery(primaryKey: plainKey)).isEmpty)
    }

    /// A constraint beyond the primary key is a property of the stored item, so it is read and
    /// checked before the check-and-set write.
    @Test func updateOfFullyNamedKeyWithAnotherConstraintReadsFirst() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8), extra: [.label: .string("L")]))
        _ = try recorded.takeRequests(prefix: prefix)
        var query = ItemQuery(primaryKey: plainKey)
        query.constraints[.label] = .string("other")
        #expect(try recorded.backend.update(query, with: ItemChanges(secret: SecretBytes(Data("t".utf8)))) == 0)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)"])
        query.constraints[.label] = .string("L")
        #expect(try recorded.backend.update(query, with: ItemChanges(secret: SecretBytes(Data("t".utf8)))) == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)", "POST \(itemPath)"])
    }

    /// A rename moves the item to another path, which a patch cannot do.
    @Test func renameOfFullyNamedKeyReadsCreatesAndDeletes() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        let renamed = try recorded.backend.update(ItemQuery(primaryKey: plainKey),
                                                  with: ItemChanges(attributes: ItemAttributes([.account: .string("bob")])))
        #expect(renamed == 1)
        let requests = try recorded.takeRequests(prefix: prefix)
        #expect(requests == ["DELETE \(metadataPath)", "GET \(itemPath)", "POST /v1/secret/data/<p>/generic/app/bob"], "\(requests)")
    }

    /// Other access groups may hold the same service and account, so the folder is listed,
    /// but the plain path read beside the listing is not read again.
    @Test func updateAndDeleteOfEveryMatchListOnceAndReadOnce() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        #expect(try recorded.backend.update(everyMatch, with: ItemChanges(secret: SecretBytes(Data("t".utf8)))) == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["GET \(itemPath)", "GET \(listing)", "POST \(itemPath)"])
        #expect(try recorded.backend.delete(everyMatch) == 1)
        #expect(try recorded.takeRequests(prefix: prefix) == ["DELETE \(metadataPath)", "GET \(itemPath)", "GET \(listing)"])
    }

    /// A program's SecItemUpdate by service and account is scoped to its own group, which names
    /// the item fully: no listing of the folder for other groups' items, and no read either.
    @Test func programsUpdateByServiceAndAccountIsOnePatch() throws {
        let recorded = try recorded()
        let program = KeychainOperations(backend: recorded.backend, scope: .program("billing"))
        try program.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        #expect(try program.update(everyMatch, with: ItemChanges(secret: SecretBytes(Data("t".utf8)))) == 1)
        let ownPath = itemPath + "%3Baccess_group%3Dbilling"
        let requests = try recorded.takeRequests(prefix: prefix)
        #expect(requests == ["PATCH \(ownPath)"], "\(requests)")
    }

    /// `linux-keychain set` and `Keychain.set` update first and add only when nothing is there.
    @Test func setOfExistingItemIsOnePatchAndOfNewItemAPatchAndAnAdd() throws {
        let recorded = try recorded()
        let operations = KeychainOperations(backend: recorded.backend, scope: .everything)
        try operations.set(SecretBytes(Data("s".utf8)), for: plainKey)
        #expect(try recorded.takeRequests(prefix: prefix) == ["PATCH \(itemPath)", "POST \(itemPath)"])
        try operations.set(SecretBytes(Data("t".utf8)), for: plainKey)
        #expect(try recorded.takeRequests(prefix: prefix) == ["PATCH \(itemPath)"])
    }

    /// A program reads its own group's item first, then the shared one: a shared item costs a
    /// second GET, the program's own item one.
    @Test func programsReadOfASharedItemIsTwoGets() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        let program = KeychainOperations(backend: recorded.backend, scope: .program("billing"))
        let query = ItemQuery(itemClass: .genericPassword, constraints: serviceAndAccount, limit: .one, includeSecrets: true)
        #expect(try program.search(query).first?.secret?.makeData() == Data("s".utf8))
        let requests = try recorded.takeRequests(prefix: prefix)
        #expect(requests == ["GET \(itemPath)", "GET \(itemPath)%3Baccess_group%3Dbilling"], "\(requests)")
    }

    /// A policy without the `patch` capability refuses the `PATCH`; the update then reads and
    /// writes with check-and-set, and later updates of this backend skip the `PATCH`.
    @Test func updateWithoutPatchCapabilityFallsBackToReadAndWriteOnce() throws {
        let token = try VaultPatchFixture.token(allowing: ["create", "read", "update"], under: prefix)
        try expectFallbackOnce(try recorded(token: token), mount: "secret")
    }

    /// A mount with `cas_required` refuses a `PATCH` without a version; the update falls back
    /// to the check-and-set write, once for the backend.
    @Test func updateOnCheckAndSetRequiredMountFallsBackToReadAndWriteOnce() throws {
        let mount = try VaultPatchFixture.checkAndSetRequiredMount()
        try expectFallbackOnce(try recorded(mount: mount), mount: mount)
    }

    /// Two updates by primary key where the server refuses `PATCH`: one refused `PATCH`, then a
    /// read and a check-and-set write for each, and the last secret is the one stored.
    private func expectFallbackOnce(_ recorded: Recorded, mount: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        _ = try recorded.takeRequests(prefix: prefix)
        for secret in ["t", "u"] {
            let changed = try recorded.backend.update(ItemQuery(primaryKey: plainKey), with: ItemChanges(secret: SecretBytes(Data(secret.utf8))))
            #expect(changed == 1, sourceLocation: sourceLocation)
        }
        let path = "/v1/\(mount)/data/<p>/generic/app/alice"
        let requests = try recorded.takeRequests(prefix: prefix)
        #expect(requests == ["GET \(path)", "GET \(path)", "PATCH \(path)", "POST \(path)", "POST \(path)"], "\(requests)",
                sourceLocation: sourceLocation)
        #expect(try storedSecret(recorded.backend, "app", "alice") == Data("u".utf8), sourceLocation: sourceLocation)
    }

    @Test func addIsOnePost() throws {
        let recorded = try recorded()
        try recorded.backend.add(genericItem("app", "alice", Data("s".utf8)))
        #expect(try recorded.takeRequests(prefix: prefix) == ["POST \(itemPath)"])
    }
}
