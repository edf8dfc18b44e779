import Foundation
import KeychainCore
import Testing

/// `ItemCollection` looks a query that names a whole primary key up directly; these check it
/// against the one definition of matching, `ItemQuery.matches`, applied to every item.
@Suite("item collection")
struct ItemCollectionTests {
    /// Items that differ only in primary-key attributes, some of them missing, so that a
    /// missing value and its default ("" for a string, false for a flag, none for a port) meet.
    static let items: [KeychainItem] = {
        var items: [KeychainItem] = []
        for group in [nil, "", "team"] as [String?] {
            for account in [nil, "", "ann"] as [String?] {
                for sync in [nil, false, true] as [Bool?] {
                    var generic = ItemAttributes([.service: .string("svc")])
                    generic[.accessGroup] = group.map(AttributeValue.string)
                    generic[.account] = account.map(AttributeValue.string)
                    generic[.synchronizable] = sync.map(AttributeValue.bool)
                    items.append(KeychainItem(itemClass: .genericPassword, attributes: generic))
                    for port in [nil, 0, 443] as [Int64?] {
                        var internet = ItemAttributes([.server: .string("host"), .label: .string("label")])
                        internet[.accessGroup] = generic[.accessGroup]
                        internet[.account] = generic[.account]
                        internet[.synchronizable] = generic[.synchronizable]
                        internet[.port] = port.map(AttributeValue.integer)
                        items.append(KeychainItem(itemClass: .internetPassword, attributes: internet))
                    }
                }
            }
        }
        return items
    }()

    /// A collection of `items`, keeping the first of any that share a primary key.
    private func collection() -> ItemCollection {
        var collection = ItemCollection()
        for item in Self.items { try? collection.add(item) }
        return collection
    }

    /// Queries naming whole primary keys (the lookup) and partial ones (the scan), with
    /// values given, defaulted and of the wrong kind.
    static let queries: [ItemQuery] = {
        var queries: [ItemQuery] = []
        for group in ["", "team", "other"] {
            for account in ["", "ann"] {
                // nil: the flag left out, as SecItem queries leave it, which matches only items
                // that are not synchronizable (or both kinds, with matchesAnySynchronizable).
                for sync in [nil, false, true] as [Bool?] {
                    var generic = ItemAttributes([.accessGroup: .string(group), .service: .string("svc"),
                                                  .account: .string(account)])
                    generic[.synchronizable] = sync.map(AttributeValue.bool)
                    queries.append(ItemQuery(itemClass: .genericPassword, constraints: generic))
                    queries.append(ItemQuery(itemClass: .genericPassword, constraints: generic, matchesAnySynchronizable: true))
                    var partial = generic
                    partial[.accessGroup] = nil
                    queries.append(ItemQuery(itemClass: .genericPassword, constraints: partial))
                    for port in [AttributeValue.integer(0), .integer(443), .string("443")] {
                        var internet = generic
                        internet[.service] = nil
                        internet[.server] = .string("host")
                        internet[.protocol] = .string("")
                        internet[.path] = .string("")
                        internet[.authenticationType] = .string("")
                        internet[.securityDomain] = .string("")
                        internet[.port] = port
                        queries.append(ItemQuery(itemClass: .internetPassword, constraints: internet))
                        internet[.label] = .string("another label")
                        queries.append(ItemQuery(itemClass: .internetPassword, constraints: internet))
                    }
                }
            }
        }
        return queries
    }()

    /// What every operation must act on: the items `matches` accepts, in primary-key order.
    private func expectedKeys(_ query: ItemQuery, in collection: ItemCollection) -> [PrimaryKey] {
        collection.items.values.filter(query.matches).map(\.primaryKey).sorted()
    }

    @Test func searchFindsWhatMatchesAccepts() {
        let collection = collection()
        #expect(collection.items.count > 10, "enough items that whole-key queries are looked up")
        var found = 0
        for query in Self.queries {
            let keys = collection.search(query).map(\.primaryKey)
            #expect(keys == expectedKeys(query, in: collection), "\(query.constraints.values)")
            found += keys.count
        }
        #expect(found > 0)
    }

    /// The keys the lookups above (and the kernel keyring's lookups by name) rely on.
    @Test func possiblePrimaryKeysAdmitExactlyTheItemsAQueryCanMatch() {
        let names = ItemAttributes([.accessGroup: .string("team"), .service: .string("svc"), .account: .string("ann")])
        var notSynchronizable = names
        notSynchronizable[.synchronizable] = .bool(false)
        var synchronizable = names
        synchronizable[.synchronizable] = .bool(true)
        let key = { (attributes: ItemAttributes) in PrimaryKey(itemClass: .genericPassword, attributes: attributes) }

        let flagLeftOut = ItemQuery(itemClass: .genericPassword, constraints: names)
        #expect(flagLeftOut.possiblePrimaryKeys == [key(notSynchronizable)])
        #expect(flagLeftOut.onlyMatchingPrimaryKey == key(notSynchronizable))
        let eitherFlag = ItemQuery(itemClass: .genericPassword, constraints: names, matchesAnySynchronizable: true)
        #expect(eitherFlag.possiblePrimaryKeys == [key(notSynchronizable), key(synchronizable)])
        #expect(eitherFlag.onlyMatchingPrimaryKey == nil)
        #expect(ItemQuery(itemClass: .genericPassword, constraints: synchronizable).possiblePrimaryKeys == [key(synchronizable)])

        var noAccount = names
        noAccount[.account] = nil
        #expect(ItemQuery(itemClass: .genericPassword, constraints: noAccount).possiblePrimaryKeys == nil)
        var accountOfAnotherKind = names
        accountOfAnotherKind[.account] = .integer(7)
        #expect(ItemQuery(itemClass: .genericPassword, constraints: accountOfAnotherKind).possiblePrimaryKeys == nil)
    }

    @Test func searchHonoursLimitsAndLeavesSecretsOut() throws {
        var collection = ItemCollection()
        let key = ItemAttributes([.service: .string("svc"), .account: .string("ann")])
        try collection.add(KeychainItem(itemClass: .genericPassword, attributes: key, secret: SecretBytes(Data("s".utf8))))
        for index in 0..<5 {
            try collection.add(KeychainItem(itemClass: .genericPassword,
                                            attributes: ItemAttributes([.service: .string("svc"), .account: .string("\(index)")])))
        }
        let exact = ItemQuery(primaryKey: PrimaryKey(itemClass: .genericPassword, attributes: key))
        #expect(collection.search(exact).count == 1)
        #expect(collection.search(exact).first?.secret == nil)
        var withSecret = exact
        withSecret.includeSecrets = true
        #expect(collection.search(withSecret).first?.secret?.count == 1)
        let all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string("svc")]), limit: .count(4))
        #expect(collection.search(all).count == 4)
    }

    @Test func deleteRemovesWhatMatchesAccepts() {
        for query in Self.queries {
            var collection = collection()
            let expected = Set(expectedKeys(query, in: collection))
            #expect(collection.delete(query) == expected.count)
            #expect(Set(collection.items.keys).isDisjoint(with: expected))
            #expect(collection.items.count == self.collection().items.count - expected.count)
        }
    }

    @Test func updateChangesWhatMatchesAccepts() throws {
        for query in Self.queries {
            var collection = collection()
            let expected = expectedKeys(query, in: collection)
            let changes = ItemChanges(attributes: ItemAttributes([.comment: .string("changed")]))
            #expect(try collection.update(query, with: changes) == expected.count)
            let changed = collection.items.values.filter { $0.attributes.string(.comment) == "changed" }
            #expect(changed.map(\.primaryKey).sorted() == expected)
        }
    }
}
