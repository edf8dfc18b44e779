#ifndef LINUX_KEYCHAIN_CKEYUTILS_H
#define LINUX_KEYCHAIN_CKEYUTILS_H
// libkeyutils, the kernel key retention service's C API (keyutils.h from libkeyutils-dev).
#include <keyutils.h>

/// Possessor-only access (view, read, write, search, setattr, link), plus view for the owner
/// so `keyctl show` lists it: what a cache of secrets in a shared keyring needs.
static const key_perm_t ckeyutils_possessor_only =
    KEY_POS_VIEW | KEY_POS_READ | KEY_POS_WRITE | KEY_POS_SEARCH | KEY_POS_SETATTR | KEY_POS_LINK | KEY_USR_VIEW;

/// Puts a `user` key with `payload` into `destination` (displacing an older key of the same
/// description there) with `permissions` and a kernel timeout of `timeout_seconds`. The key
/// is made in the process keyring and given its permissions and timeout before it is linked
/// into `destination`, so a crash in between leaves nothing behind, never a key without a
/// timeout. Returns 0, or -1 with nothing left behind.
static inline int ckeyutils_put_expiring(const char *description, const void *payload, size_t length,
                                         key_perm_t permissions, unsigned timeout_seconds, key_serial_t destination) {
    key_serial_t serial = add_key("user", description, payload, length, KEY_SPEC_PROCESS_KEYRING);
    if (serial <= 0) return -1;
    int result = 0;
    if (keyctl_setperm(serial, permissions) != 0 || keyctl_set_timeout(serial, timeout_seconds) != 0 ||
        keyctl_link(serial, destination) != 0) {
        keyctl_revoke(serial);
        result = -1;
    }
    keyctl_unlink(serial, KEY_SPEC_PROCESS_KEYRING);
    return result;
}
#endif
