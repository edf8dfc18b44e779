import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// A query naming service and account is answered from the item's plain path first; items at
/// qualified paths (another access group, synchronizable) must still be found, updated and
/// deleted exactly as a full listing would.
@Suite("vault direct lookup finds what a listing finds")
struct VaultDirectLookupTests {
    let prefix = VaultTestServer.uniquePrefix("direct")

    private func backend() throws -> VaultBackend {
        VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
    }

    private func query(_ service: String, _ account: String, limit: MatchLimit,
                       extra: [AttributeKey: AttributeValue] = [:], anySynchronizable: Bool = false) -> ItemQuery {
        var constraints: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
        constraints.merge(extra) { _, new in new }
        return ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes(constraints), limit: limit,
                         includeSecrets: true, matchesAnySynchronizable: anySynchronizable)
    }

    private func secrets(_ items: [KeychainItem]) -> [String] {
        items.map { String(decoding: $0.secret?.makeData() ?? Data(), as: UTF8.self) }
    }

    private func addPlainAndTeamItems(_ backend: VaultBackend, service: String) throws {
        try backend.add(genericItem(service, "a", Data("plain".utf8)))
        try backend.add(genericItem(service, "a", Data("team".utf8), extra: [.accessGroup: .string("team")]))
    }

    @Test func itemInAnotherAccessGroupIsFoundWithLimitAll() throws {
        let backend = try backend()
        try addPlainAndTeamItems(backend, service: "groups")
        #expect(secrets(try backend.search(query("groups", "a", limit: .all))) == ["plain", "team"])
        #expect(secrets(try backend.search(query("groups", "a", limit: .one))) == ["plain"])
        #expect(secrets(try backend.search(query("groups", "a", limit: .count(2)))) == ["plain", "team"])
    }

    @Test func onlyItemInAnotherAccessGroupIsFoundWithLimitOne() throws {
        let backend = try backend()
        try backend.add(genericItem("only-team", "a", Data("team".utf8), extra: [.accessGroup: .string("team")]))
        #expect(secrets(try backend.search(query("only-team", "a", limit: .one))) == ["team"])
    }

    @Test func fullyNamedKeyMatchesOnlyItsOwnItem() throws {
        let backend = try backend()
        try backend.add(genericItem("named", "a", Data("team".utf8), extra: [.accessGroup: .string("team")]))
        let plainKey = PrimaryKey(itemClass: .genericPassword,
                                  attributes: ItemAttributes([.service: .string("named"), .account: .string("a")]))
        #expect(try backend.search(ItemQuery(primaryKey: plainKey, includeSecrets: true)).isEmpty)
        let teamKey = PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(
            [.service: .string("named"), .account: .string("a"), .accessGroup: .string("team")]))
        #expect(secrets(try backend.search(ItemQuery(primaryKey: teamKey, includeSecrets: true))) == ["team"])
        var everyMatch = ItemQuery(primaryKey: teamKey, includeSecrets: true)
        everyMatch.limit = .all
        #expect(secrets(try backend.search(everyMatch)) == ["team"])
    }

    @Test func synchronizableItemIsFoundOnlyWhenTheQueryAllowsIt() throws {
        let backend = try backend()
        try backend.add(genericItem("synced", "a", Data("sync".utf8), extra: [.synchronizable: .bool(true)]))
        #expect(try backend.search(query("synced", "a", limit: .one)).isEmpty)
        #expect(secrets(try backend.search(query("synced", "a", limit: .one, anySynchronizable: true))) == ["sync"])
        // kSecAttrSynchronizableAny ignores a synchronizable constraint, so false must not narrow the lookup.
        #expect(secrets(try backend.search(query("synced", "a", limit: .one, extra: [.synchronizable: .bool(false)],
                                                 anySynchronizable: true))) == ["sync"])
    }

    @Test func plainItemFailingAnotherConstraintGivesWayToAMatchingOne() throws {
        let backend = try backend()
        try backend.add(genericItem("labels", "a", Data("plain".utf8), extra: [.label: .string("other")]))
        try backend.add(genericItem("labels", "a", Data("team".utf8),
                                               extra: [.accessGroup: .string("team"), .label: .string("wanted")]))
        #expect(secrets(try backend.search(query("labels", "a", limit: .one, extra: [.label: .string("wanted")]))) == ["team"])
    }

    @Test func softDeletedPlainItemGivesWayToAnotherAccessGroup() throws {
        let backend = try backend()
        try addPlainAndTeamItems(backend, service: "soft-plain")
        let removed = try VaultTestServer.bao(["kv", "delete", "-mount=secret", "\(prefix)/generic/soft-plain/a"])
        #expect(removed.status == 0, "\(removed.errorText)")
        #expect(secrets(try backend.search(query("soft-plain", "a", limit: .one))) == ["team"])
    }

    @Test func damagedPlainItemIsAnErrorForEveryKindOfQuery() throws {
        let put = try VaultTestServer.bao(["kv", "put", "-mount=secret", "\(prefix)/generic/broken/a", "label=no password"])
        #expect(put.status == 0, "\(put.errorText)")
        let backend = try backend()
        let key = PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string("broken"), .account: .string("a")]))
        for query in [query("broken", "a", limit: .one), query("broken", "a", limit: .all), ItemQuery(primaryKey: key)] {
            let error = keychainError { _ = try backend.search(query) }
            #expect(error?.status == errSecDecode, "\(String(describing: error))")
        }
    }

    @Test func updateAndDeleteReachEveryAccessGroup() throws {
        let backend = try backend()
        try addPlainAndTeamItems(backend, service: "both")
        let changed = try backend.update(query("both", "a", limit: .all),
                                         with: ItemChanges(attributes: ItemAttributes([.label: .string("both changed")])))
        #expect(changed == 2)
        let labels = try backend.search(query("both", "a", limit: .all)).map { $0.attributes.string(.label) }
        #expect(labels == ["both changed", "both changed"])
        #expect(try backend.delete(query("both", "a", limit: .all)) == 2)
        #expect(try backend.search(query("both", "a", limit: .all)).isEmpty)
    }

    /// Names are exact scalars: a decomposed query does not find the composed item, directly
    /// or by listing, and the composed one finds it with its exact spelling.
    @Test func decomposedNamesDoNotFindTheComposedItem() throws {
        let backend = try backend()
        try backend.add(genericItem("caf\u{E9}", "a", Data("s".utf8)))
        for limit in [MatchLimit.one, .all] {
            #expect(try backend.search(query("cafe\u{301}", "a", limit: limit)).isEmpty, "limit \(limit)")
            let found = try backend.search(query("caf\u{E9}", "a", limit: limit))
            #expect(found.count == 1)
            let scalars = found.first?.attributes.string(.service).map { Array($0.unicodeScalars) }
            #expect(scalars == Array("caf\u{E9}".unicodeScalars), "limit \(limit)")
        }
    }
}
