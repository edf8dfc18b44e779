#ifndef LINUX_KEYCHAIN_CSODIUM_H
#define LINUX_KEYCHAIN_CSODIUM_H
// libsodium (sodium.h from libsodium-dev).
#include <sodium.h>
#endif
