#include "CBuildInfo.h"

#ifndef LINUX_KEYCHAIN_COMMIT
#define LINUX_KEYCHAIN_COMMIT "unknown"
#endif

const char *CBuildInfo_commit(void) {
    return LINUX_KEYCHAIN_COMMIT;
}
