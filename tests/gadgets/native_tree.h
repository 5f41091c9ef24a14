/*
 * Native Merkle trees for the PoR and PoRep circuit tests, built without any
 * gadget: SHA-256 nodes with blst_sha256 over the children's 32-byte LE
 * encodings, the top two bits of the last byte cleared (filecoin-hashers
 * Sha256Function: the digest read as an Fr repr, trimmed to 254 bits);
 * Poseidon nodes with the native hash czk_poseidon_hash. Levels go from the
 * leaves up with the arities of a czk_por_tree (base levels, sub, top), so a
 * leaf index's digits, least significant first, are its positions.
 */
#ifndef CZK_TESTS_NATIVE_TREE_H
#define CZK_TESTS_NATIVE_TREE_H

#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "blst_aux.h"
#include "czk/por.h"
#include "czk/poseidon.h"

typedef struct nt_tree {
    czk_por_tree shape;
    unsigned levels;
    unsigned arity[CZK_POR_MAX_LEVELS];
    uint64_t width[CZK_POR_MAX_LEVELS + 1]; /* nodes of each level, 0 = leaves */
    czk_fr *nodes[CZK_POR_MAX_LEVELS + 1];
} nt_tree;

/* A node of `arity` children. */
static inline void nt_hash(czk_por_hash hash, unsigned arity, const czk_fr *in, czk_fr *out) {
    if (hash == CZK_POR_SHA256) {
        uint8_t buf[32 * CZK_POR_MAX_ARITY], d[32];
        for (unsigned i = 0; i < arity; i++)
            czk_fr_to_bytes(buf + 32 * i, &in[i]);
        blst_sha256(d, buf, 32 * arity);
        d[31] &= 0x3f;
        czk_err err;
        czk_assert_ok(czk_fr_from_bytes(out, d, &err), &err);
    } else {
        czk_err err;
        czk_assert_ok(czk_poseidon_hash(out, in, arity, &err), &err);
    }
}

/* A random Fr whose top two bits are clear (a valid Fr32 node). */
static inline void nt_random_fr(czk_rng *rng, czk_fr *out) {
    uint8_t b[32];
    for (int i = 0; i < 4; i++) {
        uint64_t v = czk_rng_u64(rng);
        memcpy(b + 8 * i, &v, 8);
    }
    b[31] &= 0x3f;
    czk_err err;
    czk_assert_ok(czk_fr_from_bytes(out, b, &err), &err);
}

/* Builds the tree over `leaves` (copied); shape must be valid. */
static inline void nt_build(nt_tree *t, const czk_por_tree *shape, const czk_fr *leaves,
                            uint64_t nleaves) {
    memset(t, 0, sizeof *t);
    t->shape = *shape;
    t->levels = czk_por_tree_levels(shape);
    t->width[0] = nleaves;
    t->nodes[0] = malloc(nleaves * sizeof(czk_fr));
    assert_non_null(t->nodes[0]);
    memcpy(t->nodes[0], leaves, nleaves * sizeof(czk_fr));
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l] = czk_por_tree_arity(shape, l);
        assert_int_equal(t->width[l] % a, 0);
        uint64_t w = t->width[l + 1] = t->width[l] / a;
        t->nodes[l + 1] = malloc(w * sizeof(czk_fr));
        assert_non_null(t->nodes[l + 1]);
        for (uint64_t j = 0; j < w; j++)
            nt_hash(shape->hash, a, t->nodes[l] + j * a, &t->nodes[l + 1][j]);
    }
    assert_int_equal(t->width[t->levels], 1);
}

static inline const czk_fr *nt_root(const nt_tree *t) {
    return &t->nodes[t->levels][0];
}

/* The path of leaf `index`: positions[levels], siblings[Σ(arity − 1)]. */
static inline void nt_path(const nt_tree *t, uint64_t index, uint32_t *positions,
                           czk_fr *siblings) {
    unsigned off = 0;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        uint64_t group = index / a;
        positions[l] = (uint32_t)(index % a);
        for (unsigned j = 0; j < a; j++)
            if (j != positions[l]) siblings[off++] = t->nodes[l][group * a + j];
        index = group;
    }
}

/* The same with siblings as 32-byte LE values (the PoRep witness form). */
static inline void nt_path_bytes(const nt_tree *t, uint64_t index, uint32_t *positions,
                                 uint8_t *siblings) {
    czk_fr s[CZK_POR_MAX_LEVELS * (CZK_POR_MAX_ARITY - 1)];
    nt_path(t, index, positions, s);
    unsigned n = czk_por_tree_siblings(&t->shape);
    for (unsigned i = 0; i < n; i++)
        czk_fr_to_bytes(siblings + 32 * i, &s[i]);
}

static inline void nt_free(nt_tree *t) {
    for (unsigned l = 0; l <= t->levels; l++)
        free(t->nodes[l]);
    memset(t, 0, sizeof *t);
}

#endif
