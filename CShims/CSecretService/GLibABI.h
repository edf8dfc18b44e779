#ifndef LINUX_KEYCHAIN_GLIB_ABI_H
#define LINUX_KEYCHAIN_GLIB_ABI_H
// The GLib, GIO and libsecret ABI that CSecretService.c relies on, declared by hand so that
// building needs none of their headers: the layouts GLib documents as stable ABI (GError) and
// the enum values the code compares with or passes. Everything else stays an opaque pointer.
//
// Private to the shim (not under include/). Tests/CSecretServiceABICheck compiles this file
// beside the real <glib.h> and <libsecret/secret.h> and checks every size, offset and value
// here, and every prototype in SecretServiceFunctions.h, with static assertions, so a wrong
// declaration fails the build of the tests.

#include <stdint.h>

typedef uint32_t GQuark;
typedef struct GError { GQuark domain; int code; char *message; } GError;
typedef unsigned long GType;
typedef unsigned int (*GHashFunc)(const void *key);
typedef int (*GEqualFunc)(const void *a, const void *b);
typedef void (*GDestroyNotify)(void *data);
typedef void (*GAsyncReadyCallback)(void *source, void *result, void *user_data);
typedef void (*GDBusSignalCallback)(void *connection, const char *sender, const char *path, const char *interface,
                                    const char *signal, void *parameters, void *user_data);
typedef int (*GSourceFunc)(void *user_data);

// GLib's, GIO's and libsecret's objects, opaque here: void, so any pointer converts to and from
// them as it did before, yet named so that the ABI check can compare each prototype in
// SecretServiceFunctions.h with the real one, where they are distinct structs.
typedef void GVariant;
typedef void GVariantType;
typedef void GHashTable;
typedef void GCancellable;
typedef void GAsyncResult;
typedef void GMainContext;
typedef void GDBusConnection;
typedef void GObject;
typedef void GDBusAuthObserver;
typedef void GSource;
typedef void SecretService;
typedef void SecretValue;
typedef void SecretSchema;

// The enums passed as arguments, int here; the check compares their size with the real ones'.
typedef int GBusType;
typedef int GDBusCallFlags;
typedef int GDBusConnectionFlags;
typedef int GDBusSignalFlags;

// Values from gioenums.h (GIOErrorEnum, GDBusError) and secret-types.h; they are ABI.
enum {
    IO_ERROR_CANCELLED = 19, IO_ERROR_TIMED_OUT = 24, IO_ERROR_DBUS_ERROR = 36,
    DBUS_ERROR_SERVICE_UNKNOWN = 2, DBUS_ERROR_NAME_HAS_NO_OWNER = 3, DBUS_ERROR_NO_REPLY = 4,
    DBUS_ERROR_IO_ERROR = 5, DBUS_ERROR_BAD_ADDRESS = 6, DBUS_ERROR_NO_SERVER = 11, DBUS_ERROR_TIMEOUT = 12,
    DBUS_ERROR_DISCONNECTED = 15, DBUS_ERROR_UNKNOWN_METHOD = 19, DBUS_ERROR_TIMED_OUT = 20,
    DBUS_ERROR_INVALID_ARGS = 16, DBUS_ERROR_SPAWN_FIRST = 23, DBUS_ERROR_SPAWN_LAST = 34, DBUS_ERROR_UNKNOWN_OBJECT = 41,
    DBUS_ERROR_UNKNOWN_INTERFACE = 42, DBUS_ERROR_UNKNOWN_PROPERTY = 43,
    SECRET_ERROR_IS_LOCKED = 2, SECRET_ERROR_NO_SUCH_OBJECT = 3,
    SECRET_COLLECTION_NONE = 0,
    DBUS_CALL_FLAGS_NONE = 0, DBUS_CALL_FLAGS_NO_AUTO_START = 1, BUS_TYPE_SESSION = 2,
    DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT = 1, DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION = 8,
    DBUS_SIGNAL_FLAGS_NONE = 0,
};

#endif
