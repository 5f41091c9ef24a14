/*
 * czk — the proving engine: jobs, scheduling, the partition pipeline, the
 * SRS cache, the memory budget, events and counters (spec: cuzk-engine.md §2
 * wire semantics, §3 configuration, §4 architecture, §8 what cuzk left
 * unfinished; DESIGN.md "The path of one proof").
 *
 * A job is one proof request. Its proof kind (a plug-in, czk_proof_kind,
 * registered by whoever creates the engine: the engine serves those and no
 * other, and knows nothing of any circuit) parses the payload and says how
 * many partitions it has and which circuit (SRS + R1CS shape, by circuit
 * id) proves them. Every partition then travels
 * alone through the pipeline, each stage a pool of threads fed by a queue:
 *
 *   submit -> synthesis queue (priority, then submit order, then partition)
 *          -> admission (memory budget; the circuit's SRS must be resident)
 *          -> synthesis worker (synthesis.partition_workers): the witness
 *          -> GPU queue -> GPU worker (gpus.gpu_workers_per_device per device,
 *             one lock per device held only around device work): the MSM sums
 *          -> finalizer (CPU G2 MSM where the device left it, r/s
 *             randomization, encoding); the GPU worker loops at once
 *          -> assembler: all partitions in order, verified against the VK
 *          -> result stored for scheduler.result_retention, then pruned.
 *
 * Partitions of several jobs interleave: while the device proves the last
 * partitions of one sector, the next sector's partitions are synthesized.
 * Without a GPU the CPU backend is a pseudo-device with the same workers,
 * lock and events (gpus.cpu_devices of them, each its own CPU backend).
 *
 * Several devices: every device of gpus.devices (default: every device the
 * backend finds) has its own backend, its own GPU workers and lock, and its
 * own resident copy of each circuit's keys and matrices where they fit its
 * memory. A partition in the GPU queue goes to the device that will be free
 * first (least device time still ahead of it, then fewest partitions held),
 * so the partitions of one sector run on several devices at once. A device
 * whose backend returns CZK_ERR_DEVICE (a launch error, a lost device) is
 * marked failed (status: failed, error) and takes no more work; the
 * partition it held goes back to the GPU queue for the others (a partition
 * under which two devices failed fails its job), and the engine goes on.
 * When no device is left, jobs fail with CZK_ERR_DEVICE.
 *
 * Memory: one budget (memory.total_budget, or the smaller of MemTotal and
 * the process's cgroup v2 memory.max, less memory.safety_margin) covers the
 * SRS and shapes in host memory, each partition's working memory and the
 * witness buffers. A partition's witness is written into a buffer from its
 * circuit's pool (page-locked by the backend's host_alloc where it offers
 * one), reused by later partitions of that circuit and freed when memory is
 * short, when the circuit has been idle for memory.eviction_min_idle, when
 * it is evicted, or when the engine stops. The pool is filled while the
 * circuit loads, before it is ready: as many buffers as the pipeline holds
 * at once (partition workers + GPU queue limit − 1 + GPU workers), as far as
 * the budget has room; more are allocated when partitions need them. Where
 * every device holds a circuit's keys and matrices, their host copies are
 * freed.
 *
 * Priorities: CRITICAL > HIGH > NORMAL > LOW, then submit order. A request
 * with CZK_PRIORITY_UNSPECIFIED gets its kind's default
 * (czk_proof_kind.default_priority; cuzk-engine.md §2 gives WinningPoSt
 * CRITICAL, WindowPoSt HIGH, PoRep and SnapDeals NORMAL). They hold under
 * load: a more urgent partition passes a full GPU queue, does not wait for
 * the pipeline to drain when its circuit was never measured (it runs
 * unmeasured), and takes the device lock ahead of lesser partitions other
 * GPU workers already hold, so it is on the device at the next partition
 * boundary (once it is in the GPU queue while the device is busy); the
 * jobs it passed go on with their finished partitions. When memory is
 * short, the SRS cache evicts circuits that served lower priorities first.
 *
 * Request ids (cuzk's request_id / job_id): a request that names an id that
 * is queued or running gets that job back; one whose job has completed gets
 * the stored result while it is kept; the same id with a different request
 * (kind, payload or any other field) is refused with CZK_ERR_MISMATCH. A
 * cancelled or failed job's id is free again at once (also while a
 * cancelled job's work is still stopping): a request naming it, the same or
 * another, is a new job under that id. An empty id gets a fresh one
 * ("job-<n>").
 *
 * Results: a finished job's result (proof, or FAILED / CANCELLED and why)
 * stays for scheduler.result_retention after the job finished, however
 * often it is awaited: every czk_engine_await in that time gets the same
 * bytes, so a client that lost an answer (it died, or could not write the
 * proof) asks again. At most scheduler.max_results are kept, the oldest
 * pruned first.
 *
 * Cancellation: czk_engine_cancel drops a job's queued partitions at once;
 * the job is CANCELLING while partitions of it are still held by a worker,
 * which stop at their next checkpoint (synthesis: the kind polls the cancel
 * flag, czk_cs; device work: between its phases, czk_device_lock.cancel),
 * and CANCELLED once the last of them is out, when its memory is back in
 * the budget and awaiters wake.
 *
 * Threads: every function here may be called from any thread at once. No
 * global state: everything lives in the czk_engine.
 *
 * Events: every state change of a partition or job is one timeline line
 *   TIMELINE,<ms since engine start>,<EVENT>,<job>,partition=<k> worker=<w> [key=value...]
 * (job-level events write partition=- worker=-), written to
 * logging.timeline_file when set, kept in memory (the last
 * logging.timeline_keep lines, in the status snapshot) and passed to the
 * on_event hook. `czk timeline LOG` summarizes such a log.
 */
#ifndef CZK_ENGINE_H
#define CZK_ENGINE_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "czk/r1cs.h"
#ifndef __cplusplus
#include <stdatomic.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_engine czk_engine;

/* Sizes of fixed strings (NUL included). */
#define CZK_JOB_ID_MAX 128    /* request / job ids longer than 127 bytes are refused */
#define CZK_CIRCUIT_ID_MAX 48 /* "porep-32g", "test-11x4", ... */
#define CZK_ENGINE_PATH_MAX 1024

/* Priorities, numbered as cuzk.v1 Priority. */
typedef enum czk_priority {
    CZK_PRIORITY_UNSPECIFIED = 0, /* the kind's default */
    CZK_PRIORITY_LOW = 1,
    CZK_PRIORITY_NORMAL = 2,
    CZK_PRIORITY_HIGH = 3,
    CZK_PRIORITY_CRITICAL = 4,
} czk_priority;

/* Proof kind ids, numbered as cuzk.v1 ProofKind; CZK_KIND_TEST is czk's own. An id
 * only names a kind: what a kind is called and whether it is served comes from the
 * descriptor registered for it (czk_proof_kind, czk_engine_register_kind;
 * include/czk/kinds.h has czk's kinds). */
typedef enum czk_kind_id {
    CZK_KIND_UNSPECIFIED = 0,
    CZK_KIND_POREP_C2 = 1,
    CZK_KIND_SNAP_UPDATE = 2,
    CZK_KIND_WINDOW_POST = 3,
    CZK_KIND_WINNING_POST = 4,
    CZK_KIND_TEST = 100,
} czk_kind_id;

#define CZK_KIND_MAX 128     /* kind ids are < this */
#define CZK_KIND_NAME_MAX 32 /* a kind's name and metric label, NUL included */

/* Job states. The terminal ones are numbered as cuzk.v1 AwaitProofResponse.Status. */
typedef enum czk_job_state {
    CZK_JOB_UNKNOWN = 0,   /* no such job (never existed, or pruned) */
    CZK_JOB_COMPLETED = 1, /* proof ready, verified */
    CZK_JOB_FAILED = 2,    /* error / error_code say why */
    CZK_JOB_CANCELLED = 3,
    CZK_JOB_TIMEOUT = 4,  /* czk_engine_await ran out of time; the job goes on */
    CZK_JOB_QUEUED = 10,  /* no partition started yet */
    CZK_JOB_RUNNING = 11, /* some partition started */
    /* cancelled; partitions of it are still held by workers until their next checkpoint;
     * then CANCELLED */
    CZK_JOB_CANCELLING = 12,
} czk_job_state;

/*
 * The state and priority names ("COMPLETED", "HIGH", ...): static strings;
 * "UNKNOWN" / "UNSPECIFIED" for a value of no other name. A kind's name is
 * its descriptor's (czk_proof_kind.name; czk_engine_status_kind_name).
 */
const char *czk_job_state_name(czk_job_state state);
const char *czk_priority_name(czk_priority p);

/* ---- configuration (cuzk.toml; cuzk-engine.md §3; czk.example.toml lists every key) ---- */

#define CZK_ENGINE_MAX_DEVICES 64
#define CZK_ENGINE_MAX_PRELOAD 16

/* The engine's tables of the file; [daemon] is the server's (czk_daemon_config,
 * include/czk/httpstatus.h), read in the same pass through czk_config_parse. */
typedef struct czk_engine_config {
    /* [srs] */
    char param_cache[CZK_ENGINE_PATH_MAX]; /* srs.param_cache: .params/.vk directory, the
                                              first of the key search path (keys.h) */
    char shape_cache[CZK_ENGINE_PATH_MAX]; /* srs.shape_cache: directory of the recorded
                                              circuit shapes; "" (default) = $CZK_CACHE_DIR/shapes,
                                              else ~/.cache/czk/shapes, resolved once when the
                                              engine is created (czk_engine_config_finish) */
    char preload[CZK_ENGINE_MAX_PRELOAD][CZK_CIRCUIT_ID_MAX]; /* srs.preload: circuit ids */
    unsigned num_preload;
    bool lagrange; /* srs.lagrange (true): attach a circuit's Lagrange form of H and L
                      (groth16.h, czk_params_lagrange) where its file is on the key search
                      path; false: prove with the parameters alone */
    /* [memory] */
    uint64_t total_budget;         /* memory.total_budget bytes; 0 = auto: the smaller of
                                      MemTotal and the memory.max of the process's cgroup v2
                                      (and its ancestors), fallback 256 GiB, − safety_margin */
    uint64_t safety_margin;        /* memory.safety_margin bytes (5 GiB) */
    uint64_t eviction_min_idle_ms; /* memory.eviction_min_idle (5 min) */
    /* [gpus] */
    int devices[CZK_ENGINE_MAX_DEVICES]; /* gpus.devices: CUDA indices (after
                                            CUDA_VISIBLE_DEVICES); none = all found (CPU:
                                            gpus.cpu_devices pseudo-devices); one that does
                                            not exist fails czk_engine_create */
    unsigned num_devices;
    unsigned cpu_devices; /* gpus.cpu_devices: CPU pseudo-devices when the engine proves on
                             the CPU (gpus.backend "cpu", or "auto" without a GPU), each with
                             its own CPU backend and GPU workers (1; 1..CZK_ENGINE_MAX_DEVICES;
                             more than 1 spreads partitions as over several GPUs, for tests) */
    unsigned gpu_threads; /* gpus.gpu_threads: CPU threads of the GPU path (0 = all) */
    unsigned gpu_workers_per_device; /* gpus.gpu_workers_per_device (2) */
    unsigned finalize_workers;       /* gpus.finalize_workers: finalizer threads (2) */
    char backend[16];                /* gpus.backend: "auto", "cpu" or "cuda" */
    uint64_t vram_budget;            /* gpus.vram_budget: device memory bytes each CUDA
                                        backend may keep resident for keys and shapes
                                        (0 = "auto": what the device has free) */
    /* [scheduler] */
    unsigned max_batch_size;      /* scheduler.max_batch_size (1; only 1 is supported) */
    uint64_t max_batch_wait_ms;   /* scheduler.max_batch_wait_ms (10000; unused) */
    bool sort_by_type;            /* scheduler.sort_by_type (true; unused, as in cuzk) */
    uint64_t result_retention_ms; /* scheduler.result_retention: a result is kept this long
                                     after its job finished, awaited or not (10 min) */
    unsigned max_results;         /* scheduler.max_results: stored results at most (1000;
                                     the oldest are pruned first) */
    /* [synthesis] */
    unsigned threads;           /* synthesis.threads: data-parallel loop threads (0 = all) */
    unsigned partition_workers; /* synthesis.partition_workers: partitions synthesized at
                                   once, one per thread (0 = auto: half the CPU count,
                                   2..18, e.g. 8 on a 16-core host; the budget admits fewer
                                   when memory is short). Alias (warned):
                                   pipeline.max_parallel_synthesis */
    /* [pipeline] */
    bool pipeline_enabled;          /* pipeline.enabled (true; false is refused: czk has no
                                       monolithic path) */
    unsigned synthesis_lookahead;   /* pipeline.synthesis_lookahead (1; logged only, as cuzk) */
    unsigned synthesis_concurrency; /* pipeline.synthesis_concurrency (1; unused) */
    unsigned slot_size;             /* pipeline.slot_size (0; unused) */
    unsigned max_gpu_queue_depth;   /* pipeline.max_gpu_queue_depth: > 0 holds synthesis while
                                       this many synthesized partitions wait for a device, each
                                       holding its witness (4.2 GB at 32GiB); 0 = no limit;
                                       CZK_GPU_QUEUE_AUTO (default, "auto") = 2 per GPU worker */
    /* [logging] */
    char log_level[16];  /* logging.level: error, warn, info, debug ("info") */
    char log_format[16]; /* logging.format ("" or "json"; json not implemented) */
    char timeline_file[CZK_ENGINE_PATH_MAX]; /* logging.timeline_file ("" = none) */
    unsigned timeline_keep; /* logging.timeline_keep: lines kept in memory (4096) */
} czk_engine_config;

/* pipeline.max_gpu_queue_depth = "auto": 2 waiting partitions per GPU worker. */
#define CZK_GPU_QUEUE_AUTO UINT32_MAX

/* Fills cfg with the defaults listed above (src/engine/config.c). Never fails. */
void czk_engine_config_default(czk_engine_config *cfg) CZK_NONNULL(1);

/* Receives one warning line (unknown key, deprecated or alias key). */
typedef void (*czk_config_warn_fn)(void *ctx, const char *msg);

/*
 * Applies a TOML document on top of cfg (call czk_engine_config_default
 * first). Keys and value types as czk.example.toml; a size is an integer
 * (bytes) or a string "N", "N GiB", "NMiB", "N GB", "N MB" (cuzk's
 * parse_size), memory.total_budget may also be "auto"; a duration is an
 * integer (seconds) or "N", "Ns", "Nm" (cuzk's parse_duration).
 *   - an unknown key or table: a warning naming it (and its line), ignored;
 *   - a deprecated key (memory.pinned_budget, memory.working_memory_budget,
 *     pipeline.max_parallel_synthesis as alias of synthesis.partition_workers;
 *     the canonical key wins when both are set): a warning;
 *   - a value of the wrong type or out of range: CZK_ERR_INVALID_ARG
 *     "<source>:<line>:<col>: <key>: expected <type>, got <type>";
 *   - a TOML syntax error: CZK_ERR_FORMAT "<source>:<line>:<col>: <reason>".
 * source names the document in messages (NULL: "config"). warn may be NULL
 * (warnings dropped). On failure cfg may be partly updated.
 */
CZK_NODISCARD czk_status czk_engine_config_parse(czk_engine_config *cfg, const char *text,
                                                 size_t len, const char *source,
                                                 czk_config_warn_fn warn, void *warn_ctx,
                                                 czk_err *err) CZK_NONNULL(1);

/*
 * czk_engine_config_parse of a file's contents; path is the messages' source.
 * Returns: CZK_OK; CZK_ERR_IO "config P: ..." (open or read error);
 *   CZK_ERR_NOMEM "config P: too large or out of memory" (also for a file of
 *   128 MiB or more); czk_engine_config_parse's errors.
 */
CZK_NODISCARD czk_status czk_engine_config_load(czk_engine_config *cfg, const char *path,
                                                czk_config_warn_fn warn, void *warn_ctx,
                                                czk_err *err) CZK_NONNULL(1, 2);

/*
 * Tables of the same file that another layer owns (the server's [daemon],
 * czk_daemon_config_table in include/czk/httpstatus.h): the engine reads
 * their keys with the same syntax and errors as its own and knows nothing
 * of what they mean.
 */
typedef enum czk_config_type {
    CZK_CONFIG_STRING,   /* a string into char[cap] */
    CZK_CONFIG_BOOL,     /* bool */
    CZK_CONFIG_SIZE,     /* uint64_t bytes: a size, as the engine's sizes */
    CZK_CONFIG_DURATION, /* uint64_t ms: a duration, as the engine's durations */
} czk_config_type;

typedef struct czk_config_key {
    const char *name; /* the dotted key, "daemon.listen" */
    czk_config_type type;
    size_t offset; /* of the field in the table's struct */
    size_t cap;    /* CZK_CONFIG_STRING: bytes of the char array */
} czk_config_key;

typedef struct czk_config_table {
    const char *name; /* the TOML table, "daemon" */
    const czk_config_key *keys;
    size_t num_keys;
    void *base; /* the struct the offsets are into */
} czk_config_table;

/*
 * czk_engine_config_parse / _load that also read the keys of tables[0 ..
 * num_tables − 1] into their structs (a key of such a table that none of
 * its keys names: "unknown key", a warning, as for the engine's own).
 * Returns: as czk_engine_config_parse; CZK_ERR_INVALID_ARG names the key.
 * In:  tables: NULL when num_tables is 0; names distinct from the engine's
 *      tables (srs, memory, gpus, scheduler, synthesis, pipeline, logging).
 */
CZK_NODISCARD czk_status czk_config_parse(czk_engine_config *cfg, const czk_config_table *tables,
                                          size_t num_tables, const char *text, size_t len,
                                          const char *source, czk_config_warn_fn warn,
                                          void *warn_ctx, czk_err *err) CZK_NONNULL(1);
CZK_NODISCARD czk_status czk_config_load(czk_engine_config *cfg, const czk_config_table *tables,
                                         size_t num_tables, const char *path,
                                         czk_config_warn_fn warn, void *warn_ctx, czk_err *err)
    CZK_NONNULL(1, 4);

/*
 * cuzk's size ("5GiB", "626 MiB", "50GB", "20MB", "1048576": bytes) and
 * duration ("5m", "300s", "60": seconds) syntax (cuzk's parse_size,
 * parse_duration); units are case-sensitive, trailing blanks ignored.
 * Out: *bytes, *ms  the value; untouched on failure.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "'S' is not a size (...)" / "... is
 *   not a duration (...)" for anything else, a value that overflows 64 bits
 *   included.
 */
CZK_NODISCARD czk_status czk_parse_size(const char *s, uint64_t *bytes, czk_err *err)
    CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_parse_duration_ms(const char *s, uint64_t *ms, czk_err *err)
    CZK_NONNULL(1, 2);

/* ---- proof requests and results ---- */

/*
 * One proof request (cuzk.v1 SubmitProofRequest). The engine copies what it
 * keeps; the caller's buffers may go after czk_engine_submit returns.
 */
typedef struct czk_proof_request {
    const char *request_id; /* NULL or "" = a fresh id */
    czk_kind_id kind;
    czk_priority priority; /* UNSPECIFIED = the kind's default */
    uint64_t sector_size;
    uint64_t registered_proof;
    const uint8_t *vanilla_proof; /* PoRep: the JSON envelope; test: its text */
    size_t vanilla_proof_len;
    const uint8_t *const *vanilla_proofs; /* PoSt, Snap: one per sector / partition */
    const size_t *vanilla_proofs_len;
    size_t num_vanilla_proofs;
    uint64_t sector_number, miner_id;
    uint8_t randomness[32];
    uint32_t partition_index;
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
} czk_proof_request;

/* What czk_engine_await hands back (cuzk.v1 AwaitProofResponse). */
typedef struct czk_job_result {
    char job_id[CZK_JOB_ID_MAX];
    czk_kind_id kind;
    czk_job_state state; /* COMPLETED, FAILED, CANCELLED, TIMEOUT or UNKNOWN */
    uint8_t *proof;      /* COMPLETED: the proof bytes (PoRep: 192 per partition, in
                            partition order); free with czk_job_result_free */
    size_t proof_len;
    czk_status error_code;   /* FAILED: the status that failed it */
    char error[512];         /* FAILED: one line naming the job, partition and stage */
    uint64_t queue_wait_ms;  /* submit to the first synthesis start */
    uint64_t srs_load_ms;    /* time spent waiting for the circuit's SRS to load */
    uint64_t synthesis_ms;   /* sum over partitions */
    uint64_t gpu_compute_ms; /* sum over partitions of device work (lock held) */
    uint64_t total_ms;       /* submit to completion */
} czk_job_result;

/* Frees r->proof and clears proof and proof_len; the struct is the caller's. NULL is fine. */
void czk_job_result_free(czk_job_result *r);

/* A job's progress (czk_engine_job_info). */
typedef struct czk_job_info {
    char job_id[CZK_JOB_ID_MAX];
    char circuit_id[CZK_CIRCUIT_ID_MAX];
    czk_kind_id kind;
    czk_priority priority;
    czk_job_state state;
    uint32_t partitions;                     /* 0 until the payload is parsed */
    uint32_t synthesized, proved, finalized; /* partitions past each stage */
    uint32_t queue_position; /* jobs ahead of it in the synthesis queue (QUEUED only) */
    uint32_t in_flight;      /* partitions queued or held by a worker (after a cancel or a
                                failure: those still stopping) */
    uint64_t age_ms;
} czk_job_info;

/* ---- events ---- */

typedef enum czk_event_type {
    CZK_EV_JOB_SUBMIT = 0, /* job-level */
    CZK_EV_SRS_LOAD_START, /* job "-", circuit=<id> */
    CZK_EV_SRS_LOAD_END,   /* job "-", circuit=<id> load_ms=<n> bytes=<n> [error=...];
                              loaded: ... witness_buffers=<n> witness_buffers_ms=<n> (made
                              before it was ready, within load_ms) */
    CZK_EV_SRS_EVICT,      /* job "-", circuit=<id> bytes=<n> */
    CZK_EV_SYNTH_START,    /* partition k on synthesis worker w */
    CZK_EV_SYNTH_END,      /* synth_ms=<n> (packing included) [pack_ms=<n> packed=0|1: where
                              the engine packs witnesses, czk_witness_pack] */
    CZK_EV_GPU_QUEUE,      /* the witness waits for a device */
    CZK_EV_GPU_PICKUP,     /* a GPU worker took it: worker=<w> device=<d> */
    CZK_EV_GPU_START,      /* the device lock is taken */
    CZK_EV_GPU_END,        /* the device lock is released: gpu_ms=<n> */
    CZK_EV_FINALIZE_START, /* on finalizer w */
    CZK_EV_FINALIZE_END,   /* finalize_ms=<n>, then the partition's phases in µs
                              (czk_prove_timings of its device part and finalization):
                              upload_us spmv_us ntt_us msm_h_us msm_l_us msm_a_us
                              msm_b1_us msm_b2_us assemble_us */
    CZK_EV_JOB_DONE,       /* job-level: status=<COMPLETED|FAILED|CANCELLED> total_ms=<n> */
    CZK_EV_DEVICE_FAILED,  /* the partition whose device part failed with CZK_ERR_DEVICE:
                              device=<d> requeued=<0|1> error=<status>; the device takes no
                              more work */
    CZK_EV_COUNT
} czk_event_type;

/* "SYNTH_START", ...: static; "UNKNOWN" for a value >= CZK_EV_COUNT. */
const char *czk_event_name(czk_event_type t);

typedef struct czk_engine_event {
    czk_event_type type;
    uint64_t ms;        /* since the engine started */
    const char *job_id; /* "-" for events of no job */
    int partition;      /* -1 for job-level events */
    int worker;         /* -1 when no worker */
    const char *line;   /* the whole TIMELINE line, no newline */
} czk_engine_event;

/* ---- proof kinds (plug-ins) ---- */

/* What a kind's parse says about a job. */
typedef struct czk_kind_job_info {
    uint32_t num_partitions;             /* >= 1 */
    char circuit_id[CZK_CIRCUIT_ID_MAX]; /* SRS + shape cache key */
    uint32_t num_public_inputs;          /* per partition, ONE excluded */
    const char *notice; /* NULL, or a static text the engine adds to the job's "accepted" log
                           line: what the intake could not check ("replica_id NOT checked...") */
} czk_kind_job_info;

/*
 * A proof kind's descriptor: what the kind is called, its default priority
 * and its callbacks, with their context. It is the one place that says what
 * a kind is: the engine, its status and metrics, and the server take the
 * name, the label and whether a kind exists from the registered
 * descriptors (czk_engine_register_kind, czk_engine_kind_served). The
 * engine calls the callbacks from its worker threads; every one must be
 * safe to call on several threads at once (for different jobs, or
 * different partitions of one job).
 *
 *   id                the cuzk.v1 ProofKind number (1 .. CZK_KIND_MAX − 1).
 *   name              "porep-c2", "test", ...: GetStatus's proof_kind, the
 *                     timeline, messages (< CZK_KIND_NAME_MAX bytes).
 *   metric_label      the Prometheus proof_kind label ("porep_c2"; cuzk's
 *                     spelling for its kinds; < CZK_KIND_NAME_MAX bytes).
 *   default_priority  for requests with CZK_PRIORITY_UNSPECIFIED
 *                     (UNSPECIFIED here = NORMAL).
 *
 *   parse(ctx, req, &job, info, err)
 *       Validates the request (its payload and fields) and builds the job's
 *       private state: everything later stages need, resolved once here.
 *       Runs on the submitting thread. A failure refuses the request:
 *       czk_engine_submit returns this status and message.
 *   synthesize(ctx, job, k, shape, cancel, pool, out, err)
 *       The witness of partition k (< num_partitions) of the circuit whose
 *       recorded shape is `shape`, written into the engine's buffers: out
 *       arrives with out->inputs and out->aux pointing at arrays of
 *       out->num_inputs and out->num_aux values (the shape's counts; page-
 *       locked where the backend offers it) that the engine owns and reuses
 *       for later partitions. Write the witness there
 *       (czk_cs_set_witness_buffers, czk_porep_witness_generate_into) and
 *       return with the same two pointers and the witness's counts; never
 *       free or replace them. Must pass `cancel` to czk_cs_create (or poll
 *       it) and return CZK_ERR_CANCELLED soon after it reads non-zero.
 *       pool: synthesis.threads for data-parallel loops (may be shared by
 *       several workers).
 *   public_inputs(ctx, job, k, out, err)
 *       Partition k's public inputs, ONE excluded (num_public_inputs values),
 *       for verification of the assembled proof.
 *   load_circuit(ctx, circuit_id, param_cache, pool, cancel, progress,
 *                progress_ctx, &params, &shape, err)
 *       Loads the circuit's parameters (e.g. its v28 .params file, found
 *       on the key search path that starts at param_cache: czk_key_find,
 *       keys.h) and its recorded shape. Called by the SRS cache on a
 *       thread of its own; must not keep pointers to the outputs. progress
 *       (never NULL) and progress_ctx go into czk_params_read_opts of the
 *       read (include/czk/groth16.h), from that thread; a kind that makes
 *       its parameters otherwise need not call it. The SRS cache logs the
 *       reports and shows them in czk_engine_srs_status.
 *   circuit_bytes(ctx, circuit_id, param_cache) (may be NULL)
 *       Memory the SRS + shape will take once loaded, for the budget before
 *       loading (0 = unknown; the budget is then corrected after the load).
 *   owns_circuit(ctx, circuit_id)
 *       True if load_circuit knows this id (czk_engine_preload finds the kind
 *       by asking each).
 *   assemble(ctx, job, proofs, n, &out, &out_len, err) (may be NULL)
 *       The proof bytes from the n verified partition proofs (NULL: the
 *       192-byte encodings concatenated in partition order). *out malloc'ed.
 *   job_free(ctx, job)   releases what parse built (job may be NULL).
 *   destroy(ctx)         releases the kind (may be NULL) when the engine goes.
 */
typedef struct czk_proof_kind {
    czk_kind_id id;
    const char *name;
    const char *metric_label;
    czk_priority default_priority;
    void *ctx;
    czk_status (*parse)(void *ctx, const czk_proof_request *req, void **job,
                        czk_kind_job_info *info, czk_err *err);
    czk_status (*synthesize)(void *ctx, void *job, uint32_t partition, const czk_shape *shape,
                             const atomic_int *cancel, czk_pool *pool, czk_witness *out,
                             czk_err *err);
    czk_status (*public_inputs)(void *ctx, void *job, uint32_t partition, czk_fr *out,
                                czk_err *err);
    czk_status (*load_circuit)(void *ctx, const char *circuit_id, const char *param_cache,
                               czk_pool *pool, const atomic_int *cancel,
                               czk_params_progress_fn progress, void *progress_ctx,
                               czk_params **params, czk_shape **shape, czk_err *err);
    uint64_t (*circuit_bytes)(void *ctx, const char *circuit_id, const char *param_cache);
    bool (*owns_circuit)(void *ctx, const char *circuit_id);
    czk_status (*assemble)(void *ctx, void *job, const czk_proof *proofs, uint32_t n, uint8_t **out,
                           size_t *out_len, czk_err *err);
    void (*job_free)(void *ctx, void *job);
    void (*destroy)(void *ctx);
} czk_proof_kind;

/* ---- the engine ---- */

/*
 * Makes the prover backend of one device. device is a CUDA ordinal, or -1
 * for the CPU pseudo-device. pool: gpus.gpu_threads threads, owned by the
 * engine, outliving the backend.
 */
typedef czk_status (*czk_backend_factory)(void *ctx, int device, czk_pool *pool, czk_backend *out,
                                          czk_err *err);

/*
 * Tests only: the r, s with which partition `partition` of job `job_id` is
 * randomized (czk_prove_finalize), so that proofs can be compared byte for
 * byte across runs and device layouts. A daemon never sets it: fresh random
 * values are what keep proofs zero-knowledge.
 */
typedef void (*czk_randomness_fn)(void *ctx, const char *job_id, uint32_t partition, czk_fr *r,
                                  czk_fr *s);

/*
 * Measurements only: makes the Lagrange form of a circuit's parameters when
 * no file of it is found (srs.lagrange on) — e.g. `czk bench --lagrange-seed`
 * for TEST keys from their seed's toxic waste, where the disk cannot hold
 * keys and form (the lent H200's 64 GiB at 32GiB). Called on the loader
 * thread after the keys are read, before the devices take them. A wrong form
 * cannot get a proof out: every proof is verified (the job fails naming it).
 * Out: *out (czk_params_lagrange_free; the engine attaches it), or NULL for
 *      none. Returns CZK_OK, or an error that is logged (the circuit then
 *      loads without a form).
 */
typedef czk_status (*czk_lagrange_maker)(void *ctx, const czk_params *params,
                                         const czk_shape *shape, czk_params_lagrange **out,
                                         czk_err *err);

typedef struct czk_engine_opts {
    czk_engine_config config;         /* copied */
    czk_backend_factory make_backend; /* NULL: gpus.backend decides ("auto": the devices of
                                         gpu where present, else the CPU pseudo-device) */
    void *backend_ctx;
    const czk_backend_provider *gpu; /* the device backend gpus.backend may name, given by the
                                        composition root (&czk_cuda_provider, czk/cuda.h);
                                        NULL: none (the CPU pseudo-device only) */
    void (*on_event)(void *ctx, const czk_engine_event *ev); /* may be NULL; called on the
                                           engine's threads, must not call the engine */
    void *event_ctx;
    void (*log)(void *ctx, const char *level, const char *line); /* NULL: stderr */
    void *log_ctx;
    czk_randomness_fn randomness; /* tests only (above); NULL: fresh r, s per partition */
    void *randomness_ctx;
    czk_lagrange_maker make_lagrange; /* measurements only (above); NULL: files only */
    void *lagrange_ctx;
} czk_engine_opts;

/* Fills opts with czk_engine_config_default and no hooks (all else zero). */
void czk_engine_opts_default(czk_engine_opts *opts) CZK_NONNULL(1);

/*
 * Starts an engine: the budget, pools, workers and backends. It serves no
 * proof kind until kinds are registered (czk_engine_register_kind; the
 * composition roots do it, e.g. czk_kinds_register_porep). The circuits of
 * srs.preload are loaded as the kind that owns each is registered (in the
 * background: work is accepted at once and waits for its keys).
 * In:  opts  copied (the configuration too); its hooks' contexts must
 *            outlive the engine.
 * Out: *out  the engine (czk_engine_destroy); NULL on failure.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (a configuration value the
 *   engine cannot run with, named); a backend factory's failure; CZK_ERR_NOMEM;
 *   CZK_ERR_IO (the timeline file cannot be opened).
 */
CZK_NODISCARD czk_status czk_engine_create(czk_engine **out, const czk_engine_opts *opts,
                                           czk_err *err) CZK_NONNULL(1, 2);

/*
 * Stops accepting work (later submits: CZK_ERR_CANCELLED). drain: wait
 * until every job has finished; else cancel every job. Waiters are woken.
 * Idempotent; never fails.
 */
void czk_engine_shutdown(czk_engine *e, bool drain);

/*
 * Waits until no partition of any job is queued or held by a worker (every
 * job's work has stopped), at most timeout_ms (< 0: no limit; 0: look
 * only), after czk_engine_shutdown typically, to bound how long a stop
 * takes. Logs (info) what it waits for when it has to wait: each job in
 * flight, its state and where its partitions are.
 * Returns: CZK_OK (nothing in flight); CZK_ERR_TIMEOUT "engine: work still
 *   in flight after T ms: job J (CANCELLING) partition K on device D for
 *   S ms, ..." (for the caller to report). A process may then exit
 *   without czk_engine_destroy (which would wait for those workers): the
 *   timeline file is written line by line, none of its lines is lost.
 */
CZK_NODISCARD czk_status czk_engine_wait_stopped(czk_engine *e, int64_t timeout_ms, czk_err *err)
    CZK_NONNULL(1);

/* Shuts down (no drain), joins the threads and frees everything. NULL is fine. */
void czk_engine_destroy(czk_engine *e);

/*
 * The engine's configuration, as resolved at creation (read-only, owned by
 * e and valid as long as it). Never fails.
 */
const czk_engine_config *czk_engine_get_config(const czk_engine *e) CZK_NONNULL(1);

/*
 * Registers a proof kind: the engine serves it from now on. The descriptor
 * is copied (its strings and ctx must outlive the engine; ctx goes to
 * kind->destroy when the engine is destroyed or the kind replaced). A kind
 * with the id of a registered one replaces it for later submits. The
 * circuits of srs.preload that the kind owns start loading in the
 * background.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (id UNSPECIFIED or >= CZK_KIND_MAX, a
 *   name or metric label missing or too long, a required callback missing:
 *   parse, synthesize, public_inputs, load_circuit; jobs of the kind it
 *   replaces still running; more than 16 kinds).
 */
CZK_NODISCARD czk_status czk_engine_register_kind(czk_engine *e, const czk_proof_kind *kind,
                                                  czk_err *err) CZK_NONNULL(1, 2);

/*
 * Whether the engine serves proof kind `kind`.
 * Out: name (may be NULL): the kind's name (CZK_KIND_NAME_MAX bytes) when served.
 * Returns: CZK_OK (served); CZK_ERR_INVALID_ARG (CZK_KIND_UNSPECIFIED);
 *   CZK_ERR_UNSUPPORTED "proof kind <id> is not implemented in this engine
 *   (it serves <name> (<id>), ...)" for an id no registered kind has.
 */
CZK_NODISCARD czk_status czk_engine_kind_served(czk_engine *e, czk_kind_id kind,
                                                char name[CZK_KIND_NAME_MAX], czk_err *err)
    CZK_NONNULL(1);

/* What czk_engine_submit says beside its status. */
typedef struct czk_submit_info {
    uint32_t queue_position; /* jobs ahead of it */
    /* the kind refused the payload at intake: the status is the kind's (CZK_ERR_FORMAT,
     * CZK_ERR_VERIFY, CZK_ERR_MISMATCH from a PoRep pre-check, ...), not a refusal of the
     * request id */
    bool refused;
    /* the request id named a queued, running or completed job of this same request: that
     * job is the answer, nothing new was started */
    bool existing;
    /* the request id named a cancelled or failed job: a new job took the id */
    bool replaced;
} czk_submit_info;

/*
 * Submits a request. The kind parses it here (intake, on this thread).
 * Request ids as above (the header's "Request ids"): a repeated id gets its
 * queued, running or completed job; a cancelled or failed one's id is a new
 * job.
 * Out: job_id  the job's id (the request id when one was given; "" when the
 *              request is refused);
 *      info    (may be NULL) zeroed, then filled: queue position, and which
 *              case it was (refused at intake, an existing job, a replaced
 *              one).
 * Returns: CZK_OK (the job is queued, running or finished);
 *   the kind's status for a payload it refuses at intake (info->refused),
 *   err "job <id>: payload refused by kind <name>: <the kind's message>"
 *   (e.g. CZK_ERR_FORMAT, CZK_ERR_VERIFY, CZK_ERR_MISMATCH from a PoRep
 *   pre-check): no job is kept (it counts as failed), unless a concurrent
 *   submit of the same request id is awaiting it, which then gets it FAILED;
 *   CZK_ERR_INVALID_ARG (unspecified kind, bad priority, request id too
 *   long); CZK_ERR_UNSUPPORTED (no kind of that id is registered:
 *   czk_engine_kind_served's message); CZK_ERR_MISMATCH with info->refused
 *   false (the request id names a queued, running or completed job of a
 *   different request); CZK_ERR_CANCELLED (shutting down).
 */
CZK_NODISCARD czk_status czk_engine_submit(czk_engine *e, const czk_proof_request *req,
                                           char job_id[CZK_JOB_ID_MAX], czk_submit_info *info,
                                           czk_err *err) CZK_NONNULL(1, 2, 3);

/*
 * Waits until the job is finished, or timeout_ms passes (< 0: no limit;
 * 0: look only). A cancelled job is finished once its work has stopped
 * (CANCELLING until then). The result stays for scheduler.result_retention
 * after the job finished: every await in that time, however many, gets it.
 * Returns: CZK_OK with out->state COMPLETED, FAILED or CANCELLED;
 *   CZK_ERR_TIMEOUT with out->state TIMEOUT; CZK_ERR_INVALID_ARG with
 *   out->state UNKNOWN for an unknown (or pruned) job.
 * out is always filled; free it with czk_job_result_free.
 */
CZK_NODISCARD czk_status czk_engine_await(czk_engine *e, const char *job_id, int64_t timeout_ms,
                                          czk_job_result *out, czk_err *err) CZK_NONNULL(1, 2, 4);

/*
 * Cancels a job: queued partitions are dropped and witnesses waiting for a
 * device freed at once; synthesis in progress stops at its next cancel
 * check, device work at its backend's next checkpoint (between SpMV, H and
 * the MSMs; czk_device_lock.cancel), a finalization in progress ends and
 * is discarded. The job is CANCELLING until the last of them is out, then
 * CANCELLED (its memory back in the budget, awaiters woken); its request
 * id is free for a new job at once. was_running (may be NULL): the job had
 * not finished yet (CANCELLING included).
 * Returns: CZK_OK (also for a finished job: nothing changes);
 *   CZK_ERR_INVALID_ARG for an unknown job.
 */
CZK_NODISCARD czk_status czk_engine_cancel(czk_engine *e, const char *job_id, bool *was_running,
                                           czk_err *err) CZK_NONNULL(1, 2);

/*
 * A job's progress.
 * Out: *out  filled (zeroed first, out->job_id = job_id).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "job info: no job J" (out->state
 *   UNKNOWN) for an unknown or pruned job.
 */
CZK_NODISCARD czk_status czk_engine_job_info(czk_engine *e, const char *job_id, czk_job_info *out,
                                             czk_err *err) CZK_NONNULL(1, 2, 3);

/*
 * Loads a circuit's SRS and shape now (cuzk PreloadSRS), and fills its pool
 * of witness buffers. wait: return when ready; else start it in the
 * background. already_loaded, load_ms (the load's time to ready, the buffers
 * included) may be NULL.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (no kind knows the circuit id); the
 *   loader's failure (wait only).
 */
CZK_NODISCARD czk_status czk_engine_preload(czk_engine *e, const char *circuit_id, bool wait,
                                            bool *already_loaded, uint64_t *load_ms, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * Drops a circuit's SRS and shape (cuzk EvictSRS). was_loaded, freed_bytes
 * may be NULL. Returns: CZK_OK (also when it was not loaded);
 *   CZK_ERR_MISMATCH while jobs hold it (nothing is evicted).
 */
CZK_NODISCARD czk_status czk_engine_evict(czk_engine *e, const char *circuit_id, bool *was_loaded,
                                          uint64_t *freed_bytes, czk_err *err) CZK_NONNULL(1, 2);

/* ---- status and metrics ---- */

/* Where a circuit's parameters are (cuzk.v1 SRSStatus.Tier, same numbers). */
typedef enum czk_srs_tier {
    CZK_SRS_HOT = 0,  /* in device memory (VRAM) on the devices */
    CZK_SRS_WARM = 1, /* in host memory (pinned or not), read from there by the backend */
    CZK_SRS_COLD = 2, /* on disk: loading, or named by srs.preload and not loaded */
} czk_srs_tier;

/* "HOT", "WARM", "COLD": static; "UNKNOWN" for another value. */
const char *czk_srs_tier_name(czk_srs_tier t);

typedef struct czk_engine_device_status {
    int index;     /* its place among the engine's devices (0 ..) */
    int ordinal;   /* the CUDA index; < 0 a CPU pseudo-device: -1 - k for pseudo-device k
                      (-1 when there is one) */
    char name[64]; /* backend name ("cuda", "cpu") */
    czk_device_identity identity;   /* the card: name, UUID, PCI bus id, VRAM total
                                       (a pseudo-device: "cpu pseudo-device K", no UUID) */
    bool failed;                    /* its backend reported a device failure (CZK_ERR_DEVICE):
                                       it takes no more work; its partitions were requeued */
    char error[256];                /* failed: the failure, as the backend named it */
    uint64_t failed_ms;             /* failed: when (ms since start) */
    uint64_t partitions_requeued;   /* handed back to the GPU queue when it failed */
    unsigned workers, busy_workers; /* GPU workers of the device; those holding a partition */
    bool vram_known;                /* the backend reports device memory (CPU: false) */
    uint64_t vram_total_bytes, vram_free_bytes; /* 0 when not known */
    char current_job_id[CZK_JOB_ID_MAX];        /* the job holding the device lock ("" = idle) */
    czk_kind_id current_kind;
    uint64_t partitions_proved;
    uint64_t busy_ms; /* device lock held since start, the current hold included */
} czk_engine_device_status;

typedef struct czk_engine_srs_status {
    char circuit_id[CZK_CIRCUIT_ID_MAX];
    czk_srs_tier tier;
    uint64_t size_bytes;      /* parameters in host memory (COLD: the kind's estimate of
                                 what loading takes, 0 = unknown) */
    uint64_t device_bytes;    /* resident on devices (summed over them): the parameters with
                                 the shape, or the shape alone where the parameters are
                                 streamed from host memory (tier WARM) */
    uint64_t device_mask;     /* bit i: device index i holds its own copy of them */
    uint64_t shape_bytes;     /* the recorded R1CS shape in host memory */
    bool shape_on_devices;    /* its matrices are only on the devices (host: counts, bitmaps) */
    bool lagrange;            /* its Lagrange form of H and L is attached (srs.lagrange) */
    uint64_t partition_bytes; /* measured working memory of one partition, its witness
                                 included (0 = not yet) */
    uint32_t witness_buffers, witness_buffers_idle; /* its pool of witness buffers */
    uint32_t witness_buffers_pinned;                /* of them, the backend's host_alloc */
    uint64_t witness_buffer_bytes;                  /* bytes of one */
    uint32_t ref_count;                             /* jobs holding it */
    uint64_t idle_ms; /* since the last job released it (0 while held) */
    /* While its parameter file is read (COLD, loading): the stage of the last
     * progress report ("h", ..., "subgroup b_g2": czk_params_progress_fn) and
     * the percentage of the file that pass has done (0..100); then, while its
     * witness buffers are made, "witness buffers" and the percentage made.
     * "" and 0 when not reading (not loading yet, loaded, or a kind that
     * reports nothing). */
    char load_stage[16];
    uint32_t load_percent;
} czk_engine_srs_status;

/* Partitions of one kind, by stage. "Dispatched" partitions (past the
 * synthesis queue) are counted, unlike cuzk (cuzk-engine.md §8). */
typedef struct czk_engine_queue_status {
    czk_kind_id kind;
    uint32_t pending;     /* partitions in the synthesis queue (not started) */
    uint32_t in_progress; /* partitions started and not finalized: the sum of the below */
    uint32_t synthesizing, gpu_queue, on_device, finalize_queue, finalizing;
    uint32_t jobs_queued, jobs_running, jobs_cancelling;
} czk_engine_queue_status;

/* Where a partition is. */
typedef enum czk_partition_stage {
    CZK_STAGE_SYNTH_QUEUE = 0, /* waiting for admission (SRS, memory, a worker) */
    CZK_STAGE_SYNTHESIS,       /* a synthesis worker builds its witness */
    CZK_STAGE_GPU_QUEUE,       /* witness ready, waiting for a GPU worker */
    CZK_STAGE_DEVICE,          /* a GPU worker proves it (lock held or waited for) */
    CZK_STAGE_FINALIZE_QUEUE,  /* device part done, waiting for a finalizer */
    CZK_STAGE_FINALIZE,        /* a finalizer completes and encodes it */
    CZK_STAGE_ASSEMBLY,        /* the job's last partition: verify and assemble the job */
    CZK_STAGE_COUNT
} czk_partition_stage;

/*
 * "synth_queue", "synthesis", "gpu_queue", "device", "finalize_queue",
 * "finalize", "assembly": static; "unknown" for another value.
 */
const char *czk_partition_stage_name(czk_partition_stage s);

/* One partition in flight. */
typedef struct czk_engine_partition_status {
    char job_id[CZK_JOB_ID_MAX];
    czk_kind_id kind;
    uint32_t partition, partitions; /* index, and the job's count */
    czk_partition_stage stage;
    int worker;        /* the worker holding it (its index among its stage's workers), -1 queued */
    int device;        /* DEVICE: the device ordinal (-1 the CPU pseudo-device); else -1 */
    bool lock_held;    /* DEVICE: the device lock is held for it */
    uint64_t stage_ms; /* time in this stage */
    uint64_t age_ms;   /* since the job was submitted */
} czk_engine_partition_status;

typedef enum czk_worker_role {
    CZK_WORKER_SYNTHESIS = 0,
    CZK_WORKER_GPU = 1,
    CZK_WORKER_FINALIZE = 2,
} czk_worker_role;

/* "synthesis", "gpu", "finalize": static; "unknown" for another value. */
const char *czk_worker_role_name(czk_worker_role r);

typedef struct czk_engine_worker_status {
    czk_worker_role role;
    int index;                   /* among the workers of its role (the timeline's worker=) */
    int device;                  /* GPU workers: the device ordinal; else -1 */
    bool busy;                   /* holds a partition */
    char job_id[CZK_JOB_ID_MAX]; /* busy: the partition's job */
    uint32_t partition;
    uint64_t busy_ms; /* busy: time on this partition */
} czk_engine_worker_status;

/* Number of finite buckets of the proof duration histogram. */
#define CZK_DURATION_BUCKETS 18

/*
 * The upper bound (seconds, inclusive) of finite bucket i < CZK_DURATION_BUCKETS:
 * 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1800, 3600;
 * INFINITY for i >= CZK_DURATION_BUCKETS (the +Inf bucket).
 */
double czk_duration_bucket_le(size_t i);

/* Counters of one registered kind, since start. */
typedef struct czk_engine_kind_counters {
    czk_kind_id kind;
    char name[CZK_KIND_NAME_MAX];         /* its descriptor's name ("porep-c2") */
    char metric_label[CZK_KIND_NAME_MAX]; /* and metric label ("porep_c2") */
    uint64_t completed, failed, cancelled;
    /* submit-to-completion time of completed proofs: bucket i counts those with
     * le(i-1) < t <= le(i); bucket CZK_DURATION_BUCKETS those above the last bound
     * (not cumulative; sum of all = completed) */
    uint64_t duration_buckets[CZK_DURATION_BUCKETS + 1];
    double duration_sum_s;
} czk_engine_kind_counters;

typedef struct czk_engine_status {
    czk_engine_device_status *devices;
    size_t num_devices;
    czk_engine_srs_status *srs; /* resident and loading circuits, then srs.preload ones on disk */
    size_t num_srs;
    czk_engine_queue_status *queues; /* one per kind with jobs or partitions in flight */
    size_t num_queues;
    czk_engine_partition_status *partitions; /* every partition in flight: queued, held by a
                                                worker, or being assembled */
    size_t num_partitions;
    czk_engine_worker_status *workers; /* synthesis, then GPU, then finalize workers */
    size_t num_workers;
    czk_engine_kind_counters *kinds; /* one per registered kind */
    size_t num_kinds;
    uint64_t uptime_ms;
    /* the memory budget, bytes */
    uint64_t budget_total, budget_used; /* used = srs + shapes + working + witness buffers */
    uint64_t budget_srs, budget_shapes, budget_working;
    uint64_t budget_witness_buffers; /* witness buffers of every circuit, idle or held */
    char budget_source[256];         /* where budget_total came from, e.g. "memory.total_budget",
                                        "MemTotal 135 GB - safety_margin", "cgroup /x memory.max
                                        ... - safety_margin" */
    uint32_t gpu_queue_limit;        /* pipeline.max_gpu_queue_depth in force (0 = none) */
    uint64_t pinned_memory_bytes, pinned_memory_limit_bytes; /* host memory given to SRS */
    uint64_t rss_bytes;       /* this process's resident set (0 = unknown) */
    uint64_t mem_total_bytes; /* the machine's MemTotal (0 = unknown) */
    /* the pipeline, partitions in each stage */
    uint32_t synth_queue, synthesizing, gpu_queue, on_device, finalize_queue, finalizing;
    uint32_t synth_workers, gpu_workers, finalize_workers;
    uint32_t devices_failed; /* devices that take no more work (device failures) */
    uint32_t jobs_queued, jobs_running, jobs_cancelling, results_stored;
    /* counters since start; proofs_failed counts requests refused at intake too (as cuzk,
     * which fails them in synthesis), proofs_refused says how many of them those were */
    uint64_t proofs_completed, proofs_failed, proofs_cancelled, verify_failures;
    uint64_t proofs_refused;
    uint64_t partitions_synthesized, partitions_proved, results_pruned;
    /* cuzk's cuzk_proof_duration_seconds: the last (up to) 1000 completed proofs */
    uint64_t recent_durations;
    double recent_duration_sum_s;
    /* the last timeline lines, oldest first */
    char **timeline;
    size_t num_timeline;
    /* the jobs in flight, in submit order: queued, running and cancelling ones, and finished
     * ones whose partitions are still stopping (a failed job's siblings, or a cancelled job
     * whose request id a new job took) */
    czk_job_info *jobs;
    size_t num_jobs;
} czk_engine_status;

/*
 * A snapshot (consistent at one instant, except device memory, which is asked of
 * the backends after it). src/engine/status.c.
 * Out: *out  the snapshot (czk_engine_status_free); NULL on failure.
 * Returns: CZK_OK; CZK_ERR_NOMEM "status: out of memory".
 */
CZK_NODISCARD czk_status czk_engine_status_get(czk_engine *e, czk_engine_status **out, czk_err *err)
    CZK_NONNULL(1, 2);
/* Frees a snapshot, its arrays and timeline lines. NULL is fine. */
void czk_engine_status_free(czk_engine_status *s);

/*
 * The name and the metric label of a kind of the snapshot (its s->kinds entry: every
 * kind id in a snapshot is a registered kind's); "unspecified" for another id.
 * Owned by s (or static).
 */
const char *czk_engine_status_kind_name(const czk_engine_status *s, czk_kind_id kind)
    CZK_NONNULL(1);
const char *czk_engine_status_kind_label(const czk_engine_status *s, czk_kind_id kind)
    CZK_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
