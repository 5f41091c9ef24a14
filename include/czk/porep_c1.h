/*
 * czk — the PoRep commit-phase-1 output (C1) in memory, and its JSON form.
 *
 * C1 is what filecoin-ffi's seal_commit_phase1 returns: serde_json of
 * filecoin-proofs-api's SealCommitPhase1Output (spec: porep-circuit.md §6;
 * rust-filecoin-proofs-api src/seal.rs, storage-proofs-porep
 * src/stacked/vanilla/{proof,column_proof,labeling_proof,encoding_proof}.rs,
 * storage-proofs-core src/merkle/proof.rs):
 *
 *   {"registered_proof": "StackedDrg2KiBV1_1",
 *    "vanilla_proofs": {"StackedDrg2KiBV1": [[Proof; cpp]; partitions]},
 *    "comm_r": [32 ints], "comm_d": [..], "replica_id": [..], "seed": [..], "ticket": [..]}
 *
 *   Proof = {"comm_d_proofs": MerkleProof, "comm_r_last_proof": MerkleProof,
 *            "replica_column_proofs": {"c_x": ColumnProof, "drg_parents": [ColumnProof; 6],
 *                                      "exp_parents": [ColumnProof; 8]},
 *            "labeling_proofs": [{"parents": [Domain], "layer_index": u32, "node": u64}; layers],
 *            "encoding_proof": {"parents": [Domain], "layer_index": u32, "node": u64}}
 *   ColumnProof = {"column": {"index": u32, "rows": [Domain; layers], "_h": null},
 *                  "inclusion_proof": MerkleProof}
 *   MerkleProof = {"data": {"Single": {"root", "leaf", "path": InclusionPath}}}
 *               | {"data": {"Sub": {"base_proof", "sub_proof", "root", "leaf"}}}
 *               | {"data": {"Top": {"base_proof", "sub_proof", "top_proof", "root", "leaf"}}}
 *   InclusionPath = {"path": [{"hashes": [Domain; arity - 1], "index": usize}]}
 *   Domain = [32 ints], the little-endian bytes of an Fr (Sha256Domain, PoseidonDomain).
 *
 * The variant key of vanilla_proofs has no _1 suffix for any api version.
 * Every pointer in these structs points into memory owned by the czk_c1
 * (one arena), freed by czk_c1_free().
 */
#ifndef CZK_POREP_C1_H
#define CZK_POREP_C1_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A 32-byte hash-domain value: the little-endian bytes of an Fr. */
typedef struct czk_domain {
    uint8_t b[32];
} czk_domain;

typedef enum czk_merkle_kind {
    CZK_MERKLE_SINGLE = 0, /* base path only (trees without sub/top levels) */
    CZK_MERKLE_SUB = 1,    /* base_proof + sub_proof */
    CZK_MERKLE_TOP = 2,    /* base_proof + sub_proof + top_proof */
} czk_merkle_kind;

#define CZK_MERKLE_MAX_LEVELS 32u
#define CZK_MERKLE_MAX_ARITY 16u

/*
 * A Merkle inclusion proof, its path elements flattened leaf to root: the
 * base path's levels, then the sub path's, then the top path's.
 */
typedef struct czk_merkle_proof {
    czk_merkle_kind kind;
    czk_domain root, leaf;
    uint32_t num_levels;
    uint32_t levels_in_part[3];            /* base, sub, top: levels of each (sum = num_levels) */
    uint8_t arity[CZK_MERKLE_MAX_LEVELS];  /* hashes per level + 1 */
    uint32_t index[CZK_MERKLE_MAX_LEVELS]; /* PathElement.index: position within the level, < arity */
    czk_domain *siblings;                  /* Σ (arity[l] − 1) values, level order */
} czk_merkle_proof;

/* Σ_l index[l] · Π_{k<l} arity[k]: the leaf's index in the tree. */
uint64_t czk_merkle_proof_leaf_index(const czk_merkle_proof *p);

typedef struct czk_column_proof {
    uint32_t index;     /* column.index: the node */
    uint32_t num_rows;  /* layers */
    czk_domain *rows;   /* label of the node in layer 1 .. layers */
    czk_merkle_proof inclusion;
} czk_column_proof;

/* LabelingProof and EncodingProof share this shape. */
typedef struct czk_labeling_proof {
    uint32_t layer_index;
    uint64_t node;
    uint32_t num_parents;
    czk_domain *parents;
} czk_labeling_proof;

/* One challenge's vanilla proof (storage-proofs-porep stacked::vanilla::Proof). */
typedef struct czk_vanilla_proof {
    czk_merkle_proof comm_d_proof;      /* TreeD (SHA-256, binary), leaf = data node */
    czk_merkle_proof comm_r_last_proof; /* TreeR (Poseidon), leaf = replica node */
    czk_column_proof c_x;               /* the challenged column, into TreeC */
    czk_column_proof drg_parents[6];
    czk_column_proof exp_parents[8];
    uint32_t num_labeling;              /* layers */
    czk_labeling_proof *labeling;
    czk_labeling_proof encoding;
} czk_vanilla_proof;

typedef struct czk_arena czk_arena;

typedef struct czk_c1 {
    uint32_t registered_proof; /* RegisteredSealProof id 0..19 (porep-circuit.md §6) */
    czk_domain comm_r, comm_d, replica_id, seed, ticket;
    uint32_t num_partitions;
    uint32_t challenges_per_partition;
    czk_vanilla_proof *proofs; /* [partition · challenges_per_partition + i] */
    czk_arena *arena;          /* owns everything above */
} czk_c1;

/*
 * Creates an empty C1 for building (the test-sector generator): proofs are
 * allocated and zeroed; fill them, using czk_c1_alloc() for the arrays.
 * Returns NULL on OOM (err says so), or with CZK_ERR_INVALID_ARG for a
 * registered proof outside 0..19 or more than 2^24 vanilla proofs.
 */
czk_c1 *czk_c1_create(uint32_t registered_proof, uint32_t num_partitions,
                      uint32_t challenges_per_partition, czk_err *err);
/* Zeroed memory owned by the C1 (NULL on OOM). */
void *czk_c1_alloc(czk_c1 *c1, size_t bytes);
void czk_c1_free(czk_c1 *c1);

/*
 * Parses a C1 JSON document (not NUL-terminated; len bytes). Every error —
 * bad JSON, a wrong type, a wrong length, a wrong partition or challenge
 * count for the registered proof, a byte value > 255 — is CZK_ERR_FORMAT
 * with the JSON path in the message, e.g.
 * "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.path.path[3].hashes[0]:
 * expected an array of 32 integers".
 *
 * Stricter than serde where it matters (src/porep/c1_json.c): every field
 * present (Column's "_h" may be absent, else null), none repeated or
 * unknown, in any order; integers as plain digits within their type;
 * every Domain a canonical Fr (< r) except seed and ticket; comm_r, comm_d
 * and seed not all zero (cuzk refuses them); the variant key, partitions,
 * challenges per partition, Merkle kinds, levels and arities, rows (layers)
 * and labeling parents (37) those of the registered proof's shape. A
 * syntax error names its byte offset and the enclosing path.
 * Returns: CZK_OK (*out set; czk_c1_free it); CZK_ERR_FORMAT;
 *   CZK_ERR_NOMEM; CZK_ERR_INVALID_ARG (json NULL with len > 0). *out is
 *   NULL on failure.
 * Memory: the parsed C1 (≈ 10 MB for 32GiB) and small scratch; the text is
 * streamed (yajl), never copied or turned into a tree.
 */
CZK_NODISCARD czk_status czk_c1_parse(czk_c1 **out, const uint8_t *json, size_t len, czk_err *err);

/*
 * Writes the C1 as filecoin-proofs-api serializes it (serde_json, compact:
 * no spaces, fields in the struct order above). *out is malloc'ed; the
 * caller frees it. The text is followed by a NUL not counted in *out_len.
 * czk_c1_parse(czk_c1_to_json(x)) = x, and the text of a parsed C1 is
 * written back byte for byte when it was in this form.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (unknown registered proof, or
 *   Merkle levels that do not add up); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_c1_to_json(const czk_c1 *c1, char **out, size_t *out_len, czk_err *err);

/*
 * cuzk's PoRep envelope: {"SectorNum": int, "Phase1Out": "<standard base64
 * of the C1 JSON>", "SectorSize": u64} (cuzk-engine.md §2). Decodes the
 * envelope and parses the C1 inside it.
 * Phase1Out is standard padded base64 (RFC 4648 §4; no white space, no
 * URL alphabet), decoded 48 KiB at a time (OpenSSL EVP_DecodeBlock) into
 * the C1 parser, so the decoded text is never held whole. SectorNum and
 * SectorSize are unsigned; SectorSize must be the C1's sector size.
 * sector_num and sector_size may be NULL.
 * Returns: as czk_c1_parse; errors of the C1 inside are prefixed
 *   "envelope Phase1Out: ".
 */
CZK_NODISCARD czk_status czk_c1_parse_envelope(czk_c1 **out, uint64_t *sector_num,
                                               uint64_t *sector_size, const uint8_t *json,
                                               size_t len, czk_err *err);

/* "StackedDrg2KiBV1_1" etc. for an id 0..19, NULL for other ids; and back (-1 if unknown). */
const char *czk_registered_proof_name(uint32_t id);
int czk_registered_proof_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
