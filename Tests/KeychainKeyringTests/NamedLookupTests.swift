import CKeyutils
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// A query that names its items is answered by looking them up by name (`keyctl_search`)
/// instead of reading every item in the keyring. These tests hold the lookups to what a full
/// read finds.
@Suite("kernel keyring backend lookups by name")
struct NamedLookupTests {
    let backend = KernelKeyringBackend(keyring: nil)
    let kernel = KernelKeys()

    /// What a full read of the keyring answers to `query`: every item of `service` (a query no
    /// lookup by name can answer), then `query`'s filter, order and limit.
    func fullRead(_ query: ItemQuery, service: String) throws -> [PrimaryKey] {
        let everything = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                   limit: .all, matchesAnySynchronizable: true)
        let keys = try backend.search(everything).filter { query.matches($0) }.map(\.primaryKey).sorted()
        return query.limit.maximum.map { Array(keys.prefix($0)) } ?? keys
    }

    func query(_ constraints: [AttributeKey: AttributeValue], limit: MatchLimit,
               anySynchronizable: Bool = false) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes(constraints), limit: limit,
                  matchesAnySynchronizable: anySynchronizable)
    }

    @Test func lookupsByNameAnswerWhatAFullReadAnswers() throws {
        let service = uniqueService("agree")
        defer { _ = try? backend.delete(query([.service: .string(service)], limit: .all, anySynchronizable: true)) }
        let group: (String) -> [AttributeKey: AttributeValue] = { [.accessGroup: .string($0)] }
        for (account, extra) in [
            ("a", [:]), ("a", group("team.one")), ("a", group("team.two").merging([.label: .string("x")]) { $1 }),
            ("a", [.synchronizable: .bool(true)]), ("b", group("team.one")), ("", [:]), ("ab", [:]),
        ] as [(String, [AttributeKey: AttributeValue])] {
            try backend.add(genericItem(service, account, Data(account.utf8), extra: extra))
        }
        let named: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string("a")]
        let queries = [
            query(named, limit: .all),
            query(named, limit: .one),
            query(named, limit: .one, anySynchronizable: true),
            query(named.merging([.label: .string("x")]) { $1 }, limit: .one),
            query(named.merging(group("")) { $1 }, limit: .all),
            query(named.merging(group("")) { $1 }, limit: .all, anySynchronizable: true),
            query(named.merging(group("")) { $1 }.merging([.synchronizable: .bool(true)]) { $1 }, limit: .all),
            query(named.merging(group("team.one")) { $1 }, limit: .all),
            query(named.merging(group("team.two")) { $1 }.merging([.label: .string("x")]) { $1 }, limit: .one),
            query(named.merging(group("team.two")) { $1 }.merging([.label: .string("y")]) { $1 }, limit: .one),
            query(named.merging(group("team.three")) { $1 }, limit: .all),
            query([.service: .string(service), .account: .string("b")], limit: .one),
            query([.service: .string(service)], limit: .one),
        ]
        for query in queries {
            let expected = try fullRead(query, service: service)
            #expect(try backend.search(query).map(\.primaryKey) == expected, "\(query)")
        }
        #expect(try fullRead(queries[0], service: service).count == 3, "the items were not all stored")
    }

    @Test func anItemWithAnAccessGroupIsFoundUpdatedAndDeletedByServiceAndAccount() throws {
        let service = uniqueService("grouped")
        let grouped = genericItem(service, "acct", Data("v1".utf8), extra: [.accessGroup: .string("team.app")])
        try backend.add(grouped)
        defer { _ = try? backend.delete(ItemQuery(primaryKey: grouped.primaryKey)) }
        let byName = ItemQuery(itemClass: .genericPassword,
                               constraints: ItemAttributes([.service: .string(service), .account: .string("acct")]),
                               limit: .all, includeSecrets: true)
        #expect(try backend.search(byName).map(\.primaryKey) == [grouped.primaryKey])
        #expect(try backend.search(exactQuery(service, "acct", secrets: false)).map(\.primaryKey) == [grouped.primaryKey])
        #expect(try backend.update(byName, with: ItemChanges(secret: SecretBytes(Data("v2".utf8)))) == 1)
        let updated = try backend.search(ItemQuery(primaryKey: grouped.primaryKey, includeSecrets: true))
        #expect(updated.first?.secret?.makeData() == Data("v2".utf8))
        #expect(try backend.delete(byName) == 1)
        #expect(try backend.search(byName).isEmpty)
    }

    /// A session keyring usually holds the user keyring, and the kernel's search by name looks
    /// into nested keyrings: an item there belongs to another store.
    @Test func anItemInAKeyringNestedInTheTargetIsNotTheTargets() throws {
        let target = try kernel.resolve(nil).serial
        let nested = try kernel.addKeyring(uniqueService("nested-store"), to: target)
        defer { try? kernel.unlink(nested, from: target) }
        let service = uniqueService("nested")
        let foreign = try kernel.craftItem(service, in: nested)
        let named = primaryKeyQuery(service, "acct", secrets: true)

        #expect(try backend.search(named).isEmpty)
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).isEmpty)
        #expect(try backend.update(named, with: ItemChanges(secret: SecretBytes(Data("changed".utf8)))) == 0)
        #expect(try backend.delete(named) == 0)
        #expect(try kernel.contents(of: nested).contains(foreign.itemKey), "the other store's item was removed")

        try backend.add(genericItem(service, "acct", Data("own".utf8)))
        defer { _ = try? backend.delete(named) }
        #expect(try backend.search(named).first?.secret?.makeData() == Data("own".utf8))
        #expect(try backend.delete(named) == 1)
        #expect(try kernel.contents(of: nested).contains(foreign.itemKey), "the other store's item was removed")
    }
}
