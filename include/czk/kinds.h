/*
 * czk — the proof kinds czk ships (src/kinds/), as plug-ins of the engine.
 *
 * The engine knows no kind of its own: whoever creates one (the composition
 * roots: `czk daemon`, the in-process runner of `czk bench`, `czk prove`,
 * the tests) registers the kinds it wants, one line each:
 *
 *   czk_engine *e;
 *   czk_engine_create(&e, &opts, &err);
 *   czk_kinds_register_porep(e, &err);
 *   czk_kinds_register_post(e, &err);
 *   czk_kinds_register_snap(e, &err);
 *   czk_kinds_register_test(e, &err);
 *
 * A new kind is a file (or folder) under src/kinds/ with its descriptor
 * (czk_proof_kind: id, name, metric label, default priority, callbacks),
 * a declaration here, and one registration line per root that serves it.
 */
#ifndef CZK_KINDS_H
#define CZK_KINDS_H

#include "czk/common.h"
#include "czk/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * PoRep C2 (src/kinds/porep.c): id CZK_KIND_POREP_C2, name "porep-c2",
 * metric label "porep_c2", default priority NORMAL.
 * Payload: cuzk's JSON envelope {"SectorNum", "Phase1Out" (base64 C1 JSON),
 * "SectorSize"} in vanilla_proof; miner_id gives the prover_id (0: the C1's
 * replica_id is trusted). Intake resolves the request once into the job's
 * context (czk_porep_job_open: registered proof, circuit configuration,
 * graph, replica_id, the checked and pre-checked C1), so a bad C1 is
 * refused at submit. One partition per C1 partition; circuit ids
 * porep-2k, porep-8m, porep-512m, porep-32g, porep-64g; keys: the v28
 * .params file of the shape, or czk's test keys of the shape, on the key
 * search path from param_cache (czk_porep_find_key over czk_key_find:
 * param_cache, the parameter cache, czk's test keys); the shape from the
 * shape cache (czk_porep_shape_load_in). Public inputs for the final
 * verification are the chain's (czk_porep_job_inputs).
 * Args: shape_cache  directory of recorded shapes (srs.shape_cache); NULL
 *                    or "": each load records the shape, no cache.
 * Out: *out, a descriptor whose ctx is a copy of shape_cache (or NULL),
 *   freed by its destroy.
 * Returns: CZK_OK; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_kind_porep(czk_proof_kind *out, const char *shape_cache, czk_err *err)
    CZK_NONNULL(1);

/*
 * The test kind (src/kinds/test.c): id CZK_KIND_TEST, name and metric label
 * "test", default priority NORMAL. A chain of squarings,
 * x_{i+1} = x_i^2 + x_i + c_i, with 2^log_constraints constraints per
 * partition (6 <= log <= 20), start and end of each partition's chain
 * public. Its payload is text, "key=value" pairs separated by spaces:
 *   seed=<u64>        the chains' starting values derive from it (required)
 *   partitions=<n>    1..64 (default 4)
 *   log=<k>           log2 constraints (default 10); the circuit id is
 *                     "test-<log>" (its SRS: <param_cache>/czk-test-<log>.params
 *                     when that file exists, else czk_setup from a fixed seed)
 *   fail=<k>          partition k's synthesis fails with CZK_ERR_FORMAT ("bad input")
 *   corrupt=<k>       partition k's claimed end value is wrong: the proof is made but
 *                     does not verify (the job fails with CZK_ERR_VERIFY)
 *   synth_ms=<n>      each partition's synthesis also sleeps n ms, polling cancel
 * Unknown keys and malformed values are refused at intake (CZK_ERR_FORMAT).
 * Out: *out, a descriptor with no ctx.
 * Returns: CZK_OK.
 */
CZK_NODISCARD czk_status czk_kind_test(czk_proof_kind *out, czk_err *err) CZK_NONNULL(1);

/*
 * WinningPoSt and WindowPoSt (src/kinds/post.c), over the FallbackPoSt
 * circuit of include/czk/post.h:
 *   CZK_KIND_WINNING_POST  name "winning-post", metric label "winning_post",
 *                          default priority CRITICAL;
 *   CZK_KIND_WINDOW_POST   name "window-post", metric label "window_post",
 *                          default priority HIGH (cuzk-engine.md §2).
 * Request fields as Curio sets them (spec post-snap.md §4): registered_proof
 * (RegisteredPoStProof: 0-4 Winning, 5-9 Window V1, 10-14 Window V1_2, the
 * FFI's "V1_1"; an id of the other kind is refused naming both),
 * sector_size (0 or the registered proof's), randomness (a canonical Fr:
 * refused unmasked, never masked), partition_index (WindowPoSt: the
 * challenge derivation's k; WinningPoSt: 0), vanilla_proofs (bincode
 * FallbackPoStSectorProof: WinningPoSt exactly one, of 66 inclusion proofs;
 * WindowPoSt one per sector of the partition, 1..window_sectors), miner_id
 * (carried, not constrained). Every blob is parsed against the shape's tree
 * and the partition pre-checked at intake (czk_post_precheck), so a bad
 * sector refuses the request with its sector id in the message. One
 * partition per job, built from the sectors sent (index 0 into them, as
 * upstream's prove_with_vanilla), public inputs with k = partition_index;
 * the proof: 192 bytes. Circuit ids winning-<tag> and wpost-<tag>
 * (czk_kind_circuit_id); keys: the v28 .params file in param_cache, or czk's
 * test keys there (czk_post_find_key); the shape through the shape cache
 * (czk_post_shape_load_in).
 * Args: id           CZK_KIND_WINNING_POST or CZK_KIND_WINDOW_POST;
 *       shape_cache  directory of recorded shapes (srs.shape_cache); NULL
 *                    or "": each load records the shape, no cache.
 * Out: *out, a descriptor whose ctx its destroy frees.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (another id); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_kind_post(czk_proof_kind *out, czk_kind_id id, const char *shape_cache,
                                       czk_err *err) CZK_NONNULL(1);

/*
 * SnapDeals (EmptySectorUpdate, src/kinds/snap.c) over the update circuit
 * of include/czk/snap.h: id CZK_KIND_SNAP_UPDATE (cuzk.v1
 * SNAP_DEALS_UPDATE), name "snap-update", metric label "snap_update",
 * default priority NORMAL (cuzk-engine.md §2).
 * Request fields as Curio's ProveUpdateCuzk sets them (spec post-snap.md
 * §4): registered_proof (RegisteredUpdateProof 0-4: 2KiB, 8MiB, 512MiB,
 * 32GiB, 64GiB), sector_size (0 or the registered proof's), comm_r_old,
 * comm_d_new, comm_r_new (raw 32-byte commitments, canonical Fr; all-zero
 * is refused as missing), vanilla_proofs (one bincode PartitionProof per
 * partition in order, exactly the size's count: 1, 4 or 16),
 * sector_number and miner_id (carried, not constrained). Every blob is
 * parsed against the shape and pre-checked at intake (czk_snap_precheck,
 * the partitions in parallel), so a bad partition refuses the request
 * naming the partition and challenge. One engine partition per update
 * partition (partitions of several jobs interleave), h = the size's
 * h_default (Curio's); every partition proof verified against the VK with
 * czk_snap_public_inputs; the result: the partition proofs concatenated
 * in order (16 × 192 bytes for 32GiB). Circuit ids snap-<tag>
 * (czk_kind_circuit_id); keys: the v28 empty-sector-update .params file or
 * czk's test keys on the key search path from param_cache
 * (czk_snap_find_key); the shape through the shape cache
 * (czk_snap_shape_load_in).
 * Args: shape_cache  directory of recorded shapes (srs.shape_cache); NULL
 *                    or "": each load records the shape, no cache.
 * Out: *out, a descriptor whose ctx its destroy frees.
 * Returns: CZK_OK; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_kind_snap(czk_proof_kind *out, const char *shape_cache, czk_err *err)
    CZK_NONNULL(1);

/*
 * The circuit id of a kind's circuit for a sector size, in cuzk's scheme
 * (cuzk-engine.md §2: porep-32g, wpost-32g, winning-32g, snap-32g) for
 * every size: "<porep|wpost|winning|snap>-<2k|8m|512m|32g|64g>" for
 * CZK_KIND_POREP_C2, CZK_KIND_WINDOW_POST, CZK_KIND_WINNING_POST,
 * CZK_KIND_SNAP_UPDATE (src/kinds/common.c). These
 * are the ids of srs.preload, PreloadSRS / EvictSRS and the status.
 * Out: out  the id ("" on failure).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (another kind, another sector size).
 */
CZK_NODISCARD czk_status czk_kind_circuit_id(char out[CZK_CIRCUIT_ID_MAX], czk_kind_id kind,
                                             uint64_t sector_size, czk_err *err) CZK_NONNULL(1);

/*
 * Registers the kind above with an engine (czk_engine_register_kind of its
 * descriptor): one line per kind in each composition root. PoRep, PoSt and SnapDeals
 * take their shape cache from the engine's configuration (srs.shape_cache).
 * Returns: CZK_OK; czk_engine_register_kind's errors.
 */
CZK_NODISCARD czk_status czk_kinds_register_porep(czk_engine *e, czk_err *err) CZK_NONNULL(1);
CZK_NODISCARD czk_status czk_kinds_register_test(czk_engine *e, czk_err *err) CZK_NONNULL(1);
/* Both PoSt kinds (czk_kind_post with srs.shape_cache). */
CZK_NODISCARD czk_status czk_kinds_register_post(czk_engine *e, czk_err *err) CZK_NONNULL(1);
/* SnapDeals (czk_kind_snap with srs.shape_cache). */
CZK_NODISCARD czk_status czk_kinds_register_snap(czk_engine *e, czk_err *err) CZK_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
