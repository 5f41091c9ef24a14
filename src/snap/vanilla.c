/*
 * Bincode PartitionProof<TreeR> (storage-proofs-update vanilla.rs; spec
 * post-snap.md §3), read with the PoR layer's MerkleProof reader and
 * checked against the shape as it is read.
 *
 * Two passes over one walk: the first checks everything and needs no
 * memory, the second fills storage sized by the shape (which the first
 * pass has held the blob to). So no length in a blob sizes an allocation.
 * A 32GiB partition is about 562 KB: 128 apex leafs and 86 challenges of
 * a Sub TreeR proof (2,484 B) twice and a 30-level TreeD proof (1,516 B).
 */
#include "snap/internal.h"

#include "util/bincode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct walk {
    const uint8_t *data;
    size_t len, pos;
    const czk_snap_shape *s;
    czk_por_tree tree_r, tree_d;
    czk_snap_vanilla *v; /* NULL in the checking pass */
    uint64_t k;
} walk;

/* "SnapDeals partition <k>[: challenge <j>]: " before err's message. */
static czk_status wrap(const walk *w, czk_err *err, long challenge, const char *field) {
    if (!err) return CZK_ERR_INTERNAL;
    if (challenge < 0)
        return czk_err_wrap(err, "SnapDeals partition %llu", (unsigned long long)w->k);
    return czk_err_wrap(err, "SnapDeals partition %llu: challenge %ld: %s",
                        (unsigned long long)w->k, challenge, field);
}

/* A Vec length that must equal `want` (checked against the bytes left first). */
static czk_status vec_len(walk *w, const char *field, uint64_t want, size_t min_elem,
                          czk_err *err) {
    czk_bincode r;
    czk_bincode_init(&r, w->data, w->len);
    r.pos = w->pos;
    uint64_t n;
    czk_status st = czk_bincode_len(&r, UINT32_MAX, min_elem, &n, err, "%s", field);
    if (st) return st;
    if (n != want)
        return czk_errf(err, CZK_ERR_MISMATCH, "%s has %llu entries, the %s circuit takes %llu",
                        field, (unsigned long long)n, w->s->name, (unsigned long long)want);
    w->pos = r.pos;
    return CZK_OK;
}

static czk_status walk_blob(walk *w, czk_err *err) {
    const czk_snap_shape *s = w->s;
    czk_snap_vanilla *v = w->v;
    uint8_t scratch[32];
    czk_status st =
        czk_por_domain_read(v ? v->comm_c : scratch, w->data, w->len, &w->pos, "comm_c", err);
    if (st) return wrap(w, err, -1, NULL);
    if ((st = vec_len(w, "apex_leafs", s->apex_leafs, 32, err))) return wrap(w, err, -1, NULL);
    for (unsigned i = 0; i < s->apex_leafs; i++) {
        char f[32];
        snprintf(f, sizeof f, "apex_leafs[%u]", i);
        if ((st = czk_por_domain_read(v ? v->apex_leafs[i] : scratch, w->data, w->len, &w->pos, f,
                                      err)))
            return wrap(w, err, -1, NULL);
    }
    /* a ChallengeProof is at least three 4-byte tags */
    if ((st = vec_len(w, "challenge_proofs", s->challenges, 12, err)))
        return wrap(w, err, -1, NULL);
    for (unsigned j = 0; j < s->challenges; j++) {
        czk_por_proof none = {.positions = NULL, .siblings = NULL};
        czk_por_proof *p[3] = {&none, &none, &none};
        if (v) p[0] = &v->proofs[j].r_old, p[1] = &v->proofs[j].d_new, p[2] = &v->proofs[j].r_new;
        static const char *const field[3] = {"proof_r_old", "proof_d_new", "proof_r_new"};
        for (int t = 0; t < 3; t++)
            if ((st = czk_por_proof_read(p[t], w->data, w->len, &w->pos,
                                         t == 1 ? &w->tree_d : &w->tree_r, err)))
                return wrap(w, err, j, field[t]);
    }
    czk_bincode r;
    czk_bincode_init(&r, w->data, w->len);
    r.pos = w->pos;
    if ((st = czk_bincode_end(&r, err, "PartitionProof"))) return wrap(w, err, -1, NULL);
    return CZK_OK;
}

czk_status czk_snap_vanilla_parse(czk_snap_vanilla **out, const uint8_t *data, size_t len,
                                  const czk_snap_shape *s, uint64_t k, czk_err *err) {
    walk w = {.data = data, .len = data ? len : 0, .s = s, .k = k};
    czk_status st = czk_snap_trees(s, &w.tree_r, &w.tree_d, err);
    if (st) return st;
    if ((st = walk_blob(&w, err))) return st;
    size_t C = s->challenges, levels_r = czk_por_tree_levels(&w.tree_r),
           nsib_r = czk_por_tree_siblings(&w.tree_r), levels_d = s->challenge_bits;
    size_t per = 2 * (4 * levels_r + 32 * nsib_r) + (4 * levels_d + 32 * levels_d);
    size_t total = sizeof(czk_snap_vanilla) + 32u * s->apex_leafs +
                   C * (sizeof(czk_snap_challenge_proof) + per) + 8;
    czk_snap_vanilla *v = calloc(1, total);
    if (!v)
        return czk_errf(err, CZK_ERR_NOMEM, "SnapDeals partition %llu: %zu bytes",
                        (unsigned long long)k, total);
    v->shape = s;
    v->apex_count = s->apex_leafs;
    v->challenges = s->challenges;
    v->proofs = (czk_snap_challenge_proof *)(v + 1);
    uint8_t *p = (uint8_t *)(v->proofs + C);
    v->apex_leafs = (uint8_t(*)[32])p;
    p += 32u * s->apex_leafs;
    for (size_t j = 0; j < C; j++) {
        czk_por_proof *q[3] = {&v->proofs[j].r_old, &v->proofs[j].d_new, &v->proofs[j].r_new};
        for (int t = 0; t < 3; t++) {
            size_t n = t == 1 ? levels_d : nsib_r;
            q[t]->siblings = p;
            p += 32 * n;
        }
    }
    for (size_t j = 0; j < C; j++) {
        czk_por_proof *q[3] = {&v->proofs[j].r_old, &v->proofs[j].d_new, &v->proofs[j].r_new};
        for (int t = 0; t < 3; t++) {
            q[t]->positions = (uint32_t *)p;
            p += 4 * (t == 1 ? levels_d : levels_r);
        }
    }
    w.v = v;
    w.pos = 0;
    if ((st = walk_blob(&w, err))) {
        free(v);
        return st;
    }
    *out = v;
    return CZK_OK;
}

void czk_snap_vanilla_free(czk_snap_vanilla *v) {
    free(v);
}
