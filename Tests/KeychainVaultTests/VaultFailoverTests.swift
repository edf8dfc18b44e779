import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// A leader change under load: a loop adds and reads items through a standby while the
/// leader is killed with SIGKILL. It ends the cluster's leader, so it runs only when asked
/// (LINUX_KEYCHAIN_TEST_VAULT_FAILOVER=1), alone, under `with-services.sh --vault=cluster`
/// (scripts/test.sh does).
@Suite("vault through a leader change")
struct VaultFailoverTests {
    /// How long the loop may take to see writes resume before the test fails.
    static let resumeLimit: TimeInterval = 30

    @Test func readsKeepAnsweringWritesResumeAndNoAcknowledgedWriteIsLost() throws {
        guard ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_TEST_VAULT_FAILOVER"] == "1" else {
            try Test.cancel("kills the cluster's leader: run alone with LINUX_KEYCHAIN_TEST_VAULT_FAILOVER=1")
        }
        let cluster = try VaultTestCluster.require()
        guard let leaderPID = VaultTestCluster.nodes.first(where: { $0.address == cluster.leader })?.pid else {
            throw ConformanceFailure("the leader's process id is not in LINUX_KEYCHAIN_TEST_VAULT_NODES")
        }
        let prefix = VaultTestServer.uniquePrefix("failover")
        let standby = cluster.standbys[0]
        let backend = VaultBackend(configuration: try VaultConfiguration(
            address: standby, token: VaultToken(cluster.token), prefix: prefix, requestTimeout: 5))
        try backend.add(genericItem("svc", "before", Data("kept".utf8)))

        var acknowledged: [String] = []
        var duplicates: [String] = []
        var unexpected: [String] = []
        var readFailures = 0, reads = 0
        var addErrors: [String: Int] = [:]
        var firstReadError: String?
        // The standing item, read through the standby; during the election too.
        func readBack() {
            reads += 1
            do {
                if try storedSecret(backend, "svc", "before") != Data("kept".utf8) { unexpected.append("read: stale or missing") }
            } catch let error as KeychainError {
                readFailures += 1
                if firstReadError == nil { firstReadError = error.message }
                if error.status != errSecIO && error.status != errSecNotAvailable { unexpected.append("read: \(error)") }
            } catch {
                unexpected.append("read: \(error)")
            }
        }
        // A listing of the service's items, which a standby answers from a LIST of metadata.
        var listingFailures = 0
        var firstListingError: String?
        func listBack() {
            let listing = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string("svc")]),
                                    limit: .all, includeSecrets: false)
            do {
                if try !backend.search(listing).contains(where: { $0.attributes[.account] == .string("before") }) {
                    unexpected.append("listing: the standing item is missing")
                }
            } catch let error as KeychainError {
                listingFailures += 1
                if firstListingError == nil { firstListingError = error.message }
                if error.status != errSecIO && error.status != errSecNotAvailable { unexpected.append("listing: \(error)") }
            } catch {
                unexpected.append("listing: \(error)")
            }
        }
        var killedAt: Date?
        var resumedAt: Date?
        let started = Date()
        var round = 0
        while resumedAt == nil {
            let now = Date()
            if killedAt == nil, now.timeIntervalSince(started) > 1 {
                kill(leaderPID, SIGKILL)
                killedAt = Date()
            }
            if let killedAt, now.timeIntervalSince(killedAt) > Self.resumeLimit { break }
            let account = "item-\(round)"
            let item = genericItem("svc", account, Data("secret-\(round)".utf8),
                                              extra: [.creationDate: .date(Date())])
            // A failed add is retried with the very same item until it succeeds.
            while true {
                do {
                    try backend.add(item)
                    acknowledged.append(account)
                    if let killedAt, resumedAt == nil, Date() > killedAt { resumedAt = Date() }
                    break
                } catch let error as KeychainError {
                    if error.status == errSecDuplicateItem { duplicates.append(account); break }
                    if error.status != errSecIO && error.status != errSecNotAvailable { unexpected.append("add: \(error)") }
                    addErrors["\(error.status)", default: 0] += 1
                    if let killedAt, Date().timeIntervalSince(killedAt) > Self.resumeLimit { break }
                    readBack()
                    listBack()
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            readBack()
            listBack()
            round += 1
        }
        let seconds = resumedAt.flatMap { resumed in killedAt.map { resumed.timeIntervalSince($0) } }
        print("failover: writes resumed \(seconds.map { String(format: "%.2f", $0) } ?? "never") s after SIGKILL of the leader; \(readFailures)/\(reads) reads failed; \(acknowledged.count) adds acknowledged; failed add attempts by status: \(addErrors); first read error: \(firstReadError ?? "none"); \(listingFailures) listings failed, first: \(firstListingError ?? "none")")
        #expect(seconds != nil, "writes did not resume within \(Self.resumeLimit) s")
        #expect(readFailures == 0, "reads stopped answering during the election: \(readFailures) of \(reads) failed")
        #expect(listingFailures == 0, "listings stopped answering during the election: \(listingFailures) failed")
        #expect(duplicates.isEmpty, "a retried add reported its own earlier attempt as a duplicate: \(duplicates)")
        #expect(unexpected.isEmpty, "\(unexpected.prefix(5))")

        // Every acknowledged write is there, through each surviving node.
        for address in cluster.standbys {
            let reader = VaultBackend(configuration: try VaultConfiguration(address: address, token: VaultToken(cluster.token), prefix: prefix))
            let missing = try acknowledged.filter { try storedSecret(reader, "svc", $0) == nil }
            #expect(missing.isEmpty, "acknowledged but missing through \(address): \(missing)")
        }

        // A client pointed at the dead node gets "unreachable", promptly.
        let dead = VaultBackend(configuration: try VaultConfiguration(
            address: cluster.leader, token: VaultToken(cluster.token), prefix: prefix, requestTimeout: 3))
        let asked = Date()
        let error = keychainError { _ = try dead.search(exactQuery("svc", "before")) }
        #expect(error?.status == errSecNotAvailable, "\(String(describing: error))")
        #expect(error?.message.contains("Cannot reach") == true, "\(String(describing: error))")
        #expect(Date().timeIntervalSince(asked) < 3.5)
    }
}
