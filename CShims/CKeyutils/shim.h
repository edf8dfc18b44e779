#ifndef LINUX_KEYCHAIN_CKEYUTILS_H
#define LINUX_KEYCHAIN_CKEYUTILS_H
// libkeyutils, the kernel key retention service's C API (keyutils.h from libkeyutils-dev).
#include <keyutils.h>

/// Possessor-only access (view, read, write, search, setattr, link), plus view for the owner
/// so `keyctl show` lists it: what a cache of secrets in a shared keyring needs.
static const key_perm_t ckeyutils_possessor_only =
    KEY_POS_VIEW | KEY_POS_READ | KEY_POS_WRITE | KEY_POS_SEARCH | KEY_POS_SETATTR | KEY_POS_LINK | KEY_USR_VIEW;

#endif
