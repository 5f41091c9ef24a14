/*
 * From a partition's vanilla proofs to its witness, and the pre-check that
 * runs first (storage-proofs-post fallback/vanilla.rs verify_all_partitions:
 * comm_r = H(comm_c ‖ comm_r_last), each inclusion proof valid, opening the
 * challenged leaf under comm_r_last). A bad sector is named by its id so
 * that Curio can declare it faulty and retry without it, instead of a
 * SNARK that fails verification.
 */
#include "czk/post.h"

#include "czk/poseidon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void czk_post_vanilla_leaves(uint64_t *out, const czk_post_vanilla *v, czk_post_kind kind,
                             czk_post_api api, uint64_t sector_index, uint64_t nodes,
                             const uint8_t randomness[32]) {
    for (unsigned j = 0; j < v->challenges; j++) {
        uint64_t idx = kind == CZK_POST_WINNING
                           ? czk_post_challenge_index(api, j, 1, 0)
                           : czk_post_challenge_index(api, sector_index, v->challenges, j);
        out[j] = czk_post_leaf_challenge(randomness, v->sector_id, idx, nodes);
    }
}

/* Proof counts against the configuration. */
static czk_status check_counts(const czk_post_vanilla *const *v, size_t n,
                               const czk_post_config *cfg, czk_post_kind kind, const char *what,
                               czk_err *err) {
    if (kind == CZK_POST_WINNING) {
        if (n != 1)
            return czk_errf(err, CZK_ERR_MISMATCH, "%s: WinningPoSt takes 1 vanilla proof, not %zu",
                            what, n);
        if (cfg->challenges != 1 || v[0]->challenges != cfg->sectors)
            return czk_errf(err, CZK_ERR_MISMATCH,
                            "%s: WinningPoSt vanilla proof of sector %llu has %u inclusion "
                            "proofs, the circuit %u sectors of %u challenge",
                            what, (unsigned long long)v[0]->sector_id, v[0]->challenges,
                            cfg->sectors, cfg->challenges);
        return CZK_OK;
    }
    if (kind != CZK_POST_WINDOW)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "%s: unknown kind", what);
    if (n == 0 || n > cfg->sectors)
        return czk_errf(err, CZK_ERR_MISMATCH, "%s: %zu sectors for a partition of %u", what, n,
                        cfg->sectors);
    for (size_t i = 0; i < n; i++)
        if (v[i]->challenges != cfg->challenges)
            return czk_errf(err, CZK_ERR_MISMATCH,
                            "%s: the vanilla proof of sector %llu has %u inclusion proofs, the "
                            "circuit %u",
                            what, (unsigned long long)v[i]->sector_id, v[i]->challenges,
                            cfg->challenges);
    return CZK_OK;
}

static czk_status fr(czk_fr *out, const uint8_t b[32]) {
    return czk_fr_from_bytes(out, b, NULL);
}

/* The root the path of proof j computes from its leaf, and the leaf index it encodes. */
static czk_status path_root(const czk_por_tree *t, const czk_post_vanilla *v, unsigned j,
                            czk_fr *root, uint64_t *index, czk_err *err) {
    czk_por_proof p = {.positions = v->paths[j].positions, .siblings = v->paths[j].siblings};
    memcpy(p.leaf, v->leaves[j], 32);
    memcpy(p.root, v->roots[j], 32);
    uint8_t r[32];
    czk_status st = czk_por_proof_root(t, &p, r, index, err);
    if (st) return st;
    return fr(root, r) ? czk_errf(err, CZK_ERR_FR_RANGE, "the computed root") : CZK_OK;
}

/* One sector: CZK_OK, or CZK_ERR_VERIFY with err saying what fails (no sector prefix). */
static czk_status check_sector(const czk_por_tree *t, const czk_post_vanilla *v,
                               const uint64_t *leaves, czk_err *err) {
    czk_fr comm_c, comm_r_last, comm_r, pre[2], h;
    if (fr(&comm_c, v->comm_c) || fr(&comm_r_last, v->comm_r_last) || fr(&comm_r, v->comm_r))
        return czk_errf(err, CZK_ERR_VERIFY, "a commitment is not a canonical Fr");
    pre[0] = comm_c;
    pre[1] = comm_r_last;
    czk_status st = czk_poseidon_hash(&h, pre, 2, err);
    if (st) return st;
    if (!czk_fr_eq(&h, &comm_r))
        return czk_errf(err, CZK_ERR_VERIFY, "Poseidon-2(comm_c, comm_r_last) is not comm_r");
    for (unsigned j = 0; j < v->challenges; j++) {
        if (memcmp(v->roots[j], v->comm_r_last, 32))
            return czk_errf(err, CZK_ERR_VERIFY,
                            "challenge %u: the proof's root is not comm_r_last", j);
        czk_fr root = czk_fr_zero;
        uint64_t idx = 0;
        czk_err e;
        if ((st = path_root(t, v, j, &root, &idx, &e)))
            return czk_errf(err, st == CZK_ERR_FR_RANGE ? CZK_ERR_VERIFY : st, "challenge %u: %s",
                            j, e.msg);
        if (!czk_fr_eq(&root, &comm_r_last))
            return czk_errf(err, CZK_ERR_VERIFY,
                            "challenge %u: the inclusion path does not hash to comm_r_last", j);
        if (idx != leaves[j])
            return czk_errf(err, CZK_ERR_VERIFY,
                            "challenge %u: the proof opens leaf %llu, the challenge is leaf %llu",
                            j, (unsigned long long)idx, (unsigned long long)leaves[j]);
    }
    return CZK_OK;
}

/* Sector i of the partition against its challenges: CZK_OK or check_sector's failure. */
static czk_status check_one(const czk_por_tree *t, const czk_post_vanilla *v, size_t i,
                            const czk_post_config *cfg, czk_post_kind kind, czk_post_api api,
                            const uint8_t randomness[32], uint64_t k, czk_err *err) {
    uint64_t leaves[CZK_POST_WINNING_CHALLENGES > CZK_POST_WINDOW_CHALLENGES
                        ? CZK_POST_WINNING_CHALLENGES
                        : CZK_POST_WINDOW_CHALLENGES];
    if (v->challenges > sizeof leaves / sizeof leaves[0])
        return czk_errf(err, CZK_ERR_INVALID_ARG, "PoSt pre-check: %u challenges per sector",
                        v->challenges);
    czk_post_vanilla_leaves(leaves, v, kind, api, k * cfg->sectors + i, cfg->nodes, randomness);
    return check_sector(t, v, leaves, err);
}

typedef struct par_check {
    const czk_por_tree *t;
    const czk_post_vanilla *const *v;
    const czk_post_config *cfg;
    czk_post_kind kind;
    czk_post_api api;
    const uint8_t *randomness;
    uint64_t k;
    czk_status *st; /* per sector */
} par_check;

static void par_check_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    const par_check *p = arg;
    for (size_t i = b; i < e; i++)
        p->st[i] = check_one(p->t, p->v[i], i, p->cfg, p->kind, p->api, p->randomness, p->k, NULL);
}

czk_status czk_post_precheck_on(const czk_post_vanilla *const *v, size_t n,
                                const czk_post_config *cfg, czk_post_kind kind, czk_post_api api,
                                const uint8_t randomness[32], uint64_t k, czk_pool *pool,
                                size_t *bad, czk_err *err) {
    czk_por_tree t;
    czk_status st = czk_post_config_check(cfg, &t, err);
    if (st) return st;
    if ((st = czk_post_randomness_check(randomness, err))) return st;
    if ((st = check_counts(v, n, cfg, kind, "PoSt pre-check", err))) return st;
    /* the sectors on the pool; then only the first bad one is checked again, here, for its
     * message (none: nothing is) */
    size_t from = 0, to = n;
    if (pool && czk_pool_threads(pool) > 1 && n > 1) {
        czk_status *sts = calloc(n, sizeof *sts);
        if (!sts) return czk_errf(err, CZK_ERR_NOMEM, "PoSt pre-check: %zu sectors", n);
        par_check p = {&t, v, cfg, kind, api, randomness, k, sts};
        czk_pool_for(pool, n, 1, par_check_fn, &p);
        while (from < n && !sts[from])
            from++;
        to = from < n ? from + 1 : n;
        free(sts);
    }
    for (size_t i = from; i < to; i++) {
        czk_err e;
        if ((st = check_one(&t, v[i], i, cfg, kind, api, randomness, k, &e))) {
            if (bad) *bad = i;
            return czk_errf(err, st,
                            "PoSt vanilla proof of sector %llu (%zu of %zu in the partition) does "
                            "not verify: %s",
                            (unsigned long long)v[i]->sector_id, i, n, e.msg);
        }
    }
    return CZK_OK;
}

czk_status czk_post_precheck(const czk_post_vanilla *const *v, size_t n, const czk_post_config *cfg,
                             czk_post_kind kind, czk_post_api api, const uint8_t randomness[32],
                             uint64_t k, size_t *bad, czk_err *err) {
    return czk_post_precheck_on(v, n, cfg, kind, api, randomness, k, NULL, bad, err);
}

czk_status czk_post_witness_fill(czk_post_witness *w, const czk_post_vanilla *const *v, size_t n,
                                 czk_post_kind kind, czk_err *err) {
    const czk_post_config *cfg = &w->config;
    czk_por_tree t;
    czk_status st = czk_post_config_check(cfg, &t, err);
    if (st) return st;
    if ((st = check_counts(v, n, cfg, kind, "PoSt witness", err))) return st;
    size_t nsib = czk_por_tree_siblings(&t), levels = czk_por_tree_levels(&t);
    for (unsigned i = 0; i < cfg->sectors; i++) {
        czk_post_sector *s = &w->sectors[i];
        const czk_post_vanilla *src = kind == CZK_POST_WINNING ? v[0] : v[i < n ? i : n - 1];
        s->sector_id = src->sector_id;
        memcpy(s->comm_r, src->comm_r, 32);
        memcpy(s->comm_c, src->comm_c, 32);
        memcpy(s->comm_r_last, src->comm_r_last, 32);
        for (unsigned j = 0; j < cfg->challenges; j++) {
            unsigned from = kind == CZK_POST_WINNING ? i : j;
            memcpy(s->leaves[j], src->leaves[from], 32);
            memcpy(s->roots[j], src->roots[from], 32);
            memcpy(s->paths[j].positions, src->paths[from].positions, 4 * levels);
            memcpy(s->paths[j].siblings, src->paths[from].siblings, 32 * nsib);
        }
    }
    return CZK_OK;
}
