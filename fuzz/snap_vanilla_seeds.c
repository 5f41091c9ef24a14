/*
 * Writes a seed corpus for fuzz_snap_vanilla (byte 0: shape and partition
 * selector, see snap_vanilla_fuzz.c; then a bincode PartitionProof): the
 * partition proof of a really sealed and updated 2KiB sector
 * (czk_seal_snap_vanilla; it pre-checks, 15 KB), and blobs of the right
 * shape with pseudo-random canonical values for the 1KiB (Sub), 4KiB (Sub)
 * and 32KiB (Top, partition 1) test sizes. Usage: snap_vanilla_seeds <dir>
 */
#include "czk/seal.h"
#include "czk/snap.h"

#include "vanilla_seeds.h"

#include <stdlib.h>

/* A MerkleProof of tree t with random values. */
static void proof(buf *b, czk_rng *rng, const czk_por_tree *t) {
    uint8_t tag[4] = {t->top_arity ? 2 : t->sub_arity ? 1 : 0, 0, 0, 0};
    put(b, tag, 4);
    if (!tag[0]) {
        fr32(b, rng);
        fr32(b, rng);
        path(b, rng, t->base_levels, t->base_arity);
        return;
    }
    path(b, rng, t->base_levels, t->base_arity);
    path(b, rng, 1, t->sub_arity);
    if (t->top_arity) path(b, rng, 1, t->top_arity);
    fr32(b, rng);
    fr32(b, rng);
}

static void synthetic(buf *b, const czk_snap_shape *s) {
    czk_rng rng;
    czk_rng_seed(&rng, s->nodes);
    czk_por_tree tr, td;
    if (czk_snap_trees(s, &tr, &td, NULL)) abort();
    b->n = 0;
    fr32(b, &rng);
    u64(b, s->apex_leafs);
    for (unsigned i = 0; i < s->apex_leafs; i++)
        fr32(b, &rng);
    u64(b, s->challenges);
    for (unsigned j = 0; j < s->challenges; j++) {
        proof(b, &rng, &tr);
        proof(b, &rng, &td);
        proof(b, &rng, &tr);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    czk_seal_snap_request r;
    memset(&r, 0, sizeof r);
    r.sector.registered_proof = 5;
    r.sector.miner_id = 1000;
    r.sector.sector_num = 7;
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 1;
    czk_seal_snap u;
    czk_err err;
    if (czk_seal_snap_vanilla(&u, &r, NULL, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int bad = write_seed(argv[1], "update-2k", 0, u.blobs[0], u.lens[0]);
    czk_seal_snap_free(&u);
    static buf b;
    synthetic(&b, czk_snap_shape_for_size(1024));
    bad |= write_seed(argv[1], "sub-1k", 1, b.b, b.n);
    synthetic(&b, czk_snap_shape_for_size(4096));
    bad |= write_seed(argv[1], "sub-4k", 3, b.b, b.n);
    synthetic(&b, czk_snap_shape_for_size(32768));
    bad |= write_seed(argv[1], "top-32k-k1", 2 | 4, b.b, b.n);
    return bad;
}
