/*
 * Merkle trees of a sector: TreeD (binary SHA-256), TreeC and TreeR
 * (Poseidon octrees with the shape's sub/top levels), and their inclusion
 * proofs in the form of storage-proofs-core merkle/proof.rs.
 *
 * A compound tree (8-8-0, 8-8-2) is the tree of its base trees' roots: base
 * tree b covers leaves [b·w, (b+1)·w), the sub tree hashes 8 base roots,
 * the top tree 2 sub roots. So one tree with per-level arities covers all
 * three kinds; only the proof's split into base/sub/top paths differs.
 *
 * One lookup (seal_tree_node) serves three storages: full levels, periodic
 * levels (data repeating with a power-of-two period: node i of level l is
 * stored node i mod count[l]) and sparse levels (touched nodes stored,
 * every other node a keyed pseudo-random value), so that the proof code is
 * shared.
 */
#include "seal/seal_internal.h"

#include "util/digest.h"
#include <stdlib.h>
#include <string.h>

static void set_levels(seal_tree *t, uint64_t leaves) {
    t->width[0] = leaves;
    for (unsigned l = 0; l < t->levels; l++)
        t->width[l + 1] = t->width[l] / t->arity[l];
}

void seal_tree_init_d(seal_tree *t, unsigned log2_nodes) {
    memset(t, 0, sizeof *t);
    t->hash = SEAL_HASH_SHA256;
    t->levels = log2_nodes;
    for (unsigned l = 0; l < log2_nodes; l++)
        t->arity[l] = 2;
    t->parts[0] = log2_nodes;
    t->kind = CZK_MERKLE_SINGLE;
    set_levels(t, (uint64_t)1 << log2_nodes);
}

void seal_tree_init_rc(seal_tree *t, const czk_porep_shape *shape) {
    memset(t, 0, sizeof *t);
    t->hash = SEAL_HASH_POSEIDON;
    uint64_t base_leaves = shape->nodes;
    if (shape->tree_sub_arity) base_leaves /= shape->tree_sub_arity;
    if (shape->tree_top_arity) base_leaves /= shape->tree_top_arity;
    unsigned base = 0;
    for (uint64_t w = base_leaves; w > 1; w /= shape->tree_base_arity)
        base++;
    unsigned l = 0;
    for (; l < base; l++)
        t->arity[l] = (uint8_t)shape->tree_base_arity;
    t->parts[0] = base;
    t->kind = CZK_MERKLE_SINGLE;
    if (shape->tree_sub_arity) {
        t->arity[l++] = (uint8_t)shape->tree_sub_arity;
        t->parts[1] = 1;
        t->kind = CZK_MERKLE_SUB;
    }
    if (shape->tree_top_arity) {
        t->arity[l++] = (uint8_t)shape->tree_top_arity;
        t->parts[2] = 1;
        t->kind = CZK_MERKLE_TOP;
    }
    t->levels = l;
    set_levels(t, shape->nodes);
}

void seal_hash_children(seal_hash h, const czk_poseidon_constants *pc, const uint8_t *children,
                        unsigned arity, uint8_t out[32]) {
    if (h == SEAL_HASH_SHA256) {
        czk_sha256_digest(out, children, 32 * (size_t)arity);
        out[31] &= 0x3f;
        return;
    }
    czk_fr in[CZK_MERKLE_MAX_ARITY], o;
    for (unsigned k = 0; k < arity; k++)
        czk_fr_from_bytes_reduce(&in[k], children + 32 * k);
    czk_poseidon_hash_with(pc, &o, in);
    czk_fr_to_bytes(out, &o);
}

void seal_fill(uint8_t out[32], const uint8_t key[32], uint32_t tag, uint64_t a, uint64_t b) {
    uint8_t msg[13 + 32 + 4 + 16];
    memcpy(msg, "czk-seal-fill", 13);
    memcpy(msg + 13, key, 32);
    for (int i = 0; i < 4; i++)
        msg[45 + i] = (uint8_t)(tag >> (8 * i));
    for (int i = 0; i < 8; i++) {
        msg[49 + i] = (uint8_t)(a >> (8 * i));
        msg[57 + i] = (uint8_t)(b >> (8 * i));
    }
    czk_sha256_digest(out, msg, sizeof msg);
    out[31] &= 0x3f;
}

static const czk_poseidon_constants *level_constants(const seal_tree *t, unsigned l, czk_err *err) {
    if (t->hash != SEAL_HASH_POSEIDON) return NULL;
    return czk_poseidon_constants_get(t->arity[l], err);
}

void seal_tree_node(const seal_tree *t, unsigned level, uint64_t i, uint8_t out[32]) {
    if (!t->sparse) {
        uint64_t span = t->rspan[level];
        uint64_t k =
            span ? i / span * t->count[level] + i % span % t->count[level] : i % t->count[level];
        memcpy(out, t->dense[level] + 32 * k, 32);
        return;
    }
    const uint64_t *ix = t->sp_idx[level];
    size_t lo = 0, hi = t->sp_n[level];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->sp_n[level] && ix[lo] == i)
        memcpy(out, t->sp_val[level] + 32 * lo, 32);
    else
        seal_fill(out, t->key, t->tag, level, i);
}

void seal_tree_root(const seal_tree *t, uint8_t out[32]) {
    seal_tree_node(t, t->levels, 0, out);
}

void seal_tree_free(seal_tree *t) {
    for (unsigned l = 0; l <= SEAL_MAX_LEVELS; l++) {
        if (!(l == 0 && t->borrowed0)) free(t->dense[l]);
        free(t->sp_idx[l]);
        free(t->sp_val[l]);
        t->dense[l] = NULL;
        t->sp_idx[l] = NULL;
        t->sp_val[l] = NULL;
    }
}

/* ---- dense build ---- */

struct level_job {
    const seal_tree *t;
    const czk_poseidon_constants *pc;
    unsigned l;
    const uint8_t *in;
    uint64_t in_count;
    uint8_t *out;
};

static void level_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const struct level_job *j = arg;
    unsigned a = j->t->arity[j->l];
    uint8_t kids[CZK_MERKLE_MAX_ARITY * 32];
    for (size_t p = begin; p < end; p++) {
        const uint8_t *src;
        if ((uint64_t)(p + 1) * a <= j->in_count) {
            src = j->in + 32 * (uint64_t)p * a;
        } else { /* periodic level narrower than the arity: children repeat */
            for (unsigned k = 0; k < a; k++)
                memcpy(kids + 32 * k, j->in + 32 * (((uint64_t)p * a + k) % j->in_count), 32);
            src = kids;
        }
        seal_hash_children(j->t->hash, j->pc, src, a, j->out + 32 * p);
    }
}

czk_status seal_tree_build_dense(seal_tree *t, const uint8_t *leaves, uint64_t count0,
                                 czk_pool *pool, czk_err *err) {
    t->sparse = false;
    t->dense[0] = (uint8_t *)leaves;
    t->borrowed0 = true;
    t->count[0] = count0;
    for (unsigned l = 0; l < t->levels; l++) {
        uint64_t c = t->count[l] / t->arity[l];
        if (c == 0) c = 1;
        czk_err e2;
        const czk_poseidon_constants *pc = level_constants(t, l, &e2);
        if (t->hash == SEAL_HASH_POSEIDON && !pc) {
            if (err) *err = e2;
            return e2.code;
        }
        uint8_t *out = malloc(32 * c);
        if (!out)
            return czk_errf(err, CZK_ERR_NOMEM, "tree level %u: %llu nodes", l + 1,
                            (unsigned long long)c);
        t->dense[l + 1] = out;
        t->count[l + 1] = c;
        struct level_job j = {t, pc, l, t->dense[l], t->count[l], out};
        size_t grain = t->hash == SEAL_HASH_SHA256 ? 4096 : 64;
        czk_pool_for(pool, (size_t)c, grain, level_range, &j);
    }
    return CZK_OK;
}

/* ---- regioned build ---- */

struct region_job {
    const seal_tree *t;
    const czk_poseidon_constants *pc;
    unsigned l;
};

/* Stored node q of level l + 1: its global index, then its children by lookup. */
static void region_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const struct region_job *j = arg;
    const seal_tree *t = j->t;
    unsigned l = j->l, a = t->arity[l];
    uint64_t span = t->rspan[l + 1], cnt = t->count[l + 1];
    uint8_t kids[CZK_MERKLE_MAX_ARITY * 32];
    for (size_t q = begin; q < end; q++) {
        uint64_t p = span ? q / cnt * span + q % cnt : q;
        for (unsigned c = 0; c < a; c++)
            seal_tree_node(t, l, p * a + c, kids + 32 * c);
        seal_hash_children(t->hash, j->pc, kids, a, t->dense[l + 1] + 32 * q);
    }
}

czk_status seal_tree_build_regions(seal_tree *t, const uint8_t *leaves, uint64_t count0,
                                   uint64_t regions, czk_pool *pool, czk_err *err) {
    if (!regions || t->width[0] % regions || (t->width[0] / regions) % count0)
        return czk_errf(err, CZK_ERR_INTERNAL, "regioned tree: %llu regions of %llu leaves",
                        (unsigned long long)regions, (unsigned long long)count0);
    t->sparse = false;
    t->dense[0] = (uint8_t *)leaves;
    t->borrowed0 = true;
    t->count[0] = count0;
    t->rspan[0] = t->width[0] / regions;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        uint64_t stored;
        if (t->rspan[l] >= a) { /* a parent still lies in one region */
            t->rspan[l + 1] = t->rspan[l] / a;
            t->count[l + 1] = t->count[l] / a ? t->count[l] / a : 1;
            stored = t->width[l + 1] / t->rspan[l + 1] * t->count[l + 1];
        } else {
            t->rspan[l + 1] = 0;
            t->count[l + 1] = stored = t->width[l + 1];
        }
        czk_err e2;
        const czk_poseidon_constants *pc = level_constants(t, l, &e2);
        if (t->hash == SEAL_HASH_POSEIDON && !pc) {
            if (err) *err = e2;
            return e2.code;
        }
        t->dense[l + 1] = malloc(32 * stored);
        if (!t->dense[l + 1])
            return czk_errf(err, CZK_ERR_NOMEM, "tree level %u: %llu nodes", l + 1,
                            (unsigned long long)stored);
        struct region_job j = {t, pc, l};
        czk_pool_for(pool, (size_t)stored, t->hash == SEAL_HASH_SHA256 ? 1024 : 16, region_range,
                     &j);
    }
    return CZK_OK;
}

/* ---- sparse build ---- */

struct sparse_job {
    const seal_tree *t;
    const czk_poseidon_constants *pc;
    unsigned l;
};

static void sparse_range(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const struct sparse_job *j = arg;
    const seal_tree *t = j->t;
    unsigned a = t->arity[j->l];
    uint8_t kids[CZK_MERKLE_MAX_ARITY * 32];
    for (size_t q = begin; q < end; q++) {
        uint64_t p = t->sp_idx[j->l + 1][q];
        for (unsigned c = 0; c < a; c++)
            seal_tree_node(t, j->l, p * a + c, kids + 32 * c);
        seal_hash_children(t->hash, j->pc, kids, a, t->sp_val[j->l + 1] + 32 * q);
    }
}

czk_status seal_tree_build_sparse(seal_tree *t, const uint64_t *idx, const uint8_t *vals, size_t n,
                                  const uint8_t key[32], uint32_t tag, czk_pool *pool,
                                  czk_err *err) {
    t->sparse = true;
    memcpy(t->key, key, 32);
    t->tag = tag;
    t->sp_idx[0] = malloc(sizeof(uint64_t) * (n ? n : 1));
    t->sp_val[0] = malloc(32 * (n ? n : 1));
    if (!t->sp_idx[0] || !t->sp_val[0]) return czk_errf(err, CZK_ERR_NOMEM, "sparse tree leaves");
    memcpy(t->sp_idx[0], idx, sizeof(uint64_t) * n);
    memcpy(t->sp_val[0], vals, 32 * n);
    t->sp_n[0] = n;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        czk_err e2;
        const czk_poseidon_constants *pc = level_constants(t, l, &e2);
        if (t->hash == SEAL_HASH_POSEIDON && !pc) {
            if (err) *err = e2;
            return e2.code;
        }
        size_t m = t->sp_n[l], np = 0;
        uint64_t *pi = malloc(sizeof(uint64_t) * (m ? m : 1));
        uint8_t *pv = malloc(32 * (m ? m : 1));
        t->sp_idx[l + 1] = pi;
        t->sp_val[l + 1] = pv;
        if (!pi || !pv) return czk_errf(err, CZK_ERR_NOMEM, "sparse tree level %u", l + 1);
        /* The touched parents (children sorted, so parents come sorted). */
        for (size_t k = 0; k < m; k++) {
            uint64_t p = t->sp_idx[l][k] / a;
            if (!np || pi[np - 1] != p) pi[np++] = p;
        }
        t->sp_n[l + 1] = np;
        struct sparse_job j = {t, pc, l};
        czk_pool_for(pool, np, t->hash == SEAL_HASH_SHA256 ? 256 : 8, sparse_range, &j);
    }
    return CZK_OK;
}

/* ---- proofs ---- */

czk_status seal_tree_proof(const seal_tree *t, uint64_t leaf, czk_merkle_proof *p, czk_c1 *c1,
                           czk_err *err) {
    if (leaf >= t->width[0])
        return czk_errf(err, CZK_ERR_INTERNAL, "proof of leaf %llu in a tree of %llu",
                        (unsigned long long)leaf, (unsigned long long)t->width[0]);
    size_t nsib = 0;
    for (unsigned l = 0; l < t->levels; l++)
        nsib += t->arity[l] - 1u;
    p->siblings = czk_c1_alloc(c1, 32 * (nsib ? nsib : 1));
    if (!p->siblings) return czk_errf(err, CZK_ERR_NOMEM, "merkle proof siblings");
    p->kind = t->kind;
    p->num_levels = t->levels;
    memcpy(p->levels_in_part, t->parts, sizeof p->levels_in_part);
    seal_tree_node(t, 0, leaf, p->leaf.b);
    seal_tree_root(t, p->root.b);
    uint64_t i = leaf;
    size_t s = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        uint64_t group = i / a;
        unsigned pos = (unsigned)(i % a);
        p->arity[l] = (uint8_t)a;
        p->index[l] = pos;
        for (unsigned k = 0; k < a; k++)
            if (k != pos) seal_tree_node(t, l, group * a + k, p->siblings[s++].b);
        i = group;
    }
    return CZK_OK;
}

/* ---- public TreeD helpers ---- */

czk_status czk_seal_tree_d_root(uint8_t root[32], const uint8_t *data, uint64_t nodes,
                                czk_pool *pool, czk_err *err) {
    if (nodes < 2 || (nodes & (nodes - 1)))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "tree_d: %llu nodes, want a power of two >= 2",
                        (unsigned long long)nodes);
    unsigned log2 = 0;
    while (((uint64_t)1 << log2) < nodes)
        log2++;
    if (log2 > SEAL_MAX_LEVELS)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "tree_d: 2^%u nodes, at most 2^%u", log2,
                        SEAL_MAX_LEVELS);
    seal_tree t;
    seal_tree_init_d(&t, log2);
    czk_status st = seal_tree_build_dense(&t, data, nodes, pool, err);
    if (st == CZK_OK) seal_tree_root(&t, root);
    seal_tree_free(&t);
    return st;
}

void czk_seal_zero_comm_d(uint8_t out[32], unsigned log2_nodes) {
    uint8_t pair[64] = {0};
    memset(out, 0, 32);
    for (unsigned k = 0; k < log2_nodes; k++) {
        memcpy(pair, out, 32);
        memcpy(pair + 32, out, 32);
        czk_sha256_digest(out, pair, 64);
        out[31] &= 0x3f;
    }
}
