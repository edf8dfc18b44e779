import Foundation
import KeychainCore

/// Names compare as exact Unicode scalars: `café` composed (NFC, U+00E9) and decomposed (NFD,
/// `e` + U+0301) are two items, as on Apple's Keychain, gnome-keyring and the kernel.
func keepsCanonicallyEquivalentNamesApart(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
    for (service, accounts) in [(context.service(), [composed, decomposed]),
                                (context.service() + "-" + composed, ["acct"])] {
        let names: [(service: String, account: String)] = service.hasSuffix(composed)
            ? [(service, "acct"), (String(service.dropLast()) + "e\u{301}", "acct")]
            : accounts.map { (service, $0) }
        for (index, name) in names.enumerated() {
            try backend.add(genericItem(name.service, name.account, Data("secret \(index)".utf8)))
        }
        for (index, name) in names.enumerated() {
            try expectSecret(backend, name.service, name.account, Data("secret \(index)".utf8))
        }
        let listed = try names.flatMap { try backend.search(exactQuery($0.service, $0.account, secrets: false)) }
        try expect(listed.count == 2, "the two spellings gave \(listed.count) items instead of 2")
        if names[0].service.hasSameScalars(as: names[1].service) {
            let all = try backend.search(serviceQuery(service))
            try expect(all.count == 2, "listing the service gave \(all.count) items instead of the two spellings")
        }
        let scalars = Set(listed.map { item in
            Array((item.attributes.string(.service) ?? "").unicodeScalars) + ["/"] + Array((item.attributes.string(.account) ?? "").unicodeScalars)
        })
        try expect(scalars.count == 2, "the items did not come back with their exact spellings")
        let deleted = try backend.delete(exactQuery(names[0].service, names[0].account, secrets: false))
        try expect(deleted == 1, "deleting one spelling deleted \(deleted) items")
        try expect(try storedSecret(backend, names[0].service, names[0].account) == nil, "the deleted spelling is still there")
        try expectSecret(backend, names[1].service, names[1].account, Data("secret 1".utf8))
        _ = try backend.delete(exactQuery(names[1].service, names[1].account, secrets: false))
    }
}

/// A name may begin with a combining mark, which Swift's `Character` view fuses with whatever
/// precedes it (a separator such as `:` in a store's key): splitting or prefix-matching by
/// `Character` would lose the item.
func findsNamesThatStartWithACombiningMark(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    let account = "\u{301}leading mark"
    try backend.add(genericItem(service, account, Data("marked".utf8)))
    try expectSecret(backend, service, account, Data("marked".utf8))
    let listed = try backend.search(serviceQuery(service))
    try expect(listed.count == 1 && listed.first?.attributes.string(.account)?.hasSameScalars(as: account) == true,
               "listing the service gave \(listed.count) items")
    _ = try backend.delete(serviceQuery(service))
}

/// A NUL inside a name is refused with `errSecParam` by every backend, on every operation,
/// and leaves the store as it was: some backends cannot store it, and would alias `X\0evil`
/// with `X`.
func refusesNULInNames(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    try backend.add(genericItem(service, "acct", Data("the real one".utf8)))
    let hostile = service + "\0evil"
    try expectStatus(errSecParam, "adding service X\\0evil") {
        try backend.add(genericItem(hostile, "acct", Data("evil".utf8)))
    }
    try expectStatus(errSecParam, "adding account a\\0b") {
        try backend.add(genericItem(service, "acct\0b", Data("evil".utf8)))
    }
    try expectStatus(errSecParam, "adding a label with a NUL") {
        try backend.add(genericItem(service, "labelled", Data("evil".utf8), extra: [.label: .string("a\0b")]))
    }
    try expectStatus(errSecParam, "searching for service X\\0evil") { _ = try backend.search(exactQuery(hostile, "acct")) }
    try expectStatus(errSecParam, "deleting service X\\0evil") { _ = try backend.delete(exactQuery(hostile, "acct", secrets: false)) }
    try expectStatus(errSecParam, "updating service X\\0evil") {
        _ = try backend.update(exactQuery(hostile, "acct", secrets: false), with: ItemChanges(secret: SecretBytes(Data("evil".utf8))))
    }
    try expectStatus(errSecParam, "renaming an item to a name with a NUL") {
        _ = try backend.update(exactQuery(service, "acct", secrets: false),
                               with: ItemChanges(attributes: ItemAttributes([.account: .string("acct\0b")])))
    }
    let left = try backend.search(serviceQuery(service, secrets: true))
    try expect(left.count == 1 && left.first?.attributes.string(.account) == "acct"
               && left.first?.secret?.makeData() == Data("the real one".utf8),
               "the refusals changed the store: \(left.count) items")
    _ = try backend.delete(serviceQuery(service))
}

/// Integers keep their exact value, the largest included.
func roundTripsExtremeIntegers(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let server = context.service()
    for port in [Int64.max, Int64.max - 511, (Int64(1) << 53) + 1] {
        let attributes = ItemAttributes([.server: .string(server), .account: .string("acct"), .port: .integer(port)])
        try backend.add(KeychainItem(itemClass: .internetPassword, attributes: attributes, secret: SecretBytes(Data("s".utf8))))
        let found = try backend.search(ItemQuery(itemClass: .internetPassword, constraints: attributes, limit: .all))
        try expect(found.count == 1 && found.first?.attributes[.port] == .integer(port),
                   "port \(port) came back as \(found.map { String(describing: $0.attributes[.port]) })")
    }
    _ = try backend.delete(ItemQuery(itemClass: .internetPassword, constraints: ItemAttributes([.server: .string(server)]), limit: .all))
}
