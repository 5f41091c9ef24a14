/*
 * SHA-256 (FIPS 180-4), BLAKE2b (RFC 7693) and the ChaCha block function
 * (RFC 8439 §2.3, with a round count), written plainly: the porep layer
 * hashes a few hundred bytes per sector identifier and a few megabytes per
 * parent-graph table, so clarity beats speed here. The one bulk use, the
 * digest of a whole parent cache, runs at the speed of this SHA-256
 * (a few hundred MB/s) and is a test/verification path only.
 */
#include "porep/hash.h"

#include <string.h>

/* ---- SHA-256 ---- */

static const uint32_t SHA256_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t ror32(uint32_t x, unsigned n) {
    return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) +
                      SHA256_K[i] + w[i];
        uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

void czk_sha256_init(czk_sha256 *c) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->len = 0;
    c->fill = 0;
}

void czk_sha256_update(czk_sha256 *c, const void *data, size_t len) {
    const uint8_t *p = data;
    c->len += len;
    if (c->fill) {
        size_t take = 64 - c->fill < len ? 64 - c->fill : len;
        memcpy(c->buf + c->fill, p, take);
        c->fill += take;
        p += take;
        len -= take;
        if (c->fill < 64) return;
        sha256_block(c->h, c->buf);
        c->fill = 0;
    }
    for (; len >= 64; p += 64, len -= 64)
        sha256_block(c->h, p);
    memcpy(c->buf, p, len);
    c->fill = len;
}

void czk_sha256_final(czk_sha256 *c, uint8_t out[32]) {
    uint64_t bits = c->len * 8;
    c->buf[c->fill++] = 0x80;
    if (c->fill > 56) {
        memset(c->buf + c->fill, 0, 64 - c->fill);
        sha256_block(c->h, c->buf);
        c->fill = 0;
    }
    memset(c->buf + c->fill, 0, 56 - c->fill);
    for (int i = 0; i < 8; i++)
        c->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_block(c->h, c->buf);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(c->h[i] >> (24 - 8 * j));
}

void czk_sha256_digest(uint8_t out[32], const void *data, size_t len) {
    czk_sha256 c;
    czk_sha256_init(&c);
    czk_sha256_update(&c, data, len);
    czk_sha256_final(&c, out);
}

/* ---- BLAKE2b ---- */

static const uint64_t BLAKE2B_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t BLAKE2B_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t ror64(uint64_t x, unsigned n) {
    return (x >> n) | (x << (64 - n));
}

#define B2B_G(a, b, c, d, x, y)                                                                    \
    do {                                                                                           \
        v[a] = v[a] + v[b] + (x);                                                                  \
        v[d] = ror64(v[d] ^ v[a], 32);                                                             \
        v[c] = v[c] + v[d];                                                                        \
        v[b] = ror64(v[b] ^ v[c], 24);                                                             \
        v[a] = v[a] + v[b] + (y);                                                                  \
        v[d] = ror64(v[d] ^ v[a], 16);                                                             \
        v[c] = v[c] + v[d];                                                                        \
        v[b] = ror64(v[b] ^ v[c], 63);                                                             \
    } while (0)

static void blake2b_compress(czk_blake2b *c, const uint8_t *block, int last) {
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++)
        m[i] = czk_load_le64(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = c->h[i];
        v[i + 8] = BLAKE2B_IV[i];
    }
    v[12] ^= c->t[0];
    v[13] ^= c->t[1];
    if (last) v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = BLAKE2B_SIGMA[r];
        B2B_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        B2B_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        B2B_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        B2B_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        B2B_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        B2B_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        B2B_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        B2B_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++)
        c->h[i] ^= v[i] ^ v[i + 8];
}

void czk_blake2b_init(czk_blake2b *c, size_t outlen, const void *key, size_t keylen) {
    memcpy(c->h, BLAKE2B_IV, sizeof c->h);
    c->h[0] ^= 0x01010000ULL ^ (uint64_t)keylen << 8 ^ (uint64_t)outlen;
    c->t[0] = c->t[1] = 0;
    c->fill = 0;
    c->outlen = outlen;
    if (keylen) {
        memset(c->buf, 0, sizeof c->buf);
        memcpy(c->buf, key, keylen);
        c->fill = 128;
    }
}

void czk_blake2b_update(czk_blake2b *c, const void *data, size_t len) {
    const uint8_t *p = data;
    while (len) {
        /* The last block is compressed in final(), so a full buffer waits for more input. */
        if (c->fill == 128) {
            c->t[0] += 128;
            if (c->t[0] < 128) c->t[1]++;
            blake2b_compress(c, c->buf, 0);
            c->fill = 0;
        }
        size_t take = 128 - c->fill < len ? 128 - c->fill : len;
        memcpy(c->buf + c->fill, p, take);
        c->fill += take;
        p += take;
        len -= take;
    }
}

void czk_blake2b_final(czk_blake2b *c, uint8_t *out) {
    c->t[0] += c->fill;
    if (c->t[0] < c->fill) c->t[1]++;
    memset(c->buf + c->fill, 0, 128 - c->fill);
    blake2b_compress(c, c->buf, 1);
    uint8_t full[64];
    for (int i = 0; i < 8; i++)
        czk_store_le64(full + 8 * i, c->h[i]);
    memcpy(out, full, c->outlen);
}

/* ---- ChaCha ---- */

#define QR(a, b, c, d)                                                                             \
    do {                                                                                           \
        x[a] += x[b];                                                                              \
        x[d] = ror32(x[d] ^ x[a], 16);                                                             \
        x[c] += x[d];                                                                              \
        x[b] = ror32(x[b] ^ x[c], 20);                                                             \
        x[a] += x[b];                                                                              \
        x[d] = ror32(x[d] ^ x[a], 24);                                                             \
        x[c] += x[d];                                                                              \
        x[b] = ror32(x[b] ^ x[c], 25);                                                             \
    } while (0)

void czk_chacha_block(uint32_t out[16], const uint32_t key[8], uint32_t counter,
                      const uint32_t nonce[3], unsigned rounds) {
    uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++)
        s[4 + i] = key[i];
    s[12] = counter;
    s[13] = nonce[0];
    s[14] = nonce[1];
    s[15] = nonce[2];
    uint32_t x[16];
    memcpy(x, s, sizeof x);
    for (unsigned r = 0; r < rounds; r += 2) {
        QR(0, 4, 8, 12);
        QR(1, 5, 9, 13);
        QR(2, 6, 10, 14);
        QR(3, 7, 11, 15);
        QR(0, 5, 10, 15);
        QR(1, 6, 11, 12);
        QR(2, 7, 8, 13);
        QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + s[i];
}

typedef uint32_t u32x8 __attribute__((vector_size(32)));

#define ROTV(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QRV(a, b, c, d)                                                                            \
    do {                                                                                           \
        x[a] += x[b];                                                                              \
        x[d] = ROTV(x[d] ^ x[a], 16);                                                              \
        x[c] += x[d];                                                                              \
        x[b] = ROTV(x[b] ^ x[c], 12);                                                              \
        x[a] += x[b];                                                                              \
        x[d] = ROTV(x[d] ^ x[a], 8);                                                               \
        x[c] += x[d];                                                                              \
        x[b] = ROTV(x[b] ^ x[c], 7);                                                               \
    } while (0)

void czk_chacha_blocks_x8(uint32_t out[16][8], const uint32_t in[16][8], unsigned rounds) {
    u32x8 s[16], x[16];
    for (int i = 0; i < 16; i++) {
        memcpy(&s[i], in[i], sizeof s[i]);
        x[i] = s[i];
    }
    for (unsigned r = 0; r < rounds; r += 2) {
        QRV(0, 4, 8, 12);
        QRV(1, 5, 9, 13);
        QRV(2, 6, 10, 14);
        QRV(3, 7, 11, 15);
        QRV(0, 5, 10, 15);
        QRV(1, 6, 11, 12);
        QRV(2, 7, 8, 13);
        QRV(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) {
        x[i] += s[i];
        memcpy(out[i], &x[i], sizeof x[i]);
    }
}
