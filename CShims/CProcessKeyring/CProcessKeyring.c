#include "CProcessKeyring.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

// From <linux/keyctl.h>, which not every libc's headers ship.
#define CPROCESSKEYRING_KEYCTL_GET_KEYRING_ID 0
#define CPROCESSKEYRING_KEY_SPEC_PROCESS_KEYRING -2

static _Atomic int32_t serial_at_load = -ENOKEY;

// A raw system call, so that the fork child's handler stays async-signal-safe.
static void make_process_keyring(void) {
    long serial = syscall(SYS_keyctl, CPROCESSKEYRING_KEYCTL_GET_KEYRING_ID, CPROCESSKEYRING_KEY_SPEC_PROCESS_KEYRING, 1);
    atomic_store(&serial_at_load, serial < 0 ? -errno : (int32_t)serial);
}

__attribute__((constructor))
static void make_process_keyring_at_load(void) {
    make_process_keyring();
    pthread_atfork(NULL, NULL, make_process_keyring);
}

int32_t cprocesskeyring_serial_at_load(void) {
    return atomic_load(&serial_at_load);
}
