#ifndef LINUX_KEYCHAIN_CSECRETSERVICE_H
#define LINUX_KEYCHAIN_CSECRETSERVICE_H
// libsecret, loaded with dlopen at first use.
//
// Nothing here needs libsecret's or GLib's headers, and nothing links against them, so a
// program built with LinuxKeychain starts on a machine where libsecret is not installed; only
// csecretservice_load then fails, with the reason. Every GLib object crosses into Swift as an
// opaque pointer that the caller releases with csecretservice_object_unref.
//
// Threading: GLib objects made here are used by one thread at a time (the backend's worker);
// only csecretservice_cancellable_cancel may be called from another thread.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What kind of failure a libsecret/GDBus error is, so Swift can pick the Apple status.
typedef enum CSecretServiceErrorKind {
    CSECRETSERVICE_ERROR_NONE = 0,
    /// Anything not listed below; the message says what.
    CSECRETSERVICE_ERROR_OTHER = 1,
    /// Cancelled (we cancel only when the deadline passes) or timed out on the bus.
    CSECRETSERVICE_ERROR_TIMEOUT = 2,
    /// The bus has no Secret Service provider, and none can be activated.
    CSECRETSERVICE_ERROR_NO_PROVIDER = 3,
    /// The bus or the provider went away, or could not be reached.
    CSECRETSERVICE_ERROR_DISCONNECTED = 4,
    /// The collection or item is locked.
    CSECRETSERVICE_ERROR_LOCKED = 5,
    /// The object (collection or item) does not exist (any more).
    CSECRETSERVICE_ERROR_NO_SUCH_OBJECT = 6,
    /// A secret came back that the transfer session cannot decrypt: the provider's session key
    /// differs from ours (KWallet 5 now and then). A new connection has a new session.
    CSECRETSERVICE_ERROR_UNDECRYPTABLE = 7,
    /// The provider no longer knows the transfer session it was sent a secret in: kwalletd 5
    /// ("Can't find session"), after it created the item, without its secret.
    CSECRETSERVICE_ERROR_SESSION_LOST = 8,
} CSecretServiceErrorKind;

/// A GError, copied out and classified; the GError itself is already freed.
/// The message names objects and attributes, never secrets.
typedef struct CSecretServiceError {
    CSecretServiceErrorKind kind;
    int code;
    char domain[64];
    char message[512];
} CSecretServiceError;

/// A copied string map (an item's attributes), freed with csecretservice_strings_free.
typedef struct CSecretServiceStrings {
    size_t count;
    char **keys;
    char **values;
} CSecretServiceStrings;

/// Loads libsecret (`library_path`, or libsecret-1.so.0 when NULL) and every function used
/// here. Returns 0, or -1 with a reason (dlerror text or the missing symbol) in `reason`.
/// Thread-safe. A failure is not remembered; after a success the functions stay loaded, and a
/// later call with another path only checks that that path can be loaded too.
int csecretservice_load(const char *library_path, char *reason, size_t reason_size);

void *csecretservice_cancellable_new(void);
/// Thread-safe: may be called while another thread is inside a call using `cancellable`.
void csecretservice_cancellable_cancel(void *cancellable);
void csecretservice_object_unref(void *object);

/// A new connection to the session bus for the Secret Service (a GDBusConnection of its own, not
/// the process-wide shared one, so this library can drop and rebuild it; release it with
/// csecretservice_service_close), to the provider that owns org.freedesktop.secrets now, started
/// by D-Bus activation if it is activatable and not running. Its transfer session is asked for
/// here and its answer taken at the first call that encrypts or decrypts a secret, so that the
/// provider's key exchange overlaps the calls sent meanwhile. Calls time out after `timeout_ms`.
void *csecretservice_service_open(int timeout_ms, void *cancellable, CSecretServiceError *error);
/// Lets go of a service csecretservice_service_open returned, on the thread that opened it: its
/// transfer session (a request still unanswered is cancelled) and what else this library keeps
/// on it are freed here, then the connection's reference is dropped.
void csecretservice_service_close(void *service);
/// Dispatches, without waiting, what is queued on the libsecret thread's own main context, which
/// the first csecretservice_service_open makes that thread's default: the answer to a transfer
/// session asked for and not used yet, and the signals of anything that subscribed there. On a
/// context nobody iterates they would pile up, a little memory each, for as long as the process
/// runs. Call it on the thread that opened the service, after each job.
void csecretservice_signals_dispatch(void);
/// How many times csecretservice_signals_dispatch found something to dispatch, for tests.
unsigned long csecretservice_signals_dispatched(void);

/// The unique bus name (":1.42") of the provider `service` was opened to, copied into `owner`,
/// and, when `pid` is not NULL, its process id (0 when the bus does not say; one round trip to
/// the bus; csecretservice_collection_look_up can ask it instead). Every call made here goes to that name,
/// so a provider that went away is an error and D-Bus never starts another one in its place.
/// 0, or -1 with the error.
int csecretservice_service_owner(void *service, char *owner, size_t owner_size, uint32_t *pid, int timeout_ms,
                                 void *cancellable, CSecretServiceError *error);
/// Asks the session bus (never activating anything) who owns the well-known `name` (e.g.
/// org.freedesktop.secrets) now: 1 with the unique name in `owner` and its process id (0 when
/// the bus does not say), 0 when nobody does, -1 with the error.
int csecretservice_bus_name_owner(const char *name, char *owner, size_t owner_size, uint32_t *pid, int timeout_ms,
                                  void *cancellable, CSecretServiceError *error);

/// Finds the collection named `name`, an alias (e.g. "default", "session") or, when
/// `name_is_path`, a D-Bus object path, without making a proxy for it (a proxy costs a
/// GetAll and signal subscriptions on the bus, and its cached properties would go stale).
/// Everything asked is sent at once and waited for together:
/// - an alias: Service.ReadAlias; with `want_locked` also Properties.Get(Locked) of the
///   alias's own path (/org/freedesktop/secrets/aliases/ALIAS), sent after ReadAlias;
/// - a path: Properties.Get(Locked) of that path, which is also the check that it exists;
/// - with `want_process_id`: the bus daemon's GetConnectionUnixProcessID of the provider.
/// Returns 1 with the collection's path in `path`, 0 when there is no such collection (an
/// alias that names none, a malformed path, an object that is no collection; error NONE), -1 with the error (a path the
/// provider does not know is NO_SUCH_OBJECT). `pid` is the provider's process id, 0 when not
/// asked or the bus did not say. `locked` is 1 or 0 when the lock state was asked and answered
/// (an alias path the provider does not serve is no error: it is then -1), else -1.
int csecretservice_collection_look_up(void *service, const char *name, int name_is_path, int want_locked,
                                      int want_process_id, int timeout_ms, void *cancellable, char *path,
                                      size_t path_size, uint32_t *pid, int *locked, CSecretServiceError *error);
/// Asks the provider now (not a cached property) whether the collection at `collection_path`
/// is locked: 1 locked, 0 unlocked, -1 error.
int csecretservice_collection_is_locked(void *service, const char *collection_path, int timeout_ms, void *cancellable,
                                        CSecretServiceError *error);

/// Object paths of the items in the collection at `collection_path` whose attributes include
/// all the given pairs. NULL-terminated; free with csecretservice_strv_free. NULL on error.
char **csecretservice_collection_search(void *service, const char *collection_path, const char *const *keys,
                                        const char *const *values, size_t count, int timeout_ms, void *cancellable,
                                        CSecretServiceError *error);
/// Object paths of every item in the collection at `collection_path`, read from its Items
/// property now (not a cached proxy): for a listing with no attribute to search by, which some
/// providers (KeePassXC) answer with no item at all when asked as a search. NULL-terminated;
/// free with csecretservice_strv_free. NULL on error.
char **csecretservice_collection_items(void *service, const char *collection_path, int timeout_ms, void *cancellable,
                                       CSecretServiceError *error);
void csecretservice_strv_free(char **strings);

// Items are addressed by their object path (as returned by csecretservice_collection_search);
// each call waits for one round trip. A write to an item deleted meanwhile fails with
// NO_SUCH_OBJECT; a read reports it as not existing.

/// One item's properties as the provider reports them now, and perhaps its secret.
typedef struct CSecretServiceItem {
    /// 0 when the item was deleted since the search found it; everything else is then empty.
    int exists;
    /// All its attributes, other programs' included.
    CSecretServiceStrings attributes;
    char *label;
    int locked;
    /// Its secret when asked for and handed out (not for a locked item): a SecretValue
    /// reference in libsecret's non-pageable memory, read with csecretservice_value_bytes.
    void *secret;
} CSecretServiceItem;

/// What csecretservice_items_read asks the provider for, per item.
typedef enum CSecretServiceItemRead {
    /// Properties.GetAll: the attributes, label and lock state.
    CSECRETSERVICE_READ_PROPERTIES = 0,
    /// GetAll, and the secrets, with one GetSecrets for all the items.
    CSECRETSERVICE_READ_PROPERTIES_AND_SECRETS = 1,
    /// Properties.Get of the attributes alone, and the secrets: for a caller that needs neither
    /// the label nor the lock state (a secret handed out proves its item unlocked). `label`
    /// stays NULL and `locked` 0. Providers answer a Get with less work than a GetAll.
    CSECRETSERVICE_READ_ATTRIBUTES_AND_SECRETS = 2,
} CSecretServiceItemRead;

/// Reads the `count` items at `paths` into `items`, as much of each as `what` says.
/// All requests are in flight at once (one properties request per item, one GetSecrets for all),
/// so the caller waits about one round trip, not one per request. Free each item with
/// csecretservice_item_free. 0, or -1 with the first error (the items are then freed already).
int csecretservice_items_read(void *service, const char *const *paths, size_t count, CSecretServiceItemRead what,
                              int timeout_ms, void *cancellable, CSecretServiceItem *items,
                              CSecretServiceError *error);
/// csecretservice_collection_search and, in the same round trip, what the caller would ask
/// next. The search is sent first, on the same connection, so the provider handles the rest
/// after it searched.
///
/// - With `guessed_path`: a csecretservice_items_read (as `what` says) of the one item there,
///   for a caller that expects the search to find that item alone, as it did last time.
///   `item` is filled only when the search found exactly `guessed_path` and the item was read
///   and exists; otherwise it comes back empty (a secret read for nothing is already released
///   with libsecret's wiping free), and the caller reads what the search found as without a
///   guess. A failed read is no error here. Free a filled `item` with csecretservice_item_free.
/// - Without (NULL): the collection's Locked property, which a search that finds no unlocked
///   item needs; `locked` is 1 or 0, or -1 when it could not be read (no error here either:
///   the caller asks again with csecretservice_collection_is_locked). With a guess, `locked`
///   is -1.
///
/// Returns what the search returns (the paths, or NULL with the search's error).
char **csecretservice_collection_search_ahead(void *service, const char *collection_path, const char *const *keys,
                                              const char *const *values, size_t count, const char *guessed_path,
                                              CSecretServiceItemRead what, int timeout_ms, void *cancellable,
                                              CSecretServiceItem *item, int *locked, CSecretServiceError *error);
/// Frees what `item` holds; its secret is released with libsecret's wiping free.
void csecretservice_item_free(CSecretServiceItem *item);
void csecretservice_strings_free(CSecretServiceStrings *strings);

/// Loads the secrets of the items at `count` paths with one GetSecrets call. `values[i]` is the
/// secret of `paths[i]` (a SecretValue reference in libsecret's non-pageable memory), or NULL
/// when the provider handed out none (a locked or vanished item). Release each with
/// csecretservice_value_unref, which wipes that memory. 0, or -1 with the error.
int csecretservice_secrets_load(void *service, const char *const *paths, void **values, size_t count,
                                int timeout_ms, void *cancellable, CSecretServiceError *error);
/// The bytes of a SecretValue, valid while it is held.
const unsigned char *csecretservice_value_bytes(void *value, size_t *length);
void csecretservice_value_unref(void *value);

// A secret is sent as text/plain when it is UTF-8 text, else as application/octet-stream;
// `text_keeps_nul` 0 counts text holding a NUL as bytes, for a provider that cuts text there.

/// Creates an item in the collection at `collection_path` with exactly these attributes,
/// `label`, and the secret (encrypted for the transfer session), answering the provider's prompt
/// if it asks one. 0, or -1 with the error.
int csecretservice_item_create(void *service, const char *collection_path, const char *const *keys,
                               const char *const *values, size_t count, const char *label,
                               const unsigned char *secret, size_t length, int text_keeps_nul, int timeout_ms,
                               void *cancellable, CSecretServiceError *error);
int csecretservice_item_set_secret(void *service, const char *path, const unsigned char *secret, size_t length,
                                   int text_keeps_nul, int timeout_ms, void *cancellable, CSecretServiceError *error);
/// Replaces all of the item's attributes with these. 0, or -1 with the error.
int csecretservice_item_set_attributes(void *service, const char *path, const char *const *keys,
                                       const char *const *values, size_t count, int timeout_ms, void *cancellable,
                                       CSecretServiceError *error);
/// Replaces all of the item's attributes with these, and sets its secret: the two requests
/// sent at once, the attributes first, and both replies awaited. 0, or -1 with each request's
/// error in its own out-parameter (kind CSECRETSERVICE_ERROR_NONE for one that succeeded;
/// when nothing could be sent, both hold the same error).
int csecretservice_item_set_attributes_and_secret(void *service, const char *path, const char *const *keys,
                                                  const char *const *values, size_t count,
                                                  const unsigned char *secret, size_t length, int text_keeps_nul,
                                                  int timeout_ms, void *cancellable,
                                                  CSecretServiceError *attributes_error,
                                                  CSecretServiceError *secret_error);
int csecretservice_item_set_label(void *service, const char *path, const char *label, int timeout_ms,
                                  void *cancellable, CSecretServiceError *error);
/// Deletes the item at `path`, answering the provider's prompt if it asks one. 0, or -1 with
/// the error (NO_SUCH_OBJECT for an item already gone).
int csecretservice_item_delete(void *service, const char *path, int timeout_ms, void *cancellable,
                               CSecretServiceError *error);

#ifdef __cplusplus
}
#endif

#endif
