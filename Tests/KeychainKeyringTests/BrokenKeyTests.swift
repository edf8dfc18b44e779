import CKeyutils
import Foundation
import Glibc
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// Items whose keys exist but cannot be used are errors of their own, never "not found",
/// whether the query fixes the whole primary key (and the item is looked up by name) or names
/// only service and account.
///
/// The backend's own keys cannot be given a timeout (they grant no setattr), so each test
/// builds an item in the backend's layout with the kernel's default permissions, then breaks it
/// the way an administrator with `keyctl` could.
@Suite("kernel keyring backend with broken keys")
struct BrokenKeyTests {
    let kernel = KernelKeys()
    /// The test's own keyring, nested in the default target.
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
        return try kernel.craftItem(uniqueService(purpose), in: ownKeyring, attributes: payload)
    }

    /// Removes the crafted item and the test's keyring.
    func remove(_ crafted: CraftedItem) {
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
    func aRevokedItemKeyIsNotAvailableNotMissing(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("revoked")
        defer { remove(crafted) }
        #expect(keyctl_revoke(crafted.itemKey) == 0)
        #expect(try backend.search(query(crafted.service, "acct", false)).count == 1)
        let error = expectKeychainError(errSecDataNotAvailable) {
            try backend.search(query(crafted.service, "acct", true))
        }
        #expect(error?.message.contains("revoked") == true)
        #expect(try backend.delete(query(crafted.service, "acct", false)) == 1)
    }

    @Test(arguments: [false, true])
    func anExpiredItemKeyIsNotAvailableNotMissing(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("expired")
        defer { remove(crafted) }
        #expect(keyctl_set_timeout(crafted.itemKey, 1) == 0)
        // Wait for the kernel to mark it expired (timeouts have one-second granularity).
        var expired = false
        for _ in 0..<50 where !expired {
            usleep(100_000)
            if keyctl_describe(crafted.itemKey, nil, 0) < 0 && errno == EKEYEXPIRED { expired = true }
        }
        try #require(expired, "the kernel did not expire the key within 5 seconds")
        let error = expectKeychainError(errSecDataNotAvailable) {
            try backend.search(query(crafted.service, "acct", true))
        }
        #expect(error?.message.contains("expired") == true)
    }

    @Test(arguments: [false, true])
    func anUnreadableItemKeyIsAnAccessError(byPrimaryKey: Bool) throws {
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        let crafted = try craftItem("unreadable")
        defer { remove(crafted) }
        // View only: without search the thread does not possess it, and a possessed, searchable
        // key would be readable even without the read bit.
        #expect(keyctl_setperm(crafted.itemKey, key_perm_t(KEY_POS_VIEW)) == 0)
        expectKeychainError(errSecAuthFailed) {
            try backend.search(query(crafted.service, "acct", true))
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
