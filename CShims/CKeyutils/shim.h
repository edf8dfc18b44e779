#ifndef LINUX_KEYCHAIN_CKEYUTILS_H
#define LINUX_KEYCHAIN_CKEYUTILS_H
// libkeyutils, the kernel key retention service's C API (keyutils.h from libkeyutils-dev).
#include <keyutils.h>
#endif
