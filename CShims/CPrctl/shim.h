#ifndef LINUX_KEYCHAIN_CPRCTL_H
#define LINUX_KEYCHAIN_CPRCTL_H
// prctl(2) is variadic, which Swift cannot call; these wrappers fix its arguments.
#include <sys/prctl.h>

/// Makes the calling process non-dumpable: no core dumps, and other processes of the same
/// user can no longer ptrace it or read its memory through /proc. Returns 0, or -1 with errno.
static inline int CPrctl_makeNonDumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
#endif
