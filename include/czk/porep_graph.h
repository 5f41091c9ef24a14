/*
 * czk — the Filecoin SDR parent graph and the sealing identifiers.
 *
 * The graph (storage-proofs-porep StackedGraph over storage-proofs-core
 * BucketGraph, rust-fil-proofs v28 / 87348a7): node v of a layer has 14
 * parents, in this order (the parent-cache order):
 *   [0..6)  DRG parents, from the same layer: BucketGraph bucket sampling,
 *           with a ChaCha8Rng (rand_chacha) seeded by
 *           SHA256("Filecoin_DRSample" ‖ porep_id)[0..28] ‖ v as LE u32;
 *           the predecessor v−1 is parent 0 from API 1.1 on, parent 5 in 1.0.
 *           Nodes 0 and 1 have six parents 0.
 *   [6..14) expander parents, from the previous layer: parent i is
 *           permute(8·v + i) / 8, with a 3-round Feistel permutation over
 *           [0, 8·nodes) whose round keys are the first three LE u64 of
 *           SHA256("Filecoin_Feistel" ‖ porep_id) and whose round function is
 *           BLAKE2b-512(right BE u64 ‖ key BE u64)[0..8] as BE u64. API 1.0
 *           truncates the permuted index to u32 before dividing by 8 (the
 *           "pathological" legacy graph of 32GiB/64GiB V1 sectors).
 * The parent-cache file (cache.rs) stores these 14 parents as LE u32 for
 * every node, 56 bytes per node; its name is "v28-sdr-parent-" + hex of
 * SHA256("poseidon_hasher" ‖ StackedGraph identifier ‖ 4 Feistel keys LE ‖
 * nodes LE u32) + ".cache", and its SHA-256 is published in parent_cache.json
 * for the V1 and V1_1 proofs (czk_porep_shapes[].parent_cache_*).
 *
 * The identifiers follow filecoin-proofs(-api) and spec/porep-circuit.md §2;
 * challenge derivation follows storage-proofs-porep challenges.rs.
 */
#ifndef CZK_POREP_GRAPH_H
#define CZK_POREP_GRAPH_H

#include "czk/common.h"
#include "czk/pool.h"
#include "czk/porep_shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_POREP_BASE_DEGREE 6 /* DRG parents per node */
#define CZK_POREP_EXP_DEGREE 8  /* expander parents per node */
#define CZK_POREP_DEGREE 14     /* parents per node in the cache */
/* "v28-sdr-parent-" + 64 hex digits, without the ".cache" extension. */
#define CZK_POREP_CACHE_ID_LEN 79

typedef struct czk_porep_graph czk_porep_graph;

/*
 * Builds the graph of a sector of `nodes` nodes for `porep_id` and `api`.
 * Precomputes the Feistel round function for every right half-word (3 tables
 * of 2^h u32, h = ⌈log4(8·nodes)⌉ ≤ 18, so 3 MiB at most), in parallel on
 * `pool` (NULL = on this thread).
 * Returns: CZK_OK (*out set; free with czk_porep_graph_destroy);
 *   CZK_ERR_INVALID_ARG if nodes < 2 or nodes > 2^32 − 1 (rust-fil-proofs
 *   requires nodes ≤ u32::MAX) or api is unknown; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_porep_graph_create(czk_porep_graph **out, uint64_t nodes,
                                                const uint8_t porep_id[32], czk_porep_api api,
                                                czk_pool *pool, czk_err *err) CZK_NONNULL(1, 3);
void czk_porep_graph_destroy(czk_porep_graph *g);

uint64_t czk_porep_graph_nodes(const czk_porep_graph *g) CZK_NONNULL(1);
czk_porep_api czk_porep_graph_api(const czk_porep_graph *g) CZK_NONNULL(1);
/* The four Feistel keys (only the first three are used as round keys; all four name the cache). */
void czk_porep_graph_feistel_keys(const czk_porep_graph *g, uint64_t keys[4]) CZK_NONNULL(1, 2);

/*
 * The 6 DRG parents, the 8 expander parents, or all 14 (DRG then expander)
 * of `node`, in parent-cache order.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if node >= nodes (out untouched).
 */
CZK_NODISCARD czk_status czk_porep_graph_base_parents(const czk_porep_graph *g, uint64_t node,
                                                      uint32_t out[CZK_POREP_BASE_DEGREE],
                                                      czk_err *err) CZK_NONNULL(1, 3);
CZK_NODISCARD czk_status czk_porep_graph_exp_parents(const czk_porep_graph *g, uint64_t node,
                                                     uint32_t out[CZK_POREP_EXP_DEGREE],
                                                     czk_err *err) CZK_NONNULL(1, 3);
CZK_NODISCARD czk_status czk_porep_graph_parents(const czk_porep_graph *g, uint64_t node,
                                                 uint32_t out[CZK_POREP_DEGREE], czk_err *err)
    CZK_NONNULL(1, 3);

/*
 * Fills the parent cache for nodes [first, first + count): out[14·(v − first)
 * + j] = parent j of v. On a little-endian host (every czk target) the buffer
 * is byte for byte that stretch of the rust-fil-proofs cache file. Runs on
 * `pool` (NULL = this thread).
 * Args: out holds 14·count u32.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if the range leaves [0, nodes).
 */
CZK_NODISCARD czk_status czk_porep_graph_fill_cache(const czk_porep_graph *g, uint64_t first,
                                                    uint64_t count, uint32_t *out, czk_pool *pool,
                                                    czk_err *err) CZK_NONNULL(1);

/*
 * SHA-256 of the whole parent-cache file (the parent_cache.json "digest"),
 * computed in memory in chunks of a few MiB (the cache is not kept).
 * Returns: CZK_OK; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_porep_graph_cache_digest(const czk_porep_graph *g, czk_pool *pool,
                                                      uint8_t out[32], czk_err *err)
    CZK_NONNULL(1, 3);

/*
 * The cache id, "v28-sdr-parent-<64 hex>" (cache.rs cache_path(), the key in
 * parent_cache.json); the file is named id + ".cache". Writes 80 bytes with
 * the NUL.
 */
void czk_porep_graph_cache_id(const czk_porep_graph *g, char out[CZK_POREP_CACHE_ID_LEN + 1])
    CZK_NONNULL(1, 2);

/* ---- sealing identifiers ---- */

/*
 * prover_id of miner actor f0<miner_id> (filecoin-ffi to_prover_id): the
 * payload of the ID address, i.e. LEB128(miner_id), left-aligned in 32 zero
 * bytes. Miner 1000 gives e8 07 00 … 00.
 */
void czk_porep_prover_id(uint8_t out[32], uint64_t miner_id) CZK_NONNULL(1);

/*
 * replica_id = SHA256(prover_id ‖ sector_id as BE u64 ‖ ticket ‖ comm_d ‖
 * porep_id) with byte 31 &= 0x3f (params.rs generate_replica_id: the hash
 * read as an Fr repr, top two bits cleared). comm_d as its 32 stored bytes.
 */
void czk_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                          const uint8_t ticket[32], const uint8_t comm_d[32],
                          const uint8_t porep_id[32]) CZK_NONNULL(1, 2, 4, 5, 6);

/*
 * Interactive PoRep challenges of partition k (ids 0-9; challenges.rs
 * InteractiveChallenges::derive, identical to spec §2): for i < cpp,
 * j = k·cpp + i as u32, h = SHA256(replica_id ‖ seed ‖ j LE u32),
 * out[i] = (h as LE integer mod (nodes − 1)) + 1.
 * Args: out holds cpp values; replica_id is the 32 stored bytes.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if nodes < 2 or nodes > 2^32, or
 *   k > 255 (rust-fil-proofs passes k as u8).
 */
CZK_NODISCARD czk_status czk_porep_interactive_challenges(uint64_t *out, uint64_t nodes,
                                                          const uint8_t replica_id[32],
                                                          const uint8_t seed[32], unsigned cpp,
                                                          unsigned k, czk_err *err)
    CZK_NONNULL(1, 3, 4);

/*
 * Non-interactive PoRep challenges of partition k (ids 15-19; NiChallenges):
 * as the interactive ones with h = SHA256("filecoin.io|PoRep|1|NonInteractive|1"
 * ‖ replica_id ‖ comm_r ‖ j LE u32).
 * Returns: as czk_porep_interactive_challenges.
 */
CZK_NODISCARD czk_status czk_porep_ni_challenges(uint64_t *out, uint64_t nodes,
                                                 const uint8_t replica_id[32],
                                                 const uint8_t comm_r[32], unsigned cpp, unsigned k,
                                                 czk_err *err) CZK_NONNULL(1, 3, 4);

/*
 * Synthetic PoRep (ids 10-14; challenges.rs synthetic::SynthChallengeGenerator).
 * The synthetic challenge i (0 ≤ i < num_synth) is bytes [32i, 32i+32) of the
 * ChaCha20 keystream (key = BLAKE2b-256 keyed "filecoin.io|PoRep|1|Synthetic|1|Generation"
 * over replica_id ‖ comm_r, nonce "synth-porep\0", counter 0), read as an LE
 * integer, mod (nodes − 1), + 1. num_synth = 0 selects the default
 * min(nodes, 2^18) (czk_porep_synth_count).
 * The PoRep challenges of partition k are synthetic challenges number
 * u32_LE(keystream2[4(k·cpp + i) ..]) mod num_synth, where keystream2 is
 * ChaCha20 keyed by BLAKE2b-256 keyed "…|Synthetic|1|Selection" over
 * replica_id ‖ seed.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if nodes < 2 or nodes > 2^32,
 *   num_synth ≥ 2^32 (or i ≥ num_synth), k > 255, or the keystream offset
 *   passes ChaCha20's 2^32-block counter.
 */
uint64_t czk_porep_synth_count(uint64_t nodes);
CZK_NODISCARD czk_status czk_porep_synth_challenge(uint64_t *out, uint64_t nodes,
                                                   const uint8_t replica_id[32],
                                                   const uint8_t comm_r[32], uint64_t num_synth,
                                                   uint64_t i, czk_err *err) CZK_NONNULL(1, 3, 4);
CZK_NODISCARD czk_status czk_porep_synth_challenges(uint64_t *out, uint64_t nodes,
                                                    const uint8_t replica_id[32],
                                                    const uint8_t comm_r[32],
                                                    const uint8_t seed[32], uint64_t num_synth,
                                                    unsigned cpp, unsigned k, czk_err *err)
    CZK_NONNULL(1, 3, 4, 5);

/*
 * The challenges of partition k of a sector sealed with `proof`, by its kind:
 * interactive (seed), synthetic (seed, comm_r) or non-interactive (comm_r).
 * Pass NULL for an input the kind does not use.
 * Args: out holds proof->challenges_per_partition values.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if k >= proof->partitions or an input
 *   the kind needs is NULL.
 */
CZK_NODISCARD czk_status czk_porep_challenges(uint64_t *out, const czk_porep_proof *proof,
                                              const uint8_t replica_id[32], const uint8_t *seed,
                                              const uint8_t *comm_r, unsigned k, czk_err *err)
    CZK_NONNULL(1, 2, 3);

#ifdef __cplusplus
}
#endif
#endif
