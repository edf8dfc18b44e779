#ifndef LINUX_KEYCHAIN_CLIBCRYPTO_ABI_CHECK_H
#define LINUX_KEYCHAIN_CLIBCRYPTO_ABI_CHECK_H
// A test-only target: compiling it checks CShims/CLibcrypto/LibcryptoABI.h against the real
// <openssl/evp.h>; a wrong prototype, number, size or offset fails its build.

/// How many of each kind of declaration were checked; all 0 when <openssl/evp.h> was missing
/// at build time (libssl-dev not installed), so a test can see the check was built in.
typedef struct CLibcryptoABICheckCounts {
    int prototypes;
    int constants;
    int layouts;
} CLibcryptoABICheckCounts;

CLibcryptoABICheckCounts clibcrypto_abi_checked_declarations(void);

#endif
