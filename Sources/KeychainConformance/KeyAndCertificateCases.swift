public import Foundation
public import KeychainCore

extension KeychainConformance {
    /// Keys (`kSecClassKey`), named by tag and label, and certificates (`kSecClassCertificate`),
    /// named by issuer and serial number: names that are data (KeyAndCertificateCases.swift).
    static let keyCases: [ConformanceCase] = [
        ConformanceCase(name: "keys", body: storesKeysByTagAndLabel),
        ConformanceCase(name: "key-binary-names", body: keepsBinaryKeyNamesApart),
        ConformanceCase(name: "certificates", body: storesCertificatesByIssuerAndSerial),
    ]
}

/// A key item as `SecItemAdd` stores one: Apple's numbers for type (73, EC) and class, the
/// tag and label as data, the key's bytes as its secret.
public func keyItem(tag: Data, label: Data, isPrivate: Bool, bytes: Data) -> KeychainItem {
    KeychainItem(itemClass: .key, attributes: ItemAttributes([
        .applicationTag: .data(tag), .applicationLabel: .data(label), .keyClass: .integer(isPrivate ? 1 : 0),
        .type: .integer(73), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
    ]), secret: SecretBytes(bytes))
}

public func keyQuery(tag: Data, _ extra: [AttributeKey: AttributeValue] = [:], secrets: Bool = false) -> ItemQuery {
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

    _ = try backend.delete(keyQuery(tag: tag, [.keyClass: .integer(0)]))
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
    for tag in tags { _ = try backend.delete(keyQuery(tag: tag)) }
}

func storesCertificatesByIssuerAndSerial(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let name = context.service("certificate")
    // An issuer as DER holds bytes of every kind; two serials of one issuer, one of another.
    let issuer = Data([0x30, 0x12, 0x31, 0x10, 0x30, 0x0E, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0C, 0x07]) + Data(name.utf8)
    let otherIssuer = issuer + Data([0x00])
    func certificate(_ issuer: Data, _ serial: [UInt8], _ der: String) -> KeychainItem {
        KeychainItem(itemClass: .certificate, attributes: ItemAttributes([
            .issuer: .data(issuer), .serialNumber: .data(Data(serial)), .certificateType: .integer(3),
            .certificateEncoding: .integer(3), .subject: .data(Data("subject".utf8)), .label: .string("api.example.com"),
        ]), secret: SecretBytes(Data(der.utf8)))
    }
    try backend.add(certificate(issuer, [0x00, 0xAB], "first"))
    try backend.add(certificate(issuer, [0xAB], "second"))
    try backend.add(certificate(otherIssuer, [0x00, 0xAB], "third"))
    try expectStatus(errSecDuplicateItem, "adding a certificate of the same issuer and serial") {
        try backend.add(certificate(issuer, [0x00, 0xAB], "again"))
    }
    let byIssuer = try backend.search(ItemQuery(itemClass: .certificate, constraints: ItemAttributes([.issuer: .data(issuer)]),
                                                limit: .all, includeSecrets: true))
    let secrets = Set(byIssuer.compactMap { $0.secret.map { String(decoding: $0.makeData(), as: UTF8.self) } })
    try expect(secrets == ["first", "second"], "the issuer found \(secrets.sorted()), expected first and second")
    try expect(byIssuer.allSatisfy { $0.attributes[.label] == .string("api.example.com") && $0.attributes[.subject] == .data(Data("subject".utf8)) },
               "a certificate's attributes came back changed")
    for certificateIssuer in [issuer, otherIssuer] {
        _ = try backend.delete(ItemQuery(itemClass: .certificate, constraints: ItemAttributes([.issuer: .data(certificateIssuer)])))
    }
    try expect(try backend.search(ItemQuery(itemClass: .certificate, constraints: ItemAttributes([.issuer: .data(otherIssuer)]),
                                            limit: .all)).isEmpty, "a deleted certificate is still found")
}
