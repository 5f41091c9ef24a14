/* Thin wrappers over blst's SHA-256, OpenSSL EVP (streams) and libb2. */
#include "util/digest.h"

#include <blake2.h>
#include <blst.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

void czk_sha256_digest(uint8_t out[32], const void *data, size_t len) {
    blst_sha256(out, data, len);
}

void czk_sha256_parts(uint8_t out[32], const czk_bytes *parts, size_t nparts) {
    if (nparts == 1) {
        blst_sha256(out, parts[0].p, parts[0].n);
        return;
    }
    size_t total = 0;
    for (size_t i = 0; i < nparts; i++) total += parts[i].n;
    uint8_t stack[4096] __attribute__((aligned(64))), *buf = total <= sizeof stack ? stack : NULL;
    if (!buf) { /* too large for the stack: streamed, never copied (a request may be 256 MB) */
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        unsigned int n = 32;
        if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
            for (size_t i = 0; i < nparts; i++) EVP_DigestUpdate(ctx, parts[i].p, parts[i].n);
            EVP_DigestFinal_ex(ctx, out, &n);
        } else {
            memset(out, 0, 32);
        }
        EVP_MD_CTX_free(ctx);
        return;
    }
    size_t at = 0;
    for (size_t i = 0; i < nparts; i++) {
        if (parts[i].n) memcpy(buf + at, parts[i].p, parts[i].n);
        at += parts[i].n;
    }
    blst_sha256(out, total ? buf : (const uint8_t *)"", total);
    if (buf != stack) free(buf);
}

struct czk_sha256_stream {
    EVP_MD_CTX *ctx;
};

czk_status czk_sha256_stream_new(czk_sha256_stream **out, czk_err *err) {
    czk_sha256_stream *s = malloc(sizeof *s);
    if (s) s->ctx = EVP_MD_CTX_new();
    if (!s || !s->ctx || !EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL)) {
        if (s) EVP_MD_CTX_free(s->ctx);
        free(s);
        return czk_errf(err, CZK_ERR_NOMEM, "SHA-256 stream: OpenSSL could not set up a digest");
    }
    *out = s;
    return CZK_OK;
}

void czk_sha256_stream_update(czk_sha256_stream *s, const void *data, size_t len) {
    EVP_DigestUpdate(s->ctx, data, len);
}

void czk_sha256_stream_finish(czk_sha256_stream *s, uint8_t out[32]) {
    unsigned int n = 32;
    EVP_DigestFinal_ex(s->ctx, out, &n);
    EVP_MD_CTX_free(s->ctx);
    free(s);
}

void czk_blake2b(uint8_t *out, size_t outlen, const void *data, size_t len, const void *key,
                 size_t keylen) {
    blake2b(out, data, key, outlen, len, keylen);
}
