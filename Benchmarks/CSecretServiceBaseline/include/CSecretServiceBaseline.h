#ifndef LINUX_KEYCHAIN_CSECRETSERVICE_BASELINE_H
#define LINUX_KEYCHAIN_CSECRETSERVICE_BASELINE_H
// The benchmark's raw libsecret baseline: secret_password_storev_sync and
// secret_password_lookupv_sync with no schema and the attributes (service, username), in the
// default collection, which is what a plain libsecret program calls. The library itself never
// uses them, so they live here, beside the benchmark, and not in CShims/CSecretService.
//
// libsecret is loaded with dlopen at the first call, as CShims/CSecretService does it, so that
// building the benchmark needs no headers. Messages name attributes, never the password.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Loads libsecret-1.so.0 and the functions used here. Returns 0, or -1 with the reason in
/// `reason`. Thread-safe; after a success later calls return 0 at once.
int csecretservicebaseline_load(char *reason, size_t reason_size);

/// Stores `password` under (service, username). Returns 0, or -1 with the message in `message`.
int csecretservicebaseline_password_store(const char *service, const char *account, const char *password,
                                          char *message, size_t message_size);

/// The password (free with csecretservicebaseline_password_free, which wipes it), or NULL when
/// there is none or on failure (then `message` says why; it is empty when there is none).
char *csecretservicebaseline_password_lookup(const char *service, const char *account, char *message,
                                             size_t message_size);
void csecretservicebaseline_password_free(char *password);

#ifdef __cplusplus
}
#endif

#endif
