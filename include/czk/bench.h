/*
 * czk — throughput runs against a proving engine (cuzk-bench `batch`,
 * cuzk-engine.md §5; issue "czk bench").
 *
 * A run proves COUNT requests with CONCURRENCY of them in flight: that many
 * client threads, each taking the next request number, submitting it and
 * waiting for its result, as cuzk-bench's concurrent Prove calls do. Per
 * proof it records the client's wall time and the engine's queue,
 * synthesis and GPU times; for the run the wall time from the first submit
 * to the last result and s/proof = wall / completed (cuzk-bench's
 * definition), and, where the runner can give the engine's TIMELINE events,
 * their analysis (include/czk/timeline.h): synthesis and GPU time per
 * partition, device busy fraction, idle gaps.
 *
 * A runner is where the proofs are made: the engine in this process
 * (czk_bench_inprocess) or a daemon reached over gRPC (the CLI's remote
 * runner). Both are a czk_bench_runner: a table of functions and its state.
 */
#ifndef CZK_BENCH_H
#define CZK_BENCH_H

#include "czk/engine.h"
#include "czk/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a runner does. Every function but destroy may be called from several
 * threads at once (prove from each client thread).
 *   prove(self, req, out, err)
 *       Submits req and waits for its result (cuzk's Prove). out is always
 *       filled (czk_job_result_free frees it); a job that FAILED is CZK_OK
 *       with out->state FAILED. An error return means the request never got
 *       a result (refused, connection lost); err says why.
 *   begin(self) (may be NULL)
 *       The run starts now: forget events collected so far.
 *   timeline(self, tl, err) (may be NULL: the runner cannot see events)
 *       Adds the TIMELINE events since begin to tl.
 *   peak_rss(self) (may be NULL)
 *       Peak resident memory of the proving process in bytes (0 = unknown).
 *   describe(self, f) (may be NULL)
 *       Prints the configuration used, one "  key = value" line each.
 *   destroy(self)
 */
typedef struct czk_bench_runner_ops {
    const char *name; /* "in-process", "remote" */
    czk_status (*prove)(void *self, const czk_proof_request *req, czk_job_result *out,
                        czk_err *err);
    void (*begin)(void *self);
    czk_status (*timeline)(void *self, czk_tl *tl, czk_err *err);
    uint64_t (*peak_rss)(void *self);
    void (*describe)(void *self, FILE *f);
    void (*destroy)(void *self);
} czk_bench_runner_ops;

typedef struct czk_bench_runner {
    const czk_bench_runner_ops *ops;
    void *self;
} czk_bench_runner;

/* Destroys the runner (NULL ops is fine) and clears it. */
void czk_bench_runner_destroy(czk_bench_runner *r);

/*
 * The engine in this process, started with cfg (copied; its defaults are
 * czk_engine_config_default's). Events go to the runner (all of them, not
 * only the last logging.timeline_keep) and, as the engine does, to
 * logging.timeline_file when set. Engine log lines of level warn and error
 * go to stderr (all levels when verbose). Peak RSS is this process's VmHWM.
 * The runner registers the PoRep and test kinds (czk_kinds_register_porep,
 * czk_kinds_register_test).
 * Out: *out  the runner (czk_bench_runner_destroy); ops and self NULL on
 *            failure.
 * Returns: CZK_OK; as czk_engine_create; the kinds' registration errors;
 *   CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_bench_inprocess(czk_bench_runner *out, const czk_engine_config *cfg,
                                             bool verbose, czk_err *err) CZK_NONNULL(1, 2);
/*
 * czk_bench_inprocess with the engine's make_lagrange hook set to
 * czk_bench_lagrange_from_seed for TEST keys of toxic-waste seed
 * *lagrange_seed (NULL: none): where no form file is found, the circuit's
 * Lagrange form is made in memory at load (measurements on machines whose
 * disk holds the keys but not their form). Keys of another seed make every
 * proof fail its verification (the jobs fail naming it).
 */
CZK_NODISCARD czk_status czk_bench_inprocess_with(czk_bench_runner *out,
                                                  const czk_engine_config *cfg, bool verbose,
                                                  const uint64_t *lagrange_seed, czk_err *err)
    CZK_NONNULL(1, 2);
/*
 * A czk_lagrange_maker (engine.h): the form of TEST keys from the toxic
 * waste of czk_rng seed *(const uint64_t *)ctx (czk_toxic_random, as `czk
 * setup --seed` and czk_test_keys make it), by czk_setup_lagrange on the GPU
 * setup backend where a device is present, else the CPU's.
 */
CZK_NODISCARD czk_status czk_bench_lagrange_from_seed(void *ctx, const czk_params *params,
                                                      const czk_shape *shape,
                                                      czk_params_lagrange **out, czk_err *err);

/*
 * Loads a circuit's SRS and shape in the in-process runner before the run,
 * so that the first proofs do not pay for it (czk_engine_preload, waiting).
 * Out: load_ms (may be NULL) as czk_engine_preload's.
 * Returns: CZK_OK; czk_engine_preload's errors; CZK_ERR_UNSUPPORTED "bench:
 *   preload needs the in-process runner" for another runner.
 */
CZK_NODISCARD czk_status czk_bench_inprocess_preload(czk_bench_runner *r, const char *circuit_id,
                                                     uint64_t *load_ms, czk_err *err)
    CZK_NONNULL(1, 2);

/* One proof of a run. */
typedef struct czk_bench_row {
    size_t index; /* 0-based request number */
    char job_id[CZK_JOB_ID_MAX];
    czk_job_state state;   /* COMPLETED, FAILED, CANCELLED; UNKNOWN when prove failed */
    char error[512];       /* why, when not COMPLETED */
    double start_s, end_s; /* client side, seconds since the run started */
    double wall_s;         /* end_s − start_s */
    uint64_t queue_ms, synthesis_ms, gpu_ms, total_ms; /* the engine's (czk_job_result) */
} czk_bench_row;

/*
 * A run. request(ctx, index, req, err) fills req for request number index
 * (its buffers must stay valid until the run ends); the run sets
 * req->request_id to "<id_prefix>-<index>" (so every proof has its own id).
 * on_done (may be NULL) is called once per finished proof, one call at a
 * time, with the number finished so far and the seconds since the start.
 */
typedef struct czk_bench_plan {
    size_t count;          /* proofs, >= 1 */
    unsigned concurrency;  /* in flight, >= 1 (more than count is cut to count) */
    const char *id_prefix; /* "bench-<nonce>"; at most 100 bytes */
    czk_status (*request)(void *ctx, size_t index, czk_proof_request *req, czk_err *err);
    void *request_ctx;
    void (*on_done)(void *ctx, const czk_bench_row *row, size_t done, size_t count,
                    double elapsed_s);
    void *done_ctx;
} czk_bench_plan;

typedef struct czk_bench_result {
    czk_bench_row *rows; /* count, in request order */
    size_t count;
    size_t completed, failed; /* failed: every row not COMPLETED */
    double wall_s;            /* first submit to last result (client clock) */
    double s_per_proof;       /* wall_s / completed; 0 when none completed */
    /* The mean interval between results once the pipeline is full: with c = the proofs in
     * flight (concurrency, at most count) and the completed rows' end_s sorted, (end[last] −
     * end[c−1]) / (completed − c), the first c results being the ramp; 0 when completed <= c. */
    double steady_s_per_proof;
    unsigned steady_after;               /* c */
    double synthesis_avg_ms, gpu_avg_ms; /* per partition (timeline), else per proof (rows) */
    bool per_partition; /* the two averages above are per partition (from the timeline) */
    bool have_timeline; /* tl below is filled */
    czk_tl_summary tl;  /* the engine's events during the run, analysed */
    uint64_t peak_rss;  /* bytes, 0 unknown */
} czk_bench_result;

/*
 * Runs plan on r: plan->concurrency client threads, each taking the next
 * request number, until count proofs have a result (src/bench/bench.c).
 * Out: *result  rows, totals, and the analysed timeline when the runner has
 *               one (a timeline that cannot be read or analysed leaves
 *               have_timeline false; it is not an error);
 *               czk_bench_result_free, also after a failure.
 * Returns: CZK_OK when every request got a result (FAILED jobs included:
 *   see result->failed); CZK_ERR_INVALID_ARG (no runner or request source,
 *   count or concurrency 0, id_prefix over 100 bytes); CZK_ERR_NOMEM;
 *   CZK_ERR_INTERNAL (a client thread cannot start); else the first request
 *   or prove error (the rows finished so far are still in result).
 */
CZK_NODISCARD czk_status czk_bench_run(czk_bench_runner *r, const czk_bench_plan *plan,
                                       czk_bench_result *result, czk_err *err) CZK_NONNULL(1, 2, 3);
/* Frees the rows and the timeline summary; NULL is fine. */
void czk_bench_result_free(czk_bench_result *r);

/*
 * Busy % and idle gaps of a result, from the timeline.
 * Returns: true and *busy_pct, *gap_total_ms; false when there is no
 *   timeline or it saw no device work (outputs untouched).
 */
static inline bool czk_bench_busy(const czk_bench_result *r, double *busy_pct,
                                  uint64_t *gap_total_ms) {
    if (!r->have_timeline || !r->tl.num_devices) return false;
    *busy_pct = r->tl.busy_pct;
    *gap_total_ms = r->tl.gap_total_ms;
    return true;
}

/*
 * A sweep point: "section.key=value" settings applied over a configuration
 * through the engine's TOML parser (czk_engine_config_parse), so that the
 * keys, types and checks are the config file's. A value that is not a TOML
 * integer, float or boolean is written as a TOML string. warn as for
 * czk_engine_config_parse.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (no '=', an empty key, or a key the
 *   parser does not know: a typo must not sweep the defaults);
 *   czk_engine_config_parse's errors.
 */
CZK_NODISCARD czk_status czk_bench_config_set(czk_engine_config *cfg, const char *assignment,
                                              czk_config_warn_fn warn, void *warn_ctx, czk_err *err)
    CZK_NONNULL(1, 2);

#ifdef __cplusplus
}
#endif
#endif
