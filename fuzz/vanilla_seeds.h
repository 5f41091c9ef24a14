/*
 * What the vanilla-proof seed writers (post_vanilla_seeds.c,
 * snap_vanilla_seeds.c) share: a seed file is a selector byte and a blob;
 * blobs of pseudo-random canonical values are written with these bincode
 * pieces (u64 LE, 32-byte values with the top two bits clear, an
 * InclusionPath of `levels` elements of `arity`).
 */
#ifndef CZK_FUZZ_VANILLA_SEEDS_H
#define CZK_FUZZ_VANILLA_SEEDS_H

#include "czk/ff.h"

#include <stdio.h>
#include <string.h>

static inline int write_seed(const char *dir, const char *name, uint8_t selector,
                             const uint8_t *blob, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    int bad = fwrite(&selector, 1, 1, f) != 1 || fwrite(blob, 1, len, f) != len;
    return fclose(f) != 0 || bad;
}

typedef struct buf {
    uint8_t b[1 << 17];
    size_t n;
} buf;

static inline void put(buf *b, const void *x, size_t n) {
    memcpy(b->b + b->n, x, n);
    b->n += n;
}

static inline void u64(buf *b, uint64_t v) {
    for (int i = 0; i < 8; i++) {
        uint8_t c = (uint8_t)(v >> (8 * i));
        put(b, &c, 1);
    }
}

static inline void fr32(buf *b, czk_rng *rng) {
    uint8_t x[32];
    for (int i = 0; i < 4; i++) {
        uint64_t v = czk_rng_u64(rng);
        memcpy(x + 8 * i, &v, 8);
    }
    x[31] &= 0x3f;
    put(b, x, 32);
}

static inline void path(buf *b, czk_rng *rng, unsigned levels, unsigned arity) {
    u64(b, levels);
    for (unsigned l = 0; l < levels; l++) {
        u64(b, arity - 1);
        for (unsigned j = 0; j + 1 < arity; j++)
            fr32(b, rng);
        u64(b, czk_rng_u64(rng) % arity);
    }
}

#endif
