#include "CBuiltInBackendsHook.h"

// Defined (with @_cdecl) by the LinuxKeychain module; resolves to null when that module is not
// linked, which is the point: the front end must not pull the backends in.
extern void linux_keychain_register_built_in_backends(void) __attribute__((weak));

void linux_keychain_prepare_registry(void) {
    if (linux_keychain_register_built_in_backends) {
        linux_keychain_register_built_in_backends();
    }
}
