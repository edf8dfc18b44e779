import CKeyutils
import Foundation
import Glibc
import KeychainCore
@testable import KeychainKeyring
import Testing

/// Items whose keys exist but cannot be used are errors of their own, never "not found",
/// whether the query fixes the whole primary key (and the item is looked up by name) or names
/// only service and account.
///
/// The backend's own keys cannot be revoked or given a timeout (they grant neither write nor
/// setattr), so each test builds an item in the backend's layout with the kernel's default
/// permissions, then breaks it the way an administrator with `keyctl` could.
@Suite("kernel keyring backend with broken keys")
struct BrokenKeyTests {
    let kernel = KernelKeys()
    /// The test's own keyring, nested in the default target: items built by hand in layout 1
    /// are looked up by name only in a target not yet shown to hold none
    /// (`LayoutThreeRecord.swift`).
    let ownKeyring: key_serial_t
    let parent: key_serial_t
    let backend: KernelKeyringBackend

    init() throws {
        parent = try kernel.resolve(nil).serial
        ownKeyring = try kernel.addKeyring(uniqueService("broken-keys-store"), to: parent)
        backend = KernelKeyringBackend(testingIn: ownKeyring)
    }

    /// Sync tests stay on one thread, which possesses the target (and the keyring nested in it)
    /// once `resolve` linked it.
    func craftItem(_ purpose: String, attributes payload: Data? = nil) throws -> CraftedItem {
        _ = try kernel.resolve(nil)
        return try kernel.craftItem(uniqueService(purpose), in: ownKeyring, attributes: payload, storedIn: ownKeyring)
    }

    /// Removes the crafted item, what reading it migrated to layout 2, and the test's keyring.
    func remove(_ crafted: CraftedItem) {
        try? kernel.unlink(crafted.keyring, from: crafted.parent)
        _ = try? backend.delete(exactQuery(crafted.service, "acct", secrets: false))
        try? kernel.unlink(ownKeyring, from: parent)
    }

    @Test func theCraftedLayoutReadsLikeTheBackendsOwn() throws {
        let crafted = try craftItem("intact")
        defer { remove(crafted) }
        let found = try backend.search(exactQuery(crafted.service, "acct", secrets: true))
        #expect(found.first?.secret?.makeData() == Data("secret".utf8))
    }

    @Test(arguments: [false, true])
    func aRevokedSecretKeyIsNotAvailableNotMissing(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("revoked")
        defer { remove(crafted) }
        #expect(keyctl_revoke(crafted.secretKey) == 0)
        #expect(try backend.search(query(crafted.service, "acct", false)).count == 1)
        let error = expectKeychainError(errSecDataNotAvailable) {
            try backend.search(query(crafted.service, "acct", true))
        }
        #expect(error?.message.contains("revoked") == true)
        #expect(try backend.delete(query(crafted.service, "acct", false)) == 1)
    }

    @Test(arguments: [false, true])
    func anExpiredSecretKeyIsNotAvailableNotMissing(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("expired")
        defer { remove(crafted) }
        #expect(keyctl_set_timeout(crafted.secretKey, 1) == 0)
        // Wait for the kernel to mark it expired (timeouts have one-second granularity).
        var expired = false
        for _ in 0..<50 where !expired {
            usleep(100_000)
            if keyctl_describe(crafted.secretKey, nil, 0) < 0 && errno == EKEYEXPIRED { expired = true }
        }
        try #require(expired, "the kernel did not expire the key within 5 seconds")
        let error = expectKeychainError(errSecDataNotAvailable) {
            try backend.search(query(crafted.service, "acct", true))
        }
        #expect(error?.message.contains("expired") == true)
    }

    @Test(arguments: [false, true])
    func anUnreadableSecretKeyIsAnAccessError(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("unreadable")
        defer { remove(crafted) }
        // View only: without search the thread does not possess it, and a possessed, searchable
        // key would be readable even without the read bit.
        #expect(keyctl_setperm(crafted.secretKey, key_perm_t(KEY_POS_VIEW)) == 0)
        expectKeychainError(errSecAuthFailed) {
            try backend.search(query(crafted.service, "acct", true))
        }
    }

    @Test(arguments: [false, true])
    func aRevokedItemKeyringIsNotAvailableNotMissing(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("revoked-ring")
        defer { remove(crafted) }
        #expect(keyctl_revoke(crafted.keyring) == 0)
        expectKeychainError(errSecDataNotAvailable) {
            try backend.search(query(crafted.service, "acct", false))
        }
        expectKeychainError(errSecDataNotAvailable) {
            try backend.delete(query(crafted.service, "acct", false))
        }
        expectKeychainError(errSecDataNotAvailable) {
            try backend.update(query(crafted.service, "acct", false),
                               with: ItemChanges(secret: SecretBytes(Data("new".utf8))))
        }
    }

    @Test(arguments: [false, true])
    func malformedAttributesAreADecodeError(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("malformed", attributes: Data("not json".utf8))
        defer { remove(crafted) }
        expectKeychainError(errSecDecode) {
            try backend.search(query(crafted.service, "acct", false))
        }
    }
}
