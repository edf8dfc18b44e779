#ifndef LINUX_KEYCHAIN_CPROCESSKEYRING_H
#define LINUX_KEYCHAIN_CPROCESSKEYRING_H
// The process keyring of the keyring backend, made before the process has threads.
//
// The kernel keeps the process keyring in each thread's credentials: a thread gets it only if
// it existed when the thread was created. Made lazily, it would be the creating thread's alone,
// and every thread that existed before would make one of its own. So it is made when the
// program is loaded, and again in the child of every fork (whose process keyring is new).

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The serial of the process keyring made at load time (or in this fork child), or a negative
/// errno when the kernel refused it (seccomp, no keyrings).
int32_t cprocesskeyring_serial_at_load(void);

#ifdef __cplusplus
}
#endif

#endif
