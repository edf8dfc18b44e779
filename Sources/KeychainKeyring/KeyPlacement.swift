import CKeyutils
import FoundationEssentials
import Glibc
import KeychainCore

/// Putting the backend's own keys into a target keyring, with the permissions they carry.
///
/// A key is created in the process keyring, where the kernel finds it at once while its permissions are set, and then
/// moved into the target, so that it appears there whole, with its final permissions, in one step. Only the thread whose
/// turn it is (`KeyringRecordLock.withLock`) stages: `add_key` of a name already staged would update that key instead.
extension KernelKeys {
    /// What a marker grants: nothing for group, other, or the user as such (the library always possesses
    /// its keys, through the target linked into the process keyring); the possessor gets view (to list), read, search
    /// (to read and to prove possession) and link, which `keyctl_move` requires.
    static let readOnlyPermissions = key_perm_t(KEY_POS_VIEW | KEY_POS_READ | KEY_POS_SEARCH | KEY_POS_LINK)

    /// What the other keys grant: as `readOnlyPermissions`, plus write, for updates in place (`keyctl_update`).
    static let writablePermissions = readOnlyPermissions | key_perm_t(KEY_POS_WRITE)

    /// The kernel's limit on a `user` key's payload.
    static let maximumPayload = 32767

    /// A `user` key in the process keyring with `permissions`, ready to be moved.
    func stageUserKey(_ description: String, payload: UnsafeRawBufferPointer,
                      permissions: key_perm_t = writablePermissions) throws -> key_serial_t {
        let key = try addUserKey(description, payload: payload, to: Self.processKeyring)
        do {
            try setPermissions(key, permissions)
        } catch {
            discardStaged(key)
            throw error
        }
        return key
    }

    /// Adds a `user` key to `target`: staged, then moved in, exclusively (`EEXIST` when `target`
    /// holds a key of that name) or displacing a key of the same name. (`add_key` straight into
    /// the target would update a `user` key of that name in place instead.)
    @discardableResult
    func placeUserKey(_ description: String, payload: UnsafeRawBufferPointer, in target: key_serial_t,
                      exclusive: Bool, permissions: key_perm_t = writablePermissions) throws -> key_serial_t {
        let key = try stageUserKey(description, payload: payload, permissions: permissions)
        do {
            try move(key, from: Self.processKeyring, to: target, exclusive: exclusive)
        } catch {
            discardStaged(key)
            throw error
        }
        return key
    }

    /// Unlinks a staged key from the process keyring; the kernel then frees it.
    func discardStaged(_ key: key_serial_t) {
        // Nothing else holds it: if this fails, the process keyring keeps it until the process ends.
        try? unlink(key, from: Self.processKeyring)
    }

    /// Whether `key` is linked in `target` now; true when that cannot be read, so that a
    /// failure is reported rather than retried. Reads the whole target.
    func isLinked(_ key: key_serial_t, in target: key_serial_t) -> Bool {
        (try? contents(of: target).contains(key)) ?? true
    }

    /// Whether `failure`, of a call on `key`, means it was unlinked from `target`: "no such key", or for a moment
    /// before the key is gone, "permission denied" for a key this thread no longer possesses.
    func isUnlinkedKey(_ failure: KeyctlFailure, _ key: key_serial_t, in target: key_serial_t) -> Bool {
        failure.isNoSuchKey || (failure.errno == .permissionDenied && !isLinked(key, in: target))
    }

    /// The `user` key named `description` in `target` (or a keyring nested in it), or nil; a key
    /// of that name revoked, expired or not accessible is an error of `item`.
    func searchUserKey(_ description: String, in target: key_serial_t, of item: @autoclosure () -> String) throws -> key_serial_t? {
        do {
            return try search(target, type: "user", description: description)
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            return nil
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("looking up the item with \(item())")
        }
    }
}
