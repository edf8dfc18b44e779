#ifndef LINUX_KEYCHAIN_SECRET_SERVICE_FUNCTIONS_H
#define LINUX_KEYCHAIN_SECRET_SERVICE_FUNCTIONS_H
// The GLib, GIO and libsecret functions CSecretService.c looks up, as X(result, name,
// parameters) (see CDynamicLibrary.h), in the types of GLibABI.h. gboolean is spelled int,
// gsize size_t, gssize long, guint unsigned int, gpointer void *: the same C types.
//
// Tests/CSecretServiceABICheck expands this list beside the real headers, where the names of
// GLibABI.h are GLib's own, and asserts that every entry's type is the real function's.

#include "GLibABI.h"

#include <stddef.h>

/// GLib's errors, strings and string-keyed tables; the benchmark's baseline
/// (Benchmarks/CSecretServiceBaseline) looks these up too.
#define GLIB_TABLE_FUNCTIONS(X) \
    X(void, g_error_free, (GError *)) \
    X(void, g_free, (void *)) \
    X(char *, g_strdup, (const char *)) \
    X(GHashTable *, g_hash_table_new_full, (GHashFunc, GEqualFunc, GDestroyNotify, GDestroyNotify)) \
    X(int, g_hash_table_insert, (GHashTable *, void *, void *)) \
    X(void, g_hash_table_unref, (GHashTable *)) \
    X(unsigned int, g_str_hash, (const void *)) \
    X(int, g_str_equal, (const void *, const void *))

#define CSECRETSERVICE_FUNCTIONS(X) \
    GLIB_TABLE_FUNCTIONS(X) \
    X(const char *, g_quark_to_string, (GQuark)) \
    X(GQuark, g_io_error_quark, (void)) \
    X(GQuark, g_dbus_error_quark, (void)) \
    X(int, g_dbus_error_is_remote_error, (const GError *)) \
    X(char *, g_dbus_error_get_remote_error, (const GError *)) \
    X(void, g_strfreev, (char **)) \
    X(void *, g_hash_table_lookup, (GHashTable *, const void *)) \
    X(GVariant *, g_variant_new_string, (const char *)) \
    X(GVariant *, g_variant_new_tuple, (GVariant *const *, size_t)) \
    X(GVariant *, g_variant_get_child_value, (GVariant *, size_t)) \
    X(GVariant *, g_variant_get_variant, (GVariant *)) \
    X(int, g_variant_is_of_type, (GVariant *, const GVariantType *)) \
    X(int, g_variant_get_boolean, (GVariant *)) \
    X(const char *, g_variant_get_string, (GVariant *, size_t *)) \
    X(GVariant *, g_variant_new_variant, (GVariant *)) \
    X(GVariant *, g_variant_new_dict_entry, (GVariant *, GVariant *)) \
    X(GVariant *, g_variant_new_array, (const GVariantType *, GVariant *const *, size_t)) \
    X(GVariant *, g_variant_ref_sink, (GVariant *)) \
    X(size_t, g_variant_n_children, (GVariant *)) \
    X(void, g_variant_get_child, (GVariant *, size_t, const char *, ...)) \
    X(GVariant *, g_variant_lookup_value, (GVariant *, const char *, const GVariantType *)) \
    X(void, g_variant_unref, (GVariant *)) \
    X(void, g_object_unref, (void *)) \
    X(GCancellable *, g_cancellable_new, (void)) \
    X(void, g_cancellable_cancel, (GCancellable *)) \
    X(void, g_dbus_connection_set_exit_on_close, (GDBusConnection *, int)) \
    X(GDBusConnection *, g_bus_get_sync, (GBusType, GCancellable *, GError **)) \
    X(char *, g_dbus_address_get_for_bus_sync, (GBusType, GCancellable *, GError **)) \
    X(GDBusConnection *, g_dbus_connection_new_for_address_sync, (const char *, GDBusConnectionFlags, GDBusAuthObserver *, \
                                                                  GCancellable *, GError **)) \
    X(GVariant *, g_dbus_connection_call_sync, (GDBusConnection *, const char *, const char *, const char *, \
                                                const char *, GVariant *, const GVariantType *, GDBusCallFlags, int, \
                                                GCancellable *, GError **)) \
    X(void, g_dbus_connection_call, (GDBusConnection *, const char *, const char *, const char *, const char *, \
                                     GVariant *, const GVariantType *, GDBusCallFlags, int, GCancellable *, \
                                     GAsyncReadyCallback, void *)) \
    X(GVariant *, g_dbus_connection_call_finish, (GDBusConnection *, GAsyncResult *, GError **)) \
    X(unsigned int, g_dbus_connection_signal_subscribe, (GDBusConnection *, const char *, const char *, const char *, \
                                                          const char *, const char *, GDBusSignalFlags, \
                                                          GDBusSignalCallback, void *, GDestroyNotify)) \
    X(void, g_dbus_connection_signal_unsubscribe, (GDBusConnection *, unsigned int)) \
    X(GSource *, g_cancellable_source_new, (GCancellable *)) \
    X(void, g_source_set_callback, (GSource *, GSourceFunc, void *, GDestroyNotify)) \
    X(unsigned int, g_source_attach, (GSource *, GMainContext *)) \
    X(void, g_source_destroy, (GSource *)) \
    X(void, g_source_unref, (GSource *)) \
    X(GMainContext *, g_main_context_new, (void)) \
    X(void, g_main_context_push_thread_default, (GMainContext *)) \
    X(void, g_main_context_pop_thread_default, (GMainContext *)) \
    X(int, g_main_context_iteration, (GMainContext *, int)) \
    X(void, g_main_context_unref, (GMainContext *)) \
    X(GQuark, secret_error_get_quark, (void)) \
    X(void *, g_malloc0, (size_t)) \
    X(void, g_object_set_data_full, (GObject *, const char *, void *, GDestroyNotify)) \
    X(void *, g_object_get_data, (GObject *, const char *)) \
    X(GVariant *, g_variant_new_fixed_array, (const GVariantType *, const void *, size_t, size_t)) \
    X(const void *, g_variant_get_fixed_array, (GVariant *, size_t *, size_t)) \
    X(GVariant *, g_variant_new_boolean, (int)) \
    X(GVariant *, g_variant_new_uint32, (uint32_t)) \
    X(GVariant *, g_variant_new_object_path, (const char *)) \
    X(int, g_variant_is_object_path, (const char *)) \
    X(SecretValue *, secret_value_new, (const char *, long, const char *)) \
    X(SecretValue *, secret_value_ref, (SecretValue *)) \
    X(const char *, secret_value_get, (SecretValue *, size_t *)) \
    X(void, secret_value_unref, (void *))

#endif
