import Foundation
import KeychainCore

/// The cases every backend must pass.
public enum KeychainConformance: Sendable {
    /// Every case of the backend contract, in the order they run.
    public static let cases: [ConformanceCase] = [
        ConformanceCase(name: "all-byte-values", body: roundTripsAllByteValues),
        ConformanceCase(name: "empty-value", body: roundTripsEmptyValue),
        ConformanceCase(name: "large-value", body: roundTripsLargeValue),
        ConformanceCase(name: "names-do-not-collide", body: keepsAwkwardNamesApart),
        ConformanceCase(name: "duplicate-add", body: rejectsDuplicateAdd),
        ConformanceCase(name: "not-found", body: reportsNotFound),
        ConformanceCase(name: "update", body: updatesSecretAndAttributes),
        ConformanceCase(name: "update-collision", body: rejectsCollidingUpdate),
        ConformanceCase(name: "delete", body: deletesOnlyMatches),
        ConformanceCase(name: "match-all-attributes", body: matchesAllWithAttributes),
        ConformanceCase(name: "internet-password", body: roundTripsInternetPassword),
        ConformanceCase(name: "threads", body: survivesManyThreads),
        ConformanceCase(name: "thread-pool", runsAlone: true, body: survivesAThreadPool),
        ConformanceCase(name: "processes", needs: [.sharedAcrossProcesses], body: survivesManyProcesses),
        ConformanceCase(name: "no-secrets-unless-asked", body: loadsNoSecretUnlessAsked),
        ConformanceCase(name: "stable-order-and-limit", body: keepsAStableOrderUnderLimits),
        ConformanceCase(name: "synchronizable-any", body: matchesAnySynchronizableOnlyWhenAsked),
        ConformanceCase(name: "no-secret-in-errors", body: keepsSecretsOutOfErrors),
        ConformanceCase(name: "program-identities", body: isolatesProgramIdentities),
    ] + orderAndIdentityCases + nameCases + keyCases

    /// Exact names, NULs and extreme integers (NameCases.swift).
    static let nameCases: [ConformanceCase] = [
        ConformanceCase(name: "canonically-equivalent-names", body: keepsCanonicallyEquivalentNamesApart),
        ConformanceCase(name: "combining-mark-first", body: findsNamesThatStartWithACombiningMark),
        ConformanceCase(name: "nul-in-names", body: refusesNULInNames),
        ConformanceCase(name: "extreme-integers", body: roundTripsExtremeIntegers),
    ]
}

// MARK: - Values

func roundTripsAllByteValues(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    let secret = Data((0...255).map { UInt8($0) } + (0...255).reversed().map { UInt8($0) })
    try backend.add(genericItem(service, "bytes", secret))
    try expectSecret(backend, service, "bytes", secret)
}

func roundTripsEmptyValue(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try backend.add(genericItem(service, "empty", Data()))
    try expectSecret(backend, service, "empty", Data())
}

func roundTripsLargeValue(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    var generator = SystemRandomNumberGenerator()
    let secret = Data((0..<16 * 1024).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try backend.add(genericItem(service, "large", secret))
    try expectSecret(backend, service, "large", secret)
}

func keepsAwkwardNamesApart(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let base = context.service()
    // Pairs that a naive "service:account" or path encoding would merge or mangle.
    let names: [(String, String)] = [
        ("\(base)-a:b", "c"), ("\(base)-a", "b:c"),
        ("\(base)-x/y", "z"), ("\(base)-x", "y/z"),
        ("\(base)-u@h", "p%2F"), ("\(base)-u", "@h/p%2F"),
        ("\(base)-ключ-🔑", "ünïcødé"), ("\(base)-..", "../../etc/passwd"),
    ]
    for (index, (service, account)) in names.enumerated() {
        _ = context.service(String(service.dropFirst(base.count + 1)))
        try backend.add(genericItem(service, account, Data("secret-\(index)".utf8)))
    }
    for (index, (service, account)) in names.enumerated() {
        try expectSecret(backend, service, account, Data("secret-\(index)".utf8))
        let found = try backend.search(serviceQuery(service))
        let accounts = found.compactMap { $0.attributes.string(.account) }
        try expect(accounts == [account], "service '\(service)' lists accounts \(accounts), expected [\(account)]")
    }
}

// MARK: - Semantics

func rejectsDuplicateAdd(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try backend.add(genericItem(service, "dup", Data("first".utf8)))
    try expectStatus(errSecDuplicateItem, "adding the same primary key again") {
        try backend.add(genericItem(service, "dup", Data("second".utf8)))
    }
    try expectSecret(backend, service, "dup", Data("first".utf8))
}

func reportsNotFound(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try expect(try backend.search(exactQuery(service, "missing")).isEmpty, "search found a missing item")
    try expect(try backend.search(serviceQuery(service)).isEmpty, "match-all found items in an empty service")
    let updated = try backend.update(exactQuery(service, "missing", secrets: false),
                                     with: ItemChanges(secret: SecretBytes(Data("x".utf8))))
    try expect(updated == 0, "update of a missing item reported \(updated) changed")
    let deleted = try backend.delete(exactQuery(service, "missing", secrets: false))
    try expect(deleted == 0, "delete of a missing item reported \(deleted) deleted")
    try expect(try backend.search(exactQuery(service, "missing")).isEmpty, "update of a missing item created it")
}

func updatesSecretAndAttributes(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try backend.add(genericItem(service, "u", Data("old".utf8), extra: [.label: .string("old label")]))
    let changed = try backend.update(exactQuery(service, "u", secrets: false),
                                     with: ItemChanges(attributes: ItemAttributes([.label: .string("new label")]),
                                                       secret: SecretBytes(Data("new".utf8))))
    try expect(changed == 1, "update reported \(changed) changed, expected 1")
    try expectSecret(backend, service, "u", Data("new".utf8))
    let label = try backend.search(exactQuery(service, "u")).first?.attributes.string(.label)
    try expect(label == "new label", "label after update is \(label ?? "nil")")

    // An attribute-only update keeps the secret.
    _ = try backend.update(exactQuery(service, "u", secrets: false),
                           with: ItemChanges(attributes: ItemAttributes([.comment: .string("c")])))
    try expectSecret(backend, service, "u", Data("new".utf8))

    // An update may move the item to a new primary key.
    let moved = try backend.update(exactQuery(service, "u", secrets: false),
                                   with: ItemChanges(attributes: ItemAttributes([.account: .string("u2")])))
    try expect(moved == 1, "renaming update reported \(moved) changed")
    try expect(try storedSecret(backend, service, "u") == nil, "the old primary key still exists after a rename")
    try expectSecret(backend, service, "u2", Data("new".utf8))
}

func rejectsCollidingUpdate(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try backend.add(genericItem(service, "one", Data("1".utf8)))
    try backend.add(genericItem(service, "two", Data("2".utf8)))
    try expectStatus(errSecDuplicateItem, "renaming onto an existing item") {
        _ = try backend.update(exactQuery(service, "one", secrets: false),
                               with: ItemChanges(attributes: ItemAttributes([.account: .string("two")])))
    }
    try expectSecret(backend, service, "one", Data("1".utf8))
    try expectSecret(backend, service, "two", Data("2".utf8))
}

func deletesOnlyMatches(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try backend.add(genericItem(service, "keep", Data("k".utf8)))
    try backend.add(genericItem(service, "drop", Data("d".utf8)))
    let deleted = try backend.delete(exactQuery(service, "drop", secrets: false))
    try expect(deleted == 1, "delete reported \(deleted), expected 1")
    try expect(try storedSecret(backend, service, "drop") == nil, "deleted item still found")
    try expectSecret(backend, service, "keep", Data("k".utf8))
    let rest = try backend.delete(serviceQuery(service))
    try expect(rest == 1, "delete by service reported \(rest), expected 1")
    try expect(try backend.search(serviceQuery(service)).isEmpty, "delete by service left items")
}

func matchesAllWithAttributes(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    let other = context.service("other")
    let created = Date(timeIntervalSince1970: 1_700_000_000.25)
    for index in 0..<3 {
        try backend.add(genericItem(service, "acct\(index)", Data("s\(index)".utf8), extra: [
            .label: .string("Label \(index)"), .comment: .string("comment \(index)"),
            .itemDescription: .string("desc"), .generic: .data(Data([0, UInt8(index), 255])),
            .creator: .integer(0x6C6B_6368), .type: .integer(Int64(index)), .isInvisible: .bool(index == 1),
            .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(Double(index))),
        ]))
    }
    try backend.add(genericItem(other, "acct0", Data("elsewhere".utf8)))

    let found = try backend.search(serviceQuery(service, secrets: true))
    try expect(found.count == 3, "match-all found \(found.count) items, expected 3")
    for index in 0..<3 {
        guard let item = found.first(where: { $0.attributes.string(.account) == "acct\(index)" }) else {
            throw ConformanceFailure("match-all lost account acct\(index)")
        }
        let attributes = item.attributes
        try expect(attributes.string(.label) == "Label \(index)", "label of acct\(index) is \(attributes.string(.label) ?? "nil")")
        try expect(attributes.string(.comment) == "comment \(index)", "comment of acct\(index) was not kept")
        try expect(attributes.string(.itemDescription) == "desc", "description of acct\(index) was not kept")
        try expect(attributes[.generic] == .data(Data([0, UInt8(index), 255])), "generic data of acct\(index) was not kept")
        try expect(attributes[.creator] == .integer(0x6C6B_6368), "creator of acct\(index) was not kept")
        try expect(attributes[.type] == .integer(Int64(index)), "type of acct\(index) was not kept")
        try expect(attributes.flag(.isInvisible) == (index == 1), "invisible flag of acct\(index) was not kept")
        try expect(attributes[.creationDate] == .date(created), "creation date of acct\(index) was not kept exactly")
        try expect(attributes[.modificationDate] == .date(created.addingTimeInterval(Double(index))),
                   "modification date of acct\(index) was not kept exactly")
        try expect(item.secret?.makeData() == Data("s\(index)".utf8), "secret of acct\(index) is wrong")
    }

    let byLabel = ItemQuery(itemClass: .genericPassword,
                            constraints: ItemAttributes([.service: .string(service), .label: .string("Label 2")]))
    let labelled = try backend.search(byLabel)
    try expect(labelled.map { $0.attributes.string(.account) } == ["acct2"], "search by label found \(labelled.count) items")

    var limited = serviceQuery(service)
    limited.limit = .count(2)
    try expect(try backend.search(limited).count == 2, "a limit of 2 was not respected")
}

func roundTripsInternetPassword(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let server = context.service("host.example")
    func item(_ port: Int64, _ path: String, _ secret: String, type: String = "dflt", domain: String = "realm") -> KeychainItem {
        KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string(server), .account: .string("alice"), .protocol: .string("htps"),
            .port: .integer(port), .path: .string(path), .authenticationType: .string(type),
            .securityDomain: .string(domain),
        ]), secret: SecretBytes(Data(secret.utf8)))
    }
    try backend.add(item(443, "/a", "first"))
    try backend.add(item(8443, "/a", "second"))
    try expectStatus(errSecDuplicateItem, "adding the same internet password again") { try backend.add(item(443, "/a", "again")) }
    let query = ItemQuery(itemClass: .internetPassword,
                          constraints: ItemAttributes([.server: .string(server), .port: .integer(8443)]),
                          limit: .all, includeSecrets: true)
    let found = try backend.search(query)
    try expect(found.count == 1, "search by server and port found \(found.count) items")
    try expect(found.first?.secret?.makeData() == Data("second".utf8), "internet password secret is wrong")
    try expect(found.first?.attributes[.protocol] == .string("htps"), "protocol was not kept")
    try expect(found.first?.attributes[.path] == .string("/a"), "path was not kept")
    try expect(found.first?.attributes[.authenticationType] == .string("dflt"), "authentication type was not kept")
    try expect(found.first?.attributes[.securityDomain] == .string("realm"), "security domain was not kept")

    // The authentication type and the security domain are part of the identity, and narrow a search.
    try backend.add(item(443, "/a", "form", type: "form"))
    try backend.add(item(443, "/a", "staff", domain: "staff"))
    func secrets(_ constraints: [AttributeKey: AttributeValue]) throws -> [String] {
        let query = ItemQuery(itemClass: .internetPassword,
                              constraints: ItemAttributes(constraints.merging([.server: .string(server)]) { _, new in new }),
                              limit: .all, includeSecrets: true)
        return try backend.search(query).map { String(decoding: $0.secret?.makeData() ?? Data(), as: UTF8.self) }.sorted()
    }
    try expect(try secrets([.authenticationType: .string("form")]) == ["form"], "search by authentication type found other items")
    try expect(try secrets([.securityDomain: .string("staff")]) == ["staff"], "search by security domain found other items")
    let byBoth = try secrets([.port: .integer(443), .authenticationType: .string("dflt"), .securityDomain: .string("realm")])
    try expect(byBoth == ["first"], "search by port, authentication type and security domain found \(byBoth)")
    let generic = try backend.search(ItemQuery(itemClass: .genericPassword,
                                               constraints: ItemAttributes([.service: .string(server)])))
    try expect(generic.isEmpty, "a generic-password query found internet passwords")
}
