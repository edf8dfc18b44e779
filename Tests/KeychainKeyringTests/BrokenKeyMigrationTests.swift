import CKeyutils
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// Kernel keys broken by hand (revoked, expired, not readable, attributes that do not decode)
/// in the source of a move: each is a failed entry of the report, never an item that vanishes,
/// and the intact items move all the same.
@Suite("kernel keyring: broken keys in the source of a move", .serialized)
struct BrokenKeyMigrationTests {
    let kernel = KernelKeys()
    let ownKeyring: key_serial_t
    let parent: key_serial_t
    let backend: KernelKeyringBackend

    init() throws {
        parent = try kernel.resolve(nil).serial
        ownKeyring = try kernel.addKeyring(uniqueService("broken-move-store"), to: parent)
        backend = KernelKeyringBackend(testingIn: ownKeyring)
    }

    /// Moves the keyring's items into a fresh in-process store; returns its report.
    func move(expectingFailures failures: Int, _ what: String) throws -> MigrationReport {
        var migration = ItemMigration(from: backend, to: MemoryBackend())
        migration.deleteSource = true
        let report = try migration.run()
        #expect(report.count("copied") == 2, "\(what): \(report.summary)")
        #expect(report.count("failed") == failures, "\(what): \(report.summary)")
        #expect(report.deletedFromSource == 0 && !report.isComplete, "\(what): the source was emptied")
        return report
    }

    @Test(arguments: ["revoked", "unreadable", "malformed attributes"])
    func aBrokenItemKeyIsAFailedEntryAndTheOthersMove(_ breakage: String) throws {
        _ = try kernel.resolve(nil)
        defer { try? kernel.unlink(ownKeyring, from: parent) }
        for account in ["one", "two"] {
            try backend.add(genericItem(uniqueService("intact"), account, Data("intact".utf8)))
        }
        let crafted = try kernel.craftItem(uniqueService("broken"), in: ownKeyring,
                                           attributes: breakage == "malformed attributes" ? Data("not json".utf8) : nil)
        switch breakage {
        case "revoked": #expect(keyctl_revoke(crafted.itemKey) == 0)
        case "unreadable": #expect(keyctl_setperm(crafted.itemKey, key_perm_t(KEY_POS_VIEW)) == 0)
        default: break
        }
        let report = try move(expectingFailures: 1, breakage)
        let named = report.failures.map { $0.key.readableName } + report.damaged.compactMap(\.place)
        #expect(named.count == 1, "\(breakage): \(named)")
        if let failure = report.failures.first {
            #expect(failure.key.readableName.contains(crafted.service), "\(breakage): \(failure.key.readableName)")
        }
    }
}
