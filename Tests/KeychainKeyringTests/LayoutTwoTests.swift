import CKeyutils
import Foundation
import Glibc
import KeychainCore
@testable import KeychainKeyring
import Synchronization
import Testing

/// Layout 2 (`ItemKeys`): what its keys look like to the kernel, what a read makes of keys
/// changed by hand, and the migration of items written in layout 1.
@Suite("kernel keyring layout 2 and the migration from layout 1")
struct LayoutTwoTests {
    let backend = KernelKeyringBackend(keyring: nil)
    let kernel = KernelKeys()

    /// Sync tests stay on one thread, which possesses the target once `resolve` linked it.
    func target() throws -> key_serial_t { try kernel.resolve(nil).serial }

    struct Stored {
        let service: String
        let secretKey: key_serial_t
        let attributesKey: key_serial_t
    }

    func addItem(_ purpose: String, secret: String = "secret") throws -> Stored {
        let service = uniqueService(purpose)
        try backend.add(genericItem(service, "acct", Data(secret.utf8)))
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        let target = try target()
        return Stored(service: service,
                      secretKey: try kernel.search(target, type: "user", description: description.text),
                      attributesKey: try kernel.search(target, type: "user",
                                                       description: ItemKeyrings.attributesDescription(description)))
    }

    func remove(_ stored: Stored) {
        _ = try? backend.delete(exactQuery(stored.service, "acct", secrets: false))
        let target = try? target()
        for key in [stored.secretKey, stored.attributesKey] { _ = target.map { keyctl_unlink(key, $0) } }
    }

    @Test func anItemWrittenInLayoutOneIsReadWithItsAttributesAndMigratedOnFirstTouch() throws {
        // In a keyring of its own: the default target has long proved it holds no layout-1 item
        // (`LayoutOneGoneRecord.swift`), and no longer looks names up in layout 1.
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

    @Test func aSecretKeyReplacedByHandIsReadByName() throws {
        let stored = try addItem("replaced")
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

    @Test func aSecretKeyUpdatedByHandIsWhatIsRead() throws {
        let stored = try addItem("updated")
        defer { remove(stored) }
        try Data("keyctl update".utf8).withUnsafeBytes { try kernel.update(stored.secretKey, payload: $0) }
        #expect(try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("keyctl update".utf8))
    }

    @Test func aMissingSecretKeyIsADecodeErrorNotAnEmptySecret() throws {
        let stored = try addItem("lost-secret")
        defer { remove(stored) }
        #expect(keyctl_unlink(stored.secretKey, try target()) == 0)
        expectKeychainError(errSecDecode) {
            try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true))
        }
        // Its attributes are still there to be listed, and it can be deleted.
        #expect(try backend.search(exactQuery(stored.service, "acct", secrets: false)).count == 1)
        #expect(try backend.delete(exactQuery(stored.service, "acct", secrets: false)) == 1)
    }

    @Test func aRevokedSecretKeyIsNotAvailable() throws {
        let stored = try addItem("revoked")
        defer { remove(stored) }
        // The library's keys do not grant setattr, so revoking needs a key of our own making:
        // the test gives the item a secret key with the kernel's default permissions.
        let target = try target()
        let description = try ItemKeyDescription(genericItem(stored.service, "acct", Data()).primaryKey)
        #expect(keyctl_unlink(stored.secretKey, target) == 0)
        let ours = try Data("x".utf8).withUnsafeBytes { try kernel.addUserKey(description.text, payload: $0, to: target) }
        defer { _ = keyctl_unlink(ours, target) }
        #expect(keyctl_revoke(ours) == 0)
        expectKeychainError(errSecDataNotAvailable) {
            try backend.search(primaryKeyQuery(stored.service, "acct", secrets: true))
        }
    }

    @Test func malformedAttributesAreADecodeError() throws {
        let stored = try addItem("malformed")
        defer { remove(stored) }
        try Data("not json".utf8).withUnsafeBytes { try kernel.update(stored.attributesKey, payload: $0) }
        expectKeychainError(errSecDecode) {
            try backend.search(primaryKeyQuery(stored.service, "acct", secrets: false))
        }
    }

    @Test func anUpdateKeepsBothKeysAndTheCreationDate() throws {
        let stored = try addItem("in-place")
        defer { remove(stored) }
        let before = try #require(try backend.search(exactQuery(stored.service, "acct", secrets: false)).first)
        #expect(try backend.update(exactQuery(stored.service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data("second".utf8)))) == 1)
        let target = try target()
        let contents = try kernel.contents(of: target)
        #expect(contents.contains(stored.secretKey) && contents.contains(stored.attributesKey),
                "the update replaced the keys instead of rewriting them")
        let after = try #require(try backend.search(exactQuery(stored.service, "acct", secrets: true)).first)
        #expect(after.secret?.makeData() == Data("second".utf8))
        #expect(after.attributes[.creationDate] == before.attributes[.creationDate])
    }

    @Test func anEmptySecretHasNoSecretKeyAndCanBeFilledLater() throws {
        let service = uniqueService("empty")
        try backend.add(genericItem(service, "acct", Data()))
        defer { _ = try? backend.delete(exactQuery(service, "acct", secrets: false)) }
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        #expect((try? kernel.search(try target(), type: "user", description: description.text)) == nil)
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.isEmpty == true)
        #expect(try backend.update(exactQuery(service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data("now".utf8)))) == 1)
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.makeData() == Data("now".utf8))
        #expect(try backend.update(exactQuery(service, "acct", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(Data()))) == 1)
        #expect(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.isEmpty == true)
        #expect((try? kernel.search(try target(), type: "user", description: description.text)) == nil,
                "emptying the secret left its key behind")
    }

    /// An update that comes between an add's two moves (the attributes key, then the secret
    /// key, which displaces any key of its name) must not be lost: it waits for the add's
    /// secret key and writes that one.
    @Test func anUpdateBetweenAnAddsTwoMovesIsNotLost() throws {
        let (service, updated, target, backend) = try betweenTheMovesOfAnAdd { backend, service in
            try backend.update(primaryKeyQuery(service, "acct", secrets: false),
                               with: ItemChanges(secret: SecretBytes(Data("new".utf8))))
        }
        defer { try? kernel.unlink(target, from: keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0)) }
        #expect(updated == 1)
        #expect(try backend.search(primaryKeyQuery(service, "acct", secrets: true)).first?.secret?.makeData()
                == Data("new".utf8), "the update was lost to the add's move")
    }

    /// A delete in that instant leaves no secret key behind once the add's lands: `keyctl pipe`
    /// would print a deleted secret.
    @Test func aDeleteBetweenAnAddsTwoMovesLeavesNoSecretKey() throws {
        let (service, deleted, target, backend) = try betweenTheMovesOfAnAdd { backend, service in
            try backend.delete(primaryKeyQuery(service, "acct", secrets: false))
        }
        defer { try? kernel.unlink(target, from: keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0)) }
        #expect(deleted == 1)
        #expect(try backend.search(primaryKeyQuery(service, "acct", secrets: false)).isEmpty)
        let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
        #expect((try? kernel.search(target, type: "user", description: description.text)) == nil,
                "the deleted item's secret key is left in the keyring")
    }

    /// Runs `operation` on an item of a keyring of its own while another thread adds it and
    /// waits a few milliseconds between its two moves, holding the secret key in its own thread
    /// keyring, out of this thread's reach; returns the item's service, what `operation`
    /// returned, the keyring and a backend storing in it, once the add has made its second move.
    private func betweenTheMovesOfAnAdd(
        _ operation: (KernelKeyringBackend, String) throws -> Int
    ) throws -> (String, Int, key_serial_t, KernelKeyringBackend) {
        let session = keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0)
        try #require(session > 0)
        let target = try kernel.addKeyring(uniqueService("add-in-progress"), to: session)
        let backend = KernelKeyringBackend(testingIn: target)
        let service = uniqueService("half-added")
        let item = genericItem(service, "acct", Data("old".utf8))
        let description = try ItemKeyDescription(item.primaryKey)
        let attributesLanded = DispatchSemaphore(value: 0)
        let operationStarted = DispatchSemaphore(value: 0)
        let addDone = DispatchSemaphore(value: 0)
        let addFailure = Mutex<String?>(nil)
        let kernel = self.kernel
        Thread {
            do {
                let secretKey = try Data("old".utf8).withUnsafeBytes {
                    try kernel.addUserKey(description.text, payload: $0, to: KernelKeys.threadKeyring)
                }
                try kernel.setPermissions(secretKey, ItemKeyrings.keyPermissions)
                let payload = StoredAttributes(layout2: item, storedIn: target, secretKey: secretKey).encoded()
                let attributesKey = try payload.withUnsafeBytes {
                    try kernel.addUserKey(ItemKeyrings.attributesDescription(description), payload: $0,
                                          to: KernelKeys.threadKeyring)
                }
                try kernel.setPermissions(attributesKey, ItemKeyrings.keyPermissions)
                try kernel.move(attributesKey, from: KernelKeys.threadKeyring, to: target, exclusive: true)
                attributesLanded.signal()
                operationStarted.wait()
                usleep(3_000)
                try kernel.move(secretKey, from: KernelKeys.threadKeyring, to: target, exclusive: false)
            } catch {
                addFailure.withLock { $0 = "\(error)" }
                attributesLanded.signal()
            }
            addDone.signal()
        }.start()
        attributesLanded.wait()
        operationStarted.signal()
        let result = try operation(backend, service)
        addDone.wait()
        #expect(addFailure.withLock { $0 } == nil)
        return (service, result, target, backend)
    }
}
