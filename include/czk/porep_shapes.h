/*
 * czk — Filecoin PoRep (StackedDRG, v28) sector shapes and registered proofs.
 *
 * One constant table, czk_porep_shapes[], holds everything that depends only
 * on the sector size: node count, layers, challenge and partition counts,
 * TreeR/TreeC arities, the registered-proof ids that use the shape, the v28
 * Groth16 parameter file (id, cids, digests) and the published parent-cache
 * files. czk_porep_proof_lookup() maps a RegisteredSealProof id (0..19) to
 * its shape, API version, challenge kind, partitions and porep_id.
 *
 * Sources (spec/porep-circuit.md §1, spec/sealing-vectors.md §B):
 * - filecoin-proofs constants.rs (LAYERS, POREP_PARTITIONS,
 *   get_porep_interactive_minimum_challenges, ..._non_interactive_...),
 * - rust-filecoin-proofs-api registry.rs (ids, version(), porep_id(), nonce 0),
 * - parameters.json (v28 file ids, cids and BLAKE2b digests),
 * - storage-proofs-porep parent_cache.json (cache ids and SHA-256 digests).
 */
#ifndef CZK_POREP_SHAPES_H
#define CZK_POREP_SHAPES_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* storage-proofs-core ApiVersion. 1.2 builds the same graph as 1.1. */
typedef enum czk_porep_api {
    CZK_POREP_API_1_0 = 0, /* ids 0-4: DRG predecessor last, u32-truncated expander parents */
    CZK_POREP_API_1_1 = 1, /* ids 5-9 */
    CZK_POREP_API_1_2 = 2, /* ids 10-19 (synthetic and non-interactive PoRep) */
} czk_porep_api;

/* How the PoRep challenges of a sector are drawn (storage-proofs-porep challenges.rs). */
typedef enum czk_porep_kind {
    CZK_POREP_INTERACTIVE = 0, /* ids 0-9: SHA256(replica_id ‖ seed ‖ j) */
    CZK_POREP_SYNTHETIC = 1,   /* ids 10-14: chosen by `seed` among ChaCha20 synthetic challenges */
    CZK_POREP_NON_INTERACTIVE = 2, /* ids 15-19: SHA256(tag ‖ replica_id ‖ comm_r ‖ j) */
} czk_porep_kind;

typedef struct czk_porep_shape {
    const char *name;     /* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" */
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* sector_size / 32 */
    unsigned log2_nodes;  /* TreeD depth: 6, 18, 24, 30, 31 */
    unsigned layers;      /* 2 or 11 */
    /* Interactive and synthetic PoRep: challenges = partitions × per partition (rounded up). */
    unsigned min_challenges;           /* 2 or 176 */
    unsigned partitions;               /* 1 or 10 */
    unsigned challenges_per_partition; /* 2 or 18 */
    /* Non-interactive PoRep (ids 15-19): same circuit, more partitions. */
    unsigned ni_min_challenges;           /* 26 or 2253 */
    unsigned ni_partitions;               /* 13 or 126 */
    unsigned ni_challenges_per_partition; /* 2 or 18 */
    /* TreeR/TreeC (Poseidon): base-sub-top arities, 0 = level absent (8-0-0, 8-8-0, 8-8-2). */
    unsigned tree_base_arity, tree_sub_arity, tree_top_arity;
    unsigned column_arity; /* Poseidon arity of a column hash (= layers) */
    /* RegisteredSealProof ids: [0] V1, [1] V1_1, [2] V1_1_Feat_SyntheticPoRep, [3] V1_2_Feat_NI. */
    uint64_t proof_ids[4];
    /* v28 parameters (parameters.json); digest = first 32 hex of BLAKE2b-512 of the file. */
    const char *param_id; /* 64 hex chars, the hash in the file name */
    const char *params_cid; /* the files' digests are groth16's czk_params_known_digest() table */
    const char *vk_cid;
    /* Published parent caches: [0] for the V1 proof id (API 1.0), [1] for V1_1 (API 1.1). */
    const char *parent_cache_id[2];     /* "v28-sdr-parent-<64 hex>"; the file adds ".cache" */
    const char *parent_cache_digest[2]; /* SHA-256 of the file, 64 hex chars */
} czk_porep_shape;

#define CZK_POREP_SHAPE_COUNT 5
/* 2KiB, 8MiB, 512MiB, 32GiB, 64GiB, in that order. */
extern const czk_porep_shape czk_porep_shapes[CZK_POREP_SHAPE_COUNT];

/* The shape for a sector size in bytes, or NULL if there is none. */
const czk_porep_shape *czk_porep_shape_for_size(uint64_t sector_size);

/* A registered seal proof as filecoin-proofs-api configures it. */
typedef struct czk_porep_proof {
    uint64_t id; /* RegisteredSealProof id, 0..19 */
    const czk_porep_shape *shape;
    czk_porep_api api;
    czk_porep_kind kind;
    unsigned partitions;               /* ni_partitions for NI, else partitions */
    unsigned challenges_per_partition; /* 2 or 18 */
    uint8_t porep_id[32];              /* see czk_porep_id() */
} czk_porep_proof;

/*
 * Looks up RegisteredSealProof id `registered_proof`.
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED for an id outside 0..19 (out untouched).
 */
CZK_NODISCARD czk_status czk_porep_proof_lookup(uint64_t registered_proof, czk_porep_proof *out,
                                                czk_err *err) CZK_NONNULL(2);

/*
 * porep_id of a registered proof (registry.rs porep_id()): the id as LE u64
 * in bytes 0..8, the nonce (0 for every published proof) as LE u64 in bytes
 * 8..16, zeros in 16..32. Defined for any id, known or not.
 */
void czk_porep_id(uint8_t out[32], uint64_t registered_proof) CZK_NONNULL(1);

/*
 * The v28 parameter file name for a shape,
 * "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-<id>"
 * followed by `ext` (e.g. ".params", ".vk"; may be ""). Writes at most `cap`
 * bytes including the NUL.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if the name does not fit.
 */
CZK_NODISCARD czk_status czk_porep_param_file_name(char *out, size_t cap,
                                                   const czk_porep_shape *shape, const char *ext,
                                                   czk_err *err) CZK_NONNULL(1, 3, 4);

#ifdef __cplusplus
}
#endif
#endif
