#ifndef LINUX_KEYCHAIN_BUILT_IN_BACKENDS_HOOK_H
#define LINUX_KEYCHAIN_BUILT_IN_BACKENDS_HOOK_H
// How the SecItem front end (LinuxKeychainFrontEnd) registers the built-in backends without
// depending on them: it calls `linux_keychain_register_built_in_backends` before its first use
// of the registry, a weak symbol that the LinuxKeychain module defines. A program that links
// LinuxKeychain gets the four built-in backends; one that links only LinuxKeychainFrontEnd and
// the backends it registers itself gets no other backend's code, and the call does nothing.

#ifdef __cplusplus
extern "C" {
#endif

/// Registers the built-in backends if the LinuxKeychain module is linked; otherwise does nothing.
/// Safe to call from any thread, any number of times (the registration runs once).
void linux_keychain_prepare_registry(void);

#ifdef __cplusplus
}
#endif

#endif
