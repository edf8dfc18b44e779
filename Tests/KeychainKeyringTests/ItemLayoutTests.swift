import CKeyutils
import Foundation
import Glibc
import KeychainCore
@testable import KeychainKeyring
import Synchronization
import Testing

/// Layout 3 (`LayoutThreeItems`): what its keys look like to the kernel and what a read makes
/// of keys changed by hand; and items written in layouts 1 and 2 by earlier versions, which
/// are read, and rewritten in layout 3.
@Suite("kernel keyring layout 3 and the items of layouts 1 and 2")
struct ItemLayoutTests {
    let backend = KernelKeyringBackend(keyring: nil)
    let kernel = KernelKeys()

    /// Sync tests stay on one thread, which possesses the target once `resolve` linked it.
    func target() throws -> key_serial_t { try kernel.resolve(nil).serial }

    struct Stored {
        let service: String
        /// The item key (layout 3), or the secret key (layout 2).
        let secretKey: key_serial_t
        /// Layout 2 only.
        let attributesKey: key_serial_t?
    }

    /// An item added through the backend, in layout 3.
    func addItem(_ purpose: String, secret: String = "secret") throws -> Stored {
        let service = uniqueService(purpose)
        try backend.add(genericItem(service, "acct", Data(secret.utf8)))
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        return Stored(service: service, secretKey: try kernel.search(try target(), type: "user", description: description.text),
                      attributesKey: nil)
    }

    /// An item written in layout 2, as the previous version wrote it.
    func addLayoutTwoItem(_ purpose: String, secret: String = "secret",
                          _ extra: [AttributeKey: AttributeValue] = [:]) throws -> Stored {
        let service = uniqueService(purpose)
        let created = Date(timeIntervalSince1970: 1_700_000_000.25)
        var values = extra
        values[.creationDate] = values[.creationDate] ?? .date(created)
        let item = genericItem(service, "acct", Data(secret.utf8), values)
        let target = try target()
        let keys = try ItemKeyrings(kernel: kernel).addLayout2(item, as: try ItemKeyDescription(item.primaryKey), into: target)
        return Stored(service: service, secretKey: try #require(keys.secret), attributesKey: keys.attributes)
    }

    func remove(_ stored: Stored) {
        _ = try? backend.delete(exactQuery(stored.service, "acct", secrets: false))
        let target = try? target()
        for key in [stored.secretKey, stored.attributesKey].compactMap({ $0 }) { _ = target.map { keyctl_unlink(key, $0) } }
    }

    @Test func anAddedItemIsOneKeyHoldingExactlyTheSecret() throws {
        let stored = try addItem("one-key", secret: "exactly this")
        defer { remove(stored) }
        let target = try target()
        let description = try ItemKeyDescription(genericItem(stored.service, "acct", Data()).primaryKey)
        #expect(try kernel.readSecret(stored.secretKey).makeData() == Data("exactly this".utf8))
        #expect((try? kernel.search(target, type: "user", description: ItemKeyrings.attributesDescription(description))) == nil,
                "a small item got an attributes key")
        #expect(try ItemKeyrings(kernel: kernel).recordEntry(named: description, in: target)?.itemKey == stored.secretKey)
    }

    @Test func largeAttributesGoToAnAttributesKeyAndReadBack() throws {
        let service = uniqueService("large")
        let comment = String(repeating: "c", count: 3000)
        try backend.add(genericItem(service, "acct", Data("s".utf8), [.comment: .string(comment)]))
        defer { _ = try? backend.delete(exactQuery(service, "acct", secrets: false)) }
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        let target = try target()
        #expect((try? kernel.search(target, type: "user", description: ItemKeyrings.attributesDescription(description))) != nil)
        let found = try #require(try backend.search(exactQuery(service, "acct", secrets: true)).first)
        #expect(found.attributes[.comment] == .string(comment))
        #expect(found.secret?.makeData() == Data("s".utf8))
        var all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                            limit: .all, includeSecrets: false)
        #expect(try backend.search(all).map { $0.attributes[.comment] } == [.string(comment)], "listed once, with its comment")
        // Shrinking the attributes brings them back into the entry.
        #expect(try backend.update(exactQuery(service, "acct", secrets: false),
                                   with: ItemChanges(attributes: ItemAttributes([.comment: .string("short")]))) == 1)
        #expect((try? kernel.search(target, type: "user", description: ItemKeyrings.attributesDescription(description))) == nil)
        all.includeSecrets = true
        #expect(try backend.search(all).map { $0.attributes[.comment] } == [.string("short")])
        #expect(try backend.delete(exactQuery(service, "acct", secrets: false)) == 1)
        #expect((try? kernel.search(target, type: "user", description: description.text)) == nil)
    }

    @Test func aLayoutTwoItemIsReadAndRewrittenInLayoutThreeByItsFirstUpdate() throws {
        let stored = try addLayoutTwoItem("layout-two", secret: "old", [.label: .string("Label")])
        defer { remove(stored) }
        let before = try #require(try backend.search(exactQuery(stored.service, "acct", secrets: true)).first)
        #expect(before.secret?.makeData() == Data("old".utf8))
        #expect(before.attributes[.label] == .string("Label"))
        #expect(try backend.update(exactQuery(stored.service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data("new".utf8)))) == 1)
        let target = try target()
        let contents = try kernel.contents(of: target)
        #expect(contents.contains(stored.secretKey), "the secret key did not become the item key")
        let attributesKey = try #require(stored.attributesKey)
        #expect(!contents.contains(attributesKey), "the attributes key is left")
        let after = try #require(try backend.search(exactQuery(stored.service, "acct", secrets: true)).first)
        #expect(after.secret?.makeData() == Data("new".utf8))
        #expect(after.attributes[.label] == .string("Label"))
        #expect(after.attributes[.creationDate] == before.attributes[.creationDate])
        #expect(try backend.delete(exactQuery(stored.service, "acct", secrets: false)) == 1)
        #expect(!(try kernel.contents(of: target)).contains(stored.secretKey))
    }

    @Test func aLayoutTwoItemIsDeletedWhole() throws {
        let stored = try addLayoutTwoItem("layout-two-delete")
        defer { remove(stored) }
        #expect(try backend.delete(exactQuery(stored.service, "acct", secrets: false)) == 1)
        let contents = try kernel.contents(of: try target())
        let attributesKey = try #require(stored.attributesKey)
        #expect(!contents.contains(stored.secretKey) && !contents.contains(attributesKey))
    }

    @Test func anItemWrittenInLayoutOneIsReadWithItsAttributesAndMigratedOnFirstTouch() throws {
        // In a keyring of its own: the default target has long proved it holds no layout-1 item
        // (`LayoutThreeRecord.swift`), and no longer looks names up in layout 1.
        let parent = try target()
        let target = try kernel.addKeyring(uniqueService("layout-one-store"), to: parent)
        defer { try? kernel.unlink(target, from: parent) }
        let backend = KernelKeyringBackend(testingIn: target)
        let service = uniqueService("migrate")
        // Written as layout 1 wrote it: an item keyring holding the secret key and format 1.
        let created = Date(timeIntervalSince1970: 1_700_000_000.25), modified = Date(timeIntervalSince1970: 1_700_000_100.5)
        let old = genericItem(service, "acct", Data("old secret".utf8),
                              [.label: .string("Old label"), .creationDate: .date(created), .modificationDate: .date(modified)])
        let payload = StoredAttributes(old, storedIn: target).encoded()
        let crafted = try kernel.craftItem(service, in: target, attributes: payload, storedIn: target)
        defer {
            try? kernel.unlink(crafted.keyring, from: target)
            _ = try? backend.delete(exactQuery(service, "acct", secrets: false))
        }

        let found = try #require(try backend.search(primaryKeyQuery(service, "acct", secrets: true)).first)
        // The crafted keyring's secret is "secret" (`craftItem`); the attributes are the old ones.
        #expect(found.secret?.makeData() == Data("secret".utf8))
        #expect(found.attributes[.label] == .string("Old label"))
        #expect(found.attributes[.creationDate] == .date(created))
        #expect(found.attributes[.modificationDate] == .date(modified))

        let description = try ItemKeyDescription(old.primaryKey)
        #expect(!(try kernel.contents(of: target)).contains(crafted.keyring), "the layout-1 keyring is still linked")
        let secretKey = try kernel.search(target, type: "user", description: description.text)
        #expect(try kernel.contents(of: target).contains(secretKey), "the secret key is not directly in the target")
        #expect(try kernel.readSecret(secretKey).makeData() == Data("secret".utf8), "keyctl pipe would not print the secret")
        let again = try #require(try backend.search(exactQuery(service, "acct", secrets: false)).first)
        #expect(again.attributes == found.attributes)
    }

    @Test(arguments: [false, true])
    func aSecretKeyReplacedByHandIsReadByName(layoutTwo: Bool) throws {
        let stored = try layoutTwo ? addLayoutTwoItem("replaced") : addItem("replaced")
        defer { remove(stored) }
        let target = try target()
        let description = try ItemKeyDescription(genericItem(stored.service, "acct", Data()).primaryKey)
        #expect(keyctl_unlink(stored.secretKey, target) == 0)
        let replacement = try Data("by hand".utf8).withUnsafeBytes {
            try kernel.addUserKey(description.text, payload: $0, to: target)
        }
        defer { _ = keyctl_unlink(replacement, target) }
        #expect(try backend.search(exactQuery(stored.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("by hand".utf8))
    }

    @Test(arguments: [false, true])
    func aSecretKeyUpdatedByHandIsWhatIsRead(layoutTwo: Bool) throws {
        let stored = try layoutTwo ? addLayoutTwoItem("updated") : addItem("updated")
        defer { remove(stored) }
        try Data("keyctl update".utf8).withUnsafeBytes { try kernel.update(stored.secretKey, payload: $0) }
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("keyctl update".utf8))
    }

    /// A layout-2 item that lost its secret key (by hand, or an earlier version's add that
    /// died between its two moves) is broken, not an item with an empty secret, and it keeps
    /// its keyring from being recorded as having every item key.
    @Test func aLayoutTwoItemWithoutItsSecretKeyIsADecodeErrorNotAnEmptySecret() throws {
        let parent = try target()
        let own = try kernel.addKeyring(uniqueService("lost-secret-store"), to: parent)
        defer { try? kernel.unlink(own, from: parent) }
        let backend = KernelKeyringBackend(testingIn: own)
        let service = uniqueService("lost-secret")
        let item = genericItem(service, "acct", Data("secret".utf8))
        let keys = try ItemKeyrings(kernel: kernel).addLayout2(item, as: try ItemKeyDescription(item.primaryKey), into: own)
        #expect(keyctl_unlink(try #require(keys.secret), own) == 0)
        expectKeychainError(errSecDecode) {
            try backend.search(primaryKeyQuery(service, "acct", secrets: true))
        }
        #expect((try? kernel.search(own, type: "user", description: ItemKeyrings.layoutThreeDescription(own))) == nil,
                "the keyring was recorded as having every item key")
        // Its attributes are still there to be listed, and it can be deleted.
        #expect(try backend.search(exactQuery(service, "acct", secrets: false)).count == 1)
        #expect(try backend.delete(exactQuery(service, "acct", secrets: false)) == 1)
        #expect(try backend.search(exactQuery(service, "acct", secrets: false)).isEmpty)
    }

    @Test func anItemKeyUnlinkedByHandIsADeletedItemAndItsNameCanBeUsedAgain() throws {
        let stored = try addItem("unlinked")
        defer { remove(stored) }
        #expect(keyctl_unlink(stored.secretKey, try target()) == 0)
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
        #expect(keyctl_revoke(stored.secretKey) == 0)
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

    @Test func malformedLayoutTwoAttributesAreADecodeError() throws {
        let stored = try addLayoutTwoItem("malformed")
        defer { remove(stored) }
        try Data("not json".utf8).withUnsafeBytes { try kernel.update(try #require(stored.attributesKey), payload: $0) }
        expectKeychainError(errSecDecode) {
            try backend.search(primaryKeyQuery(stored.service, "acct", secrets: false))
        }
    }

    @Test func anUpdateKeepsTheItemKeyAndTheCreationDate() throws {
        let stored = try addItem("in-place")
        defer { remove(stored) }
        let before = try #require(try backend.search(exactQuery(stored.service, "acct", secrets: false)).first)
        #expect(try backend.update(exactQuery(stored.service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data("second".utf8)))) == 1)
        #expect(try kernel.contents(of: try target()).contains(stored.secretKey),
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
