/*
 * Hash and stream primitives used by the porep layer (internal header).
 *
 * - SHA-256 (FIPS 180-4), incremental: replica_id, challenges, the parent
 *   cache name and digest, the DRG and Feistel seeds.
 * - BLAKE2b (RFC 7693), incremental, keyed or not, 1..64-byte digests: the
 *   Feistel round function (unkeyed, 64 bytes) and the synthetic-PoRep
 *   ChaCha20 keys (keyed, 32 bytes).
 * - The ChaCha block function (RFC 8439 layout) with a round count: 8 rounds
 *   for rand_chacha's ChaCha8Rng (DRG parents), 20 for the chacha20 crate's
 *   ChaCha20 (synthetic challenges). Both use the same state: constants, the
 *   key, word 12 = block counter, words 13..15 = nonce. ChaCha8Rng's 64-bit
 *   counter and 64-bit stream id (words 12..15) equal this with a zero nonce
 *   while the counter stays below 2^32, which is all the graph needs.
 *
 * Portable C, no allocation; all contexts live on the caller's stack.
 */
#ifndef CZK_POREP_HASH_H
#define CZK_POREP_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * One ChaCha block: 16 output words (the keystream block in LE word order)
 * for `key` (8 LE words), block counter `counter` and the 3-word nonce.
 * `rounds` is 8, 12 or 20.
 */
void czk_chacha_block(uint32_t out[16], const uint32_t key[8], uint32_t counter,
                      const uint32_t nonce[3], unsigned rounds);

/*
 * Eight ChaCha blocks at once, lane-major: in[w][j] is word w of the initial
 * state of lane j (constants, key, counter, nonce, as the caller sets them),
 * out[w][j] word w of its keystream block. Same result as eight
 * czk_chacha_block calls; written with vector extensions so the compiler
 * uses SIMD registers.
 */
void czk_chacha_blocks_x8(uint32_t out[16][8], const uint32_t in[16][8], unsigned rounds);

static inline uint32_t czk_load_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t czk_load_le64(const uint8_t *p) {
    return (uint64_t)czk_load_le32(p) | (uint64_t)czk_load_le32(p + 4) << 32;
}
static inline uint64_t czk_load_be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}
static inline void czk_store_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void czk_store_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void czk_store_be64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

#endif
