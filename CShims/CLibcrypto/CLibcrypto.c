// libcrypto through dlopen: see include/CLibcrypto.h for the contract.
//
// OpenSSL's headers are deliberately not included, so that building needs none: LibcryptoABI.h
// declares the part of libcrypto's ABI used here, and Tests/CLibcryptoABICheck checks it.

#include "CLibcrypto.h"
#include "CDynamicLibrary.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "LibcryptoABI.h"

CLIBCRYPTO_FUNCTIONS(CDYNAMICLIBRARY_DECLARE_POINTER)

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
// Set once, under load_mutex, after every function pointer is; acquire pairs with the release
// store, so a thread that never took the mutex sees the pointers.
static atomic_int loaded;

static int load_functions(const char *path, char *reason, size_t reason_size) {
    // Never closed: libcrypto keeps per-thread state and providers that cannot be unloaded.
    void *handle = cdynamiclibrary_open(path, reason, reason_size);
    if (handle == NULL) return -1;
    const char *requirement = " (OpenSSL 3 is needed)";
    CLIBCRYPTO_FUNCTIONS(CDYNAMICLIBRARY_LOOK_UP)
    return 0;
}

int clibcrypto_load(const char *library_path, char *reason, size_t reason_size) {
    const char *path = library_path != NULL ? library_path : "libcrypto.so.3";
    pthread_mutex_lock(&load_mutex);
    int result = atomic_load_explicit(&loaded, memory_order_acquire) ? 0 : load_functions(path, reason, reason_size);
    if (result == 0) atomic_store_explicit(&loaded, 1, memory_order_release);
    pthread_mutex_unlock(&load_mutex);
    return result;
}

static int is_loaded(void) {
    return atomic_load_explicit(&loaded, memory_order_acquire);
}

enum { LARGEST_FIELD = 66 };

size_t clibcrypto_ec_field_bytes(int curve_bits) {
    switch (curve_bits) {
    case 256: return 32;
    case 384: return 48;
    case 521: return LARGEST_FIELD;
    default: return 0;
    }
}

static const char *group_name(int curve_bits) {
    switch (curve_bits) {
    case 256: return "P-256";
    case 384: return "P-384";
    case 521: return "P-521";
    default: return NULL;
    }
}

static void wipe(void *bytes, size_t length) {
    volatile unsigned char *cursor = bytes;
    while (length--) *cursor++ = 0;
}

/// Copies `length` bytes between big-endian (X9.63's K) and host order (the integer an
/// OSSL_PARAM_UNSIGNED_INTEGER holds): the same swap both ways.
static void swap_byte_order(unsigned char *to, const unsigned char *from, size_t length) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (size_t index = 0; index < length; index++) to[index] = from[length - 1 - index];
#else
    memcpy(to, from, length);
#endif
}

/// libcrypto's key for X9.63 bytes (the point, and K when `is_private`), or NULL.
static void *import_key(int curve_bits, const unsigned char *key, size_t key_length, int is_private) {
    size_t field = clibcrypto_ec_field_bytes(curve_bits);
    size_t point_length = 1 + 2 * field;
    if (!is_loaded() || field == 0 || key == NULL || key_length != point_length + (is_private ? field : 0)
        || key[0] != 0x04) {
        return NULL;
    }
    unsigned char secret[LARGEST_FIELD];
    if (is_private) swap_byte_order(secret, key + point_length, field);
    char *group = (char *)group_name(curve_bits);
    LibcryptoParam params[] = {
        {"group", PARAM_UTF8_STRING, group, strlen(group), PARAM_UNMODIFIED},
        {"pub", PARAM_OCTET_STRING, (void *)key, point_length, PARAM_UNMODIFIED},
        {is_private ? "priv" : NULL, PARAM_UNSIGNED_INTEGER, secret, field, PARAM_UNMODIFIED},
        {NULL, 0, NULL, 0, 0},
    };
    void *pkey = NULL;
    void *context = p_EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (context == NULL || p_EVP_PKEY_fromdata_init(context) <= 0
        || p_EVP_PKEY_fromdata(context, &pkey, is_private ? SELECT_KEYPAIR : SELECT_PUBLIC_KEY, params) <= 0) {
        pkey = NULL;
    }
    p_EVP_PKEY_CTX_free(context);
    wipe(secret, sizeof secret);
    return pkey;
}

int clibcrypto_ec_generate(int curve_bits, unsigned char *key, size_t key_size) {
    size_t field = clibcrypto_ec_field_bytes(curve_bits);
    if (!is_loaded() || field == 0 || key == NULL || key_size < 1 + 3 * field) return -1;
    void *pkey = p_EVP_PKEY_Q_keygen(NULL, NULL, "EC", group_name(curve_bits));
    unsigned char secret[LARGEST_FIELD];
    LibcryptoParam params[] = {
        {"pub", PARAM_OCTET_STRING, key, 1 + 2 * field, PARAM_UNMODIFIED},
        {"priv", PARAM_UNSIGNED_INTEGER, secret, field, PARAM_UNMODIFIED},
        {NULL, 0, NULL, 0, 0},
    };
    int result = pkey != NULL && p_EVP_PKEY_get_params(pkey, params) > 0
        && params[0].return_size == 1 + 2 * field && key[0] == 0x04 && params[1].return_size == field ? 0 : -1;
    if (result == 0) {
        swap_byte_order(key + 1 + 2 * field, secret, field);
    } else {
        wipe(key, key_size);
    }
    wipe(secret, sizeof secret);
    p_EVP_PKEY_free(pkey);
    p_ERR_clear_error();
    return result;
}

int clibcrypto_ec_check(int curve_bits, const unsigned char *key, size_t key_length, int is_private) {
    void *pkey = import_key(curve_bits, key, key_length, is_private);
    void *context = pkey != NULL ? p_EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL) : NULL;
    int valid = context != NULL && (is_private ? p_EVP_PKEY_check(context) : p_EVP_PKEY_public_check(context)) == 1;
    p_EVP_PKEY_CTX_free(context);
    p_EVP_PKEY_free(pkey);
    p_ERR_clear_error();
    return valid ? 0 : -1;
}

/// Signs (`signing`) or verifies with `pkey`: through a digest context that hashes `data` when
/// `digest` names the hash, else on the key's own context, `data` being the digest; for RSA
/// with `rsa_padding` (0 for an EC key), PSS with a salt as long as the digest. Frees `pkey`.
/// Returns 1 when done (verified), else 0.
static int run_signature(void *pkey, int signing, const char *digest, int rsa_padding,
                         const unsigned char *data, size_t data_length, unsigned char *signature, size_t *signature_length) {
    int done = 0;
    if (digest != NULL) {
        void *context = p_EVP_MD_CTX_new();
        void *key_context = NULL;
        int ready = context != NULL
            && (signing ? p_EVP_DigestSignInit_ex(context, &key_context, digest, NULL, NULL, pkey, NULL)
                        : p_EVP_DigestVerifyInit_ex(context, &key_context, digest, NULL, NULL, pkey, NULL)) == 1
            && (rsa_padding == 0 || p_EVP_PKEY_CTX_set_rsa_padding(key_context, rsa_padding) > 0)
            && (rsa_padding != RSA_PADDING_PSS || p_EVP_PKEY_CTX_set_rsa_pss_saltlen(key_context, RSA_SALT_LENGTH_DIGEST) > 0);
        if (ready && signing) {
            done = p_EVP_DigestSign(context, signature, signature_length, data, data_length) == 1;
        } else if (ready) {
            done = p_EVP_DigestVerify(context, signature, *signature_length, data, data_length) == 1;
        }
        p_EVP_MD_CTX_free(context);
    } else if (rsa_padding == 0) {
        void *context = p_EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
        if (context != NULL && signing) {
            done = p_EVP_PKEY_sign_init(context) == 1
                && p_EVP_PKEY_sign(context, signature, signature_length, data, data_length) == 1;
        } else if (context != NULL) {
            done = p_EVP_PKEY_verify_init(context) == 1
                && p_EVP_PKEY_verify(context, signature, *signature_length, data, data_length) == 1;
        }
        p_EVP_PKEY_CTX_free(context);
    }
    p_EVP_PKEY_free(pkey);
    p_ERR_clear_error();
    return done;
}

int clibcrypto_ec_sign(int curve_bits, const unsigned char *key, size_t key_length, const char *digest,
                       const unsigned char *data, size_t data_length,
                       unsigned char *signature, size_t *signature_length) {
    void *pkey = *signature_length >= CLIBCRYPTO_EC_SIGNATURE_CAPACITY ? import_key(curve_bits, key, key_length, 1) : NULL;
    if (pkey == NULL) {
        p_ERR_clear_error();
        return -1;
    }
    return run_signature(pkey, 1, digest, 0, data, data_length, signature, signature_length) ? 0 : -1;
}

int clibcrypto_ec_verify(int curve_bits, const unsigned char *key, size_t key_length, const char *digest,
                         const unsigned char *data, size_t data_length,
                         const unsigned char *signature, size_t signature_length) {
    void *pkey = import_key(curve_bits, key, key_length, 0);
    if (pkey == NULL) {
        p_ERR_clear_error();
        return -1;
    }
    // Only read when verifying: the cast drops a const that the shared helper's signing side needs off.
    return run_signature(pkey, 0, digest, 0, data, data_length, (unsigned char *)signature, &signature_length);
}

int clibcrypto_digest(const char *digest, const unsigned char *data, size_t data_length,
                      unsigned char *output, size_t *output_length) {
    if (!is_loaded() || *output_length < CLIBCRYPTO_DIGEST_CAPACITY) return -1;
    int result = p_EVP_Q_digest(NULL, digest, NULL, data, data_length, output, output_length) == 1 ? 0 : -1;
    p_ERR_clear_error();
    return result;
}

// --- ECDH --------------------------------------------------------------------------------------

/// The X9.63 KDF of `secret` and `shared_info` into `output` (`length` bytes). Returns 0, or -1.
static int x963_kdf(const char *digest, const unsigned char *secret, size_t secret_length,
                    const unsigned char *shared_info, size_t shared_info_length, unsigned char *output, size_t length) {
    size_t input_length = secret_length + 4 + shared_info_length;
    if (shared_info_length > CLIBCRYPTO_ECDH_MAXIMUM_OUTPUT) return -1;
    unsigned char *input = malloc(input_length);
    if (input == NULL) return -1;
    memcpy(input, secret, secret_length);
    if (shared_info_length > 0) memcpy(input + secret_length + 4, shared_info, shared_info_length);
    unsigned char block[CLIBCRYPTO_DIGEST_CAPACITY];
    int result = 0;
    for (uint32_t counter = 1; length > 0 && result == 0; counter++) {
        input[secret_length] = (unsigned char)(counter >> 24);
        input[secret_length + 1] = (unsigned char)(counter >> 16);
        input[secret_length + 2] = (unsigned char)(counter >> 8);
        input[secret_length + 3] = (unsigned char)counter;
        size_t block_length = sizeof block;
        if (p_EVP_Q_digest(NULL, digest, NULL, input, input_length, block, &block_length) != 1 || block_length == 0) {
            result = -1;
            break;
        }
        size_t taken = block_length < length ? block_length : length;
        memcpy(output, block, taken);
        output += taken;
        length -= taken;
    }
    wipe(block, sizeof block);
    wipe(input, input_length);
    free(input);
    return result;
}

int clibcrypto_ecdh(int curve_bits, const unsigned char *private_key, size_t private_length,
                    const unsigned char *public_key, size_t public_length, const char *kdf_digest,
                    const unsigned char *shared_info, size_t shared_info_length,
                    unsigned char *output, size_t *output_length) {
    size_t field = clibcrypto_ec_field_bytes(curve_bits);
    if (output == NULL || output_length == NULL || (shared_info == NULL && shared_info_length > 0)) return -1;
    if (kdf_digest == NULL ? *output_length < field : *output_length == 0 || *output_length > CLIBCRYPTO_ECDH_MAXIMUM_OUTPUT) {
        return -1;
    }
    void *own = import_key(curve_bits, private_key, private_length, 1);
    void *peer = import_key(curve_bits, public_key, public_length, 0);
    void *context = own != NULL && peer != NULL ? p_EVP_PKEY_CTX_new_from_pkey(NULL, own, NULL) : NULL;
    // The peer's point is checked against the curve before use (an invalid-curve attack otherwise).
    void *peer_context = peer != NULL ? p_EVP_PKEY_CTX_new_from_pkey(NULL, peer, NULL) : NULL;
    unsigned char secret[LARGEST_FIELD];
    size_t secret_length = sizeof secret;
    int result = context != NULL && peer_context != NULL && p_EVP_PKEY_public_check(peer_context) == 1
        && p_EVP_PKEY_derive_init(context) == 1 && p_EVP_PKEY_derive_set_peer(context, peer) == 1
        && p_EVP_PKEY_derive(context, secret, &secret_length) == 1 && secret_length == field ? 0 : -1;
    if (result == 0 && kdf_digest == NULL) {
        memcpy(output, secret, field);
        *output_length = field;
    } else if (result == 0) {
        result = x963_kdf(kdf_digest, secret, field, shared_info, shared_info_length, output, *output_length);
        if (result != 0) wipe(output, *output_length);
    }
    wipe(secret, sizeof secret);
    p_EVP_PKEY_CTX_free(peer_context);
    p_EVP_PKEY_CTX_free(context);
    p_EVP_PKEY_free(peer);
    p_EVP_PKEY_free(own);
    p_ERR_clear_error();
    return result;
}

// --- AES-GCM -----------------------------------------------------------------------------------

int clibcrypto_aes_gcm(int encrypting, const unsigned char *key, size_t key_length, const unsigned char *iv,
                       size_t iv_length, const unsigned char *aad, size_t aad_length, const unsigned char *input,
                       size_t input_length, unsigned char *output, unsigned char *tag) {
    const char *name = key_length == 16 ? "AES-128-GCM" : key_length == 24 ? "AES-192-GCM" : key_length == 32 ? "AES-256-GCM" : NULL;
    if (!is_loaded() || name == NULL || key == NULL || iv == NULL || iv_length == 0 || iv_length > INT_MAX || tag == NULL
        || (aad == NULL && aad_length > 0) || aad_length > INT_MAX || input_length > INT_MAX - 16
        || (input_length > 0 && (input == NULL || output == NULL))) {
        return -1;
    }
    void *cipher = p_EVP_CIPHER_fetch(NULL, name, NULL);
    void *context = cipher != NULL ? p_EVP_CIPHER_CTX_new() : NULL;
    int written = 0, finished = 0;
    unsigned char nothing[16];  // GCM's final step writes no bytes, but takes somewhere to write them
    int done = context != NULL && p_EVP_CipherInit_ex2(context, cipher, NULL, NULL, encrypting, NULL) == 1
        && p_EVP_CIPHER_CTX_ctrl(context, CTRL_GCM_SET_IV_LENGTH, (int)iv_length, NULL) == 1
        && p_EVP_CipherInit_ex2(context, NULL, key, iv, encrypting, NULL) == 1
        && (aad_length == 0 || p_EVP_CipherUpdate(context, NULL, &written, aad, (int)aad_length) == 1)
        && (input_length == 0 || p_EVP_CipherUpdate(context, output, &written, input, (int)input_length) == 1)
        && (encrypting || p_EVP_CIPHER_CTX_ctrl(context, CTRL_GCM_SET_TAG, CLIBCRYPTO_GCM_TAG_LENGTH, tag) == 1)
        && p_EVP_CipherFinal_ex(context, output != NULL ? output + written : nothing, &finished) == 1
        && (!encrypting || p_EVP_CIPHER_CTX_ctrl(context, CTRL_GCM_GET_TAG, CLIBCRYPTO_GCM_TAG_LENGTH, tag) == 1);
    if (!done && output != NULL) wipe(output, input_length);
    p_EVP_CIPHER_CTX_free(context);
    p_EVP_CIPHER_free(cipher);
    p_ERR_clear_error();
    return done ? 0 : -1;
}

// --- Certificates ------------------------------------------------------------------------------

/// Copies the first entry of `nid` in `name`, in UTF-8, to `summary`. Returns 1 when one was there.
static int copy_name_entry(const void *name, int nid, char *summary, size_t summary_size) {
    int index = p_X509_NAME_get_index_by_NID(name, nid, -1);
    void *entry = index >= 0 ? p_X509_NAME_get_entry(name, index) : NULL;
    unsigned char *text = NULL;
    int length = entry != NULL ? p_ASN1_STRING_to_UTF8(&text, p_X509_NAME_ENTRY_get_data(entry)) : -1;
    if (length < 0 || text == NULL) return 0;
    size_t copied = (size_t)length < summary_size - 1 ? (size_t)length : summary_size - 1;
    memcpy(summary, text, copied);
    summary[copied] = 0;
    p_CRYPTO_free(text, __FILE__, __LINE__);
    return 1;
}

/// The curve's size for an EC key on P-256, P-384 or P-521, else 0.
static int nist_curve_bits(void *pkey) {
    char group[64] = {0};
    LibcryptoParam params[] = {
        {"group", PARAM_UTF8_STRING, group, sizeof group - 1, PARAM_UNMODIFIED},
        {NULL, 0, NULL, 0, 0},
    };
    if (p_EVP_PKEY_get_params(pkey, params) <= 0) return 0;
    if (strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0) return 256;
    if (strcmp(group, "secp384r1") == 0 || strcmp(group, "P-384") == 0) return 384;
    if (strcmp(group, "secp521r1") == 0 || strcmp(group, "P-521") == 0) return 521;
    return 0;
}

int clibcrypto_certificate_parse(const unsigned char *der, size_t der_length, char *summary, size_t summary_size,
                                 unsigned char *public_key, size_t *public_length, int *key_kind, int *key_bits) {
    if (!is_loaded() || der == NULL || der_length == 0 || der_length > LONG_MAX || summary == NULL || summary_size == 0
        || public_key == NULL || public_length == NULL || key_kind == NULL || key_bits == NULL) {
        return -1;
    }
    const unsigned char *cursor = der;
    void *certificate = p_d2i_X509(NULL, &cursor, (long)der_length);
    if (certificate == NULL || cursor != der + der_length) {
        p_X509_free(certificate);
        p_ERR_clear_error();
        return -1;
    }
    summary[0] = 0;
    const void *name = p_X509_get_subject_name(certificate);
    int named_by[] = {NAME_COMMON_NAME, NAME_EMAIL_ADDRESS, NAME_ORGANIZATIONAL_UNIT, NAME_ORGANIZATION};
    for (size_t index = 0; name != NULL && index < sizeof named_by / sizeof named_by[0]; index++) {
        if (copy_name_entry(name, named_by[index], summary, summary_size)) break;
    }
    *key_kind = CLIBCRYPTO_CERTIFICATE_KEY_OTHER;
    *key_bits = 0;
    void *pkey = p_X509_get0_pubkey(certificate);  // owned by the certificate
    int type = pkey != NULL ? p_EVP_PKEY_get_base_id(pkey) : 0;
    if (type == KEY_TYPE_EC) {
        int bits = nist_curve_bits(pkey);
        size_t point_length = 1 + 2 * clibcrypto_ec_field_bytes(bits);
        LibcryptoParam params[] = {
            {"pub", PARAM_OCTET_STRING, public_key, *public_length, PARAM_UNMODIFIED},
            {NULL, 0, NULL, 0, 0},
        };
        if (bits != 0 && *public_length >= point_length && p_EVP_PKEY_get_params(pkey, params) > 0
            && params[0].return_size == point_length && public_key[0] == 0x04) {
            *key_kind = CLIBCRYPTO_CERTIFICATE_KEY_EC;
            *key_bits = bits;
            *public_length = point_length;
        }
    } else if (type == KEY_TYPE_RSA) {
        int length = p_i2d_PublicKey(pkey, NULL);
        if (length > 0 && (size_t)length <= *public_length) {
            unsigned char *out = public_key;
            if (p_i2d_PublicKey(pkey, &out) == length) {
                *key_kind = CLIBCRYPTO_CERTIFICATE_KEY_RSA;
                *key_bits = p_EVP_PKEY_get_bits(pkey);
                *public_length = (size_t)length;
            }
        }
    }
    p_X509_free(certificate);
    p_ERR_clear_error();
    return 0;
}

// --- RSA ---------------------------------------------------------------------------------------

/// libcrypto's key for PKCS #1 DER that is all of `key`, or NULL.
static void *import_rsa(const unsigned char *key, size_t key_length, int is_private) {
    if (!is_loaded() || key == NULL || key_length == 0 || key_length > CLIBCRYPTO_RSA_KEY_CAPACITY) return NULL;
    const unsigned char *cursor = key;
    void *pkey = is_private ? p_d2i_PrivateKey(KEY_TYPE_RSA, NULL, &cursor, (long)key_length)
                            : p_d2i_PublicKey(KEY_TYPE_RSA, NULL, &cursor, (long)key_length);
    if (pkey != NULL && cursor != key + key_length) {
        p_EVP_PKEY_free(pkey);
        pkey = NULL;
    }
    return pkey;
}

/// Writes the PKCS #1 DER of `pkey` (private or public) to `output` (capacity `*length`, set).
static int export_rsa(void *pkey, int is_private, unsigned char *output, size_t *length) {
    int needed = is_private ? p_i2d_PrivateKey(pkey, NULL) : p_i2d_PublicKey(pkey, NULL);
    if (needed <= 0 || (size_t)needed > *length) return -1;
    unsigned char *cursor = output;
    int written = is_private ? p_i2d_PrivateKey(pkey, &cursor) : p_i2d_PublicKey(pkey, &cursor);
    if (written != needed) {
        wipe(output, *length);
        return -1;
    }
    *length = (size_t)written;
    return 0;
}

int clibcrypto_rsa_generate(int bits, unsigned char *key, size_t *key_length, unsigned char *public_key, size_t *public_length) {
    if (!is_loaded() || bits < 1024 || bits > 8192) return -1;
    void *pkey = p_EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
    int result = pkey != NULL && export_rsa(pkey, 1, key, key_length) == 0 && export_rsa(pkey, 0, public_key, public_length) == 0 ? 0 : -1;
    p_EVP_PKEY_free(pkey);
    p_ERR_clear_error();
    return result;
}

int clibcrypto_rsa_check(const unsigned char *key, size_t key_length, int is_private, int *bits,
                         unsigned char *public_key, size_t *public_length) {
    void *pkey = import_rsa(key, key_length, is_private);
    int valid = 0;
    if (pkey != NULL) {
        void *context = is_private ? p_EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL) : NULL;
        valid = (!is_private || (context != NULL && p_EVP_PKEY_check(context) == 1))
            && export_rsa(pkey, 0, public_key, public_length) == 0;
        *bits = p_EVP_PKEY_get_bits(pkey);
        p_EVP_PKEY_CTX_free(context);
    }
    p_EVP_PKEY_free(pkey);
    p_ERR_clear_error();
    return valid ? 0 : -1;
}

int clibcrypto_rsa_sign(const unsigned char *key, size_t key_length, const char *digest, int pss,
                        const unsigned char *data, size_t data_length, unsigned char *signature, size_t *signature_length) {
    void *pkey = digest != NULL ? import_rsa(key, key_length, 1) : NULL;
    if (pkey == NULL) {
        p_ERR_clear_error();
        return -1;
    }
    int padding = pss ? RSA_PADDING_PSS : RSA_PADDING_PKCS1;
    return run_signature(pkey, 1, digest, padding, data, data_length, signature, signature_length) ? 0 : -1;
}

int clibcrypto_rsa_verify(const unsigned char *key, size_t key_length, const char *digest, int pss,
                          const unsigned char *data, size_t data_length, const unsigned char *signature, size_t signature_length) {
    void *pkey = digest != NULL ? import_rsa(key, key_length, 0) : NULL;
    if (pkey == NULL) {
        p_ERR_clear_error();
        return -1;
    }
    int padding = pss ? RSA_PADDING_PSS : RSA_PADDING_PKCS1;
    return run_signature(pkey, 0, digest, padding, data, data_length, (unsigned char *)signature, &signature_length);
}

int clibcrypto_rsa_crypt(int encrypting, const unsigned char *key, size_t key_length, const char *oaep_digest,
                         const unsigned char *input, size_t input_length, unsigned char *output, size_t *output_length) {
    void *pkey = import_rsa(key, key_length, !encrypting);
    void *context = pkey != NULL ? p_EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL) : NULL;
    int done = context != NULL
        && (encrypting ? p_EVP_PKEY_encrypt_init(context) : p_EVP_PKEY_decrypt_init(context)) == 1
        && p_EVP_PKEY_CTX_set_rsa_padding(context, oaep_digest != NULL ? RSA_PADDING_OAEP : RSA_PADDING_PKCS1) > 0
        && (oaep_digest == NULL || (p_EVP_PKEY_CTX_set_rsa_oaep_md_name(context, oaep_digest, NULL) > 0
                                    && p_EVP_PKEY_CTX_set_rsa_mgf1_md_name(context, oaep_digest, NULL) > 0))
        && (encrypting ? p_EVP_PKEY_encrypt(context, output, output_length, input, input_length)
                       : p_EVP_PKEY_decrypt(context, output, output_length, input, input_length)) == 1;
    p_EVP_PKEY_CTX_free(context);
    p_EVP_PKEY_free(pkey);
    p_ERR_clear_error();
    return done ? 0 : -1;
}
