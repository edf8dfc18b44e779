import CKeyutils
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// A read of one item's secret by its whole primary key (what `linux-keychain get` and the typed API
/// send) skips the item's entry once this process has confirmed its item key
/// (`ConfirmedItemKeys`): it makes the raw lookup's two kernel calls. These tests hold it to
/// that count, and to the answers a full read gives.
@Suite("kernel keyring reads of a secret alone")
struct SecretOnlyReadTests {
    let kernel = KernelKeys()

    /// The query `linux-keychain get` sends for the secret of `service`/`acct`.
    func secretOnly(_ service: String) -> ItemQuery {
        var query = primaryKeyQuery(service, "acct", secrets: true)
        query.includeAttributes = false
        return query
    }

    /// Runs `body` with a keyring of its own holding the item `purpose`/`acct` with `secret`,
    /// and the secret-only query for it, which has read the item once, so confirming it.
    func withConfirmedItem(_ purpose: String, _ secret: String = "s3cret",
                           _ body: (_ own: (serial: key_serial_t, backend: KernelKeyringBackend), _ item: KeychainItem,
                                    _ query: ItemQuery) throws -> Void) throws {
        let own = try kernel.ownKeyring("secret-only-\(purpose)")
        defer { own.remove() }
        let service = uniqueService(purpose)
        let item = genericItem(service, "acct", Data(secret.utf8), extra: [.label: .string("shown")])
        try own.backend.add(item)
        let query = secretOnly(service)
        #expect(try own.backend.search(query).map { $0.secret?.makeData() } == [Data(secret.utf8)])
        try body((own.serial, own.backend), item, query)
    }

    /// The fewest kernel calls `body` made in three runs: a run that happens to look the target
    /// keyring up again (once a second, `KeyringChoice`) counts more.
    func fewestCalls(_ body: () throws -> Void) rethrows -> Int {
        var fewest = Int.max
        for _ in 0..<3 {
            let before = KernelKeys.callsOnThisThread
            try body()
            fewest = min(fewest, KernelKeys.callsOnThisThread - before)
        }
        return fewest
    }

    @Test func aSecretOnlyReadOfAConfirmedItemMakesTheRawCallsAndAFullReadOneMore() throws {
        try withConfirmedItem("calls") { own, item, query throws in
            // The keyring search by name, and the read of the item key.
            #expect(try fewestCalls { _ = try own.backend.search(query) } == 2)
            // Also the read of the record that holds the item's entry.
            #expect(try fewestCalls { _ = try own.backend.search(ItemQuery(primaryKey: item.primaryKey, includeSecrets: true)) } == 3)
        }
    }

    @Test func aSecretOnlyReadGivesThePrimaryKeyAndTheSecret() throws {
        try withConfirmedItem("answer") { own, item, query throws in
            let found = try own.backend.search(query)
            #expect(found.map(\.primaryKey) == [item.primaryKey])
            #expect(found.first?.secret?.makeData() == Data("s3cret".utf8))
            // A read that asks for attributes still gets them all.
            var withAttributes = query
            withAttributes.includeAttributes = true
            #expect(try own.backend.search(withAttributes).first?.attributes.string(.label) == "shown")
        }
    }

    @Test func aConfirmedItemUpdatedToAnEmptySecretReadsEmptyAndToAZeroByteReadsThatByte() throws {
        try withConfirmedItem("empty") { own, _, query throws in
            for secret in [Data(), Data([0]), Data("again".utf8), Data()] {
                #expect(try own.backend.update(query, with: ItemChanges(secret: SecretBytes(secret))) == 1)
                #expect(try own.backend.search(query).map { $0.secret?.makeData() } == [secret])
            }
        }
    }

    @Test func aConfirmedItemDeletedByAnotherBackendIsNotFound() throws {
        try withConfirmedItem("deleted") { own, _, query throws in
            #expect(try KernelKeyringBackend(testingIn: own.serial).delete(query) == 1)
            #expect(try own.backend.search(query).isEmpty)
        }
    }

    /// Another process's updates landing between a reader's looks at a placeholder (to a
    /// secret, then to an empty one again) never make the reader take the empty secret for a
    /// secret of one zero byte.
    @Test func updatesBetweenTheLooksAtAPlaceholderNeverMakeItAZeroByte() throws {
        try withConfirmedItem("between") { own, _, query throws in
            #expect(try own.backend.update(query, with: ItemChanges(secret: SecretBytes(Data()))) == 1)
            let writer = KernelKeyringBackend(testingIn: own.serial)
            let landed = Locked<[PlaceholderCheckSeam.Point]>([])
            try PlaceholderCheckSeam.acting(in: own.serial, { point in
                let secret = point == .beforeEntry ? Data("x".utf8) : Data()
                if (try? writer.update(query, with: ItemChanges(secret: SecretBytes(secret)))) == 1 {
                    landed.withLock { $0.append(point) }
                }
            }, during: { () throws in
                #expect(try own.backend.search(query).map { $0.secret?.makeData() } == [Data()])
            })
            #expect(landed.withLock { $0 } == [.beforeEntry, .beforeSecondLook], "the updates did not land between the looks")
        }
    }

    /// A key made by hand with the item key's name is no item, also where a confirmed item
    /// of that name was.
    @Test func aKeyMadeByHandInPlaceOfADeletedItemIsNoItem() throws {
        try withConfirmedItem("by-hand") { own, item, query throws in
            #expect(try own.backend.delete(query) == 1)
            let name = try ItemKeyDescription(item.primaryKey).text
            _ = try Data("by hand".utf8).withUnsafeBytes { try kernel.addUserKey(name, payload: $0, to: own.serial) }
            #expect(try own.backend.search(query).isEmpty)
            var withAttributes = query
            withAttributes.includeAttributes = true
            #expect(try own.backend.search(withAttributes).isEmpty)
        }
    }

    /// The item key a secret-only read finds is the one it confirmed: an item added again
    /// under the same name, with a new key, reads its own secret.
    @Test func anItemAddedAgainReadsItsNewSecret() throws {
        try withConfirmedItem("again", "first") { own, item, query throws in
            #expect(try own.backend.delete(query) == 1)
            var again = item
            again.secret = SecretBytes(Data("second".utf8))
            try own.backend.add(again)
            #expect(try own.backend.search(query).map { $0.secret?.makeData() } == [Data("second".utf8)])
        }
    }
}
