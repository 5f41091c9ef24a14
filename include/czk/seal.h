/*
 * czk — test sectors: seal small sectors by the public SDR algorithm and
 * write their commit-phase-1 output (C1), or build sparse C1s for any shape.
 *
 * Filecoin's own sealing tools are not used; this is an independent
 * implementation of rust-fil-proofs v28 (87348a7) stacked DRG sealing:
 *   - fr32/src/reader.rs (Fr32 padding), filecoin-proofs pieces.rs and
 *     api/seal.rs (comm_d = root of TreeD over the padded sector),
 *   - storage-proofs-porep stacked/vanilla/create_label/{single,multi}.rs,
 *     graph.rs (label layout), column.rs and hash.rs (column hashes),
 *     proof.rs (TreeC, TreeR, comm_r = Poseidon2(comm_c, comm_r_last),
 *     prove_layers: the per-challenge vanilla proof),
 *   - storage-proofs-core merkle/proof.rs (Single/Sub/Top proofs),
 *   - spec/porep-circuit.md §1, §2, §3, §6 and spec/sealing-vectors.md.
 *
 * Sector data, in these functions, is the Fr32-padded sector: `nodes` nodes
 * of 32 bytes, each a little-endian value < 2^254.
 *
 * A label is SHA-256 over 1,248 bytes: replica_id (32) ‖ layer as BE u32 ‖
 * node as BE u64 ‖ 20 zero bytes ‖ 37 parent labels of 32 bytes, with byte
 * 31 of the digest &= 0x3f. The 37 parents repeat the node's parent labels in
 * parent-cache order: layer 1 has 6 DRG parents (same layer), repeated 6
 * times, then DRG parent 0; a later layer has the 6 DRG parents (same layer)
 * and 8 expander parents (previous layer), those 14 twice, then the first 9.
 * Node 0 hashes only the first 64 bytes (create_label: no parents).
 */
#ifndef CZK_SEAL_H
#define CZK_SEAL_H

#include "czk/common.h"
#include "czk/pool.h"
#include "czk/porep_c1.h"
#include "czk/porep_graph.h"
#include "czk/post.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_SEAL_LABEL_PARENTS 37 /* TOTAL_PARENTS, proof.rs */

/* ---- Fr32 padding (fr32/src/reader.rs Fr32Reader) ---- */

/*
 * Bytes of the padding of `unpadded` bytes: the input read as a little-endian
 * bit stream is cut into units of 254 bits, each written to a 32-byte node
 * with its two top bits zero; the last node is zero-filled. 127 bytes give
 * 128; 32 give 64; 0 give 0.
 */
uint64_t czk_fr32_padded_len(uint64_t unpadded);

/*
 * Pads `in_len` bytes into czk_fr32_padded_len(in_len) bytes at `out`
 * (out and in must not overlap).
 */
void czk_fr32_pad(uint8_t *out, const uint8_t *in, size_t in_len) CZK_NONNULL(1);

/* ---- TreeD (SHA-256, binary; storage-proofs-core BinaryMerkleTree) ---- */

/*
 * comm_d: the root of the binary SHA-256 tree over `nodes` 32-byte leaves
 * (the padded data as is, no leaf hash); a parent is SHA-256(left ‖ right)
 * with byte 31 &= 0x3f. Runs on `pool` (NULL = this thread).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if nodes is not a power of two ≥ 2;
 *   CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_seal_tree_d_root(uint8_t root[32], const uint8_t *data, uint64_t nodes,
                                              czk_pool *pool, czk_err *err) CZK_NONNULL(1, 2);

/*
 * comm_d of an all-zero (committed-capacity) sector of 2^log2_nodes nodes,
 * computed level by level (level k = SHA(level k−1 ‖ level k−1)); log2_nodes
 * ≤ 63. 2KiB (6) gives fc7e9282…, 32GiB (30) 077e5fde….
 */
void czk_seal_zero_comm_d(uint8_t out[32], unsigned log2_nodes) CZK_NONNULL(1);

/* ---- labels ---- */

/*
 * One label from its parents (LabelingProof::create_label): `parents` holds
 * the 37 expanded parent labels (32 bytes each, in message order), or is NULL
 * to hash the 64-byte header only (node 0 in create_label).
 */
void czk_seal_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                    const uint8_t *parents) CZK_NONNULL(1, 2);

/*
 * The labels of every layer of the graph g (create_labels_for_encoding).
 * Out: labels  layers · nodes · 32 bytes; the label of node v in layer l
 *              (1-based) at ((l − 1)·nodes + v)·32.
 * Layers are sequential and so is each layer (node v depends on v − 1); the
 * pool's threads compute parents and gather parent labels into the messages
 * of the next window of nodes while the calling thread hashes the current one.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if layers is 0; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_seal_labels(uint8_t *labels, const czk_porep_graph *g,
                                         const uint8_t replica_id[32], unsigned layers,
                                         czk_pool *pool, czk_err *err) CZK_NONNULL(1, 2, 3);

/* ---- the generator ---- */

typedef enum czk_seal_data {
    CZK_SEAL_DATA_ZERO = 0, /* an empty (CC) sector: all zeros */
    CZK_SEAL_DATA_RANDOM,   /* unpadded bytes from czk_rng seeded with random_seed, then Fr32 */
    CZK_SEAL_DATA_BYTES,    /* the caller's unpadded bytes, zero-extended, then Fr32 */
} czk_seal_data;

typedef struct czk_seal_request {
    uint64_t registered_proof; /* RegisteredSealProof id 0..19 */
    uint64_t miner_id;         /* f0<miner_id>: prover_id = czk_porep_prover_id */
    uint64_t sector_num;
    uint8_t ticket[32]; /* bytes as given (rust-fil-proofs uses them raw) */
    uint8_t seed[32];   /* interactive / synthetic challenge seed; copied into the C1 */
    czk_seal_data data_kind;
    const uint8_t *data; /* CZK_SEAL_DATA_BYTES: at most sector_size·127/128 bytes */
    size_t data_len;
    uint64_t random_seed; /* CZK_SEAL_DATA_RANDOM; in sparse mode also keys the fill values */
    /*
     * Sparse: build only what the challenges touch (see czk_seal_generate).
     * For benchmarks only: such a C1 passes vanilla verification but does
     * not describe any sector that could have been sealed.
     */
    bool sparse;
    /* Optional progress: called with a stage name as each stage starts. */
    void (*on_stage)(void *arg, const char *stage);
    void *stage_arg;
} czk_seal_request;

typedef struct czk_seal_result {
    uint8_t comm_d[32], comm_r[32], comm_c[32], comm_r_last[32], replica_id[32];
} czk_seal_result;

/*
 * Seals a sector and returns its C1 (seal_pre_commit_phase1/2 followed by
 * seal_commit_phase1). Deterministic: the same request gives the same C1.
 *
 * Full mode: Fr32-pads the data, builds TreeD (comm_d), replica_id, all
 * labels, the column hashes and TreeC (comm_c), the replica (last layer +
 * data, in Fr) and TreeR (comm_r_last), comm_r, then for each partition's
 * challenges the vanilla proofs exactly as prove_layers builds them. Every
 * layer is kept in memory: a sector needs about (layers + 4.3) × its size
 * (512MiB: about 3.2 GiB), so full mode is refused (CZK_ERR_UNSUPPORTED) when
 * that exceeds 85 % of the machine's physical memory — 32GiB and 64GiB
 * sectors (about 490 and 980 GiB) in practice.
 *
 * Sparse mode (any shape; interactive challenges only, since synthetic and
 * non-interactive challenges depend on comm_r, which a sparse sector computes
 * from its challenges): the data is a block of 1,024 nodes (zero or random)
 * repeated over the sector, so TreeD and comm_d are computed exactly from the
 * block; the labels of the challenged nodes are computed from their parents'
 * labels, and every other label that a proof shows (parent columns) is a
 * pseudo-random value; TreeC and TreeR are computed over the touched leaves,
 * with every untouched subtree's root a pseudo-random value, so that all
 * proofs share one consistent set of roots. Takes seconds for 32GiB.
 *
 * Out: *out   the C1 (free with czk_c1_free).
 *      result  the commitments (may be NULL).
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED (unknown proof id, full mode too large,
 *   sparse with non-interactive or synthetic challenges); CZK_ERR_INVALID_ARG
 *   (data too long, sparse with caller bytes); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_seal_generate(czk_c1 **out, czk_seal_result *result,
                                           const czk_seal_request *req, czk_pool *pool,
                                           czk_err *err) CZK_NONNULL(1, 3);

/*
 * The PoSt vanilla proof of a test sector: sealed as czk_seal_generate
 * seals it (full mode), or, with req->sparse, a sparse PoSt sector of any
 * size (seconds for 64GiB): TreeR a sparse tree over the challenged leaves
 * with pseudo-random replica values (PoSt challenges depend on the sector
 * number and randomness only), comm_c pseudo-random, comm_r = Poseidon-2(
 * comm_c, comm_r_last); for benchmarks: it has no data and no PoRep C1, and
 * result's comm_d and replica_id are zero. Then writes its bincode
 * FallbackPoStSectorProof (post.h, spec post-snap.md §3) as the vanilla
 * prover would: sector_id = req->sector_num, comm_r, one SectorProof whose
 * inclusion proofs open the challenged TreeR leaves, then comm_c and
 * comm_r_last. WindowPoSt: 10 proofs, proof n opening the leaf of challenge
 * index czk_post_challenge_index(api, sector_index, 10, n); WinningPoSt:
 * 66, proof j opening challenge index j (sector_index unused).
 * Out: *out, *len  the blob (free()); result (may be NULL) the commitments.
 * Returns: CZK_OK; CZK_ERR_FR_RANGE (randomness not a canonical Fr);
 *   CZK_ERR_UNSUPPORTED (full mode too large, an unknown proof id);
 *   czk_seal_generate's other errors.
 */
CZK_NODISCARD czk_status czk_seal_post_vanilla(uint8_t **out, size_t *len, czk_seal_result *result,
                                               const czk_seal_request *req, czk_post_kind kind,
                                               czk_post_api api, const uint8_t randomness[32],
                                               uint64_t sector_index, czk_pool *pool, czk_err *err)
    CZK_NONNULL(1, 2, 4, 7);

/* ---- SnapDeals (EmptySectorUpdate) vanilla proofs of a test sector ---- */

#define CZK_SEAL_SNAP_MAX_PARTITIONS 16u

/* What to update: the CC sector and the new data encoded into it. */
typedef struct czk_seal_snap_request {
    czk_seal_request sector; /* the sector key: sealed as czk_seal_generate seals it */
    czk_seal_data data_kind; /* the new data: zero, random (random_seed) or the caller's bytes */
    const uint8_t *data;     /* CZK_SEAL_DATA_BYTES: at most sector_size·127/128 bytes */
    size_t data_len;
    uint64_t random_seed; /* CZK_SEAL_DATA_RANDOM */
    unsigned h;           /* 0: the size's h_default (what Curio proves with) */
} czk_seal_snap_request;

/* The updated sector's commitments and its partition proofs. */
typedef struct czk_seal_snap {
    unsigned partitions;
    unsigned h;
    uint8_t *blobs[CZK_SEAL_SNAP_MAX_PARTITIONS]; /* bincode PartitionProof k (free with
                                                     czk_seal_snap_free) */
    size_t lens[CZK_SEAL_SNAP_MAX_PARTITIONS];
    uint8_t comm_c[32], comm_r_old[32], comm_d_new[32], comm_r_new[32];
    uint8_t root_r_old[32], root_r_new[32]; /* comm_r_last of the sector key and of the update */
} czk_seal_snap;

/*
 * Encodes new data into a test sector as storage-proofs-update's
 * encode_into does and writes every partition's vanilla proof as
 * prove_all_partitions would (spec post-snap.md §2, §3):
 *   TreeD new over the Fr32-padded data (comm_d_new); phi = H(comm_d_new,
 *   comm_r_old); replica_new[i] = replica_old[i] + data[i] · rho(i >>
 *   (bits − h)); TreeR new over it (root_r_new) and comm_r_new =
 *   Poseidon-2(comm_c, root_r_new); then per partition k the bincode
 *   PartitionProof: comm_c, the k-th apex leafs of TreeD new, and for each
 *   challenge (czk_snap_challenges) the openings of TreeR old, TreeD new and
 *   TreeR new.
 * Full mode (2KiB, 8MiB, 512MiB): the sector key is really sealed
 *   (czk_seal_generate's full mode; req->sector.data_kind is its data,
 *   usually ZERO for a CC sector), the new data spans the whole sector.
 * Sparse mode (req->sector.sparse; any size, seconds for 64GiB): the sector
 *   key is a periodic replica (a block of 1,024 pseudo-random values
 *   repeated, comm_c pseudo-random) and the new data a periodic block of
 *   1,024 nodes, so that TreeR old and TreeD are exact trees at O(block)
 *   cost, and TreeR new, periodic within each of the 2^h regions that share
 *   a rho, costs O(2^h · block). Every proof verifies and the circuit is
 *   satisfied; the sector key was not made by sealing (no labels), so this
 *   is for benchmarks only. CZK_SEAL_DATA_BYTES is refused there.
 * Out: *out (czk_seal_snap_free; zeroed on failure).
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED (a sector size without a SnapDeals
 *   proof, full mode too large); CZK_ERR_INVALID_ARG (h not in the size's
 *   hs, data too long, bytes in sparse mode); czk_seal_generate's errors.
 */
CZK_NODISCARD czk_status czk_seal_snap_vanilla(czk_seal_snap *out, const czk_seal_snap_request *req,
                                               czk_pool *pool, czk_err *err) CZK_NONNULL(1, 2);
void czk_seal_snap_free(czk_seal_snap *s);

#ifdef __cplusplus
}
#endif
#endif
