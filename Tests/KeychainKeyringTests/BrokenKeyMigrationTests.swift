import CKeyutils
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import Testing

/// Kernel keys broken by hand (revoked, not viewable, attributes that do not decode) in the
/// source of a move: never an item that vanishes while the move says it is complete.
extension BrokenKeyTests {
    /// Two intact items and one crafted in the backend's layout and broken, then the move of
    /// them all into a fresh in-process store, deleting the source.
    func moveWithBrokenKey(_ breakage: String) throws -> (crafted: CraftedItem, outcome: Result<MigrationReport, any Error>) {
        for account in ["one", "two"] {
            try backend.add(genericItem(uniqueService("intact"), account, Data("intact".utf8)))
        }
        let crafted = try craftItem("broken", attributes: breakage == "malformed attributes" ? Data("not json".utf8) : nil)
        switch breakage {
        case "revoked": #expect(keyctl_revoke(crafted.itemKey) == 0)
        case "unreadable": #expect(keyctl_setperm(crafted.itemKey, key_perm_t(KEY_POS_VIEW)) == 0)
        default: break
        }
        var migration = ItemMigration(from: backend, to: MemoryBackend())
        migration.deleteSource = true
        return (crafted, Result { try migration.run() })
    }

    /// A key that cannot even be described cannot be listed, nor named: it is a damaged entry,
    /// by its serial, where a listing alone would leave it out and call the move complete.
    @Test(arguments: [("revoked", "revoked"), ("unreadable", "refused access")])
    func anItemKeyThatCannotBeDescribedIsADamagedEntryOfAMove(_ breakage: String, _ reason: String) throws {
        let (crafted, outcome) = try moveWithBrokenKey(breakage)
        defer { remove(crafted) }
        let report = try outcome.get()
        #expect(report.count("copied") == 2 && report.count("failed") == 1, "\(breakage): \(report.summary)")
        #expect(report.deletedFromSource == 0 && !report.isComplete, "\(breakage): the source was emptied")
        let entry = try #require(report.damaged.first, "\(breakage): \(report.summary)")
        #expect(report.damaged.count == 1 && entry.key == nil && entry.place == "kernel key \(crafted.itemKey)",
                "\(breakage): \(report.damaged.map(\.place))")
        #expect(entry.error.message.contains(reason), "\(breakage): \(entry.error.message)")
    }

    /// Attributes that do not decode end the listing itself: the items are then named by their
    /// keys and read one by one, so the broken one is a failure by name and the others move.
    @Test func malformedAttributesAreAFailedItemOfAMove() throws {
        let (crafted, outcome) = try moveWithBrokenKey("malformed attributes")
        defer { remove(crafted) }
        let report = try outcome.get()
        #expect(report.count("copied") == 2 && report.count("failed") == 1 && report.damaged.isEmpty, "\(report.summary)")
        #expect(report.deletedFromSource == 0 && !report.isComplete, "the source was emptied")
        let failure = try #require(report.failures.first)
        #expect(failure.key.readableName.contains(crafted.service) && failure.error.status == errSecDecode, "\(failure.error.message)")
    }
}
