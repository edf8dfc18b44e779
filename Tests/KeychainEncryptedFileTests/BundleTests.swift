import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// `linux-keychain export` and `linux-keychain import` through the built CLI, between file stores of the
/// test's own: every attribute round-trips exactly, the committed version-1 fixture still
/// reads, and a wrong passphrase, a truncated bundle or a changed byte imports nothing.
@Suite("export and import bundles")
struct BundleTests {
    static let passphrase = "bundle-fixture-passphrase"
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/bundle-v1.lkb").path
    static let created = Date(timeIntervalSince1970: 1_700_000_000.123456)

    /// The items of the fixture: every attribute kind, binary, empty and non-ASCII values.
    static var items: [KeychainItem] {
        let dates = ItemAttributes([.creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(60.5))])
        return [
            KeychainItem(itemClass: .genericPassword, attributes: dates.merging(ItemAttributes([
                .service: .string("bündle"), .account: .string("ålice"), .accessGroup: .string("app.one"),
                .label: .string("Label ✓"), .comment: .string("comment"), .itemDescription: .string("description"),
                .generic: .data(Data([0, 1, 2])), .creator: .integer(0x4142_4344), .type: .integer(7),
                .isInvisible: .bool(true), .accessible: .string("ak"), .valueTypes: .string("labl"),
            ])), secret: SecretBytes(Data([0, 255, 10, 13]))),
            KeychainItem(itemClass: .genericPassword, attributes: dates.merging(ItemAttributes([
                .service: .string("bündle"), .account: .string("empty"), .synchronizable: .bool(true),
            ])), secret: SecretBytes(Data())),
            KeychainItem(itemClass: .internetPassword, attributes: dates.merging(ItemAttributes([
                .server: .string("host.example"), .account: .string("bob"), .protocol: .string("htps"), .port: .integer(8443),
                .path: .string("/v1"), .authenticationType: .string("dflt"), .securityDomain: .string("realm"),
                .accessGroup: .string("app.two"), .isNegative: .bool(false),
            ])), secret: SecretBytes(Data("wéb".utf8))),
        ]
    }

    let cli: String
    let directory: String

    init() throws {
        cli = try builtCLI()
        directory = try makeScratchDirectory("lkc-bundle").path
    }

    /// A fresh file store's environment, and the store.
    func store(_ name: String) -> (environment: [String: String], backend: EncryptedFileBackend) {
        let environment = ["KEYCHAIN_FILE_DIR": "\(directory)/\(name)", "KEYCHAIN_FILE_PASSPHRASE": "store-passphrase",
                           "KEYCHAIN_BACKEND": "file", "KEYCHAIN_BUNDLE_KDF": "interactive",
                           "KEYCHAIN_BUNDLE_PASSPHRASE": Self.passphrase]
        return (environment, EncryptedFileBackend(environment: environment))
    }

    func keychain(_ arguments: [String], _ environment: [String: String]) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(cli, arguments, environment: environment, timeout: 120)
    }

    func expectHoldsExactly(_ backend: any KeychainBackend, _ expected: [KeychainItem]) throws {
        let held = try ItemMigration.items(in: backend, scope: .everything)
        #expect(held.count == expected.count)
        for item in expected {
            let copy = try #require(held.first { $0.primaryKey == item.primaryKey }, "\(item) is missing")
            #expect(ItemComparison.differences(between: item, and: copy, includingDates: true).isEmpty,
                    "\(item): \(ItemComparison.differences(between: item, and: copy, includingDates: true))")
        }
    }

    @Test func exportThenImportKeepsEveryAttributeAndWritesNoPlaintext() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (from, source) = store("from")
        for item in Self.items { try source.add(item) }
        let bundle = "\(directory)/out.lkb"
        let export = try keychain(["export", bundle], from)
        try #require(export.status == 0, "\(export.errorText)")
        #expect(export.outputText.contains("exported 3 items"))
        let mode = try FileManager.default.attributesOfItem(atPath: bundle)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bundle))
        #expect(bytes.range(of: Data("wéb".utf8)) == nil && bytes.range(of: Data("bündle".utf8)) == nil)
        if let path = ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_WRITE_BUNDLE_FIXTURE"] {
            try bytes.write(to: URL(fileURLWithPath: path))
        }

        let (to, target) = store("to")
        let imported = try keychain(["import", bundle], to)
        #expect(imported.status == 0 && imported.outputText.contains("3 copied"), "\(imported.errorText)")
        try expectHoldsExactly(target, Self.items)
        let again = try keychain(["import", bundle], to)
        #expect(again.status == 0 && again.outputText.contains("3 already present"), "\(again.errorText)")
    }

    @Test func theVersionOneFixtureStillImportsExactly() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (environment, target) = store("fixture")
        let imported = try keychain(["import", Self.fixture], environment)
        #expect(imported.status == 0, "\(imported.errorText)")
        try expectHoldsExactly(target, Self.items)
    }

    @Test func aDifferentItemInTheStoreIsAConflictUnlessOverwritten() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (environment, target) = store("conflict")
        var different = Self.items[1]
        different.secret = SecretBytes(Data("not empty".utf8))
        try target.add(different)
        let conflict = try keychain(["import", Self.fixture], environment)
        #expect(conflict.status == 4 && conflict.outputText.contains("conflict: generic service 'bündle', account 'empty'"), "\(conflict.errorText)")
        let kept = try target.search(ItemQuery(primaryKey: different.primaryKey, includeSecrets: true))
        #expect(kept.first?.secret?.makeData() == Data("not empty".utf8))
        let overwrite = try keychain(["import", "--overwrite", Self.fixture], environment)
        #expect(overwrite.status == 0, "\(overwrite.errorText)")
        try expectHoldsExactly(target, Self.items)
    }

    /// Each damage, with what the error must say: the bundle is refused whole.
    @Test func aWrongPassphraseATruncatedFileOrAChangedByteImportsNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let original = try Data(contentsOf: URL(fileURLWithPath: Self.fixture))
        func flipped(_ offset: Int) -> Data {
            var copy = original
            copy[offset] ^= 0x01
            return copy
        }
        let cases: [(name: String, bytes: Data, passphrase: String, says: String)] = [
            ("wrong passphrase", original, "not the passphrase", "wrong passphrase"),
            ("cut in the header", original.prefix(40), Self.passphrase, "not a keychain bundle"),
            ("cut mid-item", original.prefix(original.count / 2), Self.passphrase, "truncated"),
            ("end mark cut off", original.prefix(original.count - 33), Self.passphrase, "truncated"),
            ("salt changed", flipped(30), Self.passphrase, "wrong passphrase"),
            ("version changed", flipped(8), Self.passphrase, "format version"),
            ("last item changed", flipped(original.count - 40), Self.passphrase, "damaged"),
            ("end mark changed", flipped(original.count - 3), Self.passphrase, "damaged"),
        ]
        for (index, damage) in cases.enumerated() {
            let path = "\(directory)/damaged-\(index).lkb"
            try damage.bytes.write(to: URL(fileURLWithPath: path))
            var (environment, target) = store("damaged-\(index)")
            environment["KEYCHAIN_BUNDLE_PASSPHRASE"] = damage.passphrase
            let result = try keychain(["import", path], environment)
            #expect(result.status != 0 && result.errorText.contains(damage.says) && result.errorText.contains("nothing was imported"),
                    "\(damage.name): status \(result.status), \(result.errorText)")
            #expect(try ItemMigration.items(in: target, scope: .everything).isEmpty, "\(damage.name) imported items")
        }
    }

    /// On a terminal, export and import redraw a counter on standard error that ends at the
    /// total; `script` gives them one (a pseudo-terminal).
    @Test func exportAndImportShowACounterOnATerminal() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = store("tty-source"), target = store("tty-target")
        for index in 0..<3 {
            try source.backend.add(KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
                .service: .string("on-a-terminal"), .account: .string("account-\(index)"),
            ]), secret: SecretBytes(Data("secret \(index)".utf8))))
        }
        let bundle = "\(directory)/terminal.lkb"
        for (arguments, environment, counter) in [(["export", bundle], source.environment, "linux-keychain: export: 3/3\r\n"),
                                                  (["import", bundle], target.environment, "linux-keychain: import: 3/3\r\n")] {
            let command = ([cli] + arguments).map { "'\($0)'" }.joined(separator: " ")
            let result = try KeychainCLIProcess.run("/usr/bin/script", ["-qefc", command, "/dev/null"], environment: environment, timeout: 120)
            #expect(result.status == 0 && result.outputText.contains("\u{1B}[K" + counter), "\(arguments[0]): \(result.outputText)")
            #expect(!result.outputText.contains("secret "))
        }
        #expect(try target.backend.search(ItemQuery(itemClass: .genericPassword, includeSecrets: true)).count == 3)
    }
}
