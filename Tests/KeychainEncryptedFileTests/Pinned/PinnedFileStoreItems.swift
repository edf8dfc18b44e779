import Foundation
import KeychainCore

/// The items in the committed store `Fixtures/file-store-v1`, exactly as they were added when
/// the fixture was made (format version 1, before any later release). They cover every
/// attribute kind, both classes, an access group, the synchronizable flag, a binary secret, an
/// empty secret, an empty account, and names with `:`, `/`, `%` and non-ASCII letters.
enum PinnedFileStore {
    /// The fixture's passphrase. The header records the KDF settings it was made with:
    /// `KDFParameters.minimum` (Argon2id, 2 passes, 19 MiB), so the tests unlock it quickly.
    static let passphrase = "pinned fixture passphrase v1"

    static let created = Date(timeIntervalSince1970: 1_700_000_000.125)

    static let items: [KeychainItem] = [
        KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("pinned-app"), .account: .string("alice@example.com"),
            .label: .string("Pinned label"), .comment: .string("a comment"), .itemDescription: .string("a description"),
            .generic: .data(Data([0, 1, 2, 254, 255])), .creator: .integer(0x6C6B_6368), .type: .integer(-7),
            .isInvisible: .bool(true), .isNegative: .bool(false), .accessible: .string("ak"),
            .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(0.5)),
        ]), secret: SecretBytes(Data("correct horse".utf8))),
        KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("pinned-app"), .account: .string("bob"),
            .accessGroup: .string("team.shared"), .synchronizable: .bool(true),
            .creationDate: .date(created.addingTimeInterval(1)), .modificationDate: .date(created.addingTimeInterval(1)),
        ]), secret: SecretBytes(Data((0...255).map { UInt8($0) }))),
        KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("pinned:odd/ñame%2F"), .account: .string(""),
            .creationDate: .date(created.addingTimeInterval(2)), .modificationDate: .date(created.addingTimeInterval(2)),
        ]), secret: SecretBytes(Data())),
        KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("git.example.com"), .account: .string("carol"), .protocol: .string("htps"),
            .port: .integer(8443), .path: .string("/repo"), .authenticationType: .string("dflt"),
            .securityDomain: .string("realm"), .label: .string("git.example.com (carol)"),
            .creationDate: .date(created.addingTimeInterval(3)), .modificationDate: .date(created.addingTimeInterval(3)),
        ]), secret: SecretBytes(Data("ghp_token-42".utf8))),
    ]
}
