#ifndef LINUX_KEYCHAIN_CCURL_ABI_CHECK_H
#define LINUX_KEYCHAIN_CCURL_ABI_CHECK_H
// A test-only target: compiling it checks CShims/CCurl/CurlABI.h against the real
// <curl/curl.h>; a wrong prototype, number, size or offset fails its build.

/// How many of each kind of declaration were checked; all 0 when <curl/curl.h> was missing at
/// build time (libcurl4-openssl-dev not installed), so a test can see the check was built in.
typedef struct CCurlABICheckCounts {
    int prototypes;
    int callbacks;
    int constants;
    int layouts;
} CCurlABICheckCounts;

CCurlABICheckCounts ccurl_abi_checked_declarations(void);

#endif
