package import CKeyutils
package import KeychainSystemCalls

/// The libkeyutils calls shared by the keyring backend and the unlock and token caches, each
/// through `syscall`, so every one reads errno right after the call, retries `EINTR`, and
/// fails with a `SystemCallError` naming the call.
package enum KernelKeyCalls {
    /// Adds a key of `type` holding `payload` (nil for a keyring) to `keyring`; returns its serial.
    package static func add(type: String, _ description: String, payload: UnsafeRawBufferPointer?,
                            to keyring: key_serial_t) throws(SystemCallError) -> key_serial_t {
        try syscall("add_key") { add_key(type, description, payload?.baseAddress, payload?.count ?? 0, keyring) }
    }

    package static func setPermissions(_ key: key_serial_t, _ permissions: key_perm_t) throws(SystemCallError) {
        try syscall("keyctl_setperm") { keyctl_setperm(key, permissions) }
    }

    package static func update(_ key: key_serial_t, payload: UnsafeRawBufferPointer) throws(SystemCallError) {
        try syscall("keyctl_update") { keyctl_update(key, payload.baseAddress, payload.count) }
    }

    package static func move(_ key: key_serial_t, from source: key_serial_t, to destination: key_serial_t,
                             flags: UInt32) throws(SystemCallError) {
        try syscall("keyctl_move") { keyctl_move(key, source, destination, flags) }
    }

    package static func link(_ key: key_serial_t, into keyring: key_serial_t) throws(SystemCallError) {
        try syscall("keyctl_link") { keyctl_link(key, keyring) }
    }

    package static func unlink(_ key: key_serial_t, from keyring: key_serial_t) throws(SystemCallError) {
        try syscall("keyctl_unlink") { keyctl_unlink(key, keyring) }
    }

    /// Makes `key` unusable at once; the kernel removes it shortly after.
    package static func invalidate(_ key: key_serial_t) throws(SystemCallError) {
        try syscall("keyctl_invalidate") { keyctl_invalidate(key) }
    }

    /// The caller's persistent keyring, linked into `keyring`.
    package static func persistentKeyring(linkedInto keyring: key_serial_t) throws(SystemCallError) -> key_serial_t {
        key_serial_t(try syscall("keyctl_get_persistent") { keyctl_get_persistent(uid_t.max, keyring) })
    }

    /// The serial behind a special keyring ID such as `KEY_SPEC_USER_KEYRING`.
    package static func serial(of special: key_serial_t, create: Bool) throws(SystemCallError) -> key_serial_t {
        try syscall("keyctl_get_keyring_ID") { keyctl_get_keyring_ID(special, create ? 1 : 0) }
    }

    /// The key of `type` and exact `description` reachable from `keyring`; fails with
    /// `Errno.noSuchKey` when there is none. With `destination`, the key is also linked there.
    package static func search(_ keyring: key_serial_t, type: String, description: String,
                               linkingInto destination: key_serial_t = 0) throws(SystemCallError) -> key_serial_t {
        key_serial_t(try syscall("keyctl_search") { keyctl_search(keyring, type, description, destination) })
    }

    /// Copies as much of `key`'s payload as fits into `buffer` and returns the payload's whole
    /// length, which is larger than `buffer` when it did not fit.
    package static func read(_ key: key_serial_t, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try syscall("keyctl_read") { keyctl_read(key, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count) }
    }

    /// Like `read`, for `keyctl_describe`'s text.
    package static func describe(_ key: key_serial_t, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try syscall("keyctl_describe") {
            keyctl_describe(key, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count)
        }
    }

    /// Puts a `user` key with `payload` into `destination`, displacing an older key of the same
    /// description there, readable by its possessors only and destroyed by the kernel after
    /// `lifetime` seconds. The key is made in the process keyring and given its permissions and
    /// timeout before it is linked into `destination`, so a crash in between leaves nothing
    /// behind, never a key without a timeout.
    package static func putExpiring(_ description: String, payload: UnsafeRawBufferPointer,
                                    lifetime: UInt32, into destination: key_serial_t) throws(SystemCallError) {
        let key = try add(type: "user", description, payload: payload, to: KEY_SPEC_PROCESS_KEYRING)
        // Best effort: the key is already made, and a failure to drop a link changes nothing the
        // caller could act on.
        defer { _ = try? unlink(key, from: KEY_SPEC_PROCESS_KEYRING) }
        do {
            try setPermissions(key, ckeyutils_possessor_only)
            try syscall("keyctl_set_timeout") { keyctl_set_timeout(key, lifetime) }
            try link(key, into: destination)
        } catch {
            _ = try? syscall("keyctl_revoke") { keyctl_revoke(key) }
            throw error
        }
    }
}
