#ifndef LINUX_KEYCHAIN_BASELINE_FUNCTIONS_H
#define LINUX_KEYCHAIN_BASELINE_FUNCTIONS_H
// The libsecret functions the benchmark's baseline looks up, as X(result, name, parameters)
// (see CDynamicLibrary.h), beside GLib's table functions from the shim's list.
// Tests/CSecretServiceABICheck checks them against the real headers as it checks the shim's.

#include "../../CShims/CSecretService/SecretServiceFunctions.h"

#define BASELINE_PASSWORD_FUNCTIONS(X) \
    X(int, secret_password_storev_sync, (const SecretSchema *, GHashTable *, const char *, const char *, const char *, \
                                         GCancellable *, GError **)) \
    X(char *, secret_password_lookupv_sync, (const SecretSchema *, GHashTable *, GCancellable *, GError **)) \
    X(void, secret_password_free, (char *))

#define BASELINE_FUNCTIONS(X) GLIB_TABLE_FUNCTIONS(X) BASELINE_PASSWORD_FUNCTIONS(X)

#endif
