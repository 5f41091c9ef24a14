/*
 * The ChaCha block function (RFC 8439 §2.3, with a round count), the core of
 * rand_chacha's ChaCha8Rng that seeds the DRG parent graph, one block at a
 * time and eight lanes at a time. (SHA-256 and BLAKE2b come from libraries:
 * src/util/digest.h.)
 */
#include "porep/hash.h"

#include <string.h>

static inline uint32_t ror32(uint32_t x, unsigned n) {
    return (x >> n) | (x << (32 - n));
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
