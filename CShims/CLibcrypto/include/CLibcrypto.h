#ifndef LINUX_KEYCHAIN_CLIBCRYPTO_H
#define LINUX_KEYCHAIN_CLIBCRYPTO_H
// OpenSSL 3's libcrypto, loaded with dlopen at first use, for the SecKey functions.
//
// Nothing here needs OpenSSL's headers and nothing links against it, so a program built with
// LinuxKeychain maps libcrypto only once it uses a key. EC keys cross this boundary as Apple's
// ANSI X9.63 bytes (04 || X || Y, then || K for a private key), each coordinate and K padded to
// the curve's size; every call builds libcrypto's key from them and frees it before returning,
// so no key outlives a call here. Every buffer this file fills with private bytes of its own is
// wiped before it is freed. Thread-safe: libcrypto 3 is, and nothing here is shared but the load.
//
// `curve_bits` is 256, 384 or 521 (NIST P-256, P-384, P-521); any other fails. RSA keys cross
// as Apple's PKCS #1 DER.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most bytes an ECDSA signature here takes in DER (P-521's is the longest), rounded up.
#define CLIBCRYPTO_EC_SIGNATURE_CAPACITY 160
/// The most bytes a digest here takes (SHA-512's).
#define CLIBCRYPTO_DIGEST_CAPACITY 64

/// Loads libcrypto (`library_path`, or libcrypto.so.3 when NULL) once. Returns 0, or -1 with
/// the reason in `reason`. A failure is not remembered.
int clibcrypto_load(const char *library_path, char *reason, size_t reason_size);

/// The size of one coordinate (and of K) for `curve_bits`, or 0 for another size.
size_t clibcrypto_ec_field_bytes(int curve_bits);

/// Makes a new key pair and writes 04 || X || Y || K to `key` (1 + 3 × field bytes, which
/// `key_size` must hold). Returns 0, or -1. Only after a successful clibcrypto_load.
int clibcrypto_ec_generate(int curve_bits, unsigned char *key, size_t key_size);

/// Checks X9.63 key bytes: a point on the curve, and for a private key (`is_private`) a K in
/// range that is the point's. Returns 0 when valid, else -1.
int clibcrypto_ec_check(int curve_bits, const unsigned char *key, size_t key_length, int is_private);

/// Signs with the private key `key` (04 || X || Y || K): the message `data` hashed with
/// `digest` ("SHA256", "SHA384", "SHA512"), or, when `digest` is NULL, `data` as the digest
/// itself. Writes an ECDSA signature in DER (X9.62) to `signature`, whose capacity is
/// `*signature_length` (at least CLIBCRYPTO_EC_SIGNATURE_CAPACITY), and sets
/// `*signature_length`. Returns 0, or -1.
int clibcrypto_ec_sign(int curve_bits, const unsigned char *key, size_t key_length, const char *digest,
                       const unsigned char *data, size_t data_length,
                       unsigned char *signature, size_t *signature_length);

/// Verifies a DER signature with the public key `key` (04 || X || Y), hashing as
/// clibcrypto_ec_sign does. Returns 1 when it
/// is valid, 0 when it is not (a malformed signature included), -1 when the key is unusable.
int clibcrypto_ec_verify(int curve_bits, const unsigned char *key, size_t key_length, const char *digest,
                         const unsigned char *data, size_t data_length,
                         const unsigned char *signature, size_t signature_length);

/// Hashes `data` with `digest` ("SHA1", "SHA256"...) into `output`, whose capacity is
/// `*output_length` (at least CLIBCRYPTO_DIGEST_CAPACITY), and sets `*output_length` to the
/// digest's size. Returns 0, or -1.
int clibcrypto_digest(const char *digest, const unsigned char *data, size_t data_length,
                      unsigned char *output, size_t *output_length);

/// The most bytes clibcrypto_ecdh derives through the KDF (16 MiB).
#define CLIBCRYPTO_ECDH_MAXIMUM_OUTPUT (16u << 20)

/// Elliptic-curve Diffie-Hellman between the private key `private_key` (04 || X || Y || K) and
/// the public point `public_key` (04 || X || Y) of the same curve, which must be on it. With
/// `kdf_digest` NULL, writes the shared secret (the x-coordinate, field bytes) to `output`,
/// whose capacity `*output_length` must hold it, and sets `*output_length`. Otherwise writes
/// exactly `*output_length` bytes (1 to CLIBCRYPTO_ECDH_MAXIMUM_OUTPUT) of the ANSI X9.63 KDF
/// with `kdf_digest` ("SHA1", "SHA224", "SHA256"...) over the shared secret and `shared_info`:
/// the hash of secret || 32-bit big-endian counter from 1 || shared_info, block after block.
/// The shared secret never leaves this call unwiped. Returns 0, or -1.
int clibcrypto_ecdh(int curve_bits, const unsigned char *private_key, size_t private_length,
                    const unsigned char *public_key, size_t public_length, const char *kdf_digest,
                    const unsigned char *shared_info, size_t shared_info_length,
                    unsigned char *output, size_t *output_length);

/// The bytes of an AES-GCM tag here.
#define CLIBCRYPTO_GCM_TAG_LENGTH 16

/// AES-GCM with a `key` of 16, 24 or 32 bytes and an `iv` of any length from 1 byte: encrypts
/// (`encrypting`) `input` into `output` (as long as `input`) and writes the tag to `tag`
/// (CLIBCRYPTO_GCM_TAG_LENGTH bytes), or decrypts it, checking `tag`. `aad` may be NULL when
/// `aad_length` is 0. Returns 0, or -1 (a tag that does not match included, `output` then
/// wiped). Inputs over INT_MAX - 16 bytes fail.
int clibcrypto_aes_gcm(int encrypting, const unsigned char *key, size_t key_length, const unsigned char *iv,
                       size_t iv_length, const unsigned char *aad, size_t aad_length, const unsigned char *input,
                       size_t input_length, unsigned char *output, unsigned char *tag);

/// What public key a certificate holds (clibcrypto_certificate_parse).
#define CLIBCRYPTO_CERTIFICATE_KEY_OTHER 0
#define CLIBCRYPTO_CERTIFICATE_KEY_EC 1
#define CLIBCRYPTO_CERTIFICATE_KEY_RSA 2

/// Parses `der`, which must be exactly one DER X.509 certificate. Writes its subject summary,
/// as Apple's SecCertificateCopySubjectSummary picks it (the common name, else the email
/// address, else the organizational unit, else the organization; "" when none), in UTF-8 with
/// a NUL to `summary`, cut to `summary_size`. Writes its public key to `public_key` (capacity
/// in, length out of `*public_length`): an EC key on P-256, P-384 or P-521 as its X9.63 point
/// (`*key_kind` CLIBCRYPTO_CERTIFICATE_KEY_EC, `*key_bits` the curve's size), an RSA key as
/// PKCS #1 RSAPublicKey DER (CLIBCRYPTO_CERTIFICATE_KEY_RSA, the modulus size); any other key is
/// CLIBCRYPTO_CERTIFICATE_KEY_OTHER, nothing written. Returns 0, or -1 when `der` is not one
/// certificate.
int clibcrypto_certificate_parse(const unsigned char *der, size_t der_length, char *summary, size_t summary_size,
                                 unsigned char *public_key, size_t *public_length, int *key_kind, int *key_bits);

/// The most bytes a PKCS #1 RSA key here takes in DER (a 4096-bit private key's, rounded up),
/// and the most an RSA signature takes.
#define CLIBCRYPTO_RSA_KEY_CAPACITY 4096
#define CLIBCRYPTO_RSA_SIGNATURE_CAPACITY 1024

/// Makes an RSA key of `bits` (public exponent 65537) and writes its PKCS #1 RSAPrivateKey DER
/// to `key` and its RSAPublicKey DER to `public_key`; each capacity is in, and each length out
/// of, the size_t given. Returns 0, or -1 with `key` wiped.
int clibcrypto_rsa_generate(int bits, unsigned char *key, size_t *key_length, unsigned char *public_key, size_t *public_length);

/// Checks that `key` is exactly one PKCS #1 DER key (RSAPrivateKey when `is_private`, whose
/// parts must agree, else RSAPublicKey), sets `*bits` to its modulus size and writes its
/// RSAPublicKey DER to `public_key` (capacity in, length out of `*public_length`). Returns 0, or -1.
int clibcrypto_rsa_check(const unsigned char *key, size_t key_length, int is_private, int *bits,
                         unsigned char *public_key, size_t *public_length);

/// Signs the message `data`, hashed with `digest`, with the PKCS #1 private key `key`:
/// PKCS #1 v1.5, or PSS (`pss`) with MGF1 of the same hash and a salt as long as the digest.
/// `*signature_length` is the capacity (at least the modulus size), then the length. Returns 0, or -1.
int clibcrypto_rsa_sign(const unsigned char *key, size_t key_length, const char *digest, int pss,
                        const unsigned char *data, size_t data_length, unsigned char *signature, size_t *signature_length);

/// Verifies as clibcrypto_rsa_sign signs, with the PKCS #1 public key `key`. Returns 1 when the
/// signature is valid, 0 when not, -1 when the key is unusable.
int clibcrypto_rsa_verify(const unsigned char *key, size_t key_length, const char *digest, int pss,
                          const unsigned char *data, size_t data_length, const unsigned char *signature, size_t signature_length);

/// Encrypts `input` with the PKCS #1 public key `key` (`encrypting`), or decrypts it with the
/// private key: PKCS #1 v1.5 padding, or OAEP with `oaep_digest` ("SHA1", "SHA256"...) for
/// both the label's hash and MGF1, the label empty, when it is not NULL. `*output_length` is
/// the capacity (at least the modulus size), then the length. Returns 0, or -1 (a ciphertext
/// that does not decrypt included).
int clibcrypto_rsa_crypt(int encrypting, const unsigned char *key, size_t key_length, const char *oaep_digest,
                         const unsigned char *input, size_t input_length, unsigned char *output, size_t *output_length);

#ifdef __cplusplus
}
#endif

#endif
