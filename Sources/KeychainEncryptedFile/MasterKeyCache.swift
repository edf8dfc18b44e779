import CKeyutils
import FoundationEssentials
import Glibc
import KeychainKernelKeyCalls
import KeychainSystemCalls

/// Keeps an unlocked master key in the user's kernel keyring for a while, so that the next
/// process (the next `linux-keychain get`) skips Argon2id.
///
/// The key is a `user` key named `linux-keychain:file:<store id>` in the user keyring (`@u`),
/// readable only by its possessors (processes of this user that reach it from their keyrings),
/// with a kernel-enforced timeout after which the kernel destroys it. It is first made in the
/// process keyring, given its permissions and timeout, and only then linked into `@u`: a crash
/// in between leaves nothing behind, never a key without a timeout.
///
/// The cache is an optimisation only: when the keyring is unusable (some containers), every
/// method quietly does nothing, and the store unlocks with the passphrase as before. A cached
/// key is only used after it is checked against the store header's key commitment.
struct MasterKeyCache {
    /// Seconds an unlocked key stays cached; 0 disables the cache.
    let lifetime: UInt32

    private static func description(for storeID: Data) -> String {
        "linux-keychain:file:\(hexString(storeID))"
    }

    /// The cached master key of store `storeID`, if there is one. The caller checks it.
    func load(storeID: Data) -> GuardedBytes? {
        guard lifetime > 0 else { return nil }
        guard let found = try? KernelKeyCalls.search(KEY_SPEC_USER_KEYRING, type: "user", description: Self.description(for: storeID))
        else { return nil }
        var length = -1
        let key = try? GuardedBytes(count: Sodium.keyBytes) { out in
            length = (try? KernelKeyCalls.read(found, into: out)) ?? -1
        }
        guard let key, length == Sodium.keyBytes else { return nil }
        return key
    }

    /// Caches `masterKey` for `lifetime` seconds, replacing an older entry for the store.
    func store(_ masterKey: GuardedBytes, storeID: Data) {
        guard lifetime > 0 else { return }
        masterKey.withUnsafeBytes { bytes in
            _ = try? KernelKeyCalls.putExpiring(Self.description(for: storeID), payload: bytes, lifetime: lifetime,
                                                into: KEY_SPEC_USER_KEYRING)
        }
    }

    /// Drops the cached key of store `storeID` (after a failed check, or to lock the store).
    func forget(storeID: Data) {
        if let found = try? KernelKeyCalls.search(KEY_SPEC_USER_KEYRING, type: "user", description: Self.description(for: storeID)) {
            _ = try? KernelKeyCalls.invalidate(found)
        }
    }
}
