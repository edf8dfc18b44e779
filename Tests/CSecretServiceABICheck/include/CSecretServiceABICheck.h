#ifndef LINUX_KEYCHAIN_CSECRETSERVICE_ABI_CHECK_H
#define LINUX_KEYCHAIN_CSECRETSERVICE_ABI_CHECK_H
// A test-only target: compiling it checks CShims/CSecretService/GLibABI.h against the real
// <glib.h> and <libsecret/secret.h>; a wrong size, offset or value fails its build.

/// The number of declarations checked, so a test can see the check was built in.
int csecretservice_abi_checked_declarations(void);

#endif
