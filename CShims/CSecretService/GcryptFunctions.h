#ifndef LINUX_KEYCHAIN_GCRYPT_FUNCTIONS_H
#define LINUX_KEYCHAIN_GCRYPT_FUNCTIONS_H
// The libgcrypt functions TransferSession.c looks up, as X(result, name, parameters), and the
// few types and values it passes, declared by hand so that building needs no <gcrypt.h>:
// libgcrypt's handles stay opaque pointers, gcry_error_t is unsigned int and each enum int.
// Tests/CSecretServiceABICheck checks them all against the real header.

#include <stddef.h>

typedef void *GcryptNumber;
typedef void *GcryptCipher;
typedef void *GcryptDigest;
typedef unsigned int GcryptError;
// The enums the functions take (gcry_ctl_cmds, gcry_mpi_format, gcry_random_level), int here.
typedef int GcryptControl;
typedef int GcryptFormat;
typedef int GcryptRandomLevel;

// Values from gcrypt.h (enum gcry_ctl_cmds, gcry_mpi_format, gcry_random_level, gcry_cipher_algos,
// gcry_cipher_modes, gcry_md_algos, gcry_md_flags); they are ABI.
enum {
    GCRY_CONTROL_INITIALIZATION_FINISHED = 38, GCRY_CONTROL_INITIALIZATION_FINISHED_P = 39,
    GCRY_FORMAT_UNSIGNED = 5, GCRY_RANDOM_STRONG = 1, GCRY_AES128 = 7, GCRY_MODE_CBC = 3, GCRY_SHA256 = 8,
    GCRY_FLAG_HMAC = 2,
};

#define GCRYPT_FUNCTIONS(X) \
    X(const char *, gcry_check_version, (const char *)) \
    X(GcryptError, gcry_control, (GcryptControl, ...)) \
    X(GcryptNumber, gcry_mpi_new, (unsigned int)) \
    X(void, gcry_mpi_release, (GcryptNumber)) \
    X(GcryptNumber, gcry_mpi_set_ui, (GcryptNumber, unsigned long)) \
    X(GcryptError, gcry_mpi_scan, (GcryptNumber *, GcryptFormat, const void *, size_t, size_t *)) \
    X(GcryptError, gcry_mpi_print, (GcryptFormat, unsigned char *, size_t, size_t *, const GcryptNumber)) \
    X(void, gcry_mpi_randomize, (GcryptNumber, unsigned int, GcryptRandomLevel)) \
    X(void, gcry_mpi_powm, (GcryptNumber, const GcryptNumber, const GcryptNumber, const GcryptNumber)) \
    X(void, gcry_mpi_addm, (GcryptNumber, GcryptNumber, GcryptNumber, GcryptNumber)) \
    X(void, gcry_mpi_add_ui, (GcryptNumber, GcryptNumber, unsigned long)) \
    X(void, gcry_mpi_sub_ui, (GcryptNumber, GcryptNumber, unsigned long)) \
    X(int, gcry_mpi_cmp, (const GcryptNumber, const GcryptNumber)) \
    X(int, gcry_mpi_cmp_ui, (const GcryptNumber, unsigned long)) \
    X(void, gcry_randomize, (void *, size_t, GcryptRandomLevel)) \
    X(GcryptError, gcry_cipher_open, (GcryptCipher *, int, int, unsigned int)) \
    X(GcryptError, gcry_cipher_setkey, (GcryptCipher, const void *, size_t)) \
    X(GcryptError, gcry_cipher_setiv, (GcryptCipher, const void *, size_t)) \
    X(GcryptError, gcry_cipher_encrypt, (GcryptCipher, void *, size_t, const void *, size_t)) \
    X(GcryptError, gcry_cipher_decrypt, (GcryptCipher, void *, size_t, const void *, size_t)) \
    X(void, gcry_cipher_close, (GcryptCipher)) \
    X(GcryptError, gcry_md_open, (GcryptDigest *, int, unsigned int)) \
    X(GcryptError, gcry_md_setkey, (GcryptDigest, const void *, size_t)) \
    X(void, gcry_md_write, (GcryptDigest, const void *, size_t)) \
    X(unsigned char *, gcry_md_read, (GcryptDigest, int)) \
    X(void, gcry_md_close, (GcryptDigest))

#endif
