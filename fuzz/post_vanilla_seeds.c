/*
 * Writes a seed corpus for fuzz_post_vanilla (byte 0: tree and count
 * selector, see post_vanilla_fuzz.c; then a bincode FallbackPoStSectorProof):
 * the WindowPoSt proofs of a really sealed 2KiB sector (czk_seal_post_vanilla;
 * they pass the pre-check), and small blobs of the Sub and Top variants with
 * pseudo-random canonical values. Usage: post_vanilla_seeds <dir>
 */
#include "czk/post.h"
#include "czk/seal.h"

#include "vanilla_seeds.h"

#include <stdlib.h>

/* A blob of `n` proofs of a tree with base levels of 8 and the given sub/top. */
static void synthetic(buf *b, unsigned base_levels, unsigned sub, unsigned top, unsigned n) {
    czk_rng rng;
    czk_rng_seed(&rng, base_levels * 100 + sub * 10 + top);
    b->n = 0;
    u64(b, 3);
    fr32(b, &rng);
    u64(b, 1);
    u64(b, n);
    uint8_t tag[4] = {top ? 2 : 1, 0, 0, 0};
    for (unsigned j = 0; j < n; j++) {
        put(b, tag, 4);
        path(b, &rng, base_levels, 8);
        path(b, &rng, 1, sub);
        if (top) path(b, &rng, 1, top);
        fr32(b, &rng);
        fr32(b, &rng);
    }
    fr32(b, &rng);
    fr32(b, &rng);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    czk_seal_request r;
    memset(&r, 0, sizeof r);
    r.registered_proof = 5;
    r.miner_id = 1000;
    r.sector_num = 7;
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 1;
    uint8_t rnd[32];
    memset(rnd, 0x2a, 32);
    rnd[31] = 0x0a; /* the fuzz target's randomness: the pre-check passes */
    uint8_t *blob = NULL;
    size_t len = 0;
    czk_err err;
    if (czk_seal_post_vanilla(&blob, &len, NULL, &r, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 0,
                              NULL, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int bad = write_seed(argv[1], "window-2k", 0 | (1 << 2), blob, len);
    bad |= write_seed(argv[1], "window-2k-any", 0, blob, len);
    free(blob);
    static buf b;
    synthetic(&b, 2, 8, 0, 1);
    bad |= write_seed(argv[1], "sub-1", 1, b.b, b.n);
    synthetic(&b, 2, 8, 2, 2);
    bad |= write_seed(argv[1], "top-2", 2, b.b, b.n);
    synthetic(&b, 2, 4, 2, 1);
    bad |= write_seed(argv[1], "top-842-1", 3 | (3 << 2), b.b, b.n);
    return bad;
}
