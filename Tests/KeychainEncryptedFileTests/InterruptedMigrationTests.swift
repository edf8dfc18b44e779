#if canImport(Glibc)
import Glibc
#endif
import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainKeyring
import KeychainSecretService
import KeychainTestSupport
import KeychainVault
import Testing

/// `kill -9` in the middle of a 2,000-item `linux-keychain migrate`, then the same command again:
/// the source intact, and the target with every item exactly once, as the source holds it. Run
/// from the kernel keyring to the file store, from the file store to Vault and to the Secret
/// Service (gnome-keyring's `session` collection; KeePassXC's and KWallet's scratch `default`), and from
/// Vault and the Secret Service; and killed while `--delete-source` empties the source, when
/// every item must be in the target or still in the source, and the rerun finishes the job.
@Suite("an interrupted migration", .serialized)
struct InterruptedMigrationTests {
    static let count = 2_000
    /// Set for the run of the pair into the Secret Service, which runs alone.
    static let aloneVariable = "LINUX_KEYCHAIN_TEST_MIGRATION_INTO_SECRET_SERVICE"

    /// The test's own stores: a fresh file directory, Vault prefix and access group.
    struct Stores {
        let group = "interrupted-\(UUID().uuidString.prefix(8).lowercased())"
        let directory = scratchPath("lkc-interrupted").path
        var environment: [String: String] {
            return ["KEYCHAIN_FILE_DIR": directory, "KEYCHAIN_FILE_PASSPHRASE": "interrupted-migration", "KEYCHAIN_KEYRING": "session",
                    "KEYCHAIN_VAULT_PREFIX": "\(group)/", "KEYCHAIN_SECRET_SERVICE_COLLECTION": scratchSecretServiceCollection,
                    // Reading every secret back from the Secret Service is one call, longer than its default timeout.
                    "KEYCHAIN_SECRET_SERVICE_TIMEOUT": "120", "KEYCHAIN_BACKEND": ""]
        }

        func backend(_ name: String) -> any KeychainBackend {
            let all = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            switch name {
            case "keyring": return KernelKeyringBackend(environment: all)
            case "file": return EncryptedFileBackend(environment: all)
            case "vault": return VaultBackend(environment: all)
            default: return SecretServiceBackend(settings: SecretServiceSettings(environment: all))
            }
        }

        var ownItems: ItemQuery {
            ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.accessGroup: .string(group)]), includeSecrets: true)
        }
    }

    /// Where the move is killed: among the copies, or once every item is verified in the
    /// target and `--delete-source` is deleting them from the source.
    enum KillPoint: String, CustomStringConvertible, Sendable {
        case copying, deletingSource
        var description: String { rawValue }
    }

    @Test(arguments: [("keyring", "file", KillPoint.copying), ("file", "vault", .copying), ("file", "secret-service", .copying),
                      ("vault", "keyring", .copying), ("secret-service", "file", .copying),
                      ("file", "vault", .deletingSource), ("vault", "keyring", .deletingSource)])
    func killedMidwayThenRerunCompletesWithNoDuplicates(from sourceName: String, to targetName: String, killed: KillPoint) throws {
        // Reading 2,000 secrets from or back into the Secret Service is one call of many
        // seconds, which holds the provider past the 5 s timeout of every other test's call:
        // those pairs run by themselves.
        let alone = ProcessInfo.processInfo.environment[Self.aloneVariable] == "1"
        if alone != (targetName == "secret-service" || sourceName == "secret-service") {
            try Test.cancel(alone ? "runs in the main run" : "floods the provider: run alone with \(Self.aloneVariable)=1 (scripts/test.sh does)")
        }
        let cli = try builtCLI()
        let stores = Stores()
        let environment = stores.environment
        defer { try? FileManager.default.removeItem(atPath: stores.directory) }
        let source = stores.backend(sourceName), target = stores.backend(targetName)
        defer { for store in [source, target] { _ = try? store.delete(ItemQuery(itemClass: .genericPassword, constraints: stores.ownItems.constraints)) } }
        let started = Date()
        for index in 0..<Self.count {
            try source.add(KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
                .service: .string("interrupted"), .account: .string("account-\(index)"), .accessGroup: .string(stores.group),
                .creationDate: .date(started), .modificationDate: .date(started),
            ]), secret: SecretBytes(Data("secret \(index)".utf8))))
        }
        let deleting = killed == .deletingSource
        let arguments = ["migrate", "--from", sourceName, "--to", targetName, "--group", stores.group] + (deleting ? ["--delete-source"] : [])
        var namesOnly = stores.ownItems
        namesOnly.includeSecrets = false

        // Killed once a few hundred items are in (mid-add, mid-verification, wherever it is),
        // or once every item's line is out and the source has begun to lose items.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cli)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = Data()
        while seen.split(separator: UInt8(ascii: "\n")).count < (deleting ? Self.count : 300) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        while deleting && process.isRunning, try source.search(namesOnly).count == Self.count {
            usleep(5_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the migration ended before it could be killed")

        // Every item is whole in the target or still in the source (or both).
        func secretOf(_ item: KeychainItem) -> Data { Data("secret \((item.attributes.string(.account) ?? "").dropFirst("account-".count))".utf8) }
        let keptAtKill = try source.search(stores.ownItems), copiedAtKill = try target.search(stores.ownItems)
        #expect(copiedAtKill.allSatisfy { $0.secret?.makeData() == secretOf($0) }, "the target holds a partial item")
        #expect(keptAtKill.allSatisfy { $0.secret?.makeData() == secretOf($0) }, "the source holds a changed item")
        let accounts = Set((keptAtKill + copiedAtKill).compactMap { $0.attributes.string(.account) })
        #expect(accounts.count == Self.count, "after the kill, \(Self.count - accounts.count) items are in neither store")
        if deleting { #expect(keptAtKill.count < Self.count && copiedAtKill.count == Self.count, "killed outside the deletion: \(keptAtKill.count) in the source") }

        let rerun = try KeychainCLIProcess.run(cli, arguments, environment: environment, timeout: 600)
        #expect(rerun.status == 0, "\(rerun.errorText)")
        let lines = rerun.outputText.split(separator: "\n")
        let present = lines.filter { $0.hasPrefix("already present: ") }.count
        let copied = lines.filter { $0.hasPrefix("copied: ") }.count
        #expect(present >= (deleting ? 0 : 250) && present + copied == keptAtKill.count, "rerun: \(present) present, \(copied) copied")

        let copies = try target.search(stores.ownItems)
        #expect(copies.count == Self.count)
        #expect(Set(copies.map(\.primaryKey)).count == Self.count)
        #expect(copies.allSatisfy { $0.secret?.makeData() == secretOf($0) })
        let kept = try source.search(stores.ownItems)
        if deleting {
            #expect(kept.isEmpty, "the rerun left \(kept.count) items in the source")
        } else {
            #expect(kept.count == Self.count, "the source lost items")
            #expect(kept.allSatisfy { $0.secret?.makeData() == secretOf($0) })
        }
        print("interrupted migration \(sourceName) → \(targetName) (killed \(killed)) of \(Self.count) items: \(String(format: "%.1f", Date().timeIntervalSince(started))) s in all")
    }
}
