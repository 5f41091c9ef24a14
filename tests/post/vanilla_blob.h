/*
 * A bincode FallbackPoStSectorProof writer for the PoSt tests, written from
 * spec post-snap.md §3 (u64 LE integers and Vec lengths, u32 LE enum tags,
 * [u8; 32] raw; MerkleProof 0 Single{root, leaf, path}, 1 Sub{base_path,
 * sub_path, root, leaf}, 2 Top{base_path, sub_path, top_path, root, leaf};
 * PathElement{hashes: Vec<[u8; 32]>, index: u64}), independent of the
 * parser: it only appends bytes.
 */
#ifndef CZK_TESTS_POST_VANILLA_BLOB_H
#define CZK_TESTS_POST_VANILLA_BLOB_H

#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/por.h"

typedef struct vb {
    uint8_t *p;
    size_t n, cap;
} vb;

static inline void vb_put(vb *b, const void *x, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, x, n);
    b->n += n;
}

static inline void vb_u64(vb *b, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    vb_put(b, x, 8);
}

static inline void vb_u32(vb *b, uint32_t v) {
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    vb_put(b, x, 4);
}

/* InclusionPath of tree levels [from, from + n): siblings from `sib` (32 bytes each). */
static inline void vb_path(vb *b, const czk_por_tree *t, unsigned from, unsigned n,
                           const uint32_t *positions, const uint8_t *sib) {
    unsigned off = 0;
    for (unsigned l = 0; l < from; l++)
        off += czk_por_tree_arity(t, l) - 1;
    vb_u64(b, n);
    for (unsigned l = from; l < from + n; l++) {
        unsigned a = czk_por_tree_arity(t, l);
        vb_u64(b, a - 1);
        vb_put(b, sib + 32u * off, 32u * (a - 1));
        off += a - 1;
        vb_u64(b, positions[l]);
    }
}

/* One MerkleProof of the tree's variant. */
static inline void vb_merkle(vb *b, const czk_por_tree *t, const uint32_t *positions,
                             const uint8_t *sib, const uint8_t root[32], const uint8_t leaf[32]) {
    uint32_t tag = t->top_arity ? 2 : t->sub_arity ? 1 : 0;
    vb_u32(b, tag);
    if (tag == 0) {
        vb_put(b, root, 32);
        vb_put(b, leaf, 32);
        vb_path(b, t, 0, t->base_levels, positions, sib);
        return;
    }
    vb_path(b, t, 0, t->base_levels, positions, sib);
    vb_path(b, t, t->base_levels, 1, positions, sib);
    if (tag == 2) vb_path(b, t, t->base_levels + 1, 1, positions, sib);
    vb_put(b, root, 32);
    vb_put(b, leaf, 32);
}

#endif
