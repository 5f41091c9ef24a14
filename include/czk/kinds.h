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
CZK_NODISCARD czk_status czk_kind_porep(czk_proof_kind *out, const char *shape_cache,
                                        czk_err *err) CZK_NONNULL(1);

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
 * Registers the kind above with an engine (czk_engine_register_kind of its
 * descriptor): one line per kind in each composition root. PoRep takes
 * its shape cache from the engine's configuration (srs.shape_cache).
 * Returns: CZK_OK; czk_engine_register_kind's errors.
 */
CZK_NODISCARD czk_status czk_kinds_register_porep(czk_engine *e, czk_err *err) CZK_NONNULL(1);
CZK_NODISCARD czk_status czk_kinds_register_test(czk_engine *e, czk_err *err) CZK_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
