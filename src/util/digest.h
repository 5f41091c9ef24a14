/*
 * Hash functions czk uses but does not own, from well-kept libraries:
 * SHA-256 from blst (blst_sha256, one shot; its assembly uses the SHA
 * extensions where the CPU has them) and OpenSSL's EVP interface for
 * streams too long to hold at once; BLAKE2b from libb2 (RFC 7693).
 * Internal to czk (not installed).
 */
#ifndef CZK_UTIL_DIGEST_H
#define CZK_UTIL_DIGEST_H

#include "czk/common.h"

/* A piece of a message. */
typedef struct czk_bytes {
    const void *p;
    size_t n;
} czk_bytes;

/* SHA-256 of data[0..len). */
void czk_sha256_digest(uint8_t out[32], const void *data, size_t len);
/* SHA-256 of the concatenation of parts (any total length). */
void czk_sha256_parts(uint8_t out[32], const czk_bytes *parts, size_t nparts);

/* A streaming SHA-256 for long inputs (e.g. a whole parent cache). */
typedef struct czk_sha256_stream czk_sha256_stream;
CZK_NODISCARD czk_status czk_sha256_stream_new(czk_sha256_stream **out, czk_err *err);
void czk_sha256_stream_update(czk_sha256_stream *s, const void *data, size_t len);
/* Writes the digest and frees the stream. */
void czk_sha256_stream_finish(czk_sha256_stream *s, uint8_t out[32]);

/* BLAKE2b with an outlen-byte digest (1..64), optionally keyed (key NULL, keylen 0). */
void czk_blake2b(uint8_t *out, size_t outlen, const void *data, size_t len, const void *key,
                 size_t keylen);

#endif
