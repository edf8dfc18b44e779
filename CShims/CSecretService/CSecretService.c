// libsecret through dlopen: see include/CSecretService.h for the contract.
//
// GLib's and libsecret's headers are deliberately not included, so that building needs
// neither. GLibABI.h declares the few types used, with the layouts GLib documents as stable
// ABI (GError), and everything else stays an opaque pointer. GLib's functions are
// looked up through libsecret's handle: dlsym searches a handle's dependencies too, so one
// dlopen brings GLib, GObject and GIO along and one override of the path switches all of them.

#include "CSecretService.h"
#include "CDynamicLibrary.h"
#include "TransferSession.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// --- The GLib ABI this file relies on, and the functions, looked up once ----------------------
//
// See GLibABI.h and SecretServiceFunctions.h; Tests/CSecretServiceABICheck checks both.

#include "SecretServiceFunctions.h"

CSECRETSERVICE_FUNCTIONS(CDYNAMICLIBRARY_DECLARE_POINTER)

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static char loaded_path[4096];  // non-empty once the functions are loaded

/// Loads `path` and every function; on failure leaves nothing loaded and writes the reason.
static int load_functions(const char *path, char *reason, size_t reason_size) {
    // Never closed: GLib registers types and threads that cannot be unloaded.
    void *handle = cdynamiclibrary_open(path, reason, reason_size);
    if (handle == NULL) return -1;
    const char *requirement = " (libsecret 0.18 or newer is needed)";
    CSECRETSERVICE_FUNCTIONS(CDYNAMICLIBRARY_LOOK_UP)
    snprintf(loaded_path, sizeof loaded_path, "%s", path);
    return 0;
}

int csecretservice_load(const char *library_path, char *reason, size_t reason_size) {
    const char *path = library_path != NULL ? library_path : "libsecret-1.so.0";
    // Every reason is written by CDynamicLibrary, which takes a NULL `reason` as no reason wanted.
    pthread_mutex_lock(&load_mutex);
    int result;
    if (loaded_path[0] == 0) {
        // A failure is not remembered, so a later call may succeed with another path.
        result = load_functions(path, reason, reason_size);
        if (result == 0 && transfer_crypto_load(reason, reason_size) != 0) {
            loaded_path[0] = 0;
            result = -1;
        }
    } else if (strcmp(path, loaded_path) == 0) {
        result = 0;
    } else {
        // The functions stay those of the library loaded first; a different path only has to
        // be loadable, so that a test can simulate a machine without libsecret in-process.
        result = cdynamiclibrary_open(path, reason, reason_size) != NULL ? 0 : -1;
    }
    pthread_mutex_unlock(&load_mutex);
    return result;
}

// --- Errors ---------------------------------------------------------------------------------

static CSecretServiceErrorKind classify_remote_name(const char *name) {
    if (name == NULL) return CSECRETSERVICE_ERROR_OTHER;
    if (strcmp(name, "org.freedesktop.Secret.Error.IsLocked") == 0) return CSECRETSERVICE_ERROR_LOCKED;
    if (strcmp(name, "org.freedesktop.Secret.Error.NoSuchObject") == 0) return CSECRETSERVICE_ERROR_NO_SUCH_OBJECT;
    if (strcmp(name, "org.freedesktop.Secret.Error.NoSession") == 0) return CSECRETSERVICE_ERROR_DISCONNECTED;
    return CSECRETSERVICE_ERROR_OTHER;
}

static CSecretServiceErrorKind classify(const GError *error) {
    // kwalletd's text, under error names that differ by call, after a "GDBus.Error:NAME: "
    // prefix unless libsecret stripped it.
    if ((error->domain == p_g_io_error_quark() || error->domain == p_g_dbus_error_quark()) && error->message != NULL
        && strstr(error->message, "Can't find session") != NULL) {
        return CSECRETSERVICE_ERROR_SESSION_LOST;
    }
    if (error->domain == p_g_io_error_quark()) {
        switch (error->code) {
        case IO_ERROR_CANCELLED: case IO_ERROR_TIMED_OUT: return CSECRETSERVICE_ERROR_TIMEOUT;
        case IO_ERROR_DBUS_ERROR: break;  // an unregistered remote error: decided by its name below
        default: return CSECRETSERVICE_ERROR_DISCONNECTED;  // sockets, addresses, closed pipes
        }
    } else if (error->domain == p_g_dbus_error_quark()) {
        switch (error->code) {
        case DBUS_ERROR_SERVICE_UNKNOWN: case DBUS_ERROR_NAME_HAS_NO_OWNER: return CSECRETSERVICE_ERROR_NO_PROVIDER;
        case DBUS_ERROR_NO_REPLY: case DBUS_ERROR_TIMEOUT: case DBUS_ERROR_TIMED_OUT: return CSECRETSERVICE_ERROR_TIMEOUT;
        case DBUS_ERROR_IO_ERROR: case DBUS_ERROR_BAD_ADDRESS: case DBUS_ERROR_NO_SERVER: case DBUS_ERROR_DISCONNECTED:
            return CSECRETSERVICE_ERROR_DISCONNECTED;
        case DBUS_ERROR_UNKNOWN_METHOD: case DBUS_ERROR_UNKNOWN_OBJECT: return CSECRETSERVICE_ERROR_NO_SUCH_OBJECT;
        default:
            if (error->code >= DBUS_ERROR_SPAWN_FIRST && error->code <= DBUS_ERROR_SPAWN_LAST) {
                return CSECRETSERVICE_ERROR_NO_PROVIDER;  // activation of the provider failed
            }
        }
    } else if (error->domain == p_secret_error_get_quark()) {
        if (error->code == SECRET_ERROR_IS_LOCKED) return CSECRETSERVICE_ERROR_LOCKED;
        if (error->code == SECRET_ERROR_NO_SUCH_OBJECT) return CSECRETSERVICE_ERROR_NO_SUCH_OBJECT;
    }
    // libsecret strips the "GDBus.Error:name:" prefix from most errors, but not all.
    CSecretServiceErrorKind kind = CSECRETSERVICE_ERROR_OTHER;
    if (p_g_dbus_error_is_remote_error(error)) {
        char *name = p_g_dbus_error_get_remote_error(error);
        kind = classify_remote_name(name);
        p_g_free(name);
    }
    return kind;
}

/// Copies and frees `error` (which may be NULL: then `out` says NONE).
static void take_error(GError *error, CSecretServiceError *out) {
    if (out == NULL) {
        if (error != NULL) p_g_error_free(error);
        return;
    }
    memset(out, 0, sizeof *out);
    if (error == NULL) return;
    out->kind = classify(error);
    out->code = error->code;
    const char *domain = p_g_quark_to_string(error->domain);
    snprintf(out->domain, sizeof out->domain, "%s", domain != NULL ? domain : "");
    snprintf(out->message, sizeof out->message, "%s", error->message != NULL ? error->message : "");
    p_g_error_free(error);
}

/// Whether `error`, the answer to a GetSecrets, can mean that an item asked for is gone: KWallet
/// answers InvalidArgs ("Can't find item at path") for the whole call where gnome-keyring and
/// KeePassXC leave the item out.
static int names_vanished_item(const CSecretServiceError *error) {
    return error->kind == CSECRETSERVICE_ERROR_NO_SUCH_OBJECT
        || (error->code == DBUS_ERROR_INVALID_ARGS && strcmp(error->domain, "g-dbus-error-quark") == 0);
}

/// A failure that did not come with a GError, e.g. an answer of the wrong type.
static void set_error(CSecretServiceError *out, CSecretServiceErrorKind kind, const char *message) {
    if (out == NULL) return;
    memset(out, 0, sizeof *out);
    out->kind = kind;
    snprintf(out->domain, sizeof out->domain, "linux-keychain");
    snprintf(out->message, sizeof out->message, "%s", message);
}

// --- Small helpers ----------------------------------------------------------------------------

void *csecretservice_cancellable_new(void) { return p_g_cancellable_new(); }
void csecretservice_cancellable_cancel(void *cancellable) { p_g_cancellable_cancel(cancellable); }
void csecretservice_object_unref(void *object) { if (object != NULL) p_g_object_unref(object); }
void csecretservice_strv_free(char **strings) { p_g_strfreev(strings); }

/// Whether `bytes` are well-formed UTF-8 that does not start with a byte-order mark, and hold
/// no NUL unless `text_keeps_nul`: text that a provider storing text/plain as a string gives
/// back byte for byte (KWallet's string ends at a NUL).
static int is_plain_text(const unsigned char *bytes, size_t length, int text_keeps_nul) {
    if (length >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF) return 0;  // decoders drop it
    size_t index = 0;
    while (index < length) {
        unsigned char lead = bytes[index];
        size_t extra;
        uint32_t point;
        if (lead == 0 && !text_keeps_nul) return 0;
        if (lead < 0x80) { index++; continue; }
        if (lead >= 0xC2 && lead <= 0xDF) { extra = 1; point = lead & 0x1F; }
        else if (lead >= 0xE0 && lead <= 0xEF) { extra = 2; point = lead & 0x0F; }
        else if (lead >= 0xF0 && lead <= 0xF4) { extra = 3; point = lead & 0x07; }
        else return 0;
        if (length - index <= extra) return 0;
        for (size_t next = 1; next <= extra; next++) {
            unsigned char byte = bytes[index + next];
            if ((byte & 0xC0) != 0x80) return 0;
            point = (point << 6) | (byte & 0x3F);
        }
        if ((extra == 2 && (point < 0x800 || (point >= 0xD800 && point <= 0xDFFF))) ||
            (extra == 3 && (point < 0x10000 || point > 0x10FFFF))) return 0;
        index += extra + 1;
    }
    return 1;
}

/// A SecretValue holding a copy of the secret in libsecret's non-pageable memory. Text goes as
/// text/plain and anything else as application/octet-stream: gnome-keyring ignores the type,
/// but KeePassXC keeps text/plain in the entry's password field, where its user and secret-tool
/// find it, and other bytes in an attachment, which secret-tool refuses to print; KWallet keeps
/// text/plain as a string, cut at its first NUL, and other bytes whole.
static void *secret_value(const unsigned char *secret, size_t length, int text_keeps_nul) {
    static const char empty[1] = {0};
    const char *type = is_plain_text(secret, length, text_keeps_nul) ? "text/plain" : "application/octet-stream";
    return p_secret_value_new(length > 0 ? (const char *)secret : empty, (long)length, type);
}

// --- Service and collections ------------------------------------------------------------------

static char *provider_owner(void *service, CSecretServiceError *error);
static uint32_t process_of(void *connection, const char *name, int timeout_ms, void *cancellable);
static int transfer_session_request(void *service, const char *destination, int timeout_ms, TransferKeyPairJob *job,
                                    CSecretServiceError *error);
typedef struct TransferSessionState TransferSessionState;
static TransferSessionState *transfer_session_answered(void *service, void *cancellable);

/// The libsecret thread's own main context, its thread default from the first service opened
/// on: transfer sessions are answered there, and whatever subscribes there delivers to it
/// (see the header).
static void *signal_context = NULL;
static unsigned long signals_dispatched = 0;

void csecretservice_signals_dispatch(void) {
    if (signal_context == NULL) return;
    while (p_g_main_context_iteration(signal_context, 0)) signals_dispatched++;
}

unsigned long csecretservice_signals_dispatched(void) { return signals_dispatched; }

static const char PROVIDER_DATA[] = "linux-keychain-provider";
static const char SECRETS_NAME[] = "org.freedesktop.secrets";

/// The floating arguments (s) of a bus method that takes one bus name.
static void *bus_name_argument(const char *name) {
    return p_g_variant_new_tuple((void *[]){p_g_variant_new_string(name)}, 1);
}

/// Calls `method` of the bus daemon itself with `arguments` (floating, consumed); the reply or NULL.
static void *call_bus(void *connection, const char *method, void *arguments, int timeout_ms, void *cancellable,
                      GError **failure) {
    return p_g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         method, arguments, NULL, DBUS_CALL_FLAGS_NONE, timeout_ms, cancellable, failure);
}

/// The unique name owning org.freedesktop.secrets, started by D-Bus activation when nothing owns
/// it and a provider is activatable (as libsecret's proxy would). Free with g_free; NULL with
/// `error` (NO_PROVIDER when there is none).
static char *secrets_owner(void *connection, int timeout_ms, void *cancellable, CSecretServiceError *error) {
    for (int attempt = 0; attempt < 2; attempt++) {
        GError *failure = NULL;
        void *reply = call_bus(connection, "GetNameOwner", bus_name_argument(SECRETS_NAME), timeout_ms, cancellable,
                               &failure);
        if (reply != NULL) {
            const char *owner = NULL;
            p_g_variant_get_child(reply, 0, "&s", &owner);
            char *copy = p_g_strdup(owner);
            p_g_variant_unref(reply);
            take_error(NULL, error);
            return copy;
        }
        int unowned = failure->domain == p_g_dbus_error_quark() && failure->code == DBUS_ERROR_NAME_HAS_NO_OWNER;
        if (!unowned || attempt > 0) {
            take_error(failure, error);
            return NULL;
        }
        p_g_error_free(failure);
        failure = NULL;
        void *no_flags = p_g_variant_new_uint32(0);
        void *started = call_bus(connection, "StartServiceByName",
                                 p_g_variant_new_tuple((void *[]){p_g_variant_new_string(SECRETS_NAME), no_flags}, 2),
                                 timeout_ms, cancellable, &failure);
        if (started == NULL) {
            take_error(failure, error);  // ServiceUnknown: nothing can be activated (NO_PROVIDER)
            return NULL;
        }
        p_g_variant_unref(started);
    }
    return NULL;
}

/// A service handle is a connection of its own to the session bus (a GDBusConnection), not
/// GLib's shared one, so that this library can drop and rebuild it, and never a SIGTERM when the
/// bus goes away. It carries the provider's unique name and the transfer session, and no
/// libsecret proxy: building one cost a one-shot process a millisecond of requests it never
/// used (prompts are answered here, `run_prompt`).
void *csecretservice_service_open(int timeout_ms, void *cancellable, CSecretServiceError *error) {
    if (signal_context == NULL) {
        // Never popped: the thread keeps it as long as it lives, which is as long as the process.
        signal_context = p_g_main_context_new();
        p_g_main_context_push_thread_default(signal_context);
    }
    // The transfer session's key pair is made while the connection is set up (connect,
    // authentication, Hello), which mostly waits for the bus: OpenSession goes out as soon as it can.
    TransferKeyPairJob *key_pair = transfer_key_pair_start();
    GError *failure = NULL;
    char *address = p_g_dbus_address_get_for_bus_sync(BUS_TYPE_SESSION, cancellable, &failure);
    void *connection = address == NULL ? NULL : p_g_dbus_connection_new_for_address_sync(
        address, DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
        cancellable, &failure);
    p_g_free(address);
    take_error(failure, error);
    if (connection == NULL) {
        if (key_pair != NULL) {
            unsigned char unused[TRANSFER_PUBLIC_KEY_SIZE];
            transfer_key_pair_free(transfer_key_pair_finish(key_pair, unused));
        }
        return NULL;
    }
    // The session is asked for first, of whoever owns the name (starting an activatable provider,
    // as libsecret's proxy would); the bus answers who that is long before the provider answers.
    if (transfer_session_request(connection, SECRETS_NAME, timeout_ms, key_pair, error) != 0) {
        p_g_object_unref(connection);
        return NULL;
    }
    char *owner = secrets_owner(connection, timeout_ms, cancellable, error);
    if (owner == NULL) {
        csecretservice_service_close(connection);
        return NULL;
    }
    p_g_object_set_data_full(connection, PROVIDER_DATA, owner, p_g_free);
    return connection;
}

int csecretservice_service_owner(void *service, char *owner, size_t owner_size, uint32_t *pid, int timeout_ms,
                                 void *cancellable, CSecretServiceError *error) {
    if (pid != NULL) *pid = 0;
    char *name = provider_owner(service, error);
    if (name == NULL) return -1;
    snprintf(owner, owner_size, "%s", name);
    p_g_free(name);
    take_error(NULL, error);
    if (pid != NULL) *pid = process_of(service, owner, timeout_ms, cancellable);
    return 0;
}

/// The process id behind the unique bus name `name`, or 0 when the bus does not say.
static uint32_t process_of(void *connection, const char *name, int timeout_ms, void *cancellable) {
    uint32_t pid = 0;
    GError *failure = NULL;
    void *reply = call_bus(connection, "GetConnectionUnixProcessID", bus_name_argument(name), timeout_ms, cancellable,
                           &failure);
    if (reply == NULL) {
        p_g_error_free(failure);  // the process id only names the provider; the bus name is enough
        return 0;
    }
    void *value = p_g_variant_get_child_value(reply, 0);
    if (p_g_variant_is_of_type(value, "u")) p_g_variant_get_child(reply, 0, "u", &pid);
    p_g_variant_unref(value);
    p_g_variant_unref(reply);
    return pid;
}

int csecretservice_bus_name_owner(const char *name, char *owner, size_t owner_size, uint32_t *pid, int timeout_ms,
                                  void *cancellable, CSecretServiceError *error) {
    owner[0] = 0;
    *pid = 0;
    GError *failure = NULL;
    void *bus = p_g_bus_get_sync(BUS_TYPE_SESSION, cancellable, &failure);
    if (bus == NULL) {
        take_error(failure, error);
        return -1;
    }
    // GLib's shared connection raises SIGTERM in the whole process when the bus goes away; a
    // keychain call must fail instead.
    p_g_dbus_connection_set_exit_on_close(bus, 0);
    void *reply = call_bus(bus, "GetNameOwner", bus_name_argument(name), timeout_ms, cancellable, &failure);
    if (reply == NULL) {
        p_g_object_unref(bus);
        if (failure->domain == p_g_dbus_error_quark() && failure->code == DBUS_ERROR_NAME_HAS_NO_OWNER) {
            p_g_error_free(failure);
            take_error(NULL, error);
            return 0;
        }
        take_error(failure, error);
        return -1;
    }
    take_error(NULL, error);
    const char *unique_name = NULL;
    p_g_variant_get_child(reply, 0, "&s", &unique_name);
    snprintf(owner, owner_size, "%s", unique_name != NULL ? unique_name : "");
    p_g_variant_unref(reply);
    *pid = process_of(bus, owner, timeout_ms, cancellable);
    p_g_object_unref(bus);
    return 1;
}

/// The arguments of Properties.Get(Collection.Locked), floating: the call consumes them.
static void *locked_property_arguments(void) {
    return p_g_variant_new_tuple((void *[]){p_g_variant_new_string("org.freedesktop.Secret.Collection"),
                                            p_g_variant_new_string("Locked")}, 2);
}

/// The collection's lock state from a Properties.Get(Locked) reply, which is released here:
/// 1 or 0, or -1 with `error` set.
static int parse_locked(void *reply, CSecretServiceError *error) {
    int locked = -1;
    void *boxed = p_g_variant_get_child_value(reply, 0);
    void *value = p_g_variant_get_variant(boxed);
    if (p_g_variant_is_of_type(value, "b")) {
        locked = p_g_variant_get_boolean(value) ? 1 : 0;
        take_error(NULL, error);
    } else {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider answered the Locked property with a non-boolean.");
    }
    p_g_variant_unref(value);
    p_g_variant_unref(boxed);
    p_g_variant_unref(reply);
    return locked;
}

static void *call_provider(void *service, const char *path, const char *interface, const char *method,
                           void *parameters, const void *reply_type, int timeout_ms, void *cancellable,
                           CSecretServiceError *error);
static const char PROPERTIES_INTERFACE[] = "org.freedesktop.DBus.Properties";

int csecretservice_collection_is_locked(void *service, const char *collection_path, int timeout_ms, void *cancellable,
                                        CSecretServiceError *error) {
    void *reply = call_provider(service, collection_path, PROPERTIES_INTERFACE, "Get", locked_property_arguments(),
                                "(v)", timeout_ms, cancellable, error);
    if (reply == NULL) return -1;
    return parse_locked(reply, error);
}

/// Collection.SearchItems is sent by hand, as GetSecrets is (see get_secrets_arguments), and
/// for the same reason: libsecret's `secret_collection_search_for_dbus_paths` keeps memory for
/// every call for good (libsecret 0.20.5; figures in docs/secret-service.md), while the request
/// is just this one. No schema is added: the caller puts xdg:schema in the attributes when it
/// wants only its own items.
#define SEARCH_REPLY ((const void *)"(ao)")
static const char COLLECTION_INTERFACE[] = "org.freedesktop.Secret.Collection";
static void *attribute_dictionary(const char *const *keys, const char *const *values, size_t count);

/// The arguments of SearchItems: the attributes, as a floating (a{ss}); NULL when out of memory.
static void *search_arguments(const char *const *keys, const char *const *values, size_t count) {
    void *attributes = attribute_dictionary(keys, values, count);
    return attributes != NULL ? p_g_variant_new_tuple(&attributes, 1) : NULL;
}

/// The paths in an `ao` value, NULL-terminated and freed with g_strfreev; NULL when out of
/// memory. The value is not consumed.
static char **paths_in(void *found) {
    size_t count = p_g_variant_n_children(found);
    char **paths = p_g_malloc0((count + 1) * sizeof(char *));
    for (size_t index = 0; paths != NULL && index < count; index++) {
        void *path = p_g_variant_get_child_value(found, index);
        paths[index] = p_g_strdup(p_g_variant_get_string(path, NULL));
        p_g_variant_unref(path);
    }
    return paths;
}

/// The paths of a SearchItems reply, as paths_in. The reply is not consumed.
static char **paths_of(void *reply) {
    void *found = p_g_variant_get_child_value(reply, 0);
    char **paths = paths_in(found);
    p_g_variant_unref(found);
    return paths;
}

char **csecretservice_collection_search(void *service, const char *collection_path, const char *const *keys,
                                        const char *const *values, size_t count, int timeout_ms, void *cancellable,
                                        CSecretServiceError *error) {
    take_error(NULL, error);
    void *arguments = search_arguments(keys, values, count);
    if (arguments == NULL) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while passing attributes to libsecret.");
        return NULL;
    }
    void *reply = call_provider(service, collection_path, COLLECTION_INTERFACE, "SearchItems", arguments, SEARCH_REPLY,
                                timeout_ms, cancellable, error);
    if (reply == NULL) return NULL;
    char **paths = paths_of(reply);
    p_g_variant_unref(reply);
    if (paths == NULL) set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while reading a search's result.");
    return paths;
}

/// The arguments of Properties.Get(Collection.Items), floating: the call consumes them.
static void *items_property_arguments(void) {
    return p_g_variant_new_tuple((void *[]){p_g_variant_new_string(COLLECTION_INTERFACE),
                                            p_g_variant_new_string("Items")}, 2);
}

char **csecretservice_collection_items(void *service, const char *collection_path, int timeout_ms, void *cancellable,
                                       CSecretServiceError *error) {
    take_error(NULL, error);
    void *reply = call_provider(service, collection_path, PROPERTIES_INTERFACE, "Get", items_property_arguments(),
                                "(v)", timeout_ms, cancellable, error);
    if (reply == NULL) return NULL;
    void *boxed = p_g_variant_get_child_value(reply, 0);
    void *value = p_g_variant_get_variant(boxed);
    char **paths = NULL;
    if (!p_g_variant_is_of_type(value, "ao")) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider answered the Items property with no list of object paths.");
    } else if ((paths = paths_in(value)) == NULL) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while reading a collection's items.");
    }
    p_g_variant_unref(value);
    p_g_variant_unref(boxed);
    p_g_variant_unref(reply);
    return paths;
}

// --- Items, by object path ---------------------------------------------------------------------
//
// Items are addressed by their D-Bus path and never wrapped in SecretItem proxies: making a
// proxy costs a round trip that loads every property plus signal subscriptions on the bus, and
// its cached properties would be stale between jobs anyway. Each call below is one round trip
// to the provider.

static const char ITEM_INTERFACE[] = "org.freedesktop.Secret.Item";
static const char SERVICE_INTERFACE[] = "org.freedesktop.Secret.Service";
static const char SERVICE_PATH[] = "/org/freedesktop/secrets";

/// The type of GetSecrets' reply, which GDBus checks (a GVariantType is its type string).
#define GET_SECRETS_REPLY ((const void *)"(a{o(oayays)})")

// --- The transfer session ---------------------------------------------------------------------
//
// The library opens the encrypted session itself (TransferSession.h) instead of letting libsecret
// open one (SECRET_SERVICE_OPEN_SESSION): its private exponent is a quarter of libsecret's, which
// was most of a one-shot process's own work, and its keys are those every provider reads alike.
// Secrets cross the bus only encrypted, as before.

static const char TRANSFER_ALGORITHM[] = "dh-ietf1024-sha256-aes128-cbc-pkcs7";
static const char TRANSFER_SESSION_DATA[] = "linux-keychain-transfer-session";

/// A service's transfer session, kept on the service (its connection) and freed with it. It is
/// asked for when the connection opens and its answer taken at its first use
/// (`transfer_session_ready`), so that the provider's key exchange overlaps the requests sent
/// meanwhile.
typedef struct TransferSessionState {
    char path[256];
    unsigned char key[TRANSFER_KEY_SIZE];
    TransferKeyPair *pair;  // until the answer
    int answered;           // OpenSession's answer, or its failure, has arrived
    int result;             // 0 ready; 1 ask again (a secret providers disagree on); -1 `failure`
    CSecretServiceError failure;
    void *cancellable;      // the request's own: a call waiting for the answer cancels it at its deadline
} TransferSessionState;

static void transfer_session_state_free(void *data) {
    TransferSessionState *state = data;
    transfer_key_pair_free(state->pair);
    if (state->cancellable != NULL) p_g_object_unref(state->cancellable);
    explicit_bzero(state, sizeof *state);
    free(state);
}

/// A floating `ay` of the bytes.
static void *byte_array(const unsigned char *bytes, size_t length) {
    return p_g_variant_new_fixed_array("y", bytes, length, 1);
}

static void on_session_opened(void *connection, void *result, void *user_data) {
    TransferSessionState *state = user_data;
    GError *failure = NULL;
    void *reply = p_g_dbus_connection_call_finish(connection, result, &failure);
    state->answered = 1;
    state->result = -1;
    if (reply == NULL) {
        take_error(failure, &state->failure);
    } else {
        void *output_box = p_g_variant_get_child_value(reply, 0);
        void *output = p_g_variant_get_variant(output_box);
        void *path = p_g_variant_get_child_value(reply, 1);
        snprintf(state->path, sizeof state->path, "%s", p_g_variant_get_string(path, NULL));
        if (p_g_variant_is_of_type(output, "ay")) {
            size_t length = 0;
            const unsigned char *peer = p_g_variant_get_fixed_array(output, &length, 1);
            state->result = transfer_key_pair_derive(state->pair, peer, length, state->key);
        }
        if (state->result < 0) {
            set_error(&state->failure, CSECRETSERVICE_ERROR_OTHER,
                      "The provider answered OpenSession with a public key that is not valid.");
        }
        p_g_variant_unref(path);
        p_g_variant_unref(output);
        p_g_variant_unref(output_box);
        p_g_variant_unref(reply);
    }
    transfer_key_pair_free(state->pair);
    state->pair = NULL;
}

/// Sends OpenSession with a new key pair to `destination`, without waiting; the answer is taken
/// on the libsecret thread's own context (`signal_context`). The pair is `job`'s, which this
/// finishes, or when `job` is NULL one made here. The request has a cancellable of its own, not
/// the call's: it outlives the call that sent it. The new session replaces the service's earlier
/// one, which must have been answered. 0, or -1 with `error`.
static int transfer_session_request(void *service, const char *destination, int timeout_ms, TransferKeyPairJob *job,
                                    CSecretServiceError *error) {
    TransferSessionState *state = calloc(1, sizeof *state);
    unsigned char public_key[TRANSFER_PUBLIC_KEY_SIZE];
    TransferKeyPair *pair = job != NULL ? transfer_key_pair_finish(job, public_key) : transfer_key_pair_new(public_key);
    if (state != NULL) state->pair = pair;
    if (state == NULL || state->pair == NULL) {
        transfer_key_pair_free(pair);
        free(state);
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while opening the transfer session.");
        return -1;
    }
    void *arguments[2] = {p_g_variant_new_string(TRANSFER_ALGORITHM),
                          p_g_variant_new_variant(byte_array(public_key, sizeof public_key))};
    // The data holds the state until the connection goes; the pending call holds the connection.
    state->cancellable = p_g_cancellable_new();
    p_g_object_set_data_full(service, TRANSFER_SESSION_DATA, state, transfer_session_state_free);
    p_g_main_context_push_thread_default(signal_context);
    p_g_dbus_connection_call(service, destination, SERVICE_PATH, SERVICE_INTERFACE, "OpenSession",
                             p_g_variant_new_tuple(arguments, 2), "(vo)",
                             destination[0] == ':' ? DBUS_CALL_FLAGS_NO_AUTO_START : DBUS_CALL_FLAGS_NONE, timeout_ms,
                             state->cancellable, on_session_opened, state);
    p_g_main_context_pop_thread_default(signal_context);
    take_error(NULL, error);
    return 0;
}

static int on_waiter_cancelled(void *cancellable, void *request_cancellable) {
    p_g_cancellable_cancel(request_cancellable);
    return 0;  // G_SOURCE_REMOVE
}

/// Waits for the answer to the service's latest OpenSession; when `cancellable` (the waiting
/// call's) fires first, the request is cancelled, which answers it at once, as a failure.
static TransferSessionState *transfer_session_answered(void *service, void *cancellable) {
    TransferSessionState *state = p_g_object_get_data(service, TRANSFER_SESSION_DATA);
    if (state == NULL || state->answered) return state;
    void *source = cancellable != NULL ? p_g_cancellable_source_new(cancellable) : NULL;
    if (source != NULL) {
        p_g_source_set_callback(source, (GSourceFunc)(void (*)(void))on_waiter_cancelled, state->cancellable, NULL);
        p_g_source_attach(source, signal_context);
    }
    // Ends: the request has a timeout.
    while (!state->answered) p_g_main_context_iteration(signal_context, 1);
    if (source != NULL) {
        p_g_source_destroy(source);
        p_g_source_unref(source);
    }
    return state;
}

void csecretservice_service_close(void *service) {
    if (service == NULL) return;
    // Here, on the libsecret thread: the connection's last reference may go on GDBus's worker
    // thread, and what this library keeps on it must not be freed there.
    TransferSessionState *state = p_g_object_get_data(service, TRANSFER_SESSION_DATA);
    if (state != NULL && !state->answered) {
        p_g_cancellable_cancel(state->cancellable);
        transfer_session_answered(service, NULL);
    }
    p_g_object_set_data_full(service, TRANSFER_SESSION_DATA, NULL, NULL);
    p_g_object_set_data_full(service, PROVIDER_DATA, NULL, NULL);
    p_g_object_unref(service);
}

/// The service's transfer session, ready to encrypt and decrypt: the answer to the OpenSession
/// sent when the connection opened, waited for if it has not arrived. A session that failed is
/// dropped after its error is returned, so that the next call asks for another (one cancelled
/// with the call that opened the connection, say), as is one whose secret providers disagree on
/// (one in 256), at once. NULL with `error`.
static const TransferSessionState *transfer_session_ready(void *service, int timeout_ms, void *cancellable,
                                                          CSecretServiceError *error) {
    // Four sessions in a row whose secret starts with a zero byte are one in four billion.
    int disagreements = 0;
    while (disagreements < 4) {
        TransferSessionState *state = transfer_session_answered(service, cancellable);
        if (state == NULL) {
            // None asked for since the last one was dropped: ask now (the loop then waits for it).
            char *owner = provider_owner(service, error);
            if (owner == NULL) return NULL;
            int sent = transfer_session_request(service, owner, timeout_ms, NULL, error);
            p_g_free(owner);
            if (sent != 0) return NULL;
            continue;
        }
        if (state->result == 0) return state;
        if (state->result < 0) {
            *error = state->failure;
            p_g_object_set_data_full(service, TRANSFER_SESSION_DATA, NULL, NULL);
            return NULL;
        }
        CSecretServiceError ignored;
        void *closed = call_provider(service, state->path, "org.freedesktop.Secret.Session", "Close",
                                     p_g_variant_new_tuple(NULL, 0), NULL, timeout_ms, cancellable, &ignored);
        if (closed != NULL) p_g_variant_unref(closed);
        p_g_object_set_data_full(service, TRANSFER_SESSION_DATA, NULL, NULL);
        disagreements++;
    }
    set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider's transfer sessions kept failing.");
    return NULL;
}

/// `secret` encrypted for the service's transfer session, as a floating (oayays) whose content
/// type is secret_value's; NULL with `error` when there is no session or no memory.
static void *encoded_secret(void *service, const unsigned char *secret, size_t length, int text_keeps_nul,
                            int timeout_ms, void *cancellable, CSecretServiceError *error) {
    const TransferSessionState *session = transfer_session_ready(service, timeout_ms, cancellable, error);
    if (session == NULL) return NULL;
    unsigned char iv[TRANSFER_IV_SIZE];
    size_t cipher_length = 0;
    unsigned char *cipher = transfer_encrypt(session->key, secret, length, iv, &cipher_length);
    if (cipher == NULL) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while encrypting the secret.");
        return NULL;
    }
    const char *type = is_plain_text(secret, length, text_keeps_nul) ? "text/plain" : "application/octet-stream";
    void *fields[4] = {p_g_variant_new_object_path(session->path), byte_array(iv, sizeof iv),
                       byte_array(cipher, cipher_length), p_g_variant_new_string(type)};
    free(cipher);
    return p_g_variant_new_tuple(fields, 4);
}

/// The secret in a (oayays) from the provider, decrypted into a SecretValue (libsecret's
/// non-pageable memory); NULL when it is not for our session or does not decrypt.
static void *decoded_secret(void *service, void *encoded) {
    const TransferSessionState *session = p_g_object_get_data(service, TRANSFER_SESSION_DATA);
    if (session != NULL && session->result != 0) session = NULL;
    if (session == NULL || !p_g_variant_is_of_type(encoded, "(oayays)")) return NULL;
    void *fields[4];
    for (size_t index = 0; index < 4; index++) fields[index] = p_g_variant_get_child_value(encoded, index);
    void *value = NULL;
    size_t iv_length = 0, cipher_length = 0, plain_length = 0;
    const unsigned char *iv = p_g_variant_get_fixed_array(fields[1], &iv_length, 1);
    const unsigned char *cipher = p_g_variant_get_fixed_array(fields[2], &cipher_length, 1);
    unsigned char *plain = strcmp(p_g_variant_get_string(fields[0], NULL), session->path) == 0
        ? transfer_decrypt(session->key, iv, iv_length, cipher, cipher_length, &plain_length) : NULL;
    if (plain != NULL) {
        static const char empty[1] = {0};
        value = p_secret_value_new(plain_length > 0 ? (const char *)plain : empty, (long)plain_length,
                                   p_g_variant_get_string(fields[3], NULL));
        explicit_bzero(plain, plain_length);
        free(plain);
    }
    for (size_t index = 0; index < 4; index++) p_g_variant_unref(fields[index]);
    return value;
}

/// The arguments of Service.GetSecrets for the `count` items at `paths`: their paths and the
/// transfer session. Floating; NULL with `error` when there is no session or no memory.
///
/// The library sends GetSecrets itself instead of calling
/// `secret_service_get_secrets_for_dbus_paths`: that call keeps memory for every call for as
/// long as the process lives (libsecret 0.20.5; figures in docs/secret-service.md), which a
/// long-lived process reading secrets cannot afford.

static void *get_secrets_arguments(void *service, const char *const *paths, size_t count, int timeout_ms,
                                   void *cancellable, CSecretServiceError *error) {
    const TransferSessionState *session = transfer_session_ready(service, timeout_ms, cancellable, error);
    if (session == NULL) return NULL;
    void **children = calloc(count > 0 ? count : 1, sizeof(void *));
    if (children == NULL) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while reading secrets.");
        return NULL;
    }
    for (size_t index = 0; index < count; index++) children[index] = p_g_variant_new_object_path(paths[index]);
    void *arguments[2] = {p_g_variant_new_array("o", children, count), p_g_variant_new_object_path(session->path)};
    free(children);
    return p_g_variant_new_tuple(arguments, 2);
}

/// Fills `values[i]` with the decoded secret of `paths[i]` found in a GetSecrets reply
/// (a{o(oayays)}), leaving NULL where the reply holds none. The reply is not consumed.
/// Decodes GetSecrets' `reply` into `values` (see csecretservice_secrets_load). Returns how many
/// of the secrets handed out could not be decoded with the transfer session.
static size_t take_secrets(void *service, void *reply, const char *const *paths, void **values, size_t count) {
    size_t undecodable = 0;
    void *secrets = p_g_variant_get_child_value(reply, 0);
    size_t found = p_g_variant_n_children(secrets);
    for (size_t entry = 0; entry < found; entry++) {
        void *pair = p_g_variant_get_child_value(secrets, entry);
        void *path = p_g_variant_get_child_value(pair, 0);
        const char *name = p_g_variant_get_string(path, NULL);
        for (size_t index = 0; index < count; index++) {
            if (values[index] != NULL || strcmp(paths[index], name) != 0) continue;
            void *encoded = p_g_variant_get_child_value(pair, 1);
            values[index] = decoded_secret(service, encoded);
            if (values[index] == NULL) undecodable++;
            p_g_variant_unref(encoded);
            break;
        }
        p_g_variant_unref(path);
        p_g_variant_unref(pair);
    }
    p_g_variant_unref(secrets);
    return undecodable;
}

static const char UNDECRYPTABLE_MESSAGE[] =
    "The provider sent a secret that the transfer session cannot decrypt: its session key differs from ours.";

/// The unique bus name (":1.42") of the provider the service connection was opened to, or NULL
/// with `error` (DISCONNECTED) when it is unknown. Calls go to this name, never to
/// org.freedesktop.secrets: a unique name dies with its owner and cannot be activated, so a
/// provider that went away is an error, not a silent switch to whatever D-Bus starts instead.
/// It is the owner seen when the connection was opened. Free with g_free.
static char *provider_owner(void *service, CSecretServiceError *error) {
    const char *owner = p_g_object_get_data(service, PROVIDER_DATA);
    if (owner == NULL) set_error(error, CSECRETSERVICE_ERROR_DISCONNECTED, "The Secret Service provider left the bus.");
    return owner != NULL ? p_g_strdup(owner) : NULL;
}

/// Calls `method` of `interface` on the provider's object `path` over the service's connection.
/// `parameters` may be floating (it is consumed); `reply_type`, when given, is the type GDBus
/// checks the reply against. The reply, or NULL with `error` filled.
static void *call_provider(void *service, const char *path, const char *interface, const char *method,
                           void *parameters, const void *reply_type, int timeout_ms, void *cancellable,
                           CSecretServiceError *error) {
    char *owner = provider_owner(service, error);
    if (owner == NULL) {
        p_g_variant_unref(p_g_variant_ref_sink(parameters));
        return NULL;
    }
    GError *failure = NULL;
    void *reply = p_g_dbus_connection_call_sync(service, owner, path, interface, method,
                                                parameters, reply_type, DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms,
                                                cancellable, &failure);
    p_g_free(owner);
    int reported = failure != NULL;
    take_error(failure, error);
    if (reply == NULL && !reported) set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider gave no answer.");
    return reply;
}

/// A floating a{ss} of the pairs.
static void *attribute_dictionary(const char *const *keys, const char *const *values, size_t count) {
    void **entries = calloc(count > 0 ? count : 1, sizeof(void *));
    if (entries == NULL) return NULL;
    for (size_t index = 0; index < count; index++) {
        entries[index] = p_g_variant_new_dict_entry(p_g_variant_new_string(keys[index]),
                                                    p_g_variant_new_string(values[index]));
    }
    // A GVariantType is its type string (G_VARIANT_TYPE is a cast); needed when count is 0.
    void *dictionary = p_g_variant_new_array("{ss}", entries, count);
    free(entries);
    return dictionary;
}

/// Copies an a{ss} into `out`; 0, or -1 when out of memory.
static int copy_attributes(void *dictionary, CSecretServiceStrings *out) {
    size_t size = p_g_variant_n_children(dictionary);
    out->keys = calloc(size + 1, sizeof(char *));
    out->values = calloc(size + 1, sizeof(char *));
    if (out->keys == NULL || out->values == NULL) return -1;
    for (size_t index = 0; index < size; index++) {
        const char *key = NULL, *value = NULL;
        p_g_variant_get_child(dictionary, index, "{&s&s}", &key, &value);
        out->keys[out->count] = strdup(key);
        out->values[out->count] = strdup(value);
        if (out->keys[out->count] == NULL || out->values[out->count] == NULL) {
            out->count++;  // so the free below releases the one that was copied
            return -1;
        }
        out->count++;
    }
    return 0;
}

/// Fills `out` from a GetAll reply of an item. 0, or -1 with `error` set (and `out` freed).
static int parse_item(void *reply, CSecretServiceItem *out, CSecretServiceError *error) {
    void *properties = p_g_variant_get_child_value(reply, 0);
    void *attributes = p_g_variant_lookup_value(properties, "Attributes", "a{ss}");
    void *label = p_g_variant_lookup_value(properties, "Label", "s");
    void *locked = p_g_variant_lookup_value(properties, "Locked", "b");
    int result = 0;
    if (attributes == NULL || label == NULL || locked == NULL) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider's item lacks the Attributes, Label or Locked property.");
        result = -1;
    } else {
        out->exists = 1;
        out->locked = p_g_variant_get_boolean(locked) ? 1 : 0;
        out->label = strdup(p_g_variant_get_string(label, NULL));
        if (out->label == NULL || copy_attributes(attributes, &out->attributes) != 0) {
            set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while copying an item's properties.");
            result = -1;
        }
    }
    if (attributes != NULL) p_g_variant_unref(attributes);
    if (label != NULL) p_g_variant_unref(label);
    if (locked != NULL) p_g_variant_unref(locked);
    p_g_variant_unref(properties);
    if (result != 0) csecretservice_item_free(out);
    return result;
}

/// Fills `out` from a Properties.Get(Attributes) reply of an item, leaving its label NULL and
/// `locked` 0. 0, or -1 with `error` set (and `out` freed).
static int parse_item_attributes(void *reply, CSecretServiceItem *out, CSecretServiceError *error) {
    void *boxed = p_g_variant_get_child_value(reply, 0);
    void *attributes = p_g_variant_get_variant(boxed);
    int result = 0;
    if (!p_g_variant_is_of_type(attributes, "a{ss}")) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider answered an item's Attributes with another type.");
        result = -1;
    } else {
        out->exists = 1;
        if (copy_attributes(attributes, &out->attributes) != 0) {
            set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while copying an item's attributes.");
            result = -1;
        }
    }
    p_g_variant_unref(attributes);
    p_g_variant_unref(boxed);
    if (result != 0) csecretservice_item_free(out);
    return result;
}

/// The requests of one csecretservice_items_read, answered on the thread-default main context.
typedef struct ItemsRead {
    const char *const *paths;
    /// The service connection, whose transfer session decrypts the secrets.
    void *service;
    CSecretServiceItemRead what;
    CSecretServiceItem *items;
    struct PropertiesRequest *requests;
    size_t count;
    int pending;
    int failed;
    CSecretServiceError failure;  // the first one
} ItemsRead;

typedef struct PropertiesRequest { ItemsRead *read; CSecretServiceItem *item; } PropertiesRequest;

/// Records `failure` (freed here) unless an earlier one was recorded.
static void items_read_fail(ItemsRead *read, GError *failure) {
    if (read->failed) {
        p_g_error_free(failure);
        return;
    }
    read->failed = 1;
    take_error(failure, &read->failure);
}

static void on_item_properties(void *connection, void *result, void *user_data) {
    PropertiesRequest *request = user_data;
    ItemsRead *read = request->read;
    GError *failure = NULL;
    void *reply = p_g_dbus_connection_call_finish(connection, result, &failure);
    if (reply != NULL) {
        CSecretServiceError error;
        int parsed = read->what == CSECRETSERVICE_READ_ATTRIBUTES_AND_SECRETS
            ? parse_item_attributes(reply, request->item, &error)
            : parse_item(reply, request->item, &error);
        if (parsed != 0 && !read->failed) {
            read->failed = 1;
            read->failure = error;
        }
        p_g_variant_unref(reply);
    } else if (classify(failure) == CSECRETSERVICE_ERROR_NO_SUCH_OBJECT) {
        p_g_error_free(failure);  // deleted since the search: `exists` stays 0
    } else {
        items_read_fail(read, failure);
    }
    read->pending--;
}

static void on_item_secrets(void *connection, void *result, void *user_data) {
    ItemsRead *read = user_data;
    GError *failure = NULL;
    void *reply = p_g_dbus_connection_call_finish(connection, result, &failure);
    if (reply != NULL) {
        void **values = calloc(read->count, sizeof(void *));
        if (values != NULL) {
            size_t undecodable = take_secrets(read->service, reply, read->paths, values, read->count);
            for (size_t index = 0; index < read->count; index++) read->items[index].secret = values[index];
            free(values);
            if (undecodable > 0 && !read->failed) {
                read->failed = 1;
                set_error(&read->failure, CSECRETSERVICE_ERROR_UNDECRYPTABLE, UNDECRYPTABLE_MESSAGE);
            }
        } else if (!read->failed) {
            read->failed = 1;
            set_error(&read->failure, CSECRETSERVICE_ERROR_OTHER, "Out of memory while reading secrets.");
        }
        p_g_variant_unref(reply);
    } else if (failure != NULL) {
        CSecretServiceError error;
        take_error(failure, &error);
        // An item deleted since the search may fail the whole call; the items then come
        // without secrets, and the caller asks again for those that still exist.
        if (!names_vanished_item(&error) && !read->failed) {
            read->failed = 1;
            read->failure = error;
        }
    }
    read->pending--;
}

/// Sets up `read` for the `count` (at least 1) items at `paths`, zeroing `items`.
/// 0, or -1 with `error` set when out of memory (nothing is then held).
static int items_read_prepare(ItemsRead *read, const char *const *paths, size_t count, CSecretServiceItemRead what,
                              CSecretServiceItem *items, CSecretServiceError *error) {
    memset(items, 0, count * sizeof *items);
    *read = (ItemsRead){.paths = paths, .what = what, .items = items, .count = count};
    read->requests = calloc(count, sizeof *read->requests);
    if (read->requests == NULL) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while reading items.");
        return -1;
    }
    return 0;
}

/// Sends every request of `read` to the provider's unique bus name `name`, all at once. The
/// replies arrive on the thread-default main context, each counted off `read->pending`; `read`
/// must stay where it is until that is 0.
static void items_read_send(ItemsRead *read, void *service, const char *name, int timeout_ms, void *cancellable) {
    void *connection = service;
    for (size_t index = 0; index < read->count; index++) {
        read->requests[index] = (PropertiesRequest){read, &read->items[index]};
        read->pending++;
        // gnome-keyring works longer on a GetAll than on a Get, the more so the more items the
        // collection holds: ask for the attributes alone when nothing else is needed.
        int attributes_only = read->what == CSECRETSERVICE_READ_ATTRIBUTES_AND_SECRETS;
        void *arguments = attributes_only
            ? p_g_variant_new_tuple((void *[]){p_g_variant_new_string(ITEM_INTERFACE),
                                               p_g_variant_new_string("Attributes")}, 2)
            : p_g_variant_new_tuple((void *[]){p_g_variant_new_string(ITEM_INTERFACE)}, 1);
        p_g_dbus_connection_call(connection, name, read->paths[index], PROPERTIES_INTERFACE,
                                 attributes_only ? "Get" : "GetAll", arguments, NULL, DBUS_CALL_FLAGS_NO_AUTO_START,
                                 timeout_ms, cancellable, on_item_properties, &read->requests[index]);
    }
    if (read->what != CSECRETSERVICE_READ_PROPERTIES) {
        read->service = service;
        CSecretServiceError failure;
        void *arguments = get_secrets_arguments(service, read->paths, read->count, timeout_ms, cancellable, &failure);
        if (arguments == NULL) {
            if (!read->failed) {
                read->failed = 1;
                read->failure = failure;
            }
            return;
        }
        read->pending++;
        p_g_dbus_connection_call(connection, name, SERVICE_PATH, SERVICE_INTERFACE, "GetSecrets", arguments,
                                 GET_SECRETS_REPLY, DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms, cancellable,
                                 on_item_secrets, read);
    }
}

/// Ends a read whose replies have all arrived: 0, or -1 with its first error in `error`, the
/// items then freed already.
static int items_read_finish(ItemsRead *read, CSecretServiceError *error) {
    free(read->requests);
    if (!read->failed) return 0;
    for (size_t index = 0; index < read->count; index++) csecretservice_item_free(&read->items[index]);
    if (error != NULL) *error = read->failure;
    return -1;
}

int csecretservice_items_read(void *service, const char *const *paths, size_t count, CSecretServiceItemRead what,
                              int timeout_ms, void *cancellable, CSecretServiceItem *items,
                              CSecretServiceError *error) {
    memset(items, 0, count * sizeof *items);
    take_error(NULL, error);
    if (count == 0) return 0;
    char *name = provider_owner(service, error);
    if (name == NULL) return -1;
    ItemsRead read;
    if (items_read_prepare(&read, paths, count, what, items, error) != 0) {
        p_g_free(name);
        return -1;
    }
    // The replies are dispatched on a context of our own, iterated only here, so nothing else
    // runs meanwhile and nothing is left queued afterwards.
    void *context = p_g_main_context_new();
    p_g_main_context_push_thread_default(context);
    items_read_send(&read, service, name, timeout_ms, cancellable);
    // Ends: every call has a timeout, and cancelling the cancellable ends them at once.
    while (read.pending > 0) p_g_main_context_iteration(context, 1);
    p_g_main_context_pop_thread_default(context);
    p_g_main_context_unref(context);
    p_g_free(name);
    return items_read_finish(&read, error);
}

/// The answer to an asynchronous SearchItems.
typedef struct SearchReply {
    int arrived;
    char **paths;
    GError *failure;
} SearchReply;

static void on_search(void *connection, void *result, void *user_data) {
    SearchReply *reply = user_data;
    void *answer = p_g_dbus_connection_call_finish(connection, result, &reply->failure);
    if (answer != NULL) {
        reply->paths = paths_of(answer);
        p_g_variant_unref(answer);
    }
    reply->arrived = 1;
}

/// Whether `paths` is exactly one path, `path`.
static int is_only(char *const *paths, const char *path) {
    return paths[0] != NULL && paths[1] == NULL && strcmp(paths[0], path) == 0;
}

/// The answer to an asynchronous Properties.Get(Locked) of the collection.
typedef struct LockedReply {
    int arrived;
    int locked;  // 1 or 0, -1 when it could not be read
    GError *failure;  // why it could not be read, if the provider said; the caller frees it
} LockedReply;

static void on_locked(void *connection, void *result, void *user_data) {
    LockedReply *reply = user_data;
    GError *failure = NULL;
    void *answer = p_g_dbus_connection_call_finish(connection, result, &failure);
    CSecretServiceError ignored;
    reply->locked = answer != NULL ? parse_locked(answer, &ignored) : -1;
    reply->failure = failure;
    reply->arrived = 1;
}

/// Sends Properties.Get(Locked) of the collection at `path` to `name`, answered into `reply`.
static void send_locked_read(void *service, const char *name, const char *path, int timeout_ms, void *cancellable,
                             LockedReply *reply) {
    reply->arrived = 0;
    p_g_dbus_connection_call(service, name, path,
                             PROPERTIES_INTERFACE, "Get", locked_property_arguments(), "(v)",
                             DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms, cancellable, on_locked, reply);
}

char **csecretservice_collection_search_ahead(void *service, const char *collection_path, const char *const *keys,
                                              const char *const *values, size_t count, const char *guessed_path,
                                              CSecretServiceItemRead what, int timeout_ms, void *cancellable,
                                              CSecretServiceItem *item, int *locked, CSecretServiceError *error) {
    memset(item, 0, sizeof *item);
    *locked = -1;
    take_error(NULL, error);
    char *name = provider_owner(service, error);
    if (name == NULL) return NULL;
    // The read is only a guess: when it cannot even be set up, the search alone goes out.
    ItemsRead read;
    CSecretServiceError read_error;
    int reading = guessed_path != NULL && items_read_prepare(&read, &guessed_path, 1, what, item, &read_error) == 0;
    LockedReply lock_state = {.arrived = 1, .locked = -1, .failure = NULL};
    void *arguments = search_arguments(keys, values, count);
    if (arguments == NULL) {
        if (reading) items_read_finish(&read, NULL);
        p_g_free(name);
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while passing attributes to libsecret.");
        return NULL;
    }
    SearchReply search = {0};
    void *context = p_g_main_context_new();
    p_g_main_context_push_thread_default(context);
    // The search is sent first, on the same connection as the rest: the bus delivers one
    // connection's messages in order, so the provider handles the others after the search.
    p_g_dbus_connection_call(service, name, collection_path,
                             COLLECTION_INTERFACE, "SearchItems", arguments, SEARCH_REPLY, DBUS_CALL_FLAGS_NO_AUTO_START,
                             timeout_ms, cancellable, on_search, &search);
    if (reading) {
        items_read_send(&read, service, name, timeout_ms, cancellable);
    } else if (guessed_path == NULL) {
        send_locked_read(service, name, collection_path, timeout_ms, cancellable, &lock_state);
    }
    // While the provider answers: the transfer session's answer, if it came, with its key
    // derivation, which a GetSecrets after this search would otherwise wait for.
    csecretservice_signals_dispatch();
    // Ends: every call has a timeout, and cancelling the cancellable ends them at once.
    while (!search.arrived || !lock_state.arrived || (reading && read.pending > 0)) p_g_main_context_iteration(context, 1);
    p_g_main_context_pop_thread_default(context);
    p_g_main_context_unref(context);
    p_g_free(name);
    // A failed read frees the item; a read the search does not confirm is dropped here, its
    // secret released with libsecret's wiping free.
    int confirmed = reading && items_read_finish(&read, &read_error) == 0 && item->exists && search.paths != NULL
        && is_only(search.paths, guessed_path);
    if (!confirmed) csecretservice_item_free(item);
    *locked = lock_state.locked;
    // A lock state that could not be read is no error here: the caller asks again and reports that.
    if (lock_state.failure != NULL) p_g_error_free(lock_state.failure);
    int reported = search.failure != NULL;
    take_error(search.failure, error);
    if (search.paths == NULL && !reported) set_error(error, CSECRETSERVICE_ERROR_OTHER, "The search returned no result list.");
    return search.paths;
}

/// The answer to an asynchronous Service.ReadAlias.
typedef struct AliasReply {
    int arrived;
    char *path;  // g_free; "/" when the alias names nothing
    GError *failure;
} AliasReply;

static void on_alias(void *connection, void *result, void *user_data) {
    AliasReply *reply = user_data;
    void *answer = p_g_dbus_connection_call_finish(connection, result, &reply->failure);
    if (answer != NULL) {
        const char *path = NULL;
        p_g_variant_get_child(answer, 0, "&o", &path);
        reply->path = p_g_strdup(path != NULL ? path : "/");
        p_g_variant_unref(answer);
    }
    reply->arrived = 1;
}

/// The answer to an asynchronous GetConnectionUnixProcessID; 0 when the bus did not say.
typedef struct ProcessReply {
    int arrived;
    uint32_t pid;
} ProcessReply;

static void on_process(void *connection, void *result, void *user_data) {
    ProcessReply *reply = user_data;
    GError *failure = NULL;
    void *answer = p_g_dbus_connection_call_finish(connection, result, &failure);
    if (answer != NULL) {
        // GDBus checked the reply's type, "(u)".
        p_g_variant_get_child(answer, 0, "u", &reply->pid);
        p_g_variant_unref(answer);
    }
    // The process id only names the provider; the bus name is enough.
    if (failure != NULL) p_g_error_free(failure);
    reply->arrived = 1;
}

/// Whether `alias` can be the last element of an object path ([A-Za-z0-9_]+), so that
/// /org/freedesktop/secrets/aliases/ALIAS may be asked; any other alias is still resolved
/// with ReadAlias, and its lock state asked on the path that names.
static int is_path_element(const char *alias) {
    if (alias[0] == 0) return 0;
    for (const char *c = alias; *c != 0; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    }
    return 1;
}

/// Copies `found` into `path`: 1, or -1 with `error` when it does not fit.
static int copy_path(const char *found, char *path, size_t path_size, CSecretServiceError *error) {
    if ((size_t)snprintf(path, path_size, "%s", found) < path_size) return 1;
    path[0] = 0;
    set_error(error, CSECRETSERVICE_ERROR_OTHER, "The collection's object path is too long.");
    return -1;
}

/// Whether `failure`, the answer to Properties.Get(Collection.Locked) of a path, says that the
/// object there is no collection (it has no such interface or property: gnome-keyring answers
/// InvalidArgs, KeePassXC UnknownInterface), as libsecret's proxy said "No such secret
/// collection" for it.
static int names_no_collection(const GError *failure) {
    return failure->domain == p_g_dbus_error_quark()
        && (failure->code == DBUS_ERROR_INVALID_ARGS || failure->code == DBUS_ERROR_UNKNOWN_INTERFACE
            || failure->code == DBUS_ERROR_UNKNOWN_PROPERTY);
}

int csecretservice_collection_look_up(void *service, const char *name, int name_is_path, int want_locked,
                                      int want_process_id, int timeout_ms, void *cancellable, char *path,
                                      size_t path_size, uint32_t *pid, int *locked, CSecretServiceError *error) {
    path[0] = 0;
    *pid = 0;
    *locked = -1;
    take_error(NULL, error);
    char *owner = provider_owner(service, error);
    if (owner == NULL) return -1;
    // A path GDBus would refuse (it checks the form before sending) names no collection.
    if (name_is_path && !p_g_variant_is_object_path(name)) {
        p_g_free(owner);
        return 0;
    }
    char alias_path[256];
    int ask_alias_lock = !name_is_path && want_locked && is_path_element(name)
        && (size_t)snprintf(alias_path, sizeof alias_path, "/org/freedesktop/secrets/aliases/%s", name) < sizeof alias_path;
    void *connection = service;
    AliasReply alias = {.arrived = 1};
    ProcessReply process = {.arrived = 1};
    LockedReply lock_state = {.arrived = 1, .locked = -1, .failure = NULL};
    void *context = p_g_main_context_new();
    p_g_main_context_push_thread_default(context);
    if (name_is_path) {
        // The lock state doubles as the check that the collection exists.
        send_locked_read(service, owner, name, timeout_ms, cancellable, &lock_state);
    } else {
        alias.arrived = 0;
        p_g_dbus_connection_call(connection, owner, SERVICE_PATH, SERVICE_INTERFACE, "ReadAlias",
                                 p_g_variant_new_tuple((void *[]){p_g_variant_new_string(name)}, 1), "(o)",
                                 DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms, cancellable, on_alias, &alias);
        // After ReadAlias on the same connection, so the provider answers it for the collection
        // the alias named when it answered ReadAlias (the specification's alias path).
        if (ask_alias_lock) send_locked_read(service, owner, alias_path, timeout_ms, cancellable, &lock_state);
    }
    // Last: the bus daemon answers at once, the provider takes longer.
    if (want_process_id) {
        process.arrived = 0;
        p_g_dbus_connection_call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                 "GetConnectionUnixProcessID",
                                 bus_name_argument(owner), "(u)",
                                 DBUS_CALL_FLAGS_NONE, timeout_ms, cancellable, on_process, &process);
    }
    // Ends: every call has a timeout, and cancelling the cancellable ends them at once.
    while (!alias.arrived || !process.arrived || !lock_state.arrived) p_g_main_context_iteration(context, 1);
    p_g_main_context_pop_thread_default(context);
    p_g_main_context_unref(context);
    p_g_free(owner);
    *pid = process.pid;
    int result;
    if (name_is_path) {
        result = lock_state.failure == NULL && lock_state.locked >= 0 ? 1 : -1;
        if (result == 1) result = copy_path(name, path, path_size, error);
        else if (lock_state.failure != NULL && names_no_collection(lock_state.failure)) {
            p_g_error_free(lock_state.failure);
            result = 0;  // an object that is no collection: no collection, and no error
        } else if (lock_state.failure != NULL) take_error(lock_state.failure, error);
        else set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider answered the Locked property with a non-boolean.");
        lock_state.failure = NULL;
    } else if (alias.failure != NULL) {
        take_error(alias.failure, error);
        result = -1;
    } else if (alias.path == NULL || strcmp(alias.path, "/") == 0) {
        result = 0;  // no such alias: no collection, and no error
    } else {
        result = copy_path(alias.path, path, path_size, error);
    }
    // A lock state of the alias path that could not be read is no error: the caller asks on the path.
    if (lock_state.failure != NULL) p_g_error_free(lock_state.failure);
    p_g_free(alias.path);
    if (result == 1) *locked = lock_state.locked;
    return result;
}

void csecretservice_item_free(CSecretServiceItem *item) {
    csecretservice_strings_free(&item->attributes);
    free(item->label);
    if (item->secret != NULL) p_secret_value_unref(item->secret);
    memset(item, 0, sizeof *item);
}

void csecretservice_strings_free(CSecretServiceStrings *strings) {
    for (size_t index = 0; index < strings->count; index++) {
        free(strings->keys[index]);
        free(strings->values[index]);
    }
    free(strings->keys);
    free(strings->values);
    memset(strings, 0, sizeof *strings);
}

/// csecretservice_secrets_load asking for each item alone, after a GetSecrets of them all was
/// refused for an item that is gone: that item gets no secret, as gnome-keyring would answer.
static int secrets_load_one_by_one(void *service, const char *const *paths, void **values, size_t count,
                                   int timeout_ms, void *cancellable, CSecretServiceError *error) {
    for (size_t index = 0; index < count; index++) {
        if (count == 1 || csecretservice_secrets_load(service, &paths[index], &values[index], 1, timeout_ms,
                                                      cancellable, error) == 0) continue;
        for (size_t loaded = 0; loaded < index; loaded++) csecretservice_value_unref(values[loaded]);
        memset(values, 0, count * sizeof *values);
        return -1;
    }
    take_error(NULL, error);
    return 0;
}

int csecretservice_secrets_load(void *service, const char *const *paths, void **values, size_t count, int timeout_ms,
                                void *cancellable, CSecretServiceError *error) {
    memset(values, 0, count * sizeof *values);
    take_error(NULL, error);
    if (count == 0) return 0;
    void *arguments = get_secrets_arguments(service, paths, count, timeout_ms, cancellable, error);
    if (arguments == NULL) return -1;
    // One GetSecrets for all paths; libsecret decodes the answers with the transfer session.
    void *reply = call_provider(service, SERVICE_PATH, SERVICE_INTERFACE, "GetSecrets", arguments, GET_SECRETS_REPLY,
                                timeout_ms, cancellable, error);
    if (reply == NULL) return names_vanished_item(error) ? secrets_load_one_by_one(service, paths, values, count,
                                                                                  timeout_ms, cancellable, error) : -1;
    size_t undecodable = take_secrets(service, reply, paths, values, count);
    p_g_variant_unref(reply);
    if (undecodable == 0) return 0;
    for (size_t index = 0; index < count; index++) csecretservice_value_unref(values[index]);
    memset(values, 0, count * sizeof *values);
    set_error(error, CSECRETSERVICE_ERROR_UNDECRYPTABLE, UNDECRYPTABLE_MESSAGE);
    return -1;
}

const unsigned char *csecretservice_value_bytes(void *value, size_t *length) {
    return (const unsigned char *)p_secret_value_get(value, length);
}

void csecretservice_value_unref(void *value) { if (value != NULL) p_secret_value_unref(value); }

/// A floating dictionary entry {sv} of `name` and `value` (floating, consumed).
static void *property_entry(const char *name, void *value) {
    return p_g_variant_new_dict_entry(p_g_variant_new_string(name), p_g_variant_new_variant(value));
}

static const char PROMPT_INTERFACE[] = "org.freedesktop.Secret.Prompt";

/// A prompt being waited for: its Completed signal's values, or the call's cancellation.
typedef struct PromptWait {
    int completed;
    int dismissed;
    int cancelled;
    void *result;  // the inner value of Completed's variant, owned
} PromptWait;

static void on_prompt_completed(void *connection, const char *sender, const char *path, const char *interface,
                                const char *signal, void *parameters, void *user_data) {
    PromptWait *wait = user_data;
    if (wait->completed || !p_g_variant_is_of_type(parameters, "(bv)")) return;
    wait->completed = 1;
    p_g_variant_get_child(parameters, 0, "b", &wait->dismissed);
    void *box = p_g_variant_get_child_value(parameters, 1);
    wait->result = p_g_variant_get_variant(box);
    p_g_variant_unref(box);
}

static int on_prompt_cancelled(void *cancellable, void *user_data) {
    ((PromptWait *)user_data)->cancelled = 1;
    return 0;  // G_SOURCE_REMOVE
}

/// Shows the provider's prompt at `prompt` (Prompt.Prompt) and waits for its Completed signal,
/// or for `cancellable`, which dismisses it. Returns the prompt's result (free with
/// g_variant_unref), or NULL with `error`: dismissed, cancelled, or failed.
static void *run_prompt(void *service, const char *prompt, int timeout_ms, void *cancellable,
                        CSecretServiceError *error) {
    char *owner = provider_owner(service, error);
    if (owner == NULL) return NULL;
    void *context = p_g_main_context_new();
    p_g_main_context_push_thread_default(context);
    PromptWait wait = {0};
    // Subscribed before the prompt is shown, so that its answer cannot come first.
    unsigned int subscription = p_g_dbus_connection_signal_subscribe(service, owner, PROMPT_INTERFACE, "Completed", prompt,
                                                                     NULL, DBUS_SIGNAL_FLAGS_NONE, on_prompt_completed,
                                                                     &wait, NULL);
    void *source = cancellable != NULL ? p_g_cancellable_source_new(cancellable) : NULL;
    if (source != NULL) {
        // A cancellable's source calls back with the cancellable first (GCancellableSourceFunc).
        p_g_source_set_callback(source, (GSourceFunc)(void (*)(void))on_prompt_cancelled, &wait, NULL);
        p_g_source_attach(source, context);
    }
    // No window to attach the prompt to: the empty window id.
    void *shown = call_provider(service, prompt, PROMPT_INTERFACE, "Prompt",
                                p_g_variant_new_tuple((void *[]){p_g_variant_new_string("")}, 1), NULL, timeout_ms,
                                cancellable, error);
    if (shown != NULL) {
        p_g_variant_unref(shown);
        while (!wait.completed && !wait.cancelled) p_g_main_context_iteration(context, 1);
    }
    if (source != NULL) {
        p_g_source_destroy(source);
        p_g_source_unref(source);
    }
    p_g_dbus_connection_signal_unsubscribe(service, subscription);
    while (p_g_main_context_iteration(context, 0)) {}  // nothing left that points at `wait`
    p_g_main_context_pop_thread_default(context);
    p_g_main_context_unref(context);
    p_g_free(owner);
    if (shown == NULL) return NULL;
    if (!wait.completed) {
        CSecretServiceError ignored;
        // The call's time is up: a second at most for the provider to take its prompt down.
        void *dismissed = call_provider(service, prompt, PROMPT_INTERFACE, "Dismiss", p_g_variant_new_tuple(NULL, 0), NULL,
                                        timeout_ms < 1000 ? timeout_ms : 1000, NULL, &ignored);
        if (dismissed != NULL) p_g_variant_unref(dismissed);
        set_error(error, CSECRETSERVICE_ERROR_TIMEOUT, "The provider's prompt was not answered in time.");
        return NULL;
    }
    if (wait.dismissed) {
        if (wait.result != NULL) p_g_variant_unref(wait.result);
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider's prompt was dismissed: nothing was changed.");
        return NULL;
    }
    take_error(NULL, error);
    return wait.result;
}

/// The created item's path in a CreateItem reply (oo), after the prompt it names, if any, was
/// answered. Free with g_free; NULL with `error` when no item came of it.
static char *created_item(void *service, void *reply, int timeout_ms, void *cancellable, CSecretServiceError *error) {
    const char *path = NULL, *prompt = NULL;
    p_g_variant_get_child(reply, 0, "&o", &path);
    p_g_variant_get_child(reply, 1, "&o", &prompt);
    if (strcmp(prompt, "/") == 0) return p_g_strdup(path);
    void *result = run_prompt(service, prompt, timeout_ms, cancellable, error);
    if (result == NULL) return NULL;
    if (!p_g_variant_is_of_type(result, "o")) {
        p_g_variant_unref(result);
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "The provider's prompt did not name the item it created.");
        return NULL;
    }
    char *created = p_g_strdup(p_g_variant_get_string(result, NULL));
    p_g_variant_unref(result);
    return created;
}

int csecretservice_item_create(void *service, const char *collection_path, const char *const *keys,
                               const char *const *values, size_t count, const char *label,
                               const unsigned char *secret, size_t length, int text_keeps_nul, int timeout_ms,
                               void *cancellable, CSecretServiceError *error) {
    void *encoded = encoded_secret(service, secret, length, text_keeps_nul, timeout_ms, cancellable, error);
    if (encoded == NULL) return -1;
    void *attributes = attribute_dictionary(keys, values, count);
    if (attributes == NULL) {
        p_g_variant_unref(p_g_variant_ref_sink(encoded));
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while passing the attributes.");
        return -1;
    }
    void *properties[2] = {property_entry("org.freedesktop.Secret.Item.Attributes", attributes),
                           property_entry("org.freedesktop.Secret.Item.Label", p_g_variant_new_string(label))};
    void *arguments[3] = {p_g_variant_new_array("{sv}", properties, 2), encoded, p_g_variant_new_boolean(0)};
    void *reply = call_provider(service, collection_path, "org.freedesktop.Secret.Collection", "CreateItem",
                                p_g_variant_new_tuple(arguments, 3), "(oo)", timeout_ms, cancellable, error);
    if (reply == NULL) return -1;
    // Only the new item's path comes back: no proxy for an item nobody reads here.
    char *path = created_item(service, reply, timeout_ms, cancellable, error);
    p_g_variant_unref(reply);
    if (path == NULL) return -1;
    p_g_free(path);
    take_error(NULL, error);
    return 0;
}

/// The arguments of Properties.Set of the item property `name` to `value` (which may be
/// floating, and is consumed), as a floating tuple.
static void *item_property_arguments(const char *name, void *value) {
    void *arguments[3] = {p_g_variant_new_string(ITEM_INTERFACE), p_g_variant_new_string(name),
                          p_g_variant_new_variant(value)};
    return p_g_variant_new_tuple(arguments, 3);
}

/// Sets one property of the item at `path` with Properties.Set; `value` may be floating.
static int set_item_property(void *service, const char *path, const char *name, void *value, int timeout_ms,
                             void *cancellable, CSecretServiceError *error) {
    void *reply = call_provider(service, path, PROPERTIES_INTERFACE, "Set", item_property_arguments(name, value), NULL,
                                timeout_ms, cancellable, error);
    if (reply == NULL) return -1;
    p_g_variant_unref(reply);
    return 0;
}

int csecretservice_item_set_secret(void *service, const char *path, const unsigned char *secret, size_t length,
                                   int text_keeps_nul, int timeout_ms, void *cancellable, CSecretServiceError *error) {
    void *encoded = encoded_secret(service, secret, length, text_keeps_nul, timeout_ms, cancellable, error);
    if (encoded == NULL) return -1;
    void *reply = call_provider(service, path, ITEM_INTERFACE, "SetSecret", p_g_variant_new_tuple(&encoded, 1), NULL,
                                timeout_ms, cancellable, error);
    if (reply == NULL) return -1;
    p_g_variant_unref(reply);
    return 0;
}

int csecretservice_item_set_attributes(void *service, const char *path, const char *const *keys,
                                       const char *const *values, size_t count, int timeout_ms, void *cancellable,
                                       CSecretServiceError *error) {
    void *attributes = attribute_dictionary(keys, values, count);
    if (attributes == NULL) {
        set_error(error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while passing attributes to libsecret.");
        return -1;
    }
    return set_item_property(service, path, "Attributes", attributes, timeout_ms, cancellable, error);
}

/// One of the two requests of csecretservice_item_set_attributes_and_secret.
typedef struct WriteReply {
    int arrived;
    GError *failure;
} WriteReply;

static void on_write(void *connection, void *result, void *user_data) {
    WriteReply *reply = user_data;
    void *answer = p_g_dbus_connection_call_finish(connection, result, &reply->failure);
    if (answer != NULL) p_g_variant_unref(answer);
    reply->arrived = 1;
}

/// For a csecretservice_item_set_attributes_and_secret that sent nothing: the secret gets the
/// attributes' error too, since NONE would tell the caller the provider took the secret.
static int neither_sent(const CSecretServiceError *attributes_error, CSecretServiceError *secret_error) {
    if (attributes_error != NULL && secret_error != NULL) *secret_error = *attributes_error;
    return -1;
}

int csecretservice_item_set_attributes_and_secret(void *service, const char *path, const char *const *keys,
                                                  const char *const *values, size_t count,
                                                  const unsigned char *secret, size_t length, int text_keeps_nul,
                                                  int timeout_ms, void *cancellable,
                                                  CSecretServiceError *attributes_error,
                                                  CSecretServiceError *secret_error) {
    take_error(NULL, attributes_error);
    take_error(NULL, secret_error);
    void *attributes = attribute_dictionary(keys, values, count);
    if (attributes == NULL) {
        set_error(attributes_error, CSECRETSERVICE_ERROR_OTHER, "Out of memory while passing attributes to libsecret.");
        return neither_sent(attributes_error, secret_error);
    }
    void *encoded = encoded_secret(service, secret, length, text_keeps_nul, timeout_ms, cancellable, attributes_error);
    if (encoded == NULL) {
        p_g_variant_unref(p_g_variant_ref_sink(attributes));
        return neither_sent(attributes_error, secret_error);
    }
    char *owner = provider_owner(service, attributes_error);
    if (owner == NULL) {
        p_g_variant_unref(p_g_variant_ref_sink(attributes));
        p_g_variant_unref(p_g_variant_ref_sink(encoded));
        return neither_sent(attributes_error, secret_error);
    }
    void *connection = service;
    WriteReply attributes_reply = {0}, secret_reply = {0};
    // As in csecretservice_items_read: the replies come on a context of our own.
    void *context = p_g_main_context_new();
    p_g_main_context_push_thread_default(context);
    // Sent in this order on one connection, so the provider takes them in this order.
    p_g_dbus_connection_call(connection, owner, path, PROPERTIES_INTERFACE, "Set",
                             item_property_arguments("Attributes", attributes), NULL, DBUS_CALL_FLAGS_NO_AUTO_START,
                             timeout_ms, cancellable, on_write, &attributes_reply);
    p_g_dbus_connection_call(connection, owner, path, ITEM_INTERFACE, "SetSecret", p_g_variant_new_tuple(&encoded, 1),
                             NULL, DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms, cancellable, on_write, &secret_reply);
    // Ends: every call has a timeout, and cancelling the cancellable ends them at once.
    while (!attributes_reply.arrived || !secret_reply.arrived) p_g_main_context_iteration(context, 1);
    p_g_main_context_pop_thread_default(context);
    p_g_main_context_unref(context);
    p_g_free(owner);
    int failed = attributes_reply.failure != NULL || secret_reply.failure != NULL;
    take_error(attributes_reply.failure, attributes_error);
    take_error(secret_reply.failure, secret_error);
    return failed ? -1 : 0;
}

int csecretservice_item_set_label(void *service, const char *path, const char *label, int timeout_ms,
                                  void *cancellable, CSecretServiceError *error) {
    return set_item_property(service, path, "Label", p_g_variant_new_string(label), timeout_ms, cancellable, error);
}

int csecretservice_item_delete(void *service, const char *path, int timeout_ms, void *cancellable,
                               CSecretServiceError *error) {
    void *reply = call_provider(service, path, ITEM_INTERFACE, "Delete", p_g_variant_new_tuple(NULL, 0), "(o)", timeout_ms,
                                cancellable, error);
    if (reply == NULL) return -1;
    const char *prompt = NULL;
    p_g_variant_get_child(reply, 0, "&o", &prompt);
    void *result = strcmp(prompt, "/") == 0 ? NULL : run_prompt(service, prompt, timeout_ms, cancellable, error);
    int prompted = strcmp(prompt, "/") != 0;
    p_g_variant_unref(reply);
    if (prompted && result == NULL) return -1;
    if (result != NULL) p_g_variant_unref(result);
    take_error(NULL, error);
    return 0;
}
