// See TransferSession.h.

#include "TransferSession.h"
#include "CDynamicLibrary.h"
#include "GcryptFunctions.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

GCRYPT_FUNCTIONS(CDYNAMICLIBRARY_DECLARE_POINTER)

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static int loaded = 0;

static int load_functions(char *reason, size_t reason_size) {
    const char *path = "libgcrypt.so.20";
    void *handle = cdynamiclibrary_open(path, reason, reason_size);
    if (handle == NULL) return -1;
    const char *requirement = " (libgcrypt 1.6 or newer is needed)";
    GCRYPT_FUNCTIONS(CDYNAMICLIBRARY_LOOK_UP)
    // Whoever comes first initializes libgcrypt; libsecret skips its own setup once it is done.
    p_gcry_check_version(NULL);
    if (!p_gcry_control(GCRY_CONTROL_INITIALIZATION_FINISHED_P)) p_gcry_control(GCRY_CONTROL_INITIALIZATION_FINISHED, 0);
    return 0;
}

int transfer_crypto_load(char *reason, size_t reason_size) {
    pthread_mutex_lock(&load_mutex);
    if (!loaded && load_functions(reason, reason_size) == 0) loaded = 1;
    int result = loaded ? 0 : -1;
    pthread_mutex_unlock(&load_mutex);
    return result;
}

/// The 1024-bit MODP group of RFC 2409 (Second Oakley Group), generator 2.
static const unsigned char PRIME[TRANSFER_PUBLIC_KEY_SIZE] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC9, 0x0F, 0xDA, 0xA2, 0x21, 0x68, 0xC2, 0x34,
    0xC4, 0xC6, 0x62, 0x8B, 0x80, 0xDC, 0x1C, 0xD1, 0x29, 0x02, 0x4E, 0x08, 0x8A, 0x67, 0xCC, 0x74,
    0x02, 0x0B, 0xBE, 0xA6, 0x3B, 0x13, 0x9B, 0x22, 0x51, 0x4A, 0x08, 0x79, 0x8E, 0x34, 0x04, 0xDD,
    0xEF, 0x95, 0x19, 0xB3, 0xCD, 0x3A, 0x43, 0x1B, 0x30, 0x2B, 0x0A, 0x6D, 0xF2, 0x5F, 0x14, 0x37,
    0x4F, 0xE1, 0x35, 0x6D, 0x6D, 0x51, 0xC2, 0x45, 0xE4, 0x85, 0xB5, 0x76, 0x62, 0x5E, 0x7E, 0xC6,
    0xF4, 0x4C, 0x42, 0xE9, 0xA6, 0x37, 0xED, 0x6B, 0x0B, 0xFF, 0x5C, 0xB6, 0xF4, 0x06, 0xB7, 0xED,
    0xEE, 0x38, 0x6B, 0xFB, 0x5A, 0x89, 0x9F, 0xA5, 0xAE, 0x9F, 0x24, 0x11, 0x7C, 0x4B, 0x1F, 0xE6,
    0x49, 0x28, 0x66, 0x51, 0xEC, 0xE6, 0x53, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/// Private exponents are 256 bits, not the group's 1024 as libsecret's: the group's strength is
/// about 80 bits, which an exponent of twice that keeps, at a quarter of the work.
enum { EXPONENT_BITS = 256 };

struct TransferKeyPair {
    GcryptNumber exponent;
};

static GcryptNumber prime_number(void) {
    GcryptNumber prime = NULL;
    if (p_gcry_mpi_scan(&prime, GCRY_FORMAT_UNSIGNED, PRIME, sizeof PRIME, NULL) != 0) return NULL;
    return prime;
}

/// `number` (below the prime) as exactly 128 big-endian bytes. Returns how many leading bytes
/// are padding zeros.
static size_t write_padded(GcryptNumber number, unsigned char out[TRANSFER_PUBLIC_KEY_SIZE]) {
    size_t written = 0;
    if (p_gcry_mpi_print(GCRY_FORMAT_UNSIGNED, out, TRANSFER_PUBLIC_KEY_SIZE, &written, number) != 0) written = 0;
    size_t padding = TRANSFER_PUBLIC_KEY_SIZE - written;
    memmove(out + padding, out, written);
    memset(out, 0, padding);
    return padding;
}

TransferKeyPair *transfer_key_pair_new(unsigned char public_key[TRANSFER_PUBLIC_KEY_SIZE]) {
    TransferKeyPair *pair = calloc(1, sizeof *pair);
    GcryptNumber prime = prime_number();
    GcryptNumber generator = p_gcry_mpi_set_ui(NULL, 2);
    GcryptNumber public_number = p_gcry_mpi_new(1024);
    if (pair == NULL || prime == NULL || generator == NULL || public_number == NULL) {
        free(pair);
        pair = NULL;
        goto done;
    }
    pair->exponent = p_gcry_mpi_new(EXPONENT_BITS);
    do p_gcry_mpi_randomize(pair->exponent, EXPONENT_BITS, GCRY_RANDOM_STRONG);
    while (p_gcry_mpi_cmp_ui(pair->exponent, 1) <= 0);
    p_gcry_mpi_powm(public_number, generator, pair->exponent, prime);
    // Until the first byte is 1...127, step to the next exponent: with generator 2, that doubles
    // the public number, for next to nothing. About half of all public numbers qualify.
    while (write_padded(public_number, public_key) != 0 || public_key[0] >= 0x80) {
        p_gcry_mpi_add_ui(pair->exponent, pair->exponent, 1);
        p_gcry_mpi_addm(public_number, public_number, public_number, prime);
    }
done:
    p_gcry_mpi_release(public_number);
    p_gcry_mpi_release(generator);
    p_gcry_mpi_release(prime);
    return pair;
}

struct TransferKeyPairJob {
    pthread_t thread;
    TransferKeyPair *pair;
    unsigned char public_key[TRANSFER_PUBLIC_KEY_SIZE];
};

static void *make_key_pair(void *job_pointer) {
    TransferKeyPairJob *job = job_pointer;
    job->pair = transfer_key_pair_new(job->public_key);
    return NULL;
}

TransferKeyPairJob *transfer_key_pair_start(void) {
    TransferKeyPairJob *job = calloc(1, sizeof *job);
    if (job != NULL && pthread_create(&job->thread, NULL, make_key_pair, job) != 0) {
        free(job);
        job = NULL;
    }
    return job;
}

TransferKeyPair *transfer_key_pair_finish(TransferKeyPairJob *job, unsigned char public_key[TRANSFER_PUBLIC_KEY_SIZE]) {
    pthread_join(job->thread, NULL);
    TransferKeyPair *pair = job->pair;
    memcpy(public_key, job->public_key, TRANSFER_PUBLIC_KEY_SIZE);
    free(job);
    return pair;
}

/// HKDF-SHA256 (RFC 5869) of `input` with no salt and no information, to a 16-byte `key`.
static int derive_key(const unsigned char *input, size_t length, unsigned char key[TRANSFER_KEY_SIZE]) {
    static const unsigned char no_salt[32] = {0};
    static const unsigned char first_block = 1;
    GcryptDigest extract = NULL, expand = NULL;
    int result = -1;
    if (p_gcry_md_open(&extract, GCRY_SHA256, GCRY_FLAG_HMAC) != 0) return -1;
    if (p_gcry_md_open(&expand, GCRY_SHA256, GCRY_FLAG_HMAC) != 0) goto done;
    if (p_gcry_md_setkey(extract, no_salt, sizeof no_salt) != 0) goto done;
    p_gcry_md_write(extract, input, length);
    if (p_gcry_md_setkey(expand, p_gcry_md_read(extract, GCRY_SHA256), 32) != 0) goto done;
    p_gcry_md_write(expand, &first_block, 1);
    memcpy(key, p_gcry_md_read(expand, GCRY_SHA256), TRANSFER_KEY_SIZE);
    result = 0;
done:
    // Closing wipes each digest's state.
    p_gcry_md_close(expand);
    p_gcry_md_close(extract);
    return result;
}

int transfer_key_pair_derive(const TransferKeyPair *pair, const unsigned char *peer, size_t peer_length,
                             unsigned char key[TRANSFER_KEY_SIZE]) {
    GcryptNumber prime = prime_number(), peer_number = NULL, shared = p_gcry_mpi_new(1024), highest = p_gcry_mpi_new(1024);
    int result = -1;
    if (prime == NULL || shared == NULL || highest == NULL || peer_length == 0 || peer_length > 2 * TRANSFER_PUBLIC_KEY_SIZE ||
        p_gcry_mpi_scan(&peer_number, GCRY_FORMAT_UNSIGNED, peer, peer_length, NULL) != 0) goto done;
    // 1 < peer < prime - 1: the others give away the shared secret.
    p_gcry_mpi_sub_ui(highest, prime, 1);
    if (p_gcry_mpi_cmp_ui(peer_number, 1) <= 0 || p_gcry_mpi_cmp(peer_number, highest) >= 0) goto done;
    p_gcry_mpi_powm(shared, peer_number, pair->exponent, prime);
    unsigned char secret[TRANSFER_PUBLIC_KEY_SIZE];
    // libsecret and gnome-keyring hash the secret padded to 128 bytes, kwalletd without its
    // leading zeros: only a secret without any is the same to all.
    if (write_padded(shared, secret) != 0) result = 1;
    else result = derive_key(secret, sizeof secret, key);
    explicit_bzero(secret, sizeof secret);
done:
    // Releasing a number wipes its memory.
    p_gcry_mpi_release(highest);
    p_gcry_mpi_release(shared);
    p_gcry_mpi_release(peer_number);
    p_gcry_mpi_release(prime);
    return result;
}

void transfer_key_pair_free(TransferKeyPair *pair) {
    if (pair == NULL) return;
    p_gcry_mpi_release(pair->exponent);
    free(pair);
}

/// An AES-128-CBC handle keyed with `key` and `iv`, or NULL.
static GcryptCipher cipher_with(const unsigned char key[TRANSFER_KEY_SIZE], const unsigned char iv[TRANSFER_IV_SIZE]) {
    GcryptCipher cipher = NULL;
    if (p_gcry_cipher_open(&cipher, GCRY_AES128, GCRY_MODE_CBC, 0) != 0) return NULL;
    if (p_gcry_cipher_setkey(cipher, key, TRANSFER_KEY_SIZE) != 0 || p_gcry_cipher_setiv(cipher, iv, TRANSFER_IV_SIZE) != 0) {
        p_gcry_cipher_close(cipher);
        return NULL;
    }
    return cipher;
}

unsigned char *transfer_encrypt(const unsigned char key[TRANSFER_KEY_SIZE], const unsigned char *plain,
                                size_t plain_length, unsigned char iv[TRANSFER_IV_SIZE], size_t *length) {
    size_t padding = 16 - plain_length % 16;
    *length = plain_length + padding;
    p_gcry_randomize(iv, TRANSFER_IV_SIZE, GCRY_RANDOM_STRONG);
    GcryptCipher cipher = cipher_with(key, iv);
    unsigned char *buffer = cipher != NULL ? malloc(*length) : NULL;
    if (buffer == NULL) goto done;
    if (plain_length > 0) memcpy(buffer, plain, plain_length);
    memset(buffer + plain_length, (int)padding, padding);
    // In place: the plain text is gone from the buffer once it is encrypted.
    if (p_gcry_cipher_encrypt(cipher, buffer, *length, NULL, 0) != 0) {
        explicit_bzero(buffer, *length);
        free(buffer);
        buffer = NULL;
    }
done:
    if (cipher != NULL) p_gcry_cipher_close(cipher);
    return buffer;
}

unsigned char *transfer_decrypt(const unsigned char key[TRANSFER_KEY_SIZE], const unsigned char *iv,
                                size_t iv_length, const unsigned char *cipher_text, size_t cipher_length, size_t *length) {
    if (iv_length != TRANSFER_IV_SIZE || cipher_length == 0 || cipher_length % 16 != 0) return NULL;
    GcryptCipher cipher = cipher_with(key, iv);
    unsigned char *buffer = cipher != NULL ? malloc(cipher_length) : NULL;
    if (buffer == NULL) goto done;
    memcpy(buffer, cipher_text, cipher_length);
    int valid = p_gcry_cipher_decrypt(cipher, buffer, cipher_length, NULL, 0) == 0;
    unsigned char padding = buffer[cipher_length - 1];
    valid = valid && padding >= 1 && padding <= 16;
    for (size_t index = 0; valid && index < padding; index++) valid = buffer[cipher_length - 1 - index] == padding;
    if (!valid) {
        explicit_bzero(buffer, cipher_length);
        free(buffer);
        buffer = NULL;
        goto done;
    }
    explicit_bzero(buffer + cipher_length - padding, padding);
    *length = cipher_length - padding;
done:
    if (cipher != NULL) p_gcry_cipher_close(cipher);
    return buffer;
}
