import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainKeyring
import Testing

/// A file store with one item file damaged, as the source of a move: the damaged entry is one
/// failed entry, named by its path in the store (its primary key cannot be trusted); every other
/// item moves, nothing is deleted from the source, and `migrate` and `export` exit non-zero.
@Suite("a damaged entry in the source of a move")
struct DamagedEntryMigrationTests {
    static let secrets = [Data("first secret".utf8), Data((0..<200).map { UInt8($0) }), Data(), Data("vierte ß".utf8), Data("fifth".utf8)]

    /// Flips a byte in the middle of the store's first item file; returns that file's path.
    static func damageOneFile(of store: TemporaryStore, in directory: String? = nil) throws -> String {
        let file = try #require(store.itemFiles(in: directory).first)
        var bytes = try store.contents(file, in: directory)
        bytes[bytes.count / 2] ^= 0x40
        try store.replace(file, with: bytes, in: directory)
        return file
    }

    static func item(_ index: Int, service: String) -> KeychainItem {
        KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string(service), .account: .string("account-\(index)"), .label: .string("label \(index)"),
        ]), secret: SecretBytes(secrets[index]))
    }

    @Test func theOtherItemsMoveAndTheDamagedOneIsAFailureNamedByItsPath() throws {
        let store = try TemporaryStore()
        let source = store.backend()
        for index in Self.secrets.indices { try source.add(Self.item(index, service: "damaged")) }
        let damaged = try Self.damageOneFile(of: store)
        #expect(throws: KeychainError.self) { try everyItem(source) }

        let target = store.backend(directory: store.root + "/target")
        var migration = ItemMigration(from: source, to: target)
        migration.deleteSource = true
        var steps: [MigrationProgress] = []
        let report = try migration.run { steps.append($0) }

        #expect(report.count("copied") == Self.secrets.count - 1 && report.count("failed") == 1, "\(report.summary)")
        #expect(report.summary == "\(Self.secrets.count - 1) copied, 1 failed")
        #expect(!report.isComplete && report.deletedFromSource == 0)
        let entry = try #require(report.damaged.first)
        #expect(report.damaged.count == 1 && entry.key == nil && entry.place == damaged, "\(report.damaged.map(\.place))")
        #expect(entry.error.status == errSecDecode && entry.error.message.contains("is damaged or was altered"), "\(entry.error.message)")
        #expect(steps.count == Self.secrets.count && steps.last?.key == nil && steps.last?.place == damaged)
        #expect(steps.map(\.position) == Array(1...Self.secrets.count) && steps.allSatisfy { $0.total == Self.secrets.count })

        let copies = try everyItem(target)
        #expect(copies.count == Self.secrets.count - 1)
        for copy in copies {
            let index = try #require(Int(copy.attributes.string(.account)?.dropFirst("account-".count) ?? ""))
            #expect(copy.secret?.makeData() == Self.secrets[index] && copy.attributes.string(.label) == "label \(index)")
        }
        // The source keeps every file, the damaged one included: nothing was deleted.
        #expect(store.itemFiles().count == Self.secrets.count)

        // The typed API's bulk read still refuses the damaged store rather than answer short.
        #expect(throws: KeychainError.self) { try ItemMigration.items(in: source, scope: .everything) }
        // A rerun moves nothing more and reports the same entry.
        let rerun = try migration.run()
        #expect(rerun.summary == "\(Self.secrets.count - 1) already present, 1 failed" && rerun.damaged.first?.place == damaged)
    }

    @Test func migrateAndExportThroughTheCLIListTheDamagedEntryAndExitNonZero() throws {
        let cli = try CLIStore()
        let service = "damaged-\(UUID().uuidString.prefix(8))"
        for (index, secret) in Self.secrets.enumerated() { try cli.set(service, "account-\(index)", secret) }
        let damaged = try Self.damageOneFile(of: cli.store)
        let keyring = KernelKeyringBackend(environment: ["KEYCHAIN_KEYRING": "session"])
        defer { _ = try? keyring.delete(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]))) }

        // A home of its own, so that a placement that wrongly followed would touch nothing real.
        let home = ["KEYCHAIN_KEYRING": "session", "XDG_CONFIG_HOME": cli.store.root + "/config", "XDG_STATE_HOME": cli.store.root + "/state"]
        let move = try cli.run(["migrate", "--to", "keyring", "--delete-source"], changing: home)
        #expect(move.status != 0 && move.status != 4, "exit \(move.status): \(move.errorText)")
        #expect(move.outputText.contains("failed: damaged entry '\(damaged)' (file: it could not be read from 'file': The keychain file "),
                "\(move.outputText)")
        #expect(move.outputText.contains("\(Self.secrets.count - 1) copied, 1 failed"), "\(move.outputText)")
        #expect(move.errorText.contains("nothing was deleted from the source and the placement did not move"), "\(move.errorText)")
        for secret in ["first secret", "vierte", "fifth"] { #expect(!(move.outputText + move.errorText).contains(secret), "a secret was printed") }
        let moved = try keyring.search(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                                 includeSecrets: true, includesOtherProgramsItems: true))
        #expect(moved.count == Self.secrets.count - 1)
        #expect(cli.store.itemFiles().count == Self.secrets.count, "the source lost files")
        #expect(!FileManager.default.fileExists(atPath: cli.store.root + "/config/linux-keychain/config"), "the placement moved")

        // The bundle holds the items that could be read; the damaged entry is named; exit non-zero.
        let bundle = cli.store.root + "/all.lkb"
        let bundleEnvironment = ["KEYCHAIN_BUNDLE_PASSPHRASE": "damaged", "KEYCHAIN_BUNDLE_KDF": "interactive"]
        let export = try cli.run(["export", bundle], changing: bundleEnvironment)
        #expect(export.status != 0, "exit 0: \(export.outputText)")
        #expect(export.outputText.contains("exported \(Self.secrets.count - 1) items from 'file'"), "\(export.outputText)")
        #expect(export.errorText.contains("unreadable: damaged entry '\(damaged)'"), "\(export.errorText)")
        var elsewhere = bundleEnvironment
        elsewhere["KEYCHAIN_FILE_DIR"] = cli.store.root + "/elsewhere"
        let imported = try cli.run(["import", bundle], changing: elsewhere)
        #expect(imported.status == 0 && imported.outputText.contains("\(Self.secrets.count - 1) copied"), "\(imported.errorText)")
    }
}
