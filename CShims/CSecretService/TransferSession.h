#ifndef LINUX_KEYCHAIN_TRANSFER_SESSION_H
#define LINUX_KEYCHAIN_TRANSFER_SESSION_H
// The cryptography of the Secret Service's encrypted transfer session,
// dh-ietf1024-sha256-aes128-cbc-pkcs7, done with libgcrypt (which libsecret itself loads):
// the Diffie-Hellman exchange in the 1024-bit MODP group of RFC 2409, HKDF-SHA256 of the shared
// secret to a 128-bit AES key, and AES-128-CBC with PKCS#7 padding. The D-Bus side is
// CSecretService.c's. Private to the shim. docs/secret-service.md tells why the library opens
// this session itself rather than letting libsecret open one.

#include <stddef.h>

enum { TRANSFER_PUBLIC_KEY_SIZE = 128, TRANSFER_KEY_SIZE = 16, TRANSFER_IV_SIZE = 16 };

/// Loads libgcrypt (`libgcrypt.so.20`) and its functions, once. 0, or -1 with the reason.
int transfer_crypto_load(char *reason, size_t reason_size);

/// One side of a key exchange: a private exponent, wiped when freed.
typedef struct TransferKeyPair TransferKeyPair;

/// A new key pair, its public key written to `public_key` as 128 big-endian bytes whose first
/// is in 1...127: no provider then misreads it as shorter or as negative. NULL when out of memory.
TransferKeyPair *transfer_key_pair_new(unsigned char public_key[TRANSFER_PUBLIC_KEY_SIZE]);

/// Derives the AES key from the provider's public key `peer`. 0 with `key` written; 1 when the
/// shared secret starts with a zero byte, which providers disagree on how to hash (the caller
/// opens another session); -1 when `peer` is not a valid public key.
int transfer_key_pair_derive(const TransferKeyPair *pair, const unsigned char *peer, size_t peer_length,
                             unsigned char key[TRANSFER_KEY_SIZE]);

void transfer_key_pair_free(TransferKeyPair *pair);

/// A key pair being made on a thread of its own, so that a caller can open its bus connection
/// meanwhile: the pair is ready by the time OpenSession can be sent. NULL when no thread could
/// be started (the caller then makes the pair itself).
typedef struct TransferKeyPairJob TransferKeyPairJob;
TransferKeyPairJob *transfer_key_pair_start(void);

/// Waits for the job's pair and frees the job: the pair (NULL when out of memory), its public
/// key written to `public_key`. Every started job must be finished exactly once.
TransferKeyPair *transfer_key_pair_finish(TransferKeyPairJob *job, unsigned char public_key[TRANSFER_PUBLIC_KEY_SIZE]);

/// `plain` encrypted with `key` under a new random `iv`: a malloc'd buffer of `*length` bytes
/// (a multiple of 16), or NULL when out of memory.
unsigned char *transfer_encrypt(const unsigned char key[TRANSFER_KEY_SIZE], const unsigned char *plain,
                                size_t plain_length, unsigned char iv[TRANSFER_IV_SIZE], size_t *length);

/// `cipher` decrypted with `key` and `iv`: a malloc'd buffer of `*length` bytes that the caller
/// wipes and frees, or NULL when the input is malformed or its padding wrong (another key).
unsigned char *transfer_decrypt(const unsigned char key[TRANSFER_KEY_SIZE], const unsigned char *iv,
                                size_t iv_length, const unsigned char *cipher, size_t cipher_length, size_t *length);

#endif
