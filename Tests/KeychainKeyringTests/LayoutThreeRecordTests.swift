import CKeyutils
import Foundation
import Glibc
import KeychainCore
@testable import KeychainKeyring
import Testing

/// The record that every item of a target has its item key (`LayoutThreeRecord.swift`): written
/// once a listing proved it, after migrating the layout-1 items it found and giving layout-2
/// items with an empty secret a placeholder item key, and from then on the reason a lookup by
/// name that finds no item key looks no further.
///
/// Each test works in a keyring of its own, nested in the default target, whose serial no
/// other test has seen (the process remembers what it learned per serial).
@Suite("kernel keyring record that every item has its item key")
struct LayoutThreeRecordTests {
    let kernel = KernelKeys()

    func recordSerial(in keyring: key_serial_t) -> key_serial_t? {
        try? kernel.search(keyring, type: "user", description: ItemKeyrings.layoutThreeDescription(keyring))
    }

    @Test func aMissInAKeyringWithoutLayoutOneItemsRecordsItAndStopsLookingThere() throws {
        let own = try kernel.ownKeyring("no-layout-one")
        defer { own.remove() }
        let service = uniqueService("gone")
        try own.backend.add(genericItem(service, "kept", Data("kept".utf8)))
        #expect(try own.backend.search(primaryKeyQuery(service, "absent", secrets: false)).isEmpty)
        let record = try #require(recordSerial(in: own.serial), "no record after the keyring was listed")
        #expect(try kernel.contents(of: own.serial).contains(record), "the record is not directly in its keyring")

        // Proof that lookups by name no longer look into layout 1: a layout-1 item made by
        // hand now, as only a version from before layout 2 could, is not found by name...
        let handMade = try kernel.craftItem(uniqueService("hand-made"), in: own.serial, storedIn: own.serial)
        defer { try? kernel.unlink(handMade.keyring, from: own.serial) }
        #expect(try own.backend.search(primaryKeyQuery(handMade.service, "acct", secrets: true)).isEmpty)
        // ...while a listing (a query by service alone reads every item) still shows it.
        let listed = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(handMade.service)]),
                               includeSecrets: true)
        #expect(try own.backend.search(listed).first?.secret?.makeData() == Data("secret".utf8))
        // The item the keyring held before is untouched.
        #expect(try own.backend.search(primaryKeyQuery(service, "kept", secrets: true)).first?.secret?.makeData()
                == Data("kept".utf8))
    }

    @Test func layoutOneItemsAreMigratedBeforeTheRecordIsWritten() throws {
        let own = try kernel.ownKeyring("migrate-all")
        defer { own.remove() }
        let first = try kernel.craftItem(uniqueService("old-one"), in: own.serial, storedIn: own.serial)
        let second = try kernel.craftItem(uniqueService("old-two"), in: own.serial, storedIn: nil)
        defer {
            for service in [first.service, second.service] {
                _ = try? own.backend.delete(exactQuery(service, "acct", secrets: false))
            }
        }
        // A miss of another name lists the keyring, which migrates both.
        #expect(try own.backend.search(primaryKeyQuery(uniqueService("other"), "acct", secrets: false)).isEmpty)
        #expect(recordSerial(in: own.serial) != nil, "no record after every layout-1 item was migrated")
        let contents = try kernel.contents(of: own.serial)
        #expect(!contents.contains(first.keyring) && !contents.contains(second.keyring), "a layout-1 keyring is left")
        for service in [first.service, second.service] {
            let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
            let secretKey = try kernel.search(own.serial, type: "user", description: description.text)
            #expect(try kernel.readSecret(secretKey).makeData() == Data("secret".utf8), "\(service) was not migrated")
            #expect(try own.backend.search(primaryKeyQuery(service, "acct", secrets: true)).first?.secret?.makeData()
                    == Data("secret".utf8))
        }
    }

    @Test func aLayoutTwoItemWithAnEmptySecretGetsAPlaceholderAndThePreviousRecordGoes() throws {
        let own = try kernel.ownKeyring("empty-layout-two")
        defer { own.remove() }
        let service = uniqueService("empty")
        let item = genericItem(service, "acct", Data(), [.label: .string("Empty")])
        let description = try ItemKeyDescription(item.primaryKey)
        let store = ItemKeyrings(kernel: kernel)
        let keys = try store.addLayout2(item, as: description, into: own.serial)
        #expect(keys.secret == nil)
        let previous = try Data("none".utf8).withUnsafeBytes {
            try store.addKey(ItemKeyrings.layoutOneGoneDescription(own.serial), payload: $0, to: own.serial)
        }
        defer { _ = try? own.backend.delete(exactQuery(service, "acct", secrets: false)) }

        #expect(try own.backend.search(primaryKeyQuery(uniqueService("other"), "acct", secrets: false)).isEmpty)
        #expect(recordSerial(in: own.serial) != nil, "no record after the empty layout-2 item got its item key")
        let placeholder = try kernel.search(own.serial, type: "user", description: description.text)
        #expect(try kernel.readSecret(placeholder).makeData() == Data([0]))
        #expect(!(try kernel.contents(of: own.serial)).contains(previous), "the layout-1-gone record is left")
        let found = try #require(try own.backend.search(primaryKeyQuery(service, "acct", secrets: true)).first)
        #expect(found.secret?.isEmpty == true)
        #expect(found.attributes[.label] == .string("Empty"))
        #expect(try own.backend.delete(exactQuery(service, "acct", secrets: false)) == 1)
        #expect((try? kernel.search(own.serial, type: "user", description: description.text)) == nil, "the placeholder is left")
    }

    /// The first lookup of a process may be the one that migrates the item it names.
    @Test func theItemALookupNamesIsFoundWhenThatLookupMigratedIt() throws {
        let own = try kernel.ownKeyring("migrate-named")
        defer { own.remove() }
        let crafted = try kernel.craftItem(uniqueService("named"), in: own.serial, storedIn: own.serial)
        defer { _ = try? own.backend.delete(exactQuery(crafted.service, "acct", secrets: false)) }
        #expect(try own.backend.search(primaryKeyQuery(crafted.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("secret".utf8))
        #expect(recordSerial(in: own.serial) != nil)
    }

    @Test func aLayoutOneItemThatCannotBeMigratedKeepsTheLookupsGoing() throws {
        let own = try kernel.ownKeyring("stuck")
        defer { own.remove() }
        let crafted = try kernel.craftItem(uniqueService("revoked"), in: own.serial, storedIn: own.serial)
        defer { try? kernel.unlink(crafted.keyring, from: own.serial) }
        #expect(keyctl_revoke(crafted.secretKey) == 0)
        #expect(try own.backend.search(primaryKeyQuery(uniqueService("other"), "acct", secrets: false)).isEmpty)
        #expect(recordSerial(in: own.serial) == nil, "the record was written while a layout-1 item is left")
        // Still found by name, and still reported as what it is.
        expectKeychainError(errSecDataNotAvailable) {
            try own.backend.search(primaryKeyQuery(crafted.service, "acct", secrets: true))
        }
    }
}
