/*
 * libFuzzer target for the PoSt vanilla intake: czk_post_vanilla_parse on
 * every input, then the pre-check and the witness of whatever parses.
 *
 * Byte 0 picks the tree the blob is checked against (bits 0-1: 8-0-0 of 64
 * leaves (2KiB), 8-8-0 of 512, 8-8-2 of 1024, 8-4-2 of 512) and the
 * challenge count asked for (bits 2-3: any, 10, 66, 1); the rest is the
 * blob. A refusal must be TRUNCATED, FORMAT, MISMATCH, FR_RANGE or NOMEM,
 * with that code and a message naming the PoSt vanilla proof, and no
 * result. An accepted proof must satisfy what the parser promises (a
 * count within bounds, positions below their arity, canonical values) and
 * go through the pre-check of a one-sector WindowPoSt partition (OK, VERIFY
 * or MISMATCH only) and, when its count fits, the witness fill.
 * Seeds: fuzz/post_vanilla_seeds.c (a sealed 2KiB sector's proofs, small
 * blobs of the other variants).
 */
#include "czk/post.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned trees[4][4] = {
    {64, 8, 0, 0}, {512, 8, 8, 0}, {1024, 8, 8, 2}, {512, 8, 4, 2}};
static const unsigned counts[4] = {0, 10, 66, 1};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const unsigned *tr = trees[data[0] & 3];
    unsigned want = counts[(data[0] >> 2) & 3];
    czk_post_config cfg = {tr[0], tr[1], tr[2], tr[3], 1, 10};
    czk_por_tree t;
    czk_err err;
    if (czk_post_config_check(&cfg, &t, &err)) abort();
    czk_post_vanilla *v = (czk_post_vanilla *)1;
    czk_err_clear(&err);
    czk_status st = czk_post_vanilla_parse(&v, data + 1, size - 1, &t, want, &err);
    if (st != CZK_OK) {
        if ((st != CZK_ERR_TRUNCATED && st != CZK_ERR_FORMAT && st != CZK_ERR_MISMATCH &&
             st != CZK_ERR_FR_RANGE && st != CZK_ERR_NOMEM) ||
            err.code != st || !strstr(err.msg, "PoSt vanilla proof") ||
            v != (czk_post_vanilla *)1) {
            fprintf(stderr, "bad refusal %s \"%s\"\n", czk_status_name(st), err.msg);
            abort();
        }
        return 0;
    }
    if (!v || !v->challenges || (want && v->challenges != want)) abort();
    unsigned levels = czk_por_tree_levels(&t), nsib = czk_por_tree_siblings(&t);
    czk_fr x;
    for (unsigned j = 0; j < v->challenges; j++) {
        for (unsigned l = 0; l < levels; l++)
            if (v->paths[j].positions[l] >= czk_por_tree_arity(&t, l)) abort();
        for (unsigned s = 0; s < nsib; s++)
            if (czk_fr_from_bytes(&x, v->paths[j].siblings + 32u * s, NULL)) abort();
        if (czk_fr_from_bytes(&x, v->leaves[j], NULL) || czk_fr_from_bytes(&x, v->roots[j], NULL))
            abort();
    }
    cfg.challenges = v->challenges;
    uint8_t rnd[32];
    memset(rnd, 0x2a, 32);
    rnd[31] = 0x0a;
    const czk_post_vanilla *one[1] = {v};
    size_t bad = 7;
    if (v->challenges <= 66) {
        st = czk_post_precheck(one, 1, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 0, &bad, &err);
        if (st != CZK_OK && st != CZK_ERR_VERIFY && st != CZK_ERR_MISMATCH) {
            fprintf(stderr, "pre-check: unexpected %s \"%s\"\n", czk_status_name(st), err.msg);
            abort();
        }
        if (st == CZK_ERR_VERIFY && (bad != 0 || !strstr(err.msg, "does not verify"))) abort();
        czk_post_witness *w = NULL;
        if (czk_post_witness_alloc(&w, &cfg, &err) == CZK_OK) {
            if (czk_post_witness_fill(w, one, 1, CZK_POST_WINDOW, &err)) abort();
            if (memcmp(w->sectors[0].comm_r_last, v->comm_r_last, 32)) abort();
            czk_post_witness_free(w);
        }
    }
    czk_post_vanilla_free(v);
    return 0;
}
