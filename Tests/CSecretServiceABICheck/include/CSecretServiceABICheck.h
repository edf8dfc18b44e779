#ifndef LINUX_KEYCHAIN_CSECRETSERVICE_ABI_CHECK_H
#define LINUX_KEYCHAIN_CSECRETSERVICE_ABI_CHECK_H
// A test-only target: compiling it checks CShims/CSecretService/GLibABI.h and
// SecretServiceFunctions.h, and the benchmark baseline's BaselineFunctions.h, against the real <glib.h> and <libsecret/secret.h>; a wrong size,
// offset, value or prototype fails its build.

/// The number of types and values checked, so a test can see the check was built in.
int csecretservice_abi_checked_declarations(void);

/// The number of function prototypes checked: every one the shim looks up, and those only the
/// benchmark's baseline (Benchmarks/CSecretServiceBaseline) looks up.
int csecretservice_abi_checked_prototypes(void);

#endif
