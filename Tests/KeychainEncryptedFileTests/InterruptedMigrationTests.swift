#if canImport(Glibc)
import Glibc
#endif
import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainKeyring
import KeychainTestSupport
import Testing

/// `kill -9` in the middle of a 2,000-item `linux-keychain migrate` from the kernel keyring to the
/// file store, then the same command again: the source intact, and the target with every item
/// exactly once, as the source holds it.
@Suite("an interrupted migration")
struct InterruptedMigrationTests {
    static let count = 2_000

    @Test func killedMidwayThenRerunCompletesWithNoDuplicates() throws {
        let cli = try builtCLI()
        let directory = scratchPath("lkc-interrupted").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let group = "interrupted-\(UUID().uuidString.prefix(8))"
        let environment = ["KEYCHAIN_FILE_DIR": directory, "KEYCHAIN_FILE_PASSPHRASE": "interrupted-migration",
                           "KEYCHAIN_KEYRING": "session", "KEYCHAIN_BACKEND": ""]
        let source = KernelKeyringBackend(environment: environment)
        defer { _ = try? source.delete(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.accessGroup: .string(group)]))) }
        let started = Date()
        for index in 0..<Self.count {
            try source.add(KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
                .service: .string("interrupted"), .account: .string("account-\(index)"), .accessGroup: .string(group),
                .creationDate: .date(started), .modificationDate: .date(started),
            ]), secret: SecretBytes(Data("secret \(index)".utf8))))
        }

        // Killed once a few hundred items are in: mid-add, mid-verification, wherever it is.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cli)
        process.arguments = ["migrate", "--from", "keyring", "--to", "file", "--group", group]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = Data()
        while seen.split(separator: UInt8(ascii: "\n")).count < 300 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the migration ended before it could be killed")

        let rerun = try KeychainCLIProcess.run(cli, ["migrate", "--from", "keyring", "--to", "file", "--group", group],
                                               environment: environment, timeout: 300)
        #expect(rerun.status == 0, "\(rerun.errorText)")
        let lines = rerun.outputText.split(separator: "\n")
        let present = lines.filter { $0.hasPrefix("already present: ") }.count
        let copied = lines.filter { $0.hasPrefix("copied: ") }.count
        #expect(present >= 250 && present + copied == Self.count, "rerun: \(present) present, \(copied) copied")

        let target = EncryptedFileBackend(environment: environment)
        let query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.accessGroup: .string(group)]), includeSecrets: true)
        let copies = try target.search(query)
        #expect(copies.count == Self.count)
        #expect(Set(copies.map(\.primaryKey)).count == Self.count)
        for copy in copies {
            let account = copy.attributes.string(.account) ?? ""
            #expect(copy.secret?.makeData() == Data("secret \(account.dropFirst("account-".count))".utf8))
        }
        #expect(try source.search(query).count == Self.count, "the source lost items")
        print("interrupted migration of \(Self.count) items: \(String(format: "%.1f", Date().timeIntervalSince(started))) s in all")
    }
}
