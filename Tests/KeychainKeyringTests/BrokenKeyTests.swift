import CKeyutils
import Foundation
import Glibc
import KeychainCore
@testable import KeychainKeyring
import Testing

/// Items whose keys exist but cannot be used are errors of their own, never "not found".
///
/// The backend's own keys cannot be revoked or given a timeout (they grant neither write nor
/// setattr), so each test builds an item in the backend's layout with the kernel's default
/// permissions, then breaks it the way an administrator with `keyctl` could.
@Suite("kernel keyring backend with broken keys")
struct BrokenKeyTests {
    let backend = KernelKeyringBackend(keyring: nil)
    let kernel = KernelKeys()

    struct CraftedItem {
        let service: String
        let target: key_serial_t
        let keyring: key_serial_t
        let secretKey: key_serial_t
        let attributesKey: key_serial_t
    }

    /// Sync tests stay on one thread, which possesses the target once `resolve` linked it.
    func craftItem(_ purpose: String, attributes payload: Data? = nil) throws -> CraftedItem {
        let service = uniqueService(purpose)
        let target = try kernel.resolve(nil).serial
        let item = genericItem(service, "acct", Data("secret".utf8))
        let description = try ItemKeyDescription(item.primaryKey)
        let keyring = try kernel.addKeyring(description.text, to: target)
        let secretKey = try Data("secret".utf8).withUnsafeBytes {
            try kernel.addUserKey(description.text, payload: $0, to: keyring)
        }
        let attributes = try payload ?? StoredAttributes(item, storedIn: target).encoded()
        let attributesKey = try attributes.withUnsafeBytes {
            try kernel.addUserKey(StoredAttributes.keyDescription, payload: $0, to: keyring)
        }
        return CraftedItem(service: service, target: target, keyring: keyring, secretKey: secretKey,
                           attributesKey: attributesKey)
    }

    func remove(_ crafted: CraftedItem) {
        try? kernel.unlink(crafted.keyring, from: crafted.target)
    }

    @Test func theCraftedLayoutReadsLikeTheBackendsOwn() throws {
        let crafted = try craftItem("intact")
        defer { remove(crafted) }
        let found = try backend.search(exactQuery(crafted.service, "acct", secrets: true))
        #expect(found.first?.secret?.makeData() == Data("secret".utf8))
    }

    @Test func aRevokedSecretKeyIsNotAvailableNotMissing() throws {
        let crafted = try craftItem("revoked")
        defer { remove(crafted) }
        #expect(keyctl_revoke(crafted.secretKey) == 0)
        #expect(try backend.search(exactQuery(crafted.service, "acct", secrets: false)).count == 1)
        let error = expectKeychainError(errSecDataNotAvailable) {
            try backend.search(exactQuery(crafted.service, "acct", secrets: true))
        }
        #expect(error?.message.contains("revoked") == true)
        #expect(try backend.delete(exactQuery(crafted.service, "acct", secrets: false)) == 1)
    }

    @Test func anExpiredSecretKeyIsNotAvailableNotMissing() throws {
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
            try backend.search(exactQuery(crafted.service, "acct", secrets: true))
        }
        #expect(error?.message.contains("expired") == true)
    }

    @Test func anUnreadableSecretKeyIsAnAccessError() throws {
        let crafted = try craftItem("unreadable")
        defer { remove(crafted) }
        // View only: without search the thread does not possess it, and a possessed, searchable
        // key would be readable even without the read bit.
        #expect(keyctl_setperm(crafted.secretKey, key_perm_t(KEY_POS_VIEW)) == 0)
        expectKeychainError(errSecAuthFailed) {
            try backend.search(exactQuery(crafted.service, "acct", secrets: true))
        }
    }

    @Test func aRevokedItemKeyringIsNotAvailableNotMissing() throws {
        let crafted = try craftItem("revoked-ring")
        defer { remove(crafted) }
        #expect(keyctl_revoke(crafted.keyring) == 0)
        expectKeychainError(errSecDataNotAvailable) {
            try backend.search(exactQuery(crafted.service, "acct", secrets: false))
        }
        expectKeychainError(errSecDataNotAvailable) {
            try backend.delete(exactQuery(crafted.service, "acct", secrets: false))
        }
        expectKeychainError(errSecDataNotAvailable) {
            try backend.update(exactQuery(crafted.service, "acct", secrets: false),
                               with: ItemChanges(secret: SecretBytes(Data("new".utf8))))
        }
    }

    @Test func malformedAttributesAreADecodeError() throws {
        let crafted = try craftItem("malformed", attributes: Data("not json".utf8))
        defer { remove(crafted) }
        expectKeychainError(errSecDecode) {
            try backend.search(exactQuery(crafted.service, "acct", secrets: false))
        }
    }
}
