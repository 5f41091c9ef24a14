/*
 * czk — the PoR (proof of retrievability) gadget: Merkle inclusion of a leaf
 * under a root, as storage-proofs-core gadgets/por.rs PoRCircuit::synthesize
 * emits it (spec/porep-circuit.md §4.8).
 *
 * A tree is a stack of levels from the leaves up: `base_levels` levels of
 * arity `base_arity`, then one level of arity `sub_arity` (if non-zero), then
 * one level of arity `top_arity` (if non-zero): rust-fil-proofs'
 * MerkleTreeWrapper<H, _, U, V, W> with V = sub, W = top. Leaf i's position
 * at each level is the next log2(arity) bits of i, least significant first,
 * so the path bits concatenated level by level are i's bits.
 *
 * Per level, in order (namespace "merkle tree hash <level>"):
 *   1. log2(arity) index bits, least significant first (AllocatedBit, one
 *      constraint each), bit j = (position >> j) & 1;
 *   2. arity − 1 sibling hashes (AllocatedNum, no constraint);
 *   3. insert (czk_insert: insert_2 / insert_4 / insert_8) of the current
 *      node at that position among the siblings;
 *   4. the hash of the inserted row: SHA-256 (czk_sha256_hash_multi_leaf,
 *      filecoin-hashers Sha256Function::hash_multi_leaf_circuit) or Poseidon
 *      of that arity (czk_poseidon_circuit).
 * Then pack_into_inputs of all index bits (one input per 254 bits; one for
 * every Filecoin tree), then computed_root · ONE = root; with `public_root`
 * also inputize(root) (a new input and input · ONE = root), as PoRCircuit
 * does when its root is not private. Leaf and root are existing variables
 * (storage-proofs Root::Var): nothing is allocated for them.
 *
 * Costs (constraints, equal to aux per level except where noted; spec §1):
 *   SHA-256 binary level        45,382 (aux 45,335)
 *   Poseidon arity-8 level         530 (aux 537)
 *   Poseidon arity-4 level         387 (aux 390)
 *   Poseidon arity-2 level         314 (aux 315)
 *   the end                          2 (+1 with public_root), 1 input (+1)
 * e.g. TreeD of a 2KiB sector (6 binary SHA levels) 272,294; TreeR/TreeC
 * 1,062 (8-0-0, 64 leaves), 5,302 (32GiB, 8-8-0), 5,616 (64GiB, 8-8-2).
 */
#ifndef CZK_POR_H
#define CZK_POR_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/gadgets.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Levels a tree may have (a binary tree of 2^64 leaves). */
#define CZK_POR_MAX_LEVELS 64u
/* Largest arity of any level (insert_8). */
#define CZK_POR_MAX_ARITY 8u

typedef enum czk_por_hash {
    CZK_POR_SHA256 = 1,   /* Sha256Hasher: TreeD (binary in Filecoin) */
    CZK_POR_POSEIDON = 2, /* PoseidonHasher: TreeC, TreeR */
} czk_por_hash;

/*
 * The shape of a Merkle tree. Arities are 2, 4 or 8; sub_arity and top_arity
 * may be 0 (absent); top_arity non-zero needs sub_arity non-zero.
 */
typedef struct czk_por_tree {
    czk_por_hash hash;
    unsigned base_arity;
    unsigned base_levels; /* ≥ 1 */
    unsigned sub_arity;   /* 0 = no sub-tree level */
    unsigned top_arity;   /* 0 = no top-tree level */
} czk_por_tree;

/*
 * The tree over `leaves` leaves with the given arities (rust-fil-proofs
 * base_path_length): base_levels = log_{base}(leaves / (sub·top)), counting
 * absent arities as 1.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for an arity other than 0, 2, 4, 8
 *          (base: 2, 4, 8), a top level without a sub level, or a leaf count
 *          that does not fill such a tree exactly with at least one base
 *          level (out untouched).
 */
CZK_NODISCARD czk_status czk_por_tree_for_leaves(czk_por_tree *out, czk_por_hash hash,
                                                 uint64_t leaves, unsigned base_arity,
                                                 unsigned sub_arity, unsigned top_arity,
                                                 czk_err *err) CZK_NONNULL(1);

/* Checks a tree as czk_por_tree_for_leaves would build it (levels ≤ 64).
 * Returns: CZK_OK or CZK_ERR_INVALID_ARG naming what is wrong. */
CZK_NODISCARD czk_status czk_por_tree_check(const czk_por_tree *t, czk_err *err) CZK_NONNULL(1);

/* Number of levels, leaf level first. */
unsigned czk_por_tree_levels(const czk_por_tree *t) CZK_NONNULL(1);
/* Arity of level `level` (< czk_por_tree_levels). */
unsigned czk_por_tree_arity(const czk_por_tree *t, unsigned level) CZK_NONNULL(1);
/* Σ over levels of (arity − 1): the sibling hashes of one path. */
unsigned czk_por_tree_siblings(const czk_por_tree *t) CZK_NONNULL(1);
/* Σ over levels of log2(arity): the index bits of one path. */
unsigned czk_por_tree_index_bits(const czk_por_tree *t) CZK_NONNULL(1);

/*
 * The witness of one path. positions[l] is the node's position among its
 * arity siblings at level l (the vanilla PathElement `index`), 0 ≤ it <
 * arity; siblings holds the arity − 1 other hashes of level 0, then level 1,
 * and so on (the vanilla PathElement `hashes`, in order).
 */
typedef struct czk_por_path {
    const uint32_t *positions; /* czk_por_tree_levels(t) entries */
    const czk_fr *siblings;    /* czk_por_tree_siblings(t) entries */
} czk_por_path;

/*
 * Synthesizes one PoR as described above.
 * In:  cs           any mode.
 *      t            the tree (checked: CZK_ERR_INVALID_ARG).
 *      leaf, root   existing variables with their values.
 *      path         the witness; NULL means all positions and siblings zero
 *                   (RECORD, blank witnesses). A position ≥ its level's
 *                   arity is CZK_ERR_INVALID_ARG.
 *      public_root  also inputize the root (PoRCircuit with private = false).
 * Out: computed     the computed root (NULL: not wanted).
 * Returns: the cs's status (every failure is also recorded in the cs).
 */
CZK_NODISCARD czk_status czk_por(czk_cs *cs, const czk_por_tree *t, const czk_num *leaf,
                                 const czk_num *root, const czk_por_path *path, bool public_root,
                                 czk_num *computed) CZK_NONNULL(1, 2, 3, 4);

/*
 * storage-proofs-core gadgets/por.rs por_no_challenge_input: the PoR of
 * `leaf` under `root` from index bits and siblings the caller has already
 * allocated (as the SnapDeals circuit does for its TreeR, TreeD and
 * partition paths). Per level, in order (namespace "merkle proof <level>"):
 * the current node inserted among the level's arity − 1 siblings at the
 * position of its next log2(arity) bits (czk_insert), the row hashed; then
 * computed · ONE = root. Nothing is allocated for bits or siblings and no
 * input is made, so a level costs czk_por's level less its index bits:
 * SHA-256 binary 45,381, Poseidon octree 527, quad 385, binary 313; the end 1.
 * In:  t         the tree (checked: CZK_ERR_INVALID_ARG).
 *      bits      czk_por_tree_index_bits(t) Booleans, least significant
 *                first (an octree level's must be Is: insert_8).
 *      leaf, root, siblings[czk_por_tree_siblings(t)]: existing variables.
 * Returns: the cs's status (every failure also recorded in the cs).
 */
CZK_NODISCARD czk_status czk_por_no_challenge_input(czk_cs *cs, const czk_por_tree *t,
                                                    const czk_bool *bits, const czk_num *leaf,
                                                    const czk_num *siblings, const czk_num *root)
    CZK_NONNULL(1, 2, 4, 6);

/* ---- the vanilla MerkleProof, read and verified natively ---- */

/*
 * One MerkleProof as the vanilla provers write it (storage-proofs-core
 * merkle/proof.rs, bincode 1.x; spec/post-snap.md §3): a u32 variant tag,
 * 0 Single{root, leaf, path}, 1 Sub{base_path, sub_path, root, leaf},
 * 2 Top{base_path, sub_path, top_path, root, leaf}; an InclusionPath is a
 * Vec of PathElement{hashes: Vec<[u8; 32]>, index: u64}. root and leaf are
 * 32-byte LE values; positions and siblings as czk_por_path holds them,
 * siblings as bytes.
 */
typedef struct czk_por_proof {
    uint8_t root[32];
    uint8_t leaf[32];
    uint32_t *positions; /* czk_por_tree_levels(t) entries; NULL: not kept */
    uint8_t *siblings;   /* 32 · czk_por_tree_siblings(t) bytes; NULL: not kept */
} czk_por_proof;

/*
 * Reads one MerkleProof at data[*pos..len) and checks it against t: the
 * variant the tree has (Single without a sub level, Sub with one, Top with
 * a top level), base_levels base path elements and one sub and one top
 * element, arity − 1 hashes and an index < arity in each, every value a
 * canonical Fr. *pos moves past the proof on success.
 * Out: out->root, out->leaf, and positions / siblings where non-NULL.
 * Returns: CZK_OK; CZK_ERR_TRUNCATED ("bincode path[0].index: needs 8
 *   bytes ..."); CZK_ERR_FORMAT ("proof variant 5: not Single (0), Sub (1)
 *   or Top (2)", "path[1].index is 9, the arity is 8", absurd lengths);
 *   CZK_ERR_MISMATCH ("a Sub proof, the 8-0-0 tree has Single proofs",
 *   "path has 3 elements, the tree has 2 levels of 8", "path[0] has 6
 *   hashes, the arity is 8"); CZK_ERR_FR_RANGE ("leaf is not a canonical
 *   Fr", "base_path[2].hashes[4] is not a canonical Fr"); CZK_ERR_INVALID_ARG
 *   (a bad tree). The caller adds which proof it was.
 */
CZK_NODISCARD czk_status czk_por_proof_read(czk_por_proof *out, const uint8_t *data, size_t len,
                                            size_t *pos, const czk_por_tree *t, czk_err *err)
    CZK_NONNULL(1, 4, 5);

/*
 * One 32-byte Domain value at data[*pos..len) (a root, a commitment, an
 * apex leaf) that must be a canonical Fr; *pos moves past it on success.
 * Returns: CZK_OK; CZK_ERR_TRUNCATED ("bincode <name>: needs 32 bytes at
 *   offset ..."); CZK_ERR_FR_RANGE ("<name> is not a canonical Fr").
 */
CZK_NODISCARD czk_status czk_por_domain_read(uint8_t out[32], const uint8_t *data, size_t len,
                                             size_t *pos, const char *name, czk_err *err)
    CZK_NONNULL(1, 4, 5);

/*
 * The root a proof's path computes from its leaf, natively: per level the
 * node placed at its position among the siblings and the row hashed, by
 * Poseidon of the level's arity (czk_poseidon_hash) or by SHA-256 of the
 * concatenated children with byte 31 &= 0x3f (Sha256Function::hash2 /
 * multi_node); and the leaf index the positions encode (Σ position_l ·
 * Π_{m<l} arity_m).
 * In:  p with positions and siblings.
 * Out: root (32-byte LE), *index (may be NULL).
 * Returns: CZK_OK; CZK_ERR_FR_RANGE naming the level of a non-canonical
 *   leaf or sibling (Poseidon trees); CZK_ERR_INVALID_ARG (a bad tree, a
 *   position ≥ its arity, NULL positions or siblings).
 */
CZK_NODISCARD czk_status czk_por_proof_root(const czk_por_tree *t, const czk_por_proof *p,
                                            uint8_t root[32], uint64_t *index, czk_err *err)
    CZK_NONNULL(1, 2, 3);

#ifdef __cplusplus
}
#endif
#endif
