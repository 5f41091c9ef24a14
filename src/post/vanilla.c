/*
 * Bincode FallbackPoStSectorProof (filecoin-proofs types/mod.rs, the
 * storage-proofs-post Proof and SectorProof, storage-proofs-core
 * merkle/proof.rs MerkleProof; spec post-snap.md §3), read with
 * util/bincode.h and checked against the shape's TreeR as it is read.
 *
 * One walk serves two passes: the first checks everything and counts the
 * inclusion proofs, the second, into storage sized by the first, keeps the
 * leaves, roots and paths. So a blob is never trusted for an allocation
 * size: lengths are bounded by the tree and by the bytes left.
 */
#include "czk/post.h"

#include "util/bincode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inclusion proofs one blob may hold (WinningPoSt: 66). */
#define MAX_PROOFS 4096u

typedef struct walk {
    czk_bincode r;
    const czk_por_tree *tree;
    czk_post_vanilla *v; /* NULL in the counting pass */
    unsigned nsib, levels;
    unsigned proofs; /* inclusion proofs so far */
    bool have_id;
    uint64_t sector_id;
} walk;

/* Adds "PoSt vanilla proof of sector <id>" (and the challenge) before err's message. */
static czk_status wrap(walk *w, czk_err *err, long challenge) {
    if (!err) return CZK_ERR_INTERNAL;
    if (!w->have_id) return czk_err_wrap(err, "PoSt vanilla proof");
    if (challenge < 0)
        return czk_err_wrap(err, "PoSt vanilla proof of sector %llu",
                            (unsigned long long)w->sector_id);
    return czk_err_wrap(err, "PoSt vanilla proof of sector %llu: challenge %ld",
                        (unsigned long long)w->sector_id, challenge);
}

static czk_status fr_check(const uint8_t *b, czk_err *err, const char *field, unsigned i,
                           unsigned j) {
    czk_fr x;
    if (czk_fr_from_bytes(&x, b, NULL) == CZK_OK) return CZK_OK;
    if (j == ~0u) return czk_errf(err, CZK_ERR_FR_RANGE, "%s is not a canonical Fr", field);
    return czk_errf(err, CZK_ERR_FR_RANGE, "%s[%u].hashes[%u] is not a canonical Fr", field, i, j);
}

/*
 * One InclusionPath (Vec<PathElement{hashes: Vec<[u8;32]>, index: u64}>) of
 * `levels` levels of `arity`, tree levels first_level.. of the whole path.
 */
static czk_status path(walk *w, const char *name, unsigned levels, unsigned arity,
                       unsigned first_level, unsigned *sib_off, czk_err *err) {
    uint64_t n;
    czk_status st = czk_bincode_len(&w->r, CZK_POR_MAX_LEVELS, 16, &n, err, "%s", name);
    if (st) return st;
    if (n != levels)
        return czk_errf(err, CZK_ERR_MISMATCH, "%s has %llu elements, the tree has %u levels of %u",
                        name, (unsigned long long)n, levels, arity);
    czk_post_path *p = w->v ? &w->v->paths[w->proofs] : NULL;
    for (unsigned e = 0; e < levels; e++) {
        uint64_t nh;
        if ((st =
                 czk_bincode_len(&w->r, CZK_POR_MAX_ARITY, 32, &nh, err, "%s[%u].hashes", name, e)))
            return st;
        if (nh != arity - 1)
            return czk_errf(err, CZK_ERR_MISMATCH, "%s[%u] has %llu hashes, the arity is %u", name,
                            e, (unsigned long long)nh, arity);
        for (unsigned j = 0; j < nh; j++) {
            const uint8_t *h;
            if ((st = czk_bincode_array(&w->r, 32, &h, err, "%s[%u].hashes[%u]", name, e, j)))
                return st;
            if ((st = fr_check(h, err, name, e, j))) return st;
            if (p) memcpy(p->siblings + 32u * (*sib_off + j), h, 32);
        }
        *sib_off += (unsigned)nh;
        uint64_t index;
        if ((st = czk_bincode_u64(&w->r, &index, err, "%s[%u].index", name, e))) return st;
        if (index >= arity)
            return czk_errf(err, CZK_ERR_FORMAT, "%s[%u].index is %llu, the arity is %u", name, e,
                            (unsigned long long)index, arity);
        if (p) p->positions[first_level + e] = (uint32_t)index;
    }
    return CZK_OK;
}

static czk_status domain(walk *w, const char *name, uint8_t *keep, czk_err *err) {
    const uint8_t *b;
    czk_status st = czk_bincode_array(&w->r, 32, &b, err, "%s", name);
    if (st) return st;
    if ((st = fr_check(b, err, name, 0, ~0u))) return st;
    if (keep) memcpy(keep, b, 32);
    return CZK_OK;
}

/* One MerkleProof: the variant of the tree's shape. */
static czk_status merkle_proof(walk *w, czk_err *err) {
    const czk_por_tree *t = w->tree;
    uint32_t tag;
    czk_status st = czk_bincode_u32(&w->r, &tag, err, "proof variant");
    if (st) return st;
    uint32_t want = t->top_arity ? 2 : t->sub_arity ? 1 : 0;
    static const char *const variant[3] = {"Single", "Sub", "Top"};
    if (tag > 2)
        return czk_errf(err, CZK_ERR_FORMAT, "proof variant %u: not Single (0), Sub (1) or Top (2)",
                        tag);
    if (tag != want)
        return czk_errf(err, CZK_ERR_MISMATCH, "a %s proof, the %u-%u-%u tree has %s proofs",
                        variant[tag], t->base_arity, t->sub_arity, t->top_arity, variant[want]);
    uint8_t *root = w->v ? w->v->roots[w->proofs] : NULL;
    uint8_t *leaf = w->v ? w->v->leaves[w->proofs] : NULL;
    unsigned off = 0;
    if (tag == 0) {
        if ((st = domain(w, "root", root, err)) || (st = domain(w, "leaf", leaf, err))) return st;
        return path(w, "path", t->base_levels, t->base_arity, 0, &off, err);
    }
    if ((st = path(w, "base_path", t->base_levels, t->base_arity, 0, &off, err)) ||
        (st = path(w, "sub_path", 1, t->sub_arity, t->base_levels, &off, err)))
        return st;
    if (tag == 2 && (st = path(w, "top_path", 1, t->top_arity, t->base_levels + 1, &off, err)))
        return st;
    if ((st = domain(w, "root", root, err)) || (st = domain(w, "leaf", leaf, err))) return st;
    return CZK_OK;
}

static czk_status walk_blob(walk *w, czk_err *err) {
    czk_status st = czk_bincode_u64(&w->r, &w->sector_id, err, "sector_id");
    if (st) return wrap(w, err, -1);
    w->have_id = true;
    if ((st = domain(w, "comm_r", w->v ? w->v->comm_r : NULL, err))) return wrap(w, err, -1);
    uint64_t nsec;
    /* a SectorProof is at least 8 (empty Vec) + 64 bytes */
    if ((st = czk_bincode_len(&w->r, MAX_PROOFS, 72, &nsec, err, "vanilla_proof.sectors")))
        return wrap(w, err, -1);
    if (nsec == 0)
        return czk_errf(err, CZK_ERR_FORMAT,
                        "PoSt vanilla proof of sector %llu: vanilla_proof.sectors is empty",
                        (unsigned long long)w->sector_id);
    uint8_t comm_c0[32], comm_r_last0[32];
    for (unsigned s = 0; s < nsec; s++) {
        uint64_t np;
        if ((st = czk_bincode_len(&w->r, MAX_PROOFS, 4, &np, err, "sectors[%u].inclusion_proofs",
                                  s)))
            return wrap(w, err, -1);
        if (w->proofs + np > MAX_PROOFS)
            return czk_errf(err, CZK_ERR_FORMAT,
                            "PoSt vanilla proof of sector %llu: more than %u inclusion proofs",
                            (unsigned long long)w->sector_id, MAX_PROOFS);
        for (unsigned j = 0; j < np; j++) {
            if ((st = merkle_proof(w, err))) return wrap(w, err, w->proofs);
            w->proofs++;
        }
        const uint8_t *cc, *crl;
        char f_cc[48], f_crl[48];
        snprintf(f_cc, sizeof f_cc, "sectors[%u].comm_c", s);
        snprintf(f_crl, sizeof f_crl, "sectors[%u].comm_r_last", s);
        if ((st = czk_bincode_array(&w->r, 32, &cc, err, "%s", f_cc)) ||
            (st = fr_check(cc, err, f_cc, 0, ~0u)) ||
            (st = czk_bincode_array(&w->r, 32, &crl, err, "%s", f_crl)) ||
            (st = fr_check(crl, err, f_crl, 0, ~0u)))
            return wrap(w, err, -1);
        if (s == 0) {
            memcpy(comm_c0, cc, 32);
            memcpy(comm_r_last0, crl, 32);
        } else if (memcmp(cc, comm_c0, 32) || memcmp(crl, comm_r_last0, 32)) {
            return czk_errf(err, CZK_ERR_MISMATCH,
                            "PoSt vanilla proof of sector %llu: sectors[%u] has another %s than "
                            "sectors[0]",
                            (unsigned long long)w->sector_id, s,
                            memcmp(cc, comm_c0, 32) ? "comm_c" : "comm_r_last");
        }
    }
    if (w->v) {
        memcpy(w->v->comm_c, comm_c0, 32);
        memcpy(w->v->comm_r_last, comm_r_last0, 32);
    }
    if ((st = czk_bincode_end(&w->r, err, "FallbackPoStSectorProof"))) return wrap(w, err, -1);
    return CZK_OK;
}

czk_status czk_post_vanilla_parse(czk_post_vanilla **out, const uint8_t *data, size_t len,
                                  const czk_por_tree *tree, unsigned challenges, czk_err *err) {
    czk_status st = czk_por_tree_check(tree, err);
    if (st) return st;
    if (tree->hash != CZK_POR_POSEIDON)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "PoSt vanilla proof: TreeR is a Poseidon tree");
    walk w = {
        .tree = tree, .nsib = czk_por_tree_siblings(tree), .levels = czk_por_tree_levels(tree)};
    czk_bincode_init(&w.r, data, len);
    if ((st = walk_blob(&w, err))) return st;
    if (challenges && w.proofs != challenges)
        return czk_errf(err, CZK_ERR_MISMATCH,
                        "PoSt vanilla proof of sector %llu: %u inclusion proofs, the circuit "
                        "challenges each sector %u times",
                        (unsigned long long)w.sector_id, w.proofs, challenges);
    if (w.proofs == 0)
        return czk_errf(err, CZK_ERR_FORMAT,
                        "PoSt vanilla proof of sector %llu: no inclusion proofs",
                        (unsigned long long)w.sector_id);
    size_t n = w.proofs;
    size_t total =
        sizeof(czk_post_vanilla) + n * (sizeof(czk_post_path) + 64 + 32u * w.nsib + 4u * w.levels);
    czk_post_vanilla *v = calloc(1, total);
    if (!v) return czk_errf(err, CZK_ERR_NOMEM, "PoSt vanilla proof of %zu bytes", total);
    v->challenges = w.proofs;
    v->paths = (czk_post_path *)(v + 1);
    uint8_t *p = (uint8_t *)(v->paths + n);
    v->leaves = (uint8_t(*)[32])p;
    p += 32 * n;
    v->roots = (uint8_t(*)[32])p;
    p += 32 * n;
    for (size_t j = 0; j < n; j++, p += 32u * w.nsib)
        v->paths[j].siblings = p;
    for (size_t j = 0; j < n; j++, p += 4u * w.levels)
        v->paths[j].positions = (uint32_t *)p;
    /* the second pass keeps what the first checked */
    w.v = v;
    w.proofs = 0;
    w.have_id = false;
    czk_bincode_init(&w.r, data, len);
    if ((st = walk_blob(&w, err))) {
        free(v);
        return st;
    }
    v->sector_id = w.sector_id;
    *out = v;
    return CZK_OK;
}

void czk_post_vanilla_free(czk_post_vanilla *v) {
    free(v);
}
