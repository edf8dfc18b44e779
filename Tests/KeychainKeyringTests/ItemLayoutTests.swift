import CKeyutils
import Foundation
import Glibc
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Synchronization
import Testing

/// An item's keys (`ItemLookup`, `ItemWriter`): what they look like to the kernel and what a
/// read makes of keys changed by hand.
@Suite("kernel keyring item layout")
struct ItemLayoutTests {
    let backend = KernelKeyringBackend(keyring: nil)
    let kernel = KernelKeys()

    /// Sync tests stay on one thread, which possesses the target once `resolve` linked it.
    func target() throws -> key_serial_t { try kernel.resolve(nil).serial }

    struct Stored {
        let service: String
        let itemKey: key_serial_t
    }

    /// An item added through the backend.
    func addItem(_ purpose: String, secret: String = "secret") throws -> Stored {
        let service = uniqueService(purpose)
        try backend.add(genericItem(service, "acct", Data(secret.utf8)))
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        return Stored(service: service, itemKey: try kernel.search(try target(), type: "user", description: description.text))
    }

    func remove(_ stored: Stored) {
        _ = try? backend.delete(exactQuery(stored.service, "acct", secrets: false))
        let target = try? target()
        _ = target.map { keyctl_unlink(stored.itemKey, $0) }
    }

    @Test func anAddedItemIsOneKeyHoldingExactlyTheSecret() throws {
        let stored = try addItem("one-key", secret: "exactly this")
        defer { remove(stored) }
        let target = try target()
        let description = try ItemKeyDescription(genericItem(stored.service, "acct", Data()).primaryKey)
        #expect(try kernel.readSecret(stored.itemKey).makeData() == Data("exactly this".utf8))
        #expect((try? kernel.search(target, type: "user", description: AttributesKey.description(of: description))) == nil,
                "a small item got an attributes key")
        #expect(try ItemRecords(kernel: kernel).entry(named: description, in: target)?.itemKey == stored.itemKey)
    }

    @Test func largeAttributesGoToAnAttributesKeyAndReadBack() throws {
        let service = uniqueService("large")
        let comment = String(repeating: "c", count: 3000)
        try backend.add(genericItem(service, "acct", Data("s".utf8), extra: [.comment: .string(comment)]))
        defer { _ = try? backend.delete(exactQuery(service, "acct", secrets: false)) }
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        let target = try target()
        #expect((try? kernel.search(target, type: "user", description: AttributesKey.description(of: description))) != nil)
        let found = try #require(try backend.search(exactQuery(service, "acct", secrets: true)).first)
        #expect(found.attributes[.comment] == .string(comment))
        #expect(found.secret?.makeData() == Data("s".utf8))
        var all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                            limit: .all, includeSecrets: false)
        #expect(try backend.search(all).map { $0.attributes[.comment] } == [.string(comment)], "listed once, with its comment")
        // Shrinking the attributes brings them back into the entry.
        #expect(try backend.update(exactQuery(service, "acct", secrets: false),
                                   with: ItemChanges(attributes: ItemAttributes([.comment: .string("short")]))) == 1)
        #expect((try? kernel.search(target, type: "user", description: AttributesKey.description(of: description))) == nil)
        all.includeSecrets = true
        #expect(try backend.search(all).map { $0.attributes[.comment] } == [.string("short")])
        #expect(try backend.delete(exactQuery(service, "acct", secrets: false)) == 1)
        #expect((try? kernel.search(target, type: "user", description: description.text)) == nil)
    }

    @Test func anItemKeyReplacedByHandIsReadByName() throws {
        let stored = try addItem("replaced")
        defer { remove(stored) }
        let target = try target()
        let description = try ItemKeyDescription(genericItem(stored.service, "acct", Data()).primaryKey)
        #expect(keyctl_unlink(stored.itemKey, target) == 0)
        let replacement = try Data("by hand".utf8).withUnsafeBytes {
            try kernel.addUserKey(description.text, payload: $0, to: target)
        }
        defer { _ = keyctl_unlink(replacement, target) }
        #expect(try backend.search(exactQuery(stored.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("by hand".utf8))
    }

    @Test func anItemKeyUpdatedByHandIsWhatIsRead() throws {
        let stored = try addItem("updated")
        defer { remove(stored) }
        try Data("keyctl update".utf8).withUnsafeBytes { try kernel.update(stored.itemKey, payload: $0) }
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("keyctl update".utf8))
    }

    @Test func anItemKeyUnlinkedByHandIsADeletedItemAndItsNameCanBeUsedAgain() throws {
        let stored = try addItem("unlinked")
        defer { remove(stored) }
        #expect(keyctl_unlink(stored.itemKey, try target()) == 0)
        // Its entry is left over, and is no item.
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true)).isEmpty)
        try backend.add(genericItem(stored.service, "acct", Data("again".utf8)))
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("again".utf8))
    }

    @Test func aKeyMadeByHandIsNoItemAndAnAddReplacesIt() throws {
        let service = uniqueService("by-hand")
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        let target = try target()
        let byHand = try Data("by hand".utf8).withUnsafeBytes { try kernel.addUserKey(description.text, payload: $0, to: target) }
        defer { _ = keyctl_unlink(byHand, target) }
        #expect(try backend.search(primaryKeyQuery(service, "acct", secrets: true)).isEmpty)
        try backend.add(genericItem(service, "acct", Data("added".utf8)))
        defer { _ = try? backend.delete(exactQuery(service, "acct", secrets: false)) }
        #expect(try backend.search(primaryKeyQuery(service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("added".utf8))
        #expect(!(try kernel.contents(of: target)).contains(byHand), "the key made by hand was not replaced")
    }

    /// `keyctl revoke` of an item key (its possessor may: the key grants write) makes the
    /// secret unavailable, not missing; the item is still listed and can be deleted, and its
    /// name used again.
    @Test func aRevokedItemKeyIsNotAvailableAndCanBeDeleted() throws {
        let stored = try addItem("revoked")
        defer { remove(stored) }
        #expect(keyctl_revoke(stored.itemKey) == 0)
        let error = expectKeychainError(errSecDataNotAvailable) {
            try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true))
        }
        #expect(error?.message.contains("revoked") == true)
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: false)).count == 1)
        #expect(try backend.delete(primaryKeyQuery(stored.service, "acct", secrets: false)) == 1)
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: false)).isEmpty)
        try backend.add(genericItem(stored.service, "acct", Data("again".utf8)))
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("again".utf8))
    }

    @Test func malformedAttributesInAnAttributesKeyAreADecodeError() throws {
        // In a keyring of its own: a listing of the shared target by a test running meanwhile
        // (the CLI's `list`) would rightly fail on the broken item.
        let parent = try target()
        let ownKeyring = try kernel.addKeyring(uniqueService("malformed-store"), to: parent)
        defer { try? kernel.unlink(ownKeyring, from: parent) }
        let backend = KernelKeyringBackend(testingIn: ownKeyring)
        let service = uniqueService("malformed")
        try backend.add(genericItem(service, "acct", Data("s".utf8), extra: [.comment: .string(String(repeating: "c", count: 3000))]))
        defer { _ = try? backend.delete(exactQuery(service, "acct", secrets: false)) }
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        let attributesKey = try kernel.search(ownKeyring, type: "user", description: AttributesKey.description(of: description))
        try Data("not json".utf8).withUnsafeBytes { try kernel.update(attributesKey, payload: $0) }
        expectKeychainError(errSecDecode) {
            try backend.search(primaryKeyQuery(service, "acct", secrets: false))
        }
    }

    @Test func anUpdateKeepsTheItemKeyAndTheCreationDate() throws {
        let stored = try addItem("in-place")
        defer { remove(stored) }
        let before = try #require(try backend.search(exactQuery(stored.service, "acct", secrets: false)).first)
        #expect(try backend.update(exactQuery(stored.service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data("second".utf8)))) == 1)
        #expect(try kernel.contents(of: try target()).contains(stored.itemKey),
                "the update replaced the item key instead of rewriting it")
        let after = try #require(try backend.search(exactQuery(stored.service, "acct", secrets: true)).first)
        #expect(after.secret?.makeData() == Data("second".utf8))
        #expect(after.attributes[.creationDate] == before.attributes[.creationDate])
    }

    @Test func anEmptySecretIsAPlaceholderByteAndCanBeFilledLater() throws {
        let service = uniqueService("empty")
        try backend.add(genericItem(service, "acct", Data()))
        defer { _ = try? backend.delete(exactQuery(service, "acct", secrets: false)) }
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        let key = try kernel.search(try target(), type: "user", description: description.text)
        #expect(try kernel.readSecret(key).makeData() == Data([0]))
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.isEmpty == true)
        #expect(try backend.update(exactQuery(service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data("now".utf8)))) == 1)
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.makeData() == Data("now".utf8))
        #expect(try backend.update(exactQuery(service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data()))) == 1)
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.isEmpty == true)
        // A real one-byte zero secret is not an empty one.
        #expect(try backend.update(exactQuery(service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data([0])))) == 1)
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.makeData() == Data([0]))
    }
}
