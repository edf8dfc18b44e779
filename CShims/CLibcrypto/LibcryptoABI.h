#ifndef LINUX_KEYCHAIN_LIBCRYPTO_ABI_H
#define LINUX_KEYCHAIN_LIBCRYPTO_ABI_H
// The OpenSSL 3 libcrypto ABI that CLibcrypto.c relies on, declared by hand so that building
// needs no OpenSSL headers: the EVP functions, the OSSL_PARAM layout and the few numbers.
//
// Private to the shim (not under include/). Tests/CLibcryptoABICheck compiles this file beside
// the real <openssl/evp.h> and checks every prototype, number and layout here with static
// assertions, walking these X-macro lists, so a wrong declaration fails the build of the tests.

#include <stddef.h>

/// OSSL_PARAM: one named value handed to or filled by libcrypto.
typedef struct LibcryptoParam {
    const char *key;
    unsigned int data_type;
    void *data;
    size_t data_size;
    size_t return_size;
} LibcryptoParam;

// libcrypto's opaque types (OSSL_LIB_CTX, EVP_PKEY, EVP_PKEY_CTX, EVP_MD_CTX, EVP_CIPHER,
// EVP_CIPHER_CTX, X509, X509_NAME, X509_NAME_ENTRY, ASN1_STRING), void here; the
// check maps each name to OpenSSL's.
typedef void LibcryptoLibraryContext;
typedef void LibcryptoKey;
typedef void LibcryptoKeyContext;
typedef void LibcryptoDigestContext;
typedef void LibcryptoCipher;
typedef void LibcryptoCipherContext;
typedef void LibcryptoCertificate;
typedef void LibcryptoName;
typedef void LibcryptoNameEntry;
typedef void LibcryptoASN1String;

/// The functions CLibcrypto.c looks up, as X(result, name, parameters) (see CDynamicLibrary.h).
#define CLIBCRYPTO_FUNCTIONS(X) \
    X(LibcryptoKey *, EVP_PKEY_Q_keygen, (LibcryptoLibraryContext *, const char *, const char *, ...)) \
    X(void, EVP_PKEY_free, (LibcryptoKey *)) \
    X(int, EVP_PKEY_get_params, (const LibcryptoKey *, LibcryptoParam *)) \
    X(LibcryptoKeyContext *, EVP_PKEY_CTX_new_from_name, (LibcryptoLibraryContext *, const char *, const char *)) \
    X(LibcryptoKeyContext *, EVP_PKEY_CTX_new_from_pkey, (LibcryptoLibraryContext *, LibcryptoKey *, const char *)) \
    X(void, EVP_PKEY_CTX_free, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_fromdata_init, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_fromdata, (LibcryptoKeyContext *, LibcryptoKey **, int, LibcryptoParam *)) \
    X(int, EVP_PKEY_check, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_public_check, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_sign_init, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_sign, (LibcryptoKeyContext *, unsigned char *, size_t *, const unsigned char *, size_t)) \
    X(int, EVP_PKEY_verify_init, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_verify, (LibcryptoKeyContext *, const unsigned char *, size_t, const unsigned char *, size_t)) \
    X(LibcryptoDigestContext *, EVP_MD_CTX_new, (void)) \
    X(void, EVP_MD_CTX_free, (LibcryptoDigestContext *)) \
    X(int, EVP_DigestSignInit_ex, (LibcryptoDigestContext *, LibcryptoKeyContext **, const char *, \
                                   LibcryptoLibraryContext *, const char *, LibcryptoKey *, const LibcryptoParam *)) \
    X(int, EVP_DigestSign, (LibcryptoDigestContext *, unsigned char *, size_t *, const unsigned char *, size_t)) \
    X(int, EVP_DigestVerifyInit_ex, (LibcryptoDigestContext *, LibcryptoKeyContext **, const char *, \
                                     LibcryptoLibraryContext *, const char *, LibcryptoKey *, const LibcryptoParam *)) \
    X(int, EVP_DigestVerify, (LibcryptoDigestContext *, const unsigned char *, size_t, const unsigned char *, size_t)) \
    X(int, EVP_Q_digest, (LibcryptoLibraryContext *, const char *, const char *, const void *, size_t, unsigned char *, size_t *)) \
    X(LibcryptoKey *, d2i_PrivateKey, (int, LibcryptoKey **, const unsigned char **, long)) \
    X(LibcryptoKey *, d2i_PublicKey, (int, LibcryptoKey **, const unsigned char **, long)) \
    X(int, i2d_PrivateKey, (const LibcryptoKey *, unsigned char **)) \
    X(int, i2d_PublicKey, (const LibcryptoKey *, unsigned char **)) \
    X(int, EVP_PKEY_get_bits, (const LibcryptoKey *)) \
    X(int, EVP_PKEY_CTX_set_rsa_padding, (LibcryptoKeyContext *, int)) \
    X(int, EVP_PKEY_CTX_set_rsa_pss_saltlen, (LibcryptoKeyContext *, int)) \
    X(int, EVP_PKEY_encrypt_init, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_encrypt, (LibcryptoKeyContext *, unsigned char *, size_t *, const unsigned char *, size_t)) \
    X(int, EVP_PKEY_decrypt_init, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_decrypt, (LibcryptoKeyContext *, unsigned char *, size_t *, const unsigned char *, size_t)) \
    X(int, EVP_PKEY_CTX_set_rsa_oaep_md_name, (LibcryptoKeyContext *, const char *, const char *)) \
    X(int, EVP_PKEY_CTX_set_rsa_mgf1_md_name, (LibcryptoKeyContext *, const char *, const char *)) \
    X(int, EVP_PKEY_derive_init, (LibcryptoKeyContext *)) \
    X(int, EVP_PKEY_derive_set_peer, (LibcryptoKeyContext *, LibcryptoKey *)) \
    X(int, EVP_PKEY_derive, (LibcryptoKeyContext *, unsigned char *, size_t *)) \
    X(LibcryptoCipher *, EVP_CIPHER_fetch, (LibcryptoLibraryContext *, const char *, const char *)) \
    X(void, EVP_CIPHER_free, (LibcryptoCipher *)) \
    X(LibcryptoCipherContext *, EVP_CIPHER_CTX_new, (void)) \
    X(void, EVP_CIPHER_CTX_free, (LibcryptoCipherContext *)) \
    X(int, EVP_CipherInit_ex2, (LibcryptoCipherContext *, const LibcryptoCipher *, const unsigned char *, \
                                const unsigned char *, int, const LibcryptoParam *)) \
    X(int, EVP_CipherUpdate, (LibcryptoCipherContext *, unsigned char *, int *, const unsigned char *, int)) \
    X(int, EVP_CipherFinal_ex, (LibcryptoCipherContext *, unsigned char *, int *)) \
    X(int, EVP_CIPHER_CTX_ctrl, (LibcryptoCipherContext *, int, int, void *)) \
    X(LibcryptoCertificate *, d2i_X509, (LibcryptoCertificate **, const unsigned char **, long)) \
    X(void, X509_free, (LibcryptoCertificate *)) \
    X(LibcryptoName *, X509_get_subject_name, (const LibcryptoCertificate *)) \
    X(int, X509_NAME_get_index_by_NID, (const LibcryptoName *, int, int)) \
    X(LibcryptoNameEntry *, X509_NAME_get_entry, (const LibcryptoName *, int)) \
    X(LibcryptoASN1String *, X509_NAME_ENTRY_get_data, (const LibcryptoNameEntry *)) \
    X(int, ASN1_STRING_to_UTF8, (unsigned char **, const LibcryptoASN1String *)) \
    X(void, CRYPTO_free, (void *, const char *, int)) \
    X(LibcryptoKey *, X509_get0_pubkey, (const LibcryptoCertificate *)) \
    X(int, EVP_PKEY_get_base_id, (const LibcryptoKey *)) \
    X(void, ERR_clear_error, (void))

/// The numbers CLibcrypto.c uses, as X(our name, OpenSSL's name, value).
#define CLIBCRYPTO_CONSTANTS(X) \
    X(PARAM_UNSIGNED_INTEGER, OSSL_PARAM_UNSIGNED_INTEGER, 2) \
    X(PARAM_UTF8_STRING, OSSL_PARAM_UTF8_STRING, 4) \
    X(PARAM_OCTET_STRING, OSSL_PARAM_OCTET_STRING, 5) \
    X(SELECT_PUBLIC_KEY, EVP_PKEY_PUBLIC_KEY, 0x86) \
    X(SELECT_KEYPAIR, EVP_PKEY_KEYPAIR, 0x87) \
    X(KEY_TYPE_RSA, EVP_PKEY_RSA, 6) \
    X(RSA_PADDING_PKCS1, RSA_PKCS1_PADDING, 1) \
    X(RSA_PADDING_PSS, RSA_PKCS1_PSS_PADDING, 6) \
    X(RSA_PADDING_OAEP, RSA_PKCS1_OAEP_PADDING, 4) \
    X(RSA_SALT_LENGTH_DIGEST, RSA_PSS_SALTLEN_DIGEST, -1) \
    X(CTRL_GCM_SET_IV_LENGTH, EVP_CTRL_GCM_SET_IVLEN, 0x9) \
    X(CTRL_GCM_GET_TAG, EVP_CTRL_GCM_GET_TAG, 0x10) \
    X(CTRL_GCM_SET_TAG, EVP_CTRL_GCM_SET_TAG, 0x11) \
    X(KEY_TYPE_EC, EVP_PKEY_EC, 408) \
    X(NAME_COMMON_NAME, NID_commonName, 13) \
    X(NAME_EMAIL_ADDRESS, NID_pkcs9_emailAddress, 48) \
    X(NAME_ORGANIZATIONAL_UNIT, NID_organizationalUnitName, 18) \
    X(NAME_ORGANIZATION, NID_organizationName, 17)

#define CLIBCRYPTO_DECLARE_CONSTANT(name, openssl_name, value) name = value,
enum { CLIBCRYPTO_CONSTANTS(CLIBCRYPTO_DECLARE_CONSTANT) };
#undef CLIBCRYPTO_DECLARE_CONSTANT

/// OSSL_PARAM_UNMODIFIED, a size_t (too wide for the enum): a return_size libcrypto never set.
#define PARAM_UNMODIFIED ((size_t)-1)

#endif
