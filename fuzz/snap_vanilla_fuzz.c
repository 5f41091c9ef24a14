/*
 * libFuzzer target for the SnapDeals vanilla intake: czk_snap_vanilla_parse
 * on every input, then the pre-check of whatever parses.
 *
 * Byte 0 picks the shape the blob is checked against (bits 0-1: 2KiB
 * (8-0-0 Single proofs), 1KiB (8-4-0 Sub), 32KiB (8-8-2 Top, 2 partitions,
 * 128 apex leafs), 4KiB (8-2-0 Sub)) and bit 2 the partition (1 where the
 * shape has two); the rest is the blob. A refusal must be TRUNCATED,
 * FORMAT, MISMATCH, FR_RANGE or NOMEM, with that code, a message naming
 * the partition, and no result. An accepted proof must hold what the
 * parser promises (the shape's counts, positions below their arity,
 * canonical values) and go through the pre-check with public values taken
 * from itself (comm_r_old/new = Poseidon-2(comm_c, challenge 0's roots),
 * comm_d_new = challenge 0's TreeD root), so that the checks past the
 * commitments are reached: OK or VERIFY only, VERIFY naming the partition.
 * Seeds: fuzz/snap_vanilla_seeds.c (a sealed 2KiB update's proof, which
 * pre-checks; small blobs of the other shapes).
 */
#include "czk/poseidon.h"
#include "czk/snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t sizes[4] = {2048, 1024, 32768, 4096};

static void comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t root[32]) {
    czk_fr in[2], h;
    if (czk_fr_from_bytes(&in[0], comm_c, NULL) || czk_fr_from_bytes(&in[1], root, NULL) ||
        czk_poseidon_hash(&h, in, 2, NULL))
        abort(); /* the parser promised canonical values */
    czk_fr_to_bytes(out, &h);
}

static void check_proof(const czk_por_tree *t, const czk_por_proof *p) {
    czk_fr x;
    unsigned levels = czk_por_tree_levels(t), nsib = czk_por_tree_siblings(t);
    for (unsigned l = 0; l < levels; l++)
        if (p->positions[l] >= czk_por_tree_arity(t, l)) abort();
    for (unsigned i = 0; i < nsib; i++)
        if (czk_fr_from_bytes(&x, p->siblings + 32u * i, NULL)) abort();
    if (czk_fr_from_bytes(&x, p->root, NULL) || czk_fr_from_bytes(&x, p->leaf, NULL)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const czk_snap_shape *s = czk_snap_shape_for_size(sizes[data[0] & 3]);
    uint64_t k = (data[0] >> 2 & 1) % s->partitions;
    czk_snap_vanilla *v = (czk_snap_vanilla *)1;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_snap_vanilla_parse(&v, data + 1, size - 1, s, k, &err);
    char want[48];
    snprintf(want, sizeof want, "SnapDeals partition %llu", (unsigned long long)k);
    if (st != CZK_OK) {
        if ((st != CZK_ERR_TRUNCATED && st != CZK_ERR_FORMAT && st != CZK_ERR_MISMATCH &&
             st != CZK_ERR_FR_RANGE && st != CZK_ERR_NOMEM) ||
            err.code != st || !strstr(err.msg, want) || v != (czk_snap_vanilla *)1) {
            fprintf(stderr, "bad refusal %s \"%s\"\n", czk_status_name(st), err.msg);
            abort();
        }
        return 0;
    }
    if (!v || v->challenges != s->challenges || v->apex_count != s->apex_leafs) abort();
    czk_por_tree tr, td;
    if (czk_snap_trees(s, &tr, &td, &err)) abort();
    czk_fr x;
    if (czk_fr_from_bytes(&x, v->comm_c, NULL)) abort();
    for (unsigned i = 0; i < v->apex_count; i++)
        if (czk_fr_from_bytes(&x, v->apex_leafs[i], NULL)) abort();
    for (unsigned j = 0; j < v->challenges; j++) {
        check_proof(&tr, &v->proofs[j].r_old);
        check_proof(&td, &v->proofs[j].d_new);
        check_proof(&tr, &v->proofs[j].r_new);
    }
    czk_snap_public pub = {.k = k, .h = s->h_default};
    comm_r(pub.comm_r_old, v->comm_c, v->proofs[0].r_old.root);
    comm_r(pub.comm_r_new, v->comm_c, v->proofs[0].r_new.root);
    memcpy(pub.comm_d_new, v->proofs[0].d_new.root, 32);
    st = czk_snap_precheck(v, s, &pub, &err);
    if (st != CZK_OK && st != CZK_ERR_VERIFY) {
        fprintf(stderr, "pre-check: unexpected %s \"%s\"\n", czk_status_name(st), err.msg);
        abort();
    }
    if (st == CZK_ERR_VERIFY && (!strstr(err.msg, want) || !strstr(err.msg, "does not verify")))
        abort();
    czk_snap_vanilla_free(v);
    return 0;
}
