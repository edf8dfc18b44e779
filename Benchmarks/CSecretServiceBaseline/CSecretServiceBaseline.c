// libsecret's one-call password functions for the benchmark's baseline: see
// include/CSecretServiceBaseline.h. The GLib types and functions come from the shim's hand-made
// declarations (BaselineFunctions.h), which Tests/CSecretServiceABICheck checks against the
// real headers.

#include "CDynamicLibrary.h"
#include "CSecretServiceBaseline.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "BaselineFunctions.h"

BASELINE_FUNCTIONS(CDYNAMICLIBRARY_DECLARE_POINTER)

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

static int load_functions(char *reason, size_t reason_size) {
    const char *path = "libsecret-1.so.0";
    // Never closed: GLib registers types and threads that cannot be unloaded.
    void *handle = cdynamiclibrary_open(path, reason, reason_size);
    if (handle == NULL) return -1;
    const char *requirement = "";
    BASELINE_FUNCTIONS(CDYNAMICLIBRARY_LOOK_UP)
    return 0;
}

int csecretservicebaseline_load(char *reason, size_t reason_size) {
    pthread_mutex_lock(&load_mutex);
    int result = loaded ? 0 : load_functions(reason, reason_size);
    if (result == 0) loaded = 1;
    pthread_mutex_unlock(&load_mutex);
    return result;
}

/// The attributes Python keyring and secret-tool name a password by.
static void *service_and_username(const char *service, const char *account) {
    void *table = p_g_hash_table_new_full(p_g_str_hash, p_g_str_equal, p_g_free, p_g_free);
    p_g_hash_table_insert(table, p_g_strdup("service"), p_g_strdup(service));
    p_g_hash_table_insert(table, p_g_strdup("username"), p_g_strdup(account));
    return table;
}

/// Copies the message of `error` (or nothing) into `message`, and frees it.
static void take_message(GError *error, char *message, size_t message_size) {
    if (message_size > 0) message[0] = 0;
    if (error == NULL) return;
    snprintf(message, message_size, "%s", error->message != NULL ? error->message : "");
    p_g_error_free(error);
}

int csecretservicebaseline_password_store(const char *service, const char *account, const char *password,
                                          char *message, size_t message_size) {
    void *table = service_and_username(service, account);
    GError *failure = NULL;
    int stored = p_secret_password_storev_sync(NULL, table, NULL, "keychain-bench baseline", password, NULL, &failure);
    p_g_hash_table_unref(table);
    take_message(failure, message, message_size);
    return stored ? 0 : -1;
}

char *csecretservicebaseline_password_lookup(const char *service, const char *account, char *message,
                                             size_t message_size) {
    void *table = service_and_username(service, account);
    GError *failure = NULL;
    char *password = p_secret_password_lookupv_sync(NULL, table, NULL, &failure);
    p_g_hash_table_unref(table);
    take_message(failure, message, message_size);
    return password;
}

void csecretservicebaseline_password_free(char *password) {
    if (password != NULL) p_secret_password_free(password);
}
