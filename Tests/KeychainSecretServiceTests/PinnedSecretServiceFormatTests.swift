import Foundation
import KeychainCore
@testable import KeychainSecretService
import Testing

/// The Secret Service layout as released, pinned: the attribute names and value spellings of
/// this library's items, which gnome-keyring and KeePassXC keep on disk and other programs
/// (Python keyring, secret-tool, Seahorse) read. A change to any literal here needs a
/// migration of stored items, never an edit of the literal.
@Suite("secret-service: pinned attributes and labels")
struct PinnedSecretServiceFormatTests {
    static let created = Date(timeIntervalSince1970: 1_700_000_000.125)

    static let generic = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
        .service: .string("pinned-app"), .account: .string("alice@example.com"), .accessGroup: .string("team.shared"),
        .comment: .string("c"), .itemDescription: .string("d"), .generic: .data(Data([0, 1, 2, 254, 255])),
        .creator: .integer(0x6C6B_6368), .type: .integer(-7), .isInvisible: .bool(true), .isNegative: .bool(false),
        .accessible: .string("ak"), .synchronizable: .bool(true),
        .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(0.5)),
    ]))

    static let genericAttributes: [String: String] = [
        "xdg:schema": "org.linuxkeychain.GenericPassword", "keychain:default-label": "1",
        "service": "pinned-app", "username": "alice@example.com", "keychain:access-group": "team.shared",
        "keychain:comment": "c", "keychain:description": "d", "keychain:generic": "AAEC/v8=",
        "keychain:creator": "1818977128", "keychain:type": "-7", "keychain:invisible": "1", "keychain:negative": "0",
        "keychain:accessible": "ak", "keychain:synchronizable": "1",
        "keychain:created": "1700000000.125", "keychain:modified": "1700000000.625",
    ]

    static let internet = KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
        .server: .string("git.example.com"), .account: .string("carol"), .protocol: .string("htps"),
        .port: .integer(8443), .path: .string("/repo"), .authenticationType: .string("dflt"),
        .securityDomain: .string("realm"), .label: .string("Git"),
    ]))

    static let internetAttributes: [String: String] = [
        "xdg:schema": "org.linuxkeychain.InternetPassword", "server": "git.example.com", "user": "carol",
        "protocol": "htps", "port": "8443", "object": "/repo", "authtype": "dflt", "domain": "realm",
    ]

    static let key = KeychainItem(itemClass: .key, attributes: ItemAttributes([
        .applicationTag: .data(Data("com.example.keys.signing".utf8)), .applicationLabel: .data(Data([0x50, 0x49, 0x0D, 0x8F])),
        .keyClass: .integer(1), .type: .integer(73), .keySizeInBits: .integer(256), .effectiveKeySize: .integer(256),
        .accessGroup: .string("team"),
    ]))

    static let keyAttributes: [String: String] = [
        "xdg:schema": "org.linuxkeychain.Key", "keychain:default-label": "1",
        "keychain:application-tag": "Y29tLmV4YW1wbGUua2V5cy5zaWduaW5n", "keychain:application-label": "UEkNjw==",
        "keychain:key-class": "1", "keychain:type": "73", "keychain:key-size": "256", "keychain:effective-key-size": "256",
        "keychain:access-group": "team",
    ]

    @Test func theAttributesOfAKeyArePinned() throws {
        #expect(SecretServiceAttributeMapping.attributes(of: Self.key) == Self.keyAttributes)
        let label = "key tag 'com.example.keys.signing', label 50490d8f"
        #expect(SecretServiceAttributeMapping.label(of: .key, Self.key.attributes) == label)
        #expect(try SecretServiceAttributeMapping.decode(Self.keyAttributes, label: label, as: .key) == Self.key.attributes)
        // Only this library writes keys: another program's item, or a password of ours, is no key.
        #expect(try SecretServiceAttributeMapping.decode(["service": "s", "username": "u"], label: "x", as: .key) == nil)
        #expect(try SecretServiceAttributeMapping.decode(Self.genericAttributes, label: "x", as: .key) == nil)
        #expect(try SecretServiceAttributeMapping.decode(Self.keyAttributes, label: label, as: .genericPassword) == nil)
    }

    static let certificate = KeychainItem(itemClass: .certificate, attributes: ItemAttributes([
        .issuer: .data(Data([0x30, 0x00])), .serialNumber: .data(Data([0x00, 0xAB, 0xCD, 0xEF])), .certificateType: .integer(3),
        .certificateEncoding: .integer(3), .subject: .data(Data([0x30, 0x01])), .publicKeyHash: .data(Data([0x50, 0x49])),
        .label: .string("api.example.com"),
    ]))

    static let certificateAttributes: [String: String] = [
        "xdg:schema": "org.linuxkeychain.Certificate", "keychain:issuer": "MAA=", "keychain:serial-number": "AKvN7w==",
        "keychain:certificate-type": "3", "keychain:certificate-encoding": "3", "keychain:subject": "MAE=",
        "keychain:public-key-hash": "UEk=",
    ]

    @Test func theAttributesOfACertificateArePinned() throws {
        #expect(SecretServiceAttributeMapping.attributes(of: Self.certificate) == Self.certificateAttributes)
        #expect(SecretServiceAttributeMapping.defaultLabel(.certificate, Self.certificate.attributes) == "certificate serial 00abcdef")
        #expect(try SecretServiceAttributeMapping.decode(Self.certificateAttributes, label: "api.example.com", as: .certificate)
                == Self.certificate.attributes)
        #expect(try SecretServiceAttributeMapping.decode(Self.keyAttributes, label: "x", as: .certificate) == nil)
    }

    @Test func theAttributesOfAGenericPasswordArePinned() {
        #expect(SecretServiceAttributeMapping.attributes(of: Self.generic) == Self.genericAttributes)
        #expect(SecretServiceAttributeMapping.label(of: .genericPassword, Self.generic.attributes) == "pinned-app (alice@example.com)")
    }

    @Test func theAttributesOfAnInternetPasswordArePinned() {
        #expect(SecretServiceAttributeMapping.attributes(of: Self.internet) == Self.internetAttributes)
        #expect(SecretServiceAttributeMapping.label(of: .internetPassword, Self.internet.attributes) == "Git")
        #expect(SecretServiceAttributeMapping.defaultLabel(.internetPassword, Self.internet.attributes) == "carol@git.example.com")
    }

    @Test func thePinnedAttributesDecodeToEveryAttribute() throws {
        let generic = try SecretServiceAttributeMapping.decode(Self.genericAttributes, label: "pinned-app (alice@example.com)",
                                                               as: .genericPassword)
        #expect(generic == Self.generic.attributes)
        let internet = try SecretServiceAttributeMapping.decode(Self.internetAttributes, label: "Git", as: .internetPassword)
        #expect(internet == Self.internet.attributes)
    }

    /// What Python keyring, go-keyring and secret-tool write: no schema of ours, the shared names only.
    @Test func anotherProgramsItemDecodesFromTheSharedNames() throws {
        let decoded = try SecretServiceAttributeMapping.decode(
            ["service": "pinned-app", "username": "bob", "xdg:schema": "org.freedesktop.Secret.Generic"],
            label: "Password for 'bob' on 'pinned-app'", as: .genericPassword)
        #expect(decoded == ItemAttributes([.service: .string("pinned-app"), .account: .string("bob"),
                                           .label: .string("Password for 'bob' on 'pinned-app'")]))
    }
}
