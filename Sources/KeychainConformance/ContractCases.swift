import Foundation
import KeychainCore

// Contract points of `KeychainBackend` that the older cases do not reach: secrets only when
// asked for, a stable order under limits, kSecAttrSynchronizableAny, and errors that never
// carry secret bytes.

func loadsNoSecretUnlessAsked(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try backend.add(genericItem(service, "a", Data("secret-a".utf8)))
    try backend.add(genericItem(service, "b", Data()))
    try backend.add(genericItem(service, "c", Data("secret-c".utf8), extra: [.synchronizable: .bool(true)]))
    var anySynchronizable = serviceQuery(service)
    anySynchronizable.matchesAnySynchronizable = true
    let queries: [(String, ItemQuery)] = [
        ("an exact limit-one query", exactQuery(service, "a", secrets: false)),
        ("a primary-key query", ItemQuery(primaryKey: genericItem(service, "a", Data()).primaryKey, includeSecrets: false)),
        ("a match-all query", serviceQuery(service, secrets: false)),
        ("a query for any synchronizable value", anySynchronizable),
    ]
    for (what, query) in queries {
        let found = try backend.search(query)
        try expect(!found.isEmpty, "\(what) without secrets found nothing")
        for item in found {
            try expect(item.secret == nil, "\(what) with includeSecrets false returned the secret of \(item.primaryKey.readableName)")
        }
    }
    // And the same queries with secrets give them, so the nil above is not a broken read.
    try expectSecret(backend, service, "a", Data("secret-a".utf8))
    try expectSecret(backend, service, "b", Data())
}

func keepsAStableOrderUnderLimits(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    for account in ["m", "c", "x", "a", "q"] {
        try backend.add(genericItem(service, account, Data("s-\(account)".utf8)))
    }
    func accounts(_ limit: MatchLimit, secrets: Bool = false) throws -> [String] {
        var query = serviceQuery(service, secrets: secrets)
        query.limit = limit
        return try backend.search(query).map { $0.attributes.string(.account) ?? "" }
    }
    let all = try accounts(.all)
    try expect(Set(all) == ["m", "c", "x", "a", "q"] && all.count == 5, "match-all found \(all)")
    for _ in 0..<3 {
        let again = try accounts(.all)
        try expect(again == all, "the same query gave \(all), then \(again): the order is not stable")
    }
    try expect(try accounts(.all, secrets: true) == all, "asking for secrets changed the order: \(all)")
    let one = try accounts(.one)
    try expect(one == [all[0]], "limit one gave \(one), not the first match \(all[0])")
    let two = try accounts(.count(2))
    try expect(two == Array(all.prefix(2)), "a limit of 2 gave \(two), not the first two matches \(Array(all.prefix(2)))")
    let many = try accounts(.count(50))
    try expect(many == all, "a limit above the number of matches gave \(many) instead of \(all)")

    // A limit-one query that fixes the whole primary key gives that item and its secret.
    let exact = try backend.search(exactQuery(service, "x"))
    try expect(exact.count == 1 && exact.first?.attributes.string(.account) == "x",
               "an exact limit-one query found \(exact.map { $0.attributes.string(.account) ?? "" })")
    try expect(exact.first?.secret?.makeData() == Data("s-x".utf8), "an exact limit-one query gave the wrong secret")
}

func matchesAnySynchronizableOnlyWhenAsked(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    // Same service and account: the synchronizable flag is part of the primary key.
    try backend.add(genericItem(service, "acct", Data("local".utf8)))
    try backend.add(genericItem(service, "acct", Data("synced".utf8), extra: [.synchronizable: .bool(true)]))

    func secrets(_ constraints: [AttributeKey: AttributeValue], any: Bool, limit: MatchLimit = .all) throws -> [String] {
        var values: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string("acct")]
        values.merge(constraints) { _, new in new }
        let query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes(values), limit: limit,
                              includeSecrets: true, matchesAnySynchronizable: any)
        return try backend.search(query).map { String(decoding: $0.secret?.makeData() ?? Data(), as: UTF8.self) }.sorted()
    }
    let plain = try secrets([:], any: false)
    try expect(plain == ["local"], "a query without kSecAttrSynchronizable matched \(plain), expected only the item that is not synchronizable")
    try expect(try secrets([.synchronizable: .bool(true)], any: false) == ["synced"], "kSecAttrSynchronizable true did not find just the synchronizable item")
    try expect(try secrets([.synchronizable: .bool(false)], any: false) == ["local"], "kSecAttrSynchronizable false did not find just the other item")
    let both = try secrets([:], any: true)
    try expect(both == ["local", "synced"], "kSecAttrSynchronizableAny found \(both)")
    // Any ignores a synchronizable constraint given with it.
    try expect(try secrets([.synchronizable: .bool(false)], any: true) == ["local", "synced"],
               "kSecAttrSynchronizableAny with a synchronizable constraint did not match both")
    try expect(try secrets([:], any: true, limit: .one).count == 1, "kSecAttrSynchronizableAny with limit one gave other than one item")

    // An update or delete without Any leaves the synchronizable item alone.
    let updated = try backend.update(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)])),
                                     with: ItemChanges(attributes: ItemAttributes([.label: .string("changed")])))
    try expect(updated == 1, "an update without kSecAttrSynchronizableAny changed \(updated) items, expected 1")
    let deletedLocal = try backend.delete(serviceQuery(service))
    try expect(deletedLocal == 1, "a delete without kSecAttrSynchronizableAny removed \(deletedLocal) items, expected 1")
    var everything = serviceQuery(service)
    everything.matchesAnySynchronizable = true
    let left = try backend.search(everything)
    try expect(left.count == 1 && left.first?.attributes.flag(.synchronizable) == true, "the synchronizable item did not survive")
    try expect(left.first?.attributes.string(.label) == nil, "an update without kSecAttrSynchronizableAny changed the synchronizable item")
    let deletedAny = try backend.delete(everything)
    try expect(deletedAny == 1, "a delete with kSecAttrSynchronizableAny removed \(deletedAny) items, expected 1")

    // An update can change the flag, which moves the item to another primary key (the typed
    // API's set relies on it); onto an existing item of that flag it is a duplicate.
    func flagged(_ flag: Bool) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([
            .service: .string(service), .account: .string("acct"), .synchronizable: .bool(flag),
        ]), includeSecrets: true)
    }
    try backend.add(genericItem(service, "acct", Data("moving".utf8), extra: [.synchronizable: .bool(true)]))
    let moved = try backend.update(flagged(true), with: ItemChanges(attributes: ItemAttributes([.synchronizable: .bool(false)]),
                                                                    secret: SecretBytes(Data("moved".utf8))))
    try expect(moved == 1, "an update of the synchronizable flag changed \(moved) items, expected 1")
    let afterMove = try secrets([:], any: true)
    try expect(afterMove == ["moved"], "an update of the synchronizable flag left \(afterMove)")
    try expect(try backend.search(flagged(false)).first?.attributes.flag(.synchronizable) == false,
               "the moved item does not read back as not synchronizable")
    try backend.add(genericItem(service, "acct", Data("synced".utf8), extra: [.synchronizable: .bool(true)]))
    try expectStatus(errSecDuplicateItem, "moving an item onto one of the other synchronizable flag") {
        _ = try backend.update(flagged(false), with: ItemChanges(attributes: ItemAttributes([.synchronizable: .bool(true)])))
    }
    try expect(try secrets([:], any: true) == ["moved", "synced"], "a refused move changed the items")
    _ = try backend.delete(everything)
}

func keepsSecretsOutOfErrors(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    // Printable, so it could be quoted as text, and long enough not to occur by chance.
    let secret = Data("s3cr3t-\(UUID().uuidString)-never-quote-me".utf8)
    let newSecret = Data("n3w-\(UUID().uuidString)-never-quote-me".utf8)
    let spellings = [secret, newSecret].flatMap { bytes in
        [String(decoding: bytes, as: UTF8.self), bytes.base64EncodedString(),
         bytes.map { String(format: "%02x", $0) }.joined(), bytes.map { String(format: "%02X", $0) }.joined()]
    }
    var errors: [(String, any Error)] = []
    func record(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch { errors.append((what, error)) }
    }

    try backend.add(genericItem(service, "taken", secret))
    try backend.add(genericItem(service, "other", secret))
    record("a duplicate add") { try backend.add(genericItem(service, "taken", secret)) }
    record("a colliding update with a new secret") {
        _ = try backend.update(exactQuery(service, "other", secrets: false),
                               with: ItemChanges(attributes: ItemAttributes([.account: .string("taken")]),
                                                 secret: SecretBytes(newSecret)))
    }
    record("a duplicate internet password") {
        let item = KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string(service), .account: .string("taken"),
        ]), secret: SecretBytes(secret))
        try backend.add(item)
        try backend.add(item)
    }
    try expect(errors.count == 3, "expected 3 failing calls, got \(errors.count): \(errors.map(\.0))")
    for (what, error) in errors {
        var texts = ["\(error)", String(reflecting: error), error.localizedDescription]
        if let keychainError = error as? KeychainError { texts += [keychainError.message, keychainError.failedCall ?? ""] }
        for text in texts {
            try expect(!spellings.contains { text.contains($0) }, "the error of \(what) contains the secret")
        }
    }
    try expectSecret(backend, service, "taken", secret)
    try expectSecret(backend, service, "other", secret)
}
