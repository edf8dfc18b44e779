import Foundation
import KeychainCore

extension KeychainConformance {
    /// Keys (`kSecClassKey`), named by tag and label, which are data (KeyCases.swift).
    static let keyCases: [ConformanceCase] = [
        ConformanceCase(name: "keys", body: storesKeysByTagAndLabel),
        ConformanceCase(name: "key-binary-names", body: keepsBinaryKeyNamesApart),
    ]
}

/// A key item as `SecItemAdd` stores one: Apple's numbers for type (73, EC) and class, the
/// tag and label as data, the key's bytes as its secret.
func keyItem(tag: Data, label: Data, isPrivate: Bool, bytes: Data) -> KeychainItem {
    KeychainItem(itemClass: .key, attributes: ItemAttributes([
        .applicationTag: .data(tag), .applicationLabel: .data(label), .keyClass: .integer(isPrivate ? 1 : 0),
        .type: .integer(73), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
    ]), secret: SecretBytes(bytes))
}

func keyQuery(tag: Data, _ extra: [AttributeKey: AttributeValue] = [:], secrets: Bool = false) -> ItemQuery {
    ItemQuery(itemClass: .key, constraints: ItemAttributes([.applicationTag: .data(tag)].merging(extra) { _, new in new }),
              limit: .all, includeSecrets: secrets)
}

func storesKeysByTagAndLabel(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let name = context.service("key")
    let tag = Data(name.utf8)
    let label = Data((0..<20).map { UInt8(truncatingIfNeeded: $0 * 37) })
    let privateBytes = Data((0..<97).map { UInt8(truncatingIfNeeded: $0 * 13 + 4) })
    let publicBytes = privateBytes.prefix(65)
    try backend.add(keyItem(tag: tag, label: label, isPrivate: true, bytes: privateBytes))
    // The other key of the pair differs only in its class: not a duplicate.
    try backend.add(keyItem(tag: tag, label: label, isPrivate: false, bytes: publicBytes))
    try expectStatus(errSecDuplicateItem, "adding the private key again") {
        try backend.add(keyItem(tag: tag, label: label, isPrivate: true, bytes: publicBytes))
    }
    // A password whose service spells the tag is another item, of another class.
    try backend.add(genericItem(name, "account", Data("password".utf8)))

    let both = try backend.search(keyQuery(tag: tag))
    try expect(both.count == 2 && both.allSatisfy { $0.itemClass == .key }, "the tag found \(both.count) keys, expected the pair")
    let found = try backend.search(keyQuery(tag: tag, [.keyClass: .integer(1)], secrets: true))
    try expect(found.count == 1, "the tag and private class found \(found.count) keys, expected 1")
    try expect(found.first?.secret?.makeData() == privateBytes, "the private key's bytes came back changed")
    let attributes = found.first?.attributes ?? ItemAttributes()
    try expect(attributes[.applicationLabel] == .data(label) && attributes[.type] == .integer(73)
               && attributes[.keySizeInBits] == .integer(256), "the private key's attributes came back changed")
    try expect(try backend.search(serviceQuery(name)).count == 1, "a search of passwords by service also found keys")

    try backend.delete(keyQuery(tag: tag, [.keyClass: .integer(0)]))
    let left = try backend.search(keyQuery(tag: tag))
    try expect(left.count == 1 && left.first?.attributes[.keyClass] == .integer(1), "deleting the public key left \(left.count) keys")
    try expectSecret(backend, name, "account", Data("password".utf8))
}

func keepsBinaryKeyNamesApart(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let name = context.service("binary-key")
    // Tags that are not UTF-8, or hold separators, must neither collide nor leave their folder.
    let tags: [Data] = [Data(name.utf8) + Data([0xFF, 0x00, 0x3A]), Data(name.utf8) + Data([0xFF, 0x00]),
                        Data((name + ":a/b").utf8), Data((name + ":a").utf8)]
    let label = Data([0x00, 0x2F, 0x3A, 0x25, 0xFE])
    for (index, tag) in tags.enumerated() {
        try backend.add(keyItem(tag: tag, label: label, isPrivate: true, bytes: Data("key-\(index)".utf8)))
    }
    for (index, tag) in tags.enumerated() {
        let found = try backend.search(keyQuery(tag: tag, [.applicationLabel: .data(label)], secrets: true))
        try expect(found.count == 1, "key tag #\(index) found \(found.count) keys, expected 1")
        try expect(found.first?.secret?.makeData() == Data("key-\(index)".utf8), "key tag #\(index) came back with another key's bytes")
        try expect(found.first?.attributes[.applicationTag] == .data(tag), "key tag #\(index) came back as another tag")
    }
    for tag in tags { try backend.delete(keyQuery(tag: tag)) }
}
