// Compiles the shim's hand-made GLib ABI (GLibABI.h) beside the real headers and asserts, at
// compile time, that every size, offset and value it declares is the real one, and that every
// function in SecretServiceFunctions.h has the real function's type.
//
// Both declare the same names (GError, GVariant, SECRET_ERROR_IS_LOCKED, ...), so the hand-made
// ones are renamed to hand_* with macros while GLibABI.h is read, and the real headers come
// after. A name left off the renaming collides with the real one and fails the build too.
// The function list is expanded last, when its type names are GLib's own.
//
// Without the headers (libsecret-1-dev not installed) nothing is checked and the count is 0, so
// that `swift build` still works there; the Swift test then skips, or fails in CI.

#include "CSecretServiceABICheck.h"

#if __has_include(<glib.h>) && __has_include(<libsecret/secret.h>) && __has_include(<gcrypt.h>)

#include <stddef.h>
#include <stdint.h>

#define GQuark hand_GQuark
#define GError hand_GError
#define GType hand_GType
#define GHashFunc hand_GHashFunc
#define GEqualFunc hand_GEqualFunc
#define GDestroyNotify hand_GDestroyNotify
#define GAsyncReadyCallback hand_GAsyncReadyCallback
#define GDBusSignalCallback hand_GDBusSignalCallback
#define GSourceFunc hand_GSourceFunc
#define GSource hand_GSource
#define GDBusSignalFlags hand_GDBusSignalFlags
#define GVariant hand_GVariant
#define GVariantType hand_GVariantType
#define GHashTable hand_GHashTable
#define GCancellable hand_GCancellable
#define GAsyncResult hand_GAsyncResult
#define GMainContext hand_GMainContext
#define GDBusConnection hand_GDBusConnection
#define GDBusAuthObserver hand_GDBusAuthObserver
#define SecretService hand_SecretService
#define SecretValue hand_SecretValue
#define SecretSchema hand_SecretSchema
#define GBusType hand_GBusType
#define GDBusCallFlags hand_GDBusCallFlags
#define GDBusConnectionFlags hand_GDBusConnectionFlags
#define GObject hand_GObject
#define SECRET_ERROR_IS_LOCKED hand_SECRET_ERROR_IS_LOCKED
#define SECRET_ERROR_NO_SUCH_OBJECT hand_SECRET_ERROR_NO_SUCH_OBJECT
#define SECRET_COLLECTION_NONE hand_SECRET_COLLECTION_NONE
#include "../../Benchmarks/CSecretServiceBaseline/BaselineFunctions.h"
#include "../../CShims/CSecretService/GcryptFunctions.h"
#undef GQuark
#undef GError
#undef GType
#undef GHashFunc
#undef GEqualFunc
#undef GDestroyNotify
#undef GAsyncReadyCallback
#undef GDBusSignalCallback
#undef GSourceFunc
#undef GSource
#undef GDBusSignalFlags
#undef GVariant
#undef GVariantType
#undef GHashTable
#undef GCancellable
#undef GAsyncResult
#undef GMainContext
#undef GDBusConnection
#undef GDBusAuthObserver
#undef SecretService
#undef SecretValue
#undef SecretSchema
#undef GBusType
#undef GDBusCallFlags
#undef GDBusConnectionFlags
#undef GObject
#undef SECRET_ERROR_IS_LOCKED
#undef SECRET_ERROR_NO_SUCH_OBJECT
#undef SECRET_COLLECTION_NONE

#include <glib.h>
#include <gio/gio.h>
// The secret_service_*_dbus_* functions are in libsecret's unstable API.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#include <gcrypt.h>

#define SAME_SIZE(hand, real) _Static_assert(sizeof(hand) == sizeof(real), "size of " #hand " differs from " #real)
#define SAME_OFFSET(hand, real, field) \
    _Static_assert(offsetof(hand, field) == offsetof(real, field), "offset of " #hand "." #field " differs")
#define SAME_TYPE(hand, real) _Static_assert(__builtin_types_compatible_p(hand, real), #hand " is not " #real)
#define SAME_VALUE(hand, real) _Static_assert((long long)(hand) == (long long)(real), #hand " is not " #real)

// Types.
SAME_SIZE(hand_GQuark, GQuark);
_Static_assert((hand_GQuark)-1 > 0 && (GQuark)-1 > 0, "GQuark is unsigned");
SAME_SIZE(hand_GType, GType);
_Static_assert((hand_GType)-1 > 0 && (GType)-1 > 0, "GType is unsigned");
SAME_SIZE(hand_GError, GError);
SAME_OFFSET(hand_GError, GError, domain);
SAME_OFFSET(hand_GError, GError, code);
SAME_OFFSET(hand_GError, GError, message);
SAME_SIZE(((hand_GError *)0)->domain, ((GError *)0)->domain);
SAME_SIZE(((hand_GError *)0)->code, ((GError *)0)->code);
SAME_SIZE(((hand_GError *)0)->message, ((GError *)0)->message);
SAME_TYPE(hand_GHashFunc, GHashFunc);
SAME_TYPE(hand_GEqualFunc, GEqualFunc);
SAME_TYPE(hand_GDestroyNotify, GDestroyNotify);
// Its parameters are GObject * and GAsyncResult * there, void * here: the same ABI.
SAME_SIZE(hand_GAsyncReadyCallback, GAsyncReadyCallback);
// The same for GDBusSignalCallback (GDBusConnection *, GVariant *) and GSourceFunc (gboolean).
SAME_SIZE(hand_GDBusSignalCallback, GDBusSignalCallback);
SAME_SIZE(hand_GSourceFunc, GSourceFunc);
// gboolean, which the hand-made signatures spell int, and gsize, spelled size_t.
SAME_SIZE(int, gboolean);
SAME_SIZE(size_t, gsize);
SAME_SIZE(unsigned int, guint);

// GIOErrorEnum.
SAME_VALUE(IO_ERROR_CANCELLED, G_IO_ERROR_CANCELLED);
SAME_VALUE(IO_ERROR_TIMED_OUT, G_IO_ERROR_TIMED_OUT);
SAME_VALUE(IO_ERROR_DBUS_ERROR, G_IO_ERROR_DBUS_ERROR);

// GDBusError.
SAME_VALUE(DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_SERVICE_UNKNOWN);
SAME_VALUE(DBUS_ERROR_NAME_HAS_NO_OWNER, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
SAME_VALUE(DBUS_ERROR_NO_REPLY, G_DBUS_ERROR_NO_REPLY);
SAME_VALUE(DBUS_ERROR_IO_ERROR, G_DBUS_ERROR_IO_ERROR);
SAME_VALUE(DBUS_ERROR_BAD_ADDRESS, G_DBUS_ERROR_BAD_ADDRESS);
SAME_VALUE(DBUS_ERROR_NO_SERVER, G_DBUS_ERROR_NO_SERVER);
SAME_VALUE(DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMEOUT);
SAME_VALUE(DBUS_ERROR_DISCONNECTED, G_DBUS_ERROR_DISCONNECTED);
SAME_VALUE(DBUS_ERROR_UNKNOWN_METHOD, G_DBUS_ERROR_UNKNOWN_METHOD);
SAME_VALUE(DBUS_ERROR_TIMED_OUT, G_DBUS_ERROR_TIMED_OUT);
SAME_VALUE(DBUS_ERROR_UNKNOWN_OBJECT, G_DBUS_ERROR_UNKNOWN_OBJECT);
SAME_VALUE(DBUS_ERROR_INVALID_ARGS, G_DBUS_ERROR_INVALID_ARGS);
SAME_VALUE(DBUS_ERROR_UNKNOWN_INTERFACE, G_DBUS_ERROR_UNKNOWN_INTERFACE);
SAME_VALUE(DBUS_ERROR_UNKNOWN_PROPERTY, G_DBUS_ERROR_UNKNOWN_PROPERTY);
// The spawn errors, a contiguous range from ExecFailed to NoMemory: every one of the twelve
// inside it, and the codes around it outside.
SAME_VALUE(DBUS_ERROR_SPAWN_FIRST, G_DBUS_ERROR_SPAWN_EXEC_FAILED);
SAME_VALUE(DBUS_ERROR_SPAWN_LAST, G_DBUS_ERROR_SPAWN_NO_MEMORY);
#define IN_SPAWN_RANGE(code) \
    _Static_assert(code >= DBUS_ERROR_SPAWN_FIRST && code <= DBUS_ERROR_SPAWN_LAST, #code " is in the spawn range")
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_FORK_FAILED);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_CHILD_EXITED);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_CHILD_SIGNALED);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_FAILED);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_SETUP_FAILED);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_CONFIG_INVALID);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_SERVICE_INVALID);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_PERMISSIONS_INVALID);
IN_SPAWN_RANGE(G_DBUS_ERROR_SPAWN_FILE_INVALID);
_Static_assert(DBUS_ERROR_SPAWN_LAST - DBUS_ERROR_SPAWN_FIRST == 11, "the range holds the twelve spawn errors only");

// GDBusCallFlags, GBusType.
SAME_VALUE(DBUS_CALL_FLAGS_NONE, G_DBUS_CALL_FLAGS_NONE);
SAME_VALUE(DBUS_CALL_FLAGS_NO_AUTO_START, G_DBUS_CALL_FLAGS_NO_AUTO_START);
SAME_VALUE(BUS_TYPE_SESSION, G_BUS_TYPE_SESSION);
SAME_VALUE(DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT);
SAME_VALUE(DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION);
SAME_VALUE(DBUS_SIGNAL_FLAGS_NONE, G_DBUS_SIGNAL_FLAGS_NONE);

// libsecret.
SAME_VALUE(hand_SECRET_ERROR_IS_LOCKED, SECRET_ERROR_IS_LOCKED);
SAME_VALUE(hand_SECRET_ERROR_NO_SUCH_OBJECT, SECRET_ERROR_NO_SUCH_OBJECT);
SAME_VALUE(hand_SECRET_COLLECTION_NONE, SECRET_COLLECTION_NONE);

// The enums the functions take, which GLibABI.h spells int.
SAME_SIZE(hand_GBusType, GBusType);
SAME_SIZE(hand_GDBusCallFlags, GDBusCallFlags);
SAME_SIZE(hand_GDBusConnectionFlags, GDBusConnectionFlags);
SAME_SIZE(hand_GDBusSignalFlags, GDBusSignalFlags);
// The objects, void here: each real one is a struct, so a pointer to it is an object pointer.
#define OPAQUE(name) _Static_assert(sizeof(hand_##name *) == sizeof(name *), #name " pointers differ in size")
OPAQUE(GVariant); OPAQUE(GVariantType); OPAQUE(GHashTable); OPAQUE(GCancellable); OPAQUE(GAsyncResult);
OPAQUE(GMainContext); OPAQUE(GDBusConnection); OPAQUE(GDBusAuthObserver); OPAQUE(GSource); OPAQUE(SecretService); OPAQUE(SecretValue);
OPAQUE(SecretSchema); OPAQUE(GObject);

// Every function the shim looks up, its type names GLib's own now: GLibABI.h's int for an
// enum is the real enum here, the same ABI by the sizes above.
#define CHECK_PROTOTYPE(result, name, parameters) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result(*) parameters), \
                   #name " is not declared as the real headers declare it");
CSECRETSERVICE_FUNCTIONS(CHECK_PROTOTYPE)
// And those only the benchmark's baseline looks up (its GLib ones are the shim's, checked above).
BASELINE_PASSWORD_FUNCTIONS(CHECK_PROTOTYPE)

// libgcrypt's, for the transfer session: the values, then the functions with gcrypt.h's types.
SAME_VALUE(GCRY_CONTROL_INITIALIZATION_FINISHED, GCRYCTL_INITIALIZATION_FINISHED);
SAME_VALUE(GCRY_CONTROL_INITIALIZATION_FINISHED_P, GCRYCTL_INITIALIZATION_FINISHED_P);
SAME_VALUE(GCRY_FORMAT_UNSIGNED, GCRYMPI_FMT_USG);
SAME_VALUE(GCRY_RANDOM_STRONG, GCRY_STRONG_RANDOM);
SAME_VALUE(GCRY_AES128, GCRY_CIPHER_AES128);
SAME_VALUE(GCRY_MODE_CBC, GCRY_CIPHER_MODE_CBC);
SAME_VALUE(GCRY_SHA256, GCRY_MD_SHA256);
SAME_VALUE(GCRY_FLAG_HMAC, GCRY_MD_FLAG_HMAC);
SAME_SIZE(GcryptControl, enum gcry_ctl_cmds);
SAME_SIZE(GcryptFormat, enum gcry_mpi_format);
SAME_SIZE(GcryptRandomLevel, enum gcry_random_level);
SAME_SIZE(GcryptError, gcry_error_t);
#define GcryptNumber gcry_mpi_t
#define GcryptCipher gcry_cipher_hd_t
#define GcryptDigest gcry_md_hd_t
#define GcryptError gcry_error_t
#define GcryptControl enum gcry_ctl_cmds
#define GcryptFormat enum gcry_mpi_format
#define GcryptRandomLevel enum gcry_random_level
GCRYPT_FUNCTIONS(CHECK_PROTOTYPE)
#define COUNT(...) +1

int csecretservice_abi_checked_declarations(void) {
    // Types 17 (GError with its 3 offsets and 3 field sizes), GIO 3, GDBus 16 (and the
    // spawn range's 10 members), call, connection and signal flags 5, bus type 1, libsecret 3,
    // libgcrypt 12.
    return 57;
}

int csecretservice_abi_checked_prototypes(void) {
    return 0 CSECRETSERVICE_FUNCTIONS(COUNT) BASELINE_PASSWORD_FUNCTIONS(COUNT) GCRYPT_FUNCTIONS(COUNT);
}

#else

int csecretservice_abi_checked_declarations(void) { return 0; }
int csecretservice_abi_checked_prototypes(void) { return 0; }

#endif
