import Foundation
import KeychainCore
import Testing

/// A move into each real backend keeps the exact secret and every attribute Apple's API returns,
/// the authentication type, security domain, synchronizable flag and both dates included: each
/// copy is read back and compared, dates to the fraction of a second, before it counts as
/// `copied`, so that outcome proves the target holds it all.
@Suite("every attribute moves into every real backend")
struct FullAttributeMoveTests {
    static let created = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func items(group: String) -> [KeychainItem] {
        [
            KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
                .server: .string("höst-\(group).example"), .account: .string("ålice"), .protocol: .string("htps"), .port: .integer(8443),
                .path: .string("/v1"), .authenticationType: .string("dflt"), .securityDomain: .string("realm"), .accessGroup: .string(group),
                .label: .string("Lábel"), .comment: .string("Comment"), .synchronizable: .bool(true),
                .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(60.5)),
            ]), secret: SecretBytes(Data([0, 255, 10, 13]))),
            KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
                .service: .string("full-\(group)"), .account: .string("bob"), .accessGroup: .string(group), .label: .string("L"),
                .creationDate: .date(created), .modificationDate: .date(created),
            ]), secret: SecretBytes(Data())),
        ]
    }

    @Test(arguments: ["file", "keyring", "vault", "secret-service"])
    func everyAttributeSurvivesAMoveInto(_ name: String) throws {
        let stores = InterruptedMigrationTests.Stores()
        defer { try? FileManager.default.removeItem(atPath: stores.directory) }
        let target = stores.backend(name)
        defer {
            for itemClass in ItemClass.allCases {
                _ = try? target.delete(ItemQuery(itemClass: itemClass, constraints: ItemAttributes([.accessGroup: .string(stores.group)]),
                                                 matchesAnySynchronizable: true))
            }
        }
        let source = MemoryBackend()
        for item in Self.items(group: stores.group) { try source.add(item) }
        let move = ItemMigration(from: source, to: target, scope: .group(stores.group))
        let report = try move.run()
        #expect(report.count("copied") == 2 && report.isComplete, "\(name): \(report.summary) \(report.failures.map(\.error.message))")
        #expect(try move.run().count("already present") == 2, "\(name): a rerun found other items")
    }
}
