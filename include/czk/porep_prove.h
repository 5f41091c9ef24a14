/*
 * czk — PoRep C2: from a parsed C1 to verified partition proofs, and the
 * verification of such proofs as the chain does it.
 *
 * The pieces, in the order a C2 uses them (spec/porep-circuit.md §2, §3,
 * §5, §6; filecoin-proofs seal_commit_phase2, StackedCompound). The
 * engine's PoRep kind runs them as its stages for `czk prove`, `czk daemon`
 * and `czk bench`; czk_porep_c2_prove runs the same ones in one call
 * (library use, bench/porep.c):
 *
 *   keys      the v28 parameter file of a shape is looked up in the
 *             parameter cache by Filecoin's name first
 *             (czk_porep_param_file_name), then by the name czk's test keys
 *             carry (czk_porep_test_key_name), which no Filecoin file has;
 *   shape     the R1CS of one partition, recorded once per sector size and
 *             kept in the shape cache ($CZK_CACHE_DIR/shapes);
 *   witness   czk_porep_witness_from_c1 points the circuit's witness at the
 *             C1 (no copy of paths or columns), then WITNESS-mode synthesis;
 *   inputs    czk_porep_chain_inputs derives the public inputs of a
 *             partition from the C1's commitments, seed and replica_id and
 *             the parent graph — never from the indices inside the vanilla
 *             proofs;
 *   load      czk_porep_c2_load: the keys and shape made resident on the
 *             backend's device, and the host copies it no longer reads freed;
 *   prove     czk_porep_c2_prove: per partition, witness, the backend's five
 *             MSMs, randomization, and a pairing check of the proof against
 *             the chain-derived inputs before it is written out; the witness
 *             of partition k + 1 is made while partition k is on the device;
 *   verify    czk_porep_c2_verify: the same inputs, every partition proof.
 *
 * A C2 output is the partition proofs concatenated: 192 bytes each
 * (CZK_PROOF_BYTES), partition 0 first (bellperson MultiProof::write).
 */
#ifndef CZK_POREP_PROVE_H
#define CZK_POREP_PROVE_H

#include "czk/common.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "czk/porep_c1.h"
#include "czk/porep_circuit.h"
#include "czk/porep_graph.h"
#include "czk/porep_shapes.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the witness of partition k of a C1 ---- */

/*
 * Fills the circuit witness of partition k from a parsed (or built) C1, as
 * StackedCompound::circuit does from vanilla_proofs[k]: the 32-byte values
 * replica_id, comm_d, comm_r are copied from the C1, comm_c and comm_r_last
 * from challenge 0 of partition k (the roots of its c_x inclusion proof and
 * comm_r_last_proof), and per challenge i (vanilla proof [k][i]):
 *   challenge        labeling_proofs[0].node
 *   data_leaf        comm_d_proofs.leaf
 *   comm_d_path      comm_d_proofs path
 *   drg/exp_parents  replica_column_proofs.{drg,exp}_parents[j]: rows and the
 *                    inclusion proof's path
 *   comm_r_last_path comm_r_last_proof path
 *   comm_c_path      replica_column_proofs.c_x.inclusion_proof path
 * Paths are the C1's flattened levels, leaf to root (base path, then sub,
 * then top: czk_merkle_proof), which is the circuit's order; the witness's
 * positions, siblings and rows point into the C1, which must outlive it.
 * Checks the structure the circuit relies on: the registered proof is
 * known, k < partitions, the challenge count, each path's kind, levels and
 * per-level arity against the shape's trees, rows = layers, at least one
 * labeling proof. Values are not checked here (czk_c1_precheck does that;
 * the circuit refuses a value ≥ r).
 * Out: *out   a witness (free with czk_porep_witness_free).
 * Returns: CZK_OK; CZK_ERR_FORMAT (naming the vanilla proof and the field
 *   that does not fit the shape); CZK_ERR_INVALID_ARG (k ≥ partitions);
 *   CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_porep_witness_from_c1(czk_porep_witness **out, const czk_c1 *c1,
                                                   unsigned k, czk_err *err) CZK_NONNULL(1, 2);

/* ---- public inputs, as the chain derives them ---- */

/*
 * replica_id of the C1's sector for miner f0<miner_id> and sector number
 * sector_num: czk_porep_replica_id(prover_id, sector_num, ticket, comm_d,
 * porep_id of the registered proof).
 * Returns: CZK_OK; CZK_ERR_FORMAT (unknown registered proof).
 */
CZK_NODISCARD czk_status czk_porep_chain_replica_id(uint8_t out[32], const czk_c1 *c1,
                                                    uint64_t sector_num, uint64_t miner_id,
                                                    czk_err *err) CZK_NONNULL(1, 2);

/*
 * The public inputs of partition k (ONE excluded: out[j] is circuit input
 * j + 1, the verifier's ic[1..] slice), spec §2 order: replica_id, comm_d,
 * comm_r, then per challenge c of partition k c, its 14 parents (graph),
 * c, c, c. The challenges come from the registered proof's kind
 * (czk_porep_challenges: seed, or comm_r for non-interactive PoRep) and
 * `replica_id` — pass czk_porep_chain_replica_id's value where the sector
 * and miner are known, else the C1's own (then the verifier trusts it).
 * comm_d, comm_r and seed are the C1's. Nothing is read from the vanilla
 * proofs.
 * The one derivation of PoRep public inputs: czk_c1_public_inputs and
 * czk_porep_job_inputs are this function.
 * In:  graph  the sector's graph (czk_c1_graph), or NULL to build it here.
 * Out: out    czk_c1_num_public_inputs(c1) values (czk_porep_num_inputs − 1).
 * Returns: CZK_OK; CZK_ERR_FORMAT (unknown registered proof);
 *   CZK_ERR_INVALID_ARG (k ≥ partitions); CZK_ERR_FR_RANGE; CZK_ERR_MISMATCH
 *   (graph of another size); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_porep_chain_inputs(czk_fr *out, const czk_c1 *c1,
                                                const uint8_t replica_id[32],
                                                const czk_porep_graph *graph, unsigned k,
                                                czk_err *err) CZK_NONNULL(1, 2, 3);

/* ---- one request, resolved once ---- */

/*
 * A PoRep request resolved once at intake, for every later stage (the
 * engine's PoRep kind; czk_porep_job_open): the C1, the registered proof's
 * entry, one partition's circuit configuration, the sector's parent graph
 * and the replica_id the public inputs use. Partition k's witness and
 * public inputs are then made without looking anything up again or
 * checking the whole C1 again. Read-only after open: any number of threads
 * may use one job at once.
 */
typedef struct czk_porep_job {
    czk_c1 *c1;              /* owned: checked against its shape, pre-checked */
    czk_porep_proof proof;   /* its registered proof */
    czk_porep_config config; /* one partition's circuit (czk_porep_config_for_proof) */
    czk_porep_graph *graph;  /* owned */
    uint8_t replica_id[32];  /* the chain's (sector and miner given) or the C1's */
    uint32_t num_inputs;     /* public inputs per partition, ONE excluded */
} czk_porep_job;

/* What czk_porep_job_open checks beyond the C1's shape. */
typedef struct czk_porep_job_opts {
    bool have_ids;       /* sector_num and miner_id are known: replica_id is recomputed from
                            them (and the pre-check compares it with the C1's) */
    uint64_t sector_num; /* the sector number */
    uint64_t miner_id;   /* the miner actor id N of f0N */
    bool precheck;       /* run czk_c1_precheck (on pool) */
} czk_porep_job_opts;

/*
 * Resolves a C1 into a job: looks its registered proof up, checks the C1
 * against the proof's shape once (czk_c1_check_shape's checks), builds the
 * graph (on pool, NULL = this thread), pre-checks the vanilla proofs
 * (opts->precheck), and sets replica_id.
 * In:  c1  a parsed or built C1; the job takes it (freed by
 *          czk_porep_job_free, or here on failure).
 * Out: *out (NULL on failure).
 * Returns: CZK_OK; CZK_ERR_FORMAT (unknown registered proof, a shape
 *   mismatch naming the JSON path); czk_c1_precheck's errors; the graph's.
 */
CZK_NODISCARD czk_status czk_porep_job_open(czk_porep_job **out, czk_c1 *c1,
                                            const czk_porep_job_opts *opts, czk_pool *pool,
                                            czk_err *err) CZK_NONNULL(1, 2, 3);
void czk_porep_job_free(czk_porep_job *job);

/* Partition k's witness, as czk_porep_witness_from_c1 makes it, with only partition k's
 * paths checked against the circuit. Returns: as czk_porep_witness_from_c1. */
CZK_NODISCARD czk_status czk_porep_job_witness(czk_porep_witness **out, const czk_porep_job *job,
                                               unsigned k, czk_err *err) CZK_NONNULL(1, 2);

/* Partition k's public inputs (job->num_inputs values): czk_porep_chain_inputs with the
 * job's replica_id and graph. Returns: as czk_porep_chain_inputs. */
CZK_NODISCARD czk_status czk_porep_job_inputs(czk_fr *out, const czk_porep_job *job, unsigned k,
                                              czk_err *err) CZK_NONNULL(1, 2);

/* ---- keys and shapes on disk: PoRep's file names over keys.h (circuit-neutral) ---- */

/* czk_param_cache_dir (keys.h), under its PoRep name. */
CZK_NODISCARD czk_status czk_porep_param_cache_dir(char *out, size_t cap, czk_err *err)
    CZK_NONNULL(1);

/*
 * The file name of czk's test keys for a shape,
 * "czk-test-v28-stacked-proof-of-replication-<base>-<sub>-<top>-<size>" then
 * `ext` (".params", ".vk"), e.g.
 * "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.params". Such keys
 * come from `czk setup` (toxic waste known to whoever ran it): they prove
 * and verify with each other only, never on chain.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if the name does not fit.
 */
CZK_NODISCARD czk_status czk_porep_test_key_name(char *out, size_t cap,
                                                 const czk_porep_shape *shape, const char *ext,
                                                 czk_err *err) CZK_NONNULL(1, 3, 4);

typedef enum czk_porep_key_kind {
    CZK_POREP_KEY_FILECOIN = 0, /* the v28 ceremony file name */
    CZK_POREP_KEY_TEST = 1,     /* czk's test-key name */
} czk_porep_key_kind;

/*
 * Finds the key file of a shape on the key search path (czk_key_find, keys.h:
 * dir when given, the parameter cache, czk's test keys): in each directory
 * Filecoin's v28 name + ext if that file exists, else the test-key name + ext.
 * In:  dir  the caller's directory (--param-cache, srs.param_cache), or NULL
 *      or "" for none.
 * Out: path  <directory>/<name> (at most cap bytes with the NUL); kind (may
 *      be NULL).
 * Returns: CZK_OK; CZK_ERR_IO naming the directories, both file names and
 *   the key files those directories hold, when neither name is found;
 *   CZK_ERR_INVALID_ARG if a path does not fit.
 */
CZK_NODISCARD czk_status czk_porep_find_key(char *path, size_t cap, czk_porep_key_kind *kind,
                                            const char *dir, const czk_porep_shape *shape,
                                            const char *ext, czk_err *err) CZK_NONNULL(1, 5, 6);

/*
 * The R1CS of one partition of `shape` through the shape cache
 * (czk_shape_cache_load): $CZK_CACHE_DIR/shapes/porep-v28-<size>.shape
 * (CZK_CACHE_DIR defaults to ~/.cache/czk), or recorded (czk_porep_record)
 * and written there. A cache
 * file that does not load, or has another input count, is recorded again
 * and replaced; a cache that cannot be written is not an error.
 * Args: use_cache  false: record, neither read nor write the cache.
 * Out: *out (czk_shape_free); *recorded (may be NULL): true if recorded now.
 * Returns: CZK_OK; czk_porep_record's errors.
 */
CZK_NODISCARD czk_status czk_porep_shape_load(czk_shape **out, bool *recorded,
                                              const czk_porep_shape *shape, bool use_cache,
                                              czk_err *err) CZK_NONNULL(1, 3);
/*
 * czk_porep_shape_load with the shape cache directory given (the engine's
 * srs.shape_cache) instead of $CZK_CACHE_DIR/shapes.
 * Args: cache_dir  the directory of porep-v28-<size>.shape (made if missing);
 *                  NULL or "": record, neither read nor write a cache.
 * Out, Returns: as czk_porep_shape_load.
 */
CZK_NODISCARD czk_status czk_porep_shape_load_in(czk_shape **out, bool *recorded,
                                                 const czk_porep_shape *shape,
                                                 const char *cache_dir, czk_err *err)
    CZK_NONNULL(1, 3);

/* ---- C2 ---- */

/* What czk_porep_c2_load did. */
typedef struct czk_porep_c2_load_info {
    bool loaded;           /* the backend took the keys (ops->load succeeded) */
    bool no_room;          /* ops->load said CZK_ERR_NOMEM: the keys stay in host memory and
                              the backend streams them */
    uint64_t device_bytes; /* device memory the keys and shape now take */
    unsigned dropped;      /* CZK_SRS_* bits of the host vectors freed */
    bool shape_dropped;    /* the shape's CSR arrays were freed (SpMV runs on the device) */
    uint64_t freed_bytes;  /* host memory freed: those vectors and arrays */
    double seconds;        /* the whole call (device upload included) */
} czk_porep_c2_load_info;

/*
 * Makes params and shape resident on the backend's device for
 * czk_porep_c2_prove (ops->load; a backend without it, like the CPU's, is
 * left as it is), then frees the host copies the device part will not read
 * again, so that a 32GiB prover drops ~44 GiB of keys and ~8.3 GiB of
 * matrices from its resident set:
 *   - the vectors ops->load reports in host_droppable (CZK_SRS_*) are freed
 *     and their pointers set to NULL; their lengths, the vk and ic stay
 *     (verification, length checks), and czk_params_free copes with the
 *     NULL pointers;
 *   - the shape's CSR arrays (row_ptr, col, coeff) are freed and set to NULL
 *     when the backend is a CUDA backend that runs the SpMV from its own
 *     copy (czk_backend_cuda_residency: shape_resident); the counts, the
 *     density bitmaps and the coefficient table stay (they are all the
 *     device part and finalization read on the host).
 * After it, params and shape serve only this backend: another backend (or
 * czk_prove on the CPU) would miss the freed data.
 * Out: info (may be NULL).
 * Returns: CZK_OK (also when the device had no room: info->no_room);
 *   another status of ops->load (a device fault), nothing freed.
 */
CZK_NODISCARD czk_status czk_porep_c2_load(const czk_backend *backend, czk_params *params,
                                           czk_shape *shape, czk_porep_c2_load_info *info,
                                           czk_err *err) CZK_NONNULL(1, 2, 3);

/* Wall seconds of a C2 by phase, summed over partitions. */
typedef struct czk_porep_c2_timings {
    double inputs;            /* graph and public inputs */
    czk_prove_timings p;      /* witness (on the witness thread: overlapped with the device part
                                 when pipelined), upload, SpMV, NTT, each MSM, assembly, total */
    double verify;            /* the pairing check of every proof */
    double witness_wait;      /* the device loop waiting for a witness (the witness time not hidden
                                 behind device work) */
    unsigned witness_buffers; /* buffers allocated */
    unsigned witness_buffers_pinned; /* of them, from the backend's host_alloc */
} czk_porep_c2_timings;

/* One partition, reported once its proof is verified (czk_porep_c2_opts.on_partition). */
typedef struct czk_porep_partition_report {
    uint32_t k, partitions;
    double witness;      /* its witness (seconds, on the witness thread; the first use of a
                            buffer includes allocating it) */
    double witness_wait; /* the device loop waited this long for it */
    czk_prove_timings p; /* its device part and finalization (witness not included) */
    double verify;       /* its pairing check */
    double wall;         /* seconds since the call began, at the report */
} czk_porep_partition_report;

/* Options of czk_porep_c2_prove_ex (zeroed: czk_porep_c2_prove's behaviour). */
typedef struct czk_porep_c2_opts {
    const czk_fr *r, *s; /* c1->num_partitions values each (partition k uses r[k], s[k]), or
                            NULL: fresh random values per partition */
    unsigned witnesses;  /* witness buffers, i.e. partitions in flight: 1 = one after another;
                            2 (0 = default) = partition k + 1's witness is made while
                            partition k is on the device; more lets witnesses run further
                            ahead (each holds a whole witness: 4.2 GB at 32GiB) */
    void (*on_partition)(void *ctx, const czk_porep_partition_report *rep); /* may be NULL */
    void *ctx;
} czk_porep_c2_opts;

/*
 * Proves every partition of a C1 (filecoin-proofs seal_commit_phase2) as a
 * two-stage pipeline: a witness thread makes partition witnesses
 * (czk_porep_witness_from_c1, czk_porep_witness_generate_into) into a few
 * reused buffers (opts->witnesses; from the backend's host_alloc when it
 * offers one: page-locked memory uploads at full PCIe speed; else huge-page
 * mappings touched once), while this thread runs each witness through the
 * backend (czk_prove_device, czk_prove_finalize: upload, SpMV, NTT, MSMs,
 * randomization) and checks the proof with czk_verify against
 * czk_porep_chain_inputs(c1, replica_id, graph, k). A proof that does not
 * verify is never written: the call fails (and stops the witness thread).
 * The same r, s give the same proofs whatever opts->witnesses, and the same
 * as czk_prove on the same witness.
 * In:  c1          a C1 (pre-checked by the caller: czk_c1_precheck);
 *      replica_id  as czk_porep_chain_inputs takes it;
 *      graph       the C1's graph, or NULL to build it here;
 *      params      keys for the shape of one partition;
 *      pvk         the prepared vk of those params;
 *      shape       the recorded partition R1CS (czk_porep_shape_load);
 *      backend     the prover backend; pool  threads (NULL: this thread).
 * Out: out         CZK_PROOF_BYTES × partitions bytes;
 *      timings     may be NULL.
 * Returns: CZK_OK; CZK_ERR_VERIFY naming the partition whose proof failed
 *   (a wrong witness, keys or backend); the errors of the steps above.
 */
CZK_NODISCARD czk_status czk_porep_c2_prove(uint8_t *out, const czk_c1 *c1,
                                            const uint8_t replica_id[32],
                                            const czk_porep_graph *graph, const czk_params *params,
                                            const czk_pvk *pvk, const czk_shape *shape,
                                            const czk_backend *backend, czk_pool *pool,
                                            czk_porep_c2_timings *timings, czk_err *err)
    CZK_NONNULL(1, 2, 3, 5, 6, 7, 8);

/* The same with options (opts NULL: the defaults). Also CZK_ERR_INVALID_ARG for
 * opts->witnesses > 8; CZK_ERR_NOMEM when a witness buffer cannot be allocated. */
CZK_NODISCARD czk_status czk_porep_c2_prove_ex(
    uint8_t *out, const czk_c1 *c1, const uint8_t replica_id[32], const czk_porep_graph *graph,
    const czk_params *params, const czk_pvk *pvk, const czk_shape *shape,
    const czk_backend *backend, czk_pool *pool, const czk_porep_c2_opts *opts,
    czk_porep_c2_timings *timings, czk_err *err) CZK_NONNULL(1, 2, 3, 5, 6, 7, 8);

/*
 * Verifies a C2 output against a C1: every partition proof (decoded with
 * all checks) against czk_porep_chain_inputs(c1, replica_id, graph, k).
 * In:  proofs, len  the C2 output; len must be CZK_PROOF_BYTES × partitions.
 * Out: *bad_partition (may be NULL): the partition whose proof does not
 *      decode or verify, or UINT32_MAX (all valid, or another error).
 * Returns: CZK_OK (all valid); CZK_ERR_VERIFY (a proof does not verify);
 *   CZK_ERR_MISMATCH (len is not 192 × partitions, or the vk's input count
 *   is not this shape's); a czk_proof_decode status (a point that does not
 *   decode); the errors of czk_porep_chain_inputs. The message names the
 *   partition.
 */
CZK_NODISCARD czk_status czk_porep_c2_verify(const czk_c1 *c1, const uint8_t replica_id[32],
                                             const czk_porep_graph *graph, const czk_pvk *pvk,
                                             const uint8_t *proofs, size_t len,
                                             uint32_t *bad_partition, czk_err *err)
    CZK_NONNULL(1, 2, 4, 5);

#ifdef __cplusplus
}
#endif
#endif
