/*
 * Random witness values of the three classes the packed witness tells apart
 * (czk_witness_pack): zero, one (czk_fr_one) and others, among them values
 * one bit away from zero and from one. For the packing's tests on the host
 * (tests/r1cs/witness_pack.c) and its expansion on the device (tests/cuda).
 */
#ifndef CZK_TEST_MIXED_WITNESS_H
#define CZK_TEST_MIXED_WITNESS_H

#include "czk/ff.h"
#include "czk/r1cs.h"

#include <stdint.h>

/* splitmix64 over *state */
static inline uint64_t mw_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value of class k: 0 zero, 1 one, 2 an other (a quarter one bit away from zero, a quarter
 * one bit away from one, the rest small integers in Montgomery form). */
static inline czk_fr mw_value(unsigned k, uint64_t *state) {
    czk_fr v = k == 1 ? czk_fr_one : czk_fr_zero;
    if (k == 2) {
        uint64_t r = mw_rand(state);
        if (r % 4 == 1) v = czk_fr_one;
        if (r % 4 <= 1)
            v.l[(r >> 2) % 4] ^= 1ull << ((r >> 4) % 64);
        else
            czk_fr_from_u64(&v, 2 + (r >> 8) % 1000000);
    }
    return v;
}

/* n values: an other with probability other_ppm / 10^6, zero with zero_ppm / 10^6, else one
 * (the 32GiB PoRep mix: 20000 others, 510000 zeros). */
static inline void mw_fill(czk_fr *z, uint64_t n, uint32_t zero_ppm, uint32_t other_ppm,
                           uint64_t *state) {
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = mw_rand(state) % 1000000;
        z[i] = mw_value(r < other_ppm ? 2 : r < other_ppm + zero_ppm ? 0 : 1, state);
    }
}

/* z's first ni + na values from mw_fill, viewed as a witness of ni inputs and na aux. */
static inline czk_witness mw_witness(czk_fr *z, uint32_t ni, uint32_t na, uint32_t zero_ppm,
                                     uint32_t other_ppm, uint64_t *state) {
    mw_fill(z, (uint64_t)ni + na, zero_ppm, other_ppm, state);
    return (czk_witness){.inputs = z, .aux = z + ni, .num_inputs = ni, .num_aux = na};
}

#endif
