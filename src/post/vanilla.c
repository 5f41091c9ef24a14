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

/* A 32-byte Domain value (czk_por_domain_read); keep may be NULL. */
static czk_status domain(walk *w, const char *name, uint8_t *keep, czk_err *err) {
    uint8_t b[32];
    czk_status st = czk_por_domain_read(b, w->r.data, w->r.len, &w->r.pos, name, err);
    if (!st && keep) memcpy(keep, b, 32);
    return st;
}

/* One MerkleProof of the tree (czk_por_proof_read), kept in the second pass. */
static czk_status merkle_proof(walk *w, czk_err *err) {
    czk_por_proof p = {.positions = NULL, .siblings = NULL};
    if (w->v) {
        p.positions = w->v->paths[w->proofs].positions;
        p.siblings = w->v->paths[w->proofs].siblings;
    }
    size_t pos = w->r.pos;
    czk_status st = czk_por_proof_read(&p, w->r.data, w->r.len, &pos, w->tree, err);
    if (st) return st;
    w->r.pos = pos;
    if (w->v) {
        memcpy(w->v->roots[w->proofs], p.root, 32);
        memcpy(w->v->leaves[w->proofs], p.leaf, 32);
    }
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
        uint8_t cc[32], crl[32];
        char f_cc[48], f_crl[48];
        snprintf(f_cc, sizeof f_cc, "sectors[%u].comm_c", s);
        snprintf(f_crl, sizeof f_crl, "sectors[%u].comm_r_last", s);
        if ((st = domain(w, f_cc, cc, err)) || (st = domain(w, f_crl, crl, err)))
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
