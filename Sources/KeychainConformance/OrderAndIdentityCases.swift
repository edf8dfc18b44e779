import Foundation
import KeychainCore

/// Cases for what Apple code relies on beyond storing and finding: results in insertion
/// order, and duplicates recognised whichever optional primary-key attributes are left unset.
extension KeychainConformance {
    static let orderAndIdentityCases: [ConformanceCase] = [
        ConformanceCase(name: "insertion-order", body: returnsItemsInInsertionOrder),
        ConformanceCase(name: "duplicate-with-attributes-unset", body: rejectsDuplicatesWithAttributesUnset),
    ]
}

/// An item as the front end stores it: stamped with its creation and modification dates.
private func stamped(_ item: KeychainItem, created: Date) -> KeychainItem {
    var item = item
    item.attributes[.creationDate] = .date(created)
    item.attributes[.modificationDate] = .date(created)
    return item
}

func returnsItemsInInsertionOrder(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    // Added in an order that is neither the accounts' alphabetical order nor its reverse, so
    // that a backend sorting by name (or by its native key) cannot pass by accident.
    let accounts = ["m", "z", "a", "q", "b"]
    let start = Date()
    for (index, account) in accounts.enumerated() {
        let item = genericItem(service, account, Data(account.utf8))
        try backend.add(stamped(item, created: start.addingTimeInterval(Double(index))))
    }
    func listed(_ limit: MatchLimit) throws -> [String] {
        var query = serviceQuery(service)
        query.limit = limit
        return try backend.search(query).map { $0.attributes.string(.account) ?? "?" }
    }
    let all = try listed(.all)
    try expect(all == accounts, "kSecMatchLimitAll returned \(all), not the insertion order \(accounts)")
    let first = try listed(.one)
    try expect(first == ["m"], "a limit-one search returned \(first), not the item added first")
    let firstTwo = try listed(.count(2))
    try expect(firstTwo == ["m", "z"], "a limit-two search returned \(firstTwo), not the two added first")

    // An update changes the modification date only; the item keeps its place.
    var changes = ItemChanges(attributes: ItemAttributes([.label: .string("changed"),
                                                          .modificationDate: .date(start.addingTimeInterval(100))]))
    changes.secret = SecretBytes(Data("new".utf8))
    _ = try backend.update(exactQuery(service, "m", secrets: false), with: changes)
    let afterUpdate = try listed(.all)
    try expect(afterUpdate == accounts, "after updating the first item the order was \(afterUpdate), not \(accounts)")

    // Items created at the same instant come in primary-key order, the same on every read.
    let tied = context.service("tied")
    let instant = start.addingTimeInterval(200)
    for account in ["y", "x"] {
        try backend.add(stamped(genericItem(tied, account, Data(account.utf8)), created: instant))
    }
    let tiedOrder = try backend.search(serviceQuery(tied)).map { $0.attributes.string(.account) ?? "?" }
    try expect(tiedOrder == ["x", "y"], "items created at one instant came back as \(tiedOrder), not by primary key")
}

func rejectsDuplicatesWithAttributesUnset(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let complete: [ItemClass: ItemAttributes] = [
        .genericPassword: ItemAttributes([
            .accessGroup: .string(context.service("group")), .service: .string(context.service("svc")),
            .account: .string("alice"), .synchronizable: .bool(false),
        ]),
        .internetPassword: ItemAttributes([
            .accessGroup: .string(context.service("group")), .server: .string(context.service("host.example")),
            .account: .string("alice"), .protocol: .string("htps"), .port: .integer(443), .path: .string("/p"),
            .authenticationType: .string("dflt"), .securityDomain: .string("realm"), .synchronizable: .bool(false),
        ]),
    ]
    for itemClass in ItemClass.allCases {
        guard let attributes = complete[itemClass] else { continue }
        for unset in itemClass.primaryKeyAttributes {
            var partial = attributes
            partial[unset] = nil
            // Each variant gets its own service or server, so the variants never collide with each other.
            let identity: AttributeKey = itemClass == .genericPassword ? .service : .server
            if unset != identity { partial[identity] = .string(context.service("\(itemClass.rawValue)-no-\(unset.rawValue)")) }
            else { partial[.account] = .string(context.service("no-\(identity.rawValue)")) }
            let item = KeychainItem(itemClass: itemClass, attributes: partial, secret: SecretBytes(Data("first".utf8)))
            let what = "\(itemClass) with \(unset.rawValue) unset"
            try backend.add(item)
            try expectStatus(errSecDuplicateItem, "adding the same \(what) again") {
                try backend.add(KeychainItem(itemClass: itemClass, attributes: partial, secret: SecretBytes(Data("second".utf8))))
            }
            let found = try backend.search(ItemQuery(itemClass: itemClass, constraints: partial, includeSecrets: true))
            try expect(found.count == 1, "a search for the \(what) found \(found.count) items")
            try expect(found.first?.secret?.makeData() == Data("first".utf8), "the duplicate add of the \(what) changed its secret")
            // The context's clean-up finds items by service or server, which this one may lack.
            _ = try backend.delete(ItemQuery(itemClass: itemClass, constraints: partial))
        }
    }
    // What Apple code most often writes: an internet password with only server and account.
    let server = context.service("minimal.example")
    let minimal = ItemAttributes([.server: .string(server), .account: .string("alice")])
    try backend.add(KeychainItem(itemClass: .internetPassword, attributes: minimal, secret: SecretBytes(Data("one".utf8))))
    try expectStatus(errSecDuplicateItem, "adding an internet password with only server and account again") {
        try backend.add(KeychainItem(itemClass: .internetPassword, attributes: minimal, secret: SecretBytes(Data("two".utf8))))
    }
    let found = try backend.search(ItemQuery(itemClass: .internetPassword, constraints: minimal))
    try expect(found.count == 1, "after a refused duplicate, server and account find \(found.count) internet passwords")
}
