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
 * Regioned storage (dense with rspan[l] non-zero): the level is cut into
 * regions of rspan[l] nodes, each periodic on its own: node i is
 * dense[l][(i / rspan[l])·count[l] + (i mod rspan[l]) mod count[l]] (the
 * SnapDeals replica of a periodic sector, whose every region of 2^(bits − h)
 * nodes is encoded with its own rho).
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
    uint64_t rspan[SEAL_MAX_LEVELS + 1]; /* regioned levels: nodes per region; 0: not */
    bool borrowed0;                      /* dense[0] belongs to the caller */
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
 * Regioned build: `regions` regions of width[0]/regions leaves, region r
 * periodic with the count0 leaves at leaves + 32·count0·r (count0 a power
 * of two dividing the region). Levels stay regioned while a parent lies in
 * one region, and are stored whole above. The leaves are borrowed.
 */
CZK_NODISCARD czk_status seal_tree_build_regions(seal_tree *t, const uint8_t *leaves,
                                                 uint64_t count0, uint64_t regions, czk_pool *pool,
                                                 czk_err *err);
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

/* Tags of seal_fill's pseudo-random values (one per use). */
enum {
    TAG_TREE_C = 1,
    TAG_TREE_R = 2,
    TAG_LABEL = 3,
    TAG_POST_LEAF = 4,
    TAG_POST_COMM_C = 5,
    TAG_SNAP_OLD = 6,
    TAG_SNAP_COMM_C = 7,
};

/* A sealed sector as the generator holds it (full or sparse). */
typedef struct seal_sector {
    czk_porep_proof proof;
    uint64_t nodes;
    unsigned layers;
    czk_porep_graph *g;
    seal_tree td, tc, tr;
    uint8_t *data; /* padded data: nodes (full) or the block (sparse) */
    uint64_t data_nodes;
    uint8_t *labels;  /* full: layers × nodes × 32 */
    uint8_t *colhash; /* full: TreeC leaves */
    uint8_t *replica; /* full: TreeR leaves */
    /* sparse: columns of the touched nodes, sorted by node */
    uint64_t *col_nodes;
    uint8_t *col_rows; /* ncols × layers × 32 */
    size_t ncols;
    uint64_t *challenges; /* partitions × cpp */
    uint64_t *uniq;       /* sparse: the distinct challenged nodes, sorted */
    uint8_t key[32];      /* sparse fill key */
    uint8_t replica_id[32], comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
} seal_sector;

/* Seals the sector of req (full or sparse): graph, data, labels, TreeD/TreeC/TreeR, comm_r. */
CZK_NODISCARD czk_status seal_sector_make(seal_sector *s, const czk_seal_request *req,
                                          czk_pool *pool, czk_err *err);
void seal_sector_free(seal_sector *s);
/* The padded data of `nodes` nodes (a multiple of 4) that req describes, into s->data. */
CZK_NODISCARD czk_status seal_make_data(seal_sector *s, const czk_seal_request *req, uint64_t nodes,
                                        czk_err *err);

/* A growing byte buffer for bincode blobs; nomem sticks after a failed growth. */
typedef struct seal_blob {
    uint8_t *p;
    size_t n, cap;
    bool nomem;
} seal_blob;
void seal_put(seal_blob *b, const void *x, size_t n);
void seal_put_u64(seal_blob *b, uint64_t v);
/* The bincode MerkleProof (Single / Sub / Top, as t is split) of leaf `leaf`. */
void seal_put_merkle(seal_blob *b, const seal_tree *t, uint64_t leaf);

/* A pseudo-random 254-bit value: SHA-256("czk-seal-fill" ‖ key ‖ tag ‖ a ‖ b), byte 31 &= 0x3f. */
void seal_fill(uint8_t out[32], const uint8_t key[32], uint32_t tag, uint64_t a, uint64_t b);

#endif
