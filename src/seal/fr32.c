/*
 * Fr32 padding (rust-fil-proofs fr32/src/reader.rs Fr32Reader): the input,
 * read as a little-endian bit stream (bit 0 of byte 0 first), is cut into
 * 254-bit units; unit j fills bits 0..253 of output node j, whose two top
 * bits stay zero. 127 input bytes are exactly four units.
 */
#include "czk/seal.h"

#include <string.h>

uint64_t czk_fr32_padded_len(uint64_t unpadded) {
    /* ⌈8·n / 254⌉ nodes; 8·n cannot overflow for any in-memory length. */
    return (unpadded * 8 + 253) / 254 * 32;
}

/* The 8 bits of `in` starting at bit `pos`, zeros past the end. */
static inline uint8_t bits8(const uint8_t *in, size_t in_len, uint64_t pos) {
    size_t q = (size_t)(pos >> 3);
    unsigned r = (unsigned)(pos & 7);
    unsigned lo = q < in_len ? in[q] : 0;
    if (r == 0) return (uint8_t)lo;
    unsigned hi = q + 1 < in_len ? in[q + 1] : 0;
    return (uint8_t)((lo >> r) | (hi << (8 - r)));
}

void czk_fr32_pad(uint8_t *out, const uint8_t *in, size_t in_len) {
    uint64_t nodes = czk_fr32_padded_len(in_len) / 32;
    for (uint64_t j = 0; j < nodes; j++) {
        uint8_t *o = out + 32 * j;
        uint64_t s = 254 * j;
        if ((s & 7) == 0 && (s >> 3) + 32 <= in_len) {
            memcpy(o, in + (s >> 3), 32);
        } else {
            for (unsigned b = 0; b < 32; b++)
                o[b] = bits8(in, in_len, s + 8 * b);
        }
        o[31] &= 0x3f; /* bits 254, 255 of the node; bits past the input are already zero */
    }
}
