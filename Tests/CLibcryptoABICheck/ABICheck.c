// Compiles the shim's hand-made libcrypto ABI (LibcryptoABI.h) beside the real OpenSSL headers
// and asserts, at compile time, that every prototype, number and layout it declares is the
// real one. The names LibcryptoABI.h gives OpenSSL's opaque types are defined as OpenSSL's
// before its function list is expanded into __builtin_types_compatible_p assertions.
//
// Without the headers (libssl-dev not installed) nothing is checked and every count is 0, so
// that `swift build` still works there; the Swift test then skips, or fails in CI.

#include "CLibcryptoABICheck.h"

#if __has_include(<openssl/evp.h>)

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/crypto.h>
#include <openssl/obj_mac.h>
#include <stddef.h>

#include "../../CShims/CLibcrypto/LibcryptoABI.h"

#define SAME_SIZE(hand, real) _Static_assert(sizeof(hand) == sizeof(real), "size of " #hand " differs from " #real)
#define SAME_FIELD(hand, real, field) \
    _Static_assert(offsetof(hand, field) == offsetof(real, field) && sizeof(((hand *)0)->field) == sizeof(((real *)0)->field), \
                   "field " #field " of " #hand " differs")
#define COUNT(...) +1

#define CLIBCRYPTO_LAYOUTS(X) \
    X(SAME_SIZE(LibcryptoParam, OSSL_PARAM)) \
    X(SAME_FIELD(LibcryptoParam, OSSL_PARAM, key)) \
    X(SAME_FIELD(LibcryptoParam, OSSL_PARAM, data_type)) \
    X(SAME_FIELD(LibcryptoParam, OSSL_PARAM, data)) \
    X(SAME_FIELD(LibcryptoParam, OSSL_PARAM, data_size)) \
    X(SAME_FIELD(LibcryptoParam, OSSL_PARAM, return_size))
#define CHECK_LAYOUT(assertion) assertion;
CLIBCRYPTO_LAYOUTS(CHECK_LAYOUT)

#define CHECK_CONSTANT(name, openssl_name, value) \
    _Static_assert((long long)(name) == (long long)(openssl_name), #name " is not " #openssl_name);
CLIBCRYPTO_CONSTANTS(CHECK_CONSTANT)
_Static_assert(PARAM_UNMODIFIED == OSSL_PARAM_UNMODIFIED, "PARAM_UNMODIFIED is not OSSL_PARAM_UNMODIFIED");

// From here on, LibcryptoABI.h's names for OpenSSL's types are OpenSSL's.
#define LibcryptoLibraryContext OSSL_LIB_CTX
#define LibcryptoKey EVP_PKEY
#define LibcryptoKeyContext EVP_PKEY_CTX
#define LibcryptoDigestContext EVP_MD_CTX
#define LibcryptoCipher EVP_CIPHER
#define LibcryptoCipherContext EVP_CIPHER_CTX
#define LibcryptoCertificate X509
#define LibcryptoName X509_NAME
#define LibcryptoNameEntry X509_NAME_ENTRY
#define LibcryptoASN1String ASN1_STRING
#define LibcryptoParam OSSL_PARAM

#define CHECK_PROTOTYPE(result, name, parameters) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result(*) parameters), \
                   #name " is not declared as OpenSSL's headers declare it");
CLIBCRYPTO_FUNCTIONS(CHECK_PROTOTYPE)

CLibcryptoABICheckCounts clibcrypto_abi_checked_declarations(void) {
    CLibcryptoABICheckCounts counts = {
        .prototypes = 0 CLIBCRYPTO_FUNCTIONS(COUNT),
        .constants = 1 CLIBCRYPTO_CONSTANTS(COUNT),
        .layouts = 0 CLIBCRYPTO_LAYOUTS(COUNT),
    };
    return counts;
}

#else

CLibcryptoABICheckCounts clibcrypto_abi_checked_declarations(void) {
    CLibcryptoABICheckCounts none = {0, 0, 0};
    return none;
}

#endif
