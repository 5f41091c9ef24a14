/*
 * Internal pieces of the test-sector generator (src/seal): Merkle trees in
 * three storages behind one lookup, so that proof extraction is one body for
 * full sectors, periodic data (sparse TreeD) and sparse trees.
 */
#ifndef CZK_SEAL_INTERNAL_H
#define CZK_SEAL_INTERNAL_H

#include "czk/poseidon.h"
#include "czk/seal.h"

typedef enum seal_hash {
    SEAL_HASH_SHA256 = 0, /* TreeD: SHA-256(left ‖ right), byte 31 &= 0x3f */
    SEAL_HASH_POSEIDON,   /* TreeC/TreeR: Poseidon of the level's arity */
} seal_hash;

#define SEAL_MAX_LEVELS CZK_MERKLE_MAX_LEVELS

/*
 * A Merkle tree over width[0] leaves; level l has width[l] nodes and
 * arity[l] children per parent; the root is level `levels`.
 *
 * Dense storage: level l stores count[l] nodes and node i of the level is
 * dense[l][i mod count[l]] (count[l] = width[l] for a full tree; smaller for
 * periodic data, whose upper levels are hashes of equal children).
 * Sparse storage: level l stores the touched nodes (sorted sp_idx[l], values
 * sp_val[l]); any other node is fill(key, tag, l, i), a pseudo-random 254-bit
 * value.
 */
typedef struct seal_tree {
    seal_hash hash;
    unsigned levels;
    uint8_t arity[SEAL_MAX_LEVELS];
    uint32_t parts[3]; /* levels in the base, sub and top trees */
    czk_merkle_kind kind;
    uint64_t width[SEAL_MAX_LEVELS + 1];
    bool sparse;
    uint8_t *dense[SEAL_MAX_LEVELS + 1];
    uint64_t count[SEAL_MAX_LEVELS + 1];
    bool borrowed0; /* dense[0] belongs to the caller */
    uint64_t *sp_idx[SEAL_MAX_LEVELS + 1];
    uint8_t *sp_val[SEAL_MAX_LEVELS + 1];
    size_t sp_n[SEAL_MAX_LEVELS + 1];
    uint8_t key[32];
    uint32_t tag;
} seal_tree;

/* Shapes (no storage): TreeD over 2^log2_nodes leaves; TreeC/TreeR of a sector shape. */
void seal_tree_init_d(seal_tree *t, unsigned log2_nodes);
void seal_tree_init_rc(seal_tree *t, const czk_porep_shape *shape);

/*
 * Dense build from count0 leaves (count0 divides width[0]; a power of two or
 * the full width). The leaves are borrowed (must outlive the tree).
 */
CZK_NODISCARD czk_status seal_tree_build_dense(seal_tree *t, const uint8_t *leaves, uint64_t count0,
                                               czk_pool *pool, czk_err *err);
/*
 * Sparse build from n touched leaves (idx sorted, distinct) and their values
 * (32 bytes each, copied); untouched nodes are fill values keyed by key/tag.
 */
CZK_NODISCARD czk_status seal_tree_build_sparse(seal_tree *t, const uint64_t *idx,
                                                const uint8_t *vals, size_t n,
                                                const uint8_t key[32], uint32_t tag, czk_pool *pool,
                                                czk_err *err);
void seal_tree_free(seal_tree *t);

void seal_tree_node(const seal_tree *t, unsigned level, uint64_t i, uint8_t out[32]);
void seal_tree_root(const seal_tree *t, uint8_t out[32]);
/* The inclusion proof of leaf `leaf`; siblings are allocated from c1. */
CZK_NODISCARD czk_status seal_tree_proof(const seal_tree *t, uint64_t leaf, czk_merkle_proof *p,
                                         czk_c1 *c1, czk_err *err);

/* Hashes `arity` children (32 bytes each, consecutive) into out. */
void seal_hash_children(seal_hash h, const czk_poseidon_constants *pc, const uint8_t *children,
                        unsigned arity, uint8_t out[32]);

/* A pseudo-random 254-bit value: SHA-256("czk-seal-fill" ‖ key ‖ tag ‖ a ‖ b), byte 31 &= 0x3f. */
void seal_fill(uint8_t out[32], const uint8_t key[32], uint32_t tag, uint64_t a, uint64_t b);

#endif
