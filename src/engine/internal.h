/*
 * Declarations shared by the files of src/engine (not public).
 *
 * One mutex, engine.mu, guards every piece of scheduler state below: jobs,
 * the three queues, the SRS entries and the budget. Work that takes time
 * (synthesis, device work, finalization, SRS loading, verification) runs
 * with it released; a stage takes it only to hand an item on. A partition
 * item is owned by exactly one stage at a time (queued or held by one
 * worker), which is what lets cancellation drop queued items at once and
 * leave held ones to their worker.
 */
#ifndef CZK_ENGINE_INTERNAL_H
#define CZK_ENGINE_INTERNAL_H

#include "czk/engine.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

/* ---- the memory budget (kept by srs.c; pipeline.c and wpool.c draw on it) ---- */

typedef struct czk_budget {
    uint64_t total;
    uint64_t srs, shapes, working; /* used = srs + shapes + working + buffers */
    uint64_t buffers;              /* witness buffers (wpool.c), idle or held by a partition */
} czk_budget;

static inline uint64_t czk_budget_used(const czk_budget *b) {
    return b->srs + b->shapes + b->working + b->buffers;
}
static inline uint64_t czk_budget_free(const czk_budget *b) {
    uint64_t u = czk_budget_used(b);
    return u >= b->total ? 0 : b->total - u;
}
/* MemTotal from /proc/meminfo in bytes (0 if unknown). */
uint64_t czk_mem_total(void);

/*
 * The memory the process may use: MemTotal of <root>/proc/meminfo and, when
 * the process is in a cgroup v2 (a "0::<path>" line in
 * <root>/proc/self/cgroup), the smallest memory.max of that cgroup and its
 * ancestors under <root>/sys/fs/cgroup ("max" = no limit; a missing or
 * unreadable file = no limit there). root NULL or "" = "/".
 * Out: mem_total (0 unknown), cgroup_max (0 = no limit found), the cgroup
 *      directory whose memory.max is that limit (relative to the cgroup
 *      root, "/" for the root; "" when none), limit = the smaller of the two
 *      known values (0 = neither known).
 */
typedef struct czk_mem_limit {
    uint64_t mem_total, cgroup_max, limit;
    char cgroup[256];
} czk_mem_limit;
void czk_mem_limit_read(czk_mem_limit *out, const char *root);
/* Resident set size of this process, bytes (0 if unknown). */
uint64_t czk_rss_bytes(void);

/* ---- witness buffers (wpool.c) ---- */

/* One witness buffer: room for a shape's inputs and aux, and where the engine packs witnesses
 * (engine.pack_witness) room for the packed form after them; reused partition after partition. */
typedef struct czk_wbuf {
    struct czk_wbuf *next;
    void *block; /* inputs, then aux, then the packed form's room */
    size_t bytes;
    czk_fr *inputs, *aux;
    uint32_t in_cap, aux_cap;
    czk_witness_packed packed; /* in the block; codes_cap 0: no room (not packed) */
    const czk_backend *owner;  /* host_alloc'ed from this backend; NULL: czk_hostmem_alloc */
} czk_wbuf;

/* ---- SRS cache entries (srs.c) ---- */

typedef enum srs_state { SRS_LOADING, SRS_READY, SRS_FAILED } srs_state;

typedef struct srs_entry {
    char id[CZK_CIRCUIT_ID_MAX];
    int kind; /* index into engine.kinds */
    srs_state state;
    czk_err load_err; /* SRS_FAILED */
    czk_params *params;
    czk_shape *shape;
    czk_pvk *pvk;
    uint64_t reserved;     /* budget charged to srs (host params) */
    uint64_t shape_bytes;  /* budget charged to shapes */
    uint64_t device_bytes; /* on devices (not in the host budget): the parameters, or only
                              the shape where they are streamed from host memory */
    uint64_t device_mask;  /* bit i: device i holds the parameters in its memory */
    uint32_t refs;         /* jobs holding it (until their last partition is out) */
    uint64_t idle_since;   /* ms; valid while refs == 0 */
    uint64_t load_start, load_ms;
    bool queued_load;    /* waiting for the loader thread */
    bool waiting_budget; /* the loader waits for room for it */
    int load_prio;       /* highest priority of the jobs waiting for it */
    int keep_prio;       /* highest priority it served: its kind's default, or a job's above
                            it; memory eviction takes entries of lower keep_prio first */
    char load_stage[16]; /* the last progress report of its parameter read ("" = none) */
    uint32_t load_percent;
    /* per-partition working memory, measured on the first partition (probe) */
    uint64_t part_bytes;        /* 0 = not measured yet */
    uint64_t part_device_bytes; /* the part released when device work ends */
    bool probing;
    /* witness buffers of this shape (wpool.c): all of them are charged to budget.buffers */
    czk_wbuf *idle_bufs; /* not held by a partition */
    uint32_t n_bufs;     /* allocated (idle or held), counting those being allocated */
    uint32_t n_idle_bufs;
    uint32_t n_pinned_bufs;  /* of n_bufs, from the backend's host_alloc */
    uint32_t prefilled;      /* buffers made before it was READY (czk_wpool_prefill) */
    uint64_t prefill_ms;     /* and the time they took */
    bool shape_host_dropped; /* the shape's CSR arrays were freed (every device holds them) */
    bool lagrange;           /* its parameters carry a Lagrange form (attach_lagrange) */
    struct srs_entry *next;
} srs_entry;

/* ---- jobs and partition items ---- */

typedef enum item_stage {
    IT_SYNTH_QUEUE,
    IT_SYNTH,
    IT_GPU_QUEUE,
    IT_GPU,
    IT_FIN_QUEUE,
    IT_FIN,
    IT_ASSEMBLE, /* held by the finalizer that assembles the job */
} item_stage;

struct czk_job;

typedef struct czk_item {
    struct czk_job *job;
    uint32_t k;
    item_stage stage;
    uint64_t since;    /* ms: entered its stage */
    uint64_t reserved; /* working memory held from the budget (its buffer not included) */
    bool probe;        /* measures the shape's per-partition memory */
    uint64_t probe_base_rss;
    czk_wbuf *buf;   /* its witness buffer (from the entry's pool); w points into it */
    bool buf_new;    /* admitted with budget for a new buffer, to be allocated by the worker */
    bool buf_pinned; /* its buffer is page-locked (kept after the buffer went back early) */
    czk_witness w;   /* never czk_witness_free'd: the buffer is the pool's */
    czk_msm_sums sums;
    unsigned deferred;
    uint64_t gpu_ms;
    czk_prove_timings tm; /* its device part and finalization (FINALIZE_END's *_us fields) */
    uint64_t failed_on;   /* bit i: device i failed while it held this partition */
    struct czk_item *next;
} czk_item;

typedef struct czk_job {
    char id[CZK_JOB_ID_MAX];
    uint64_t seq;
    int kind; /* index into engine.kinds */
    czk_priority prio;
    uint8_t digest[32]; /* SHA-256 of the request, for request-id checks */
    czk_job_state state;
    void *kjob; /* the kind's parsed state */
    czk_kind_job_info info;
    srs_entry *srs; /* referenced while held */
    bool srs_held;
    atomic_int cancel;
    czk_proof *proofs; /* per partition */
    bool *proved;      /* per partition: finalized */
    uint32_t n_synth, n_proved, n_final;
    uint32_t inflight; /* items held by a worker or in a queue */
    uint8_t *result;
    size_t result_len;
    czk_status err_code;
    char err[512];
    /* times, ms since engine start */
    uint64_t submit_ms, first_synth_ms, done_ms;
    uint64_t synth_ms, gpu_ms, srs_wait_ms;
    uint64_t cancel_ms; /* when czk_engine_cancel (or a cancelling shutdown) asked */
    bool started;
    int waiters;
    bool fetched; /* an await has handed out its result (for the pruning counter) */
    bool discard; /* refused at intake: removed as soon as nothing holds it */
    bool retired; /* a newer job took its request id: not found by id, removed once free */
    struct czk_job *next;
} czk_job;

/* A job that takes no more work: finished, or cancelled with work still stopping. */
static inline bool czk_job_ended(const czk_job *j) {
    return j->state == CZK_JOB_COMPLETED || j->state == CZK_JOB_FAILED ||
           j->state == CZK_JOB_CANCELLED || j->state == CZK_JOB_CANCELLING;
}

/* ---- devices and workers ---- */

typedef struct czk_device {
    int index;     /* in e->devices */
    int ordinal;   /* the CUDA index; < 0 a CPU pseudo-device: -1 - k for pseudo-device k */
    char name[64]; /* the backend's name */
    czk_device_identity id;
    czk_backend backend;
    unsigned workers, busy;
    uint64_t proved, busy_ms;
    uint64_t ema_ms; /* device time of its recent partitions (moving average; 0 = none yet) */
    /* a device failure (CZK_ERR_DEVICE from its backend): it takes no more work, its
     * partitions went back to the GPU queue */
    bool failed;
    char fail_msg[256];
    uint64_t fail_ms;
    uint64_t requeued; /* partitions it handed back to the GPU queue when it failed */
    bool locked;      /* the device lock (pipeline.c dev_acquire; held only around device
                         work) is held ... */
    uint64_t lock_t0; /* ... since this ms ... */
    int lock_worker;  /* ... by this GPU worker */
    char current_job[CZK_JOB_ID_MAX];
    czk_kind_id current_kind;
} czk_device;

/* Where a GPU worker is with its partition (mu), for the device lock's order. */
typedef enum gpu_phase {
    GW_IDLE, /* no partition */
    GW_PREP, /* took one; host-side preparation before it asks for the device */
    GW_WAIT, /* waits for the device lock */
    GW_HOLD, /* holds it */
    GW_POST, /* released it; hands the partition on, then takes the next */
    GW_GONE, /* its device failed: the worker has stopped */
} gpu_phase;

typedef struct czk_gpu_worker {
    struct czk_engine *e;
    czk_device *dev;
    int index; /* global worker number */
    czk_item *item;
    gpu_phase phase;
    uint64_t lock_t0;
    pthread_t thread;
} czk_gpu_worker;

typedef struct czk_worker_arg {
    struct czk_engine *e;
    int index;
    pthread_t thread;
    czk_item *item; /* the partition it holds (mu) */
} czk_worker_arg;

/* ---- the engine ---- */

#define ENGINE_DURATIONS 1000 /* proof durations kept for the metrics */

struct czk_engine {
    czk_engine_config cfg;
    czk_engine_opts opts;
    pthread_mutex_t mu;
    pthread_cond_t synth_cv, gpu_cv, fin_cv, job_cv, srs_cv, house_cv;
    pthread_cond_t dev_cv; /* device locks and GPU worker phases changed */
    bool stopping;         /* no new work; workers exit */
    bool shut;             /* czk_engine_shutdown ran */
    atomic_int stop_flag;  /* set when stopping: loaders poll it */
    uint64_t t0_ns;        /* engine start, CLOCK_MONOTONIC */

    czk_proof_kind kinds[16];
    int num_kinds;

    czk_budget budget;
    char budget_source[256];  /* where budget.total came from (status) */
    uint32_t gpu_queue_limit; /* pipeline.max_gpu_queue_depth resolved (0 = none) */
    srs_entry *srs;

    czk_job *jobs;
    uint64_t next_seq;
    uint64_t next_auto_id;

    czk_item *synth_q, *gpu_q, *fin_q; /* unordered lists; picked by key */
    uint32_t n_synth_q, n_synth, n_gpu_q, n_gpu, n_fin_q, n_fin;
    bool probe_active;
    uint64_t probe_peak_rss;

    czk_pool *synth_pool, *gpu_pool, *fin_pool;
    /* witnesses are packed after synthesis (czk_witness_pack, wpool.c): set at creation when
     * the devices' backend offers host_alloc (a GPU backend, which uploads them) */
    bool pack_witness;
    czk_device *devices;
    int num_devices;
    int num_failed_devices;
    czk_worker_arg *synth_workers, *fin_workers;
    czk_gpu_worker *gpu_workers;
    int num_synth_workers, num_gpu_workers, num_fin_workers;
    pthread_t loader, house;
    bool loader_started, house_started;

    /* counters */
    uint64_t c_completed[CZK_KIND_MAX], c_failed[CZK_KIND_MAX], c_cancelled;
    uint64_t c_refused; /* of c_failed: payloads refused by the kind's parse */
    uint64_t c_cancelled_kind[CZK_KIND_MAX];
    uint64_t c_hist[CZK_KIND_MAX][CZK_DURATION_BUCKETS + 1]; /* completed proofs' durations */
    double c_dur_sum[CZK_KIND_MAX];
    uint64_t c_verify_failures, c_synthesized, c_proved, c_pruned;
    double durations[ENGINE_DURATIONS];
    uint64_t n_durations;

    /* timeline (timeline.c) */
    pthread_mutex_t tl_mu;
    FILE *tl_file;
    char **tl_ring;
    size_t tl_cap, tl_head, tl_len;
    int log_level; /* 0 error, 1 warn, 2 info, 3 debug */
};

/* ms since the engine started. */
uint64_t czk_engine_ms(const czk_engine *e);

/* ---- timeline.c ---- */
czk_status czk_timeline_open(czk_engine *e, czk_err *err);
void czk_timeline_close(czk_engine *e);
/* One event; fmt adds " key=value..." (may be NULL). Takes tl_mu only. */
void czk_timeline_emit(czk_engine *e, czk_event_type t, const char *job, int partition, int worker,
                       const char *fmt, ...) CZK_PRINTF(6, 7);
/* Copies the kept lines (oldest first). */
czk_status czk_timeline_copy(czk_engine *e, char ***out, size_t *n);
/* Log lines: level 0 error, 1 warn, 2 info, 3 debug. */
void czk_engine_log(czk_engine *e, int level, const char *fmt, ...) CZK_PRINTF(3, 4);

/* ---- srs.c (called with mu held unless noted) ---- */
/* Finds or creates the entry of a circuit and queues its load. */
srs_entry *czk_srs_get(czk_engine *e, int kind, const char *id, int prio);
void czk_srs_ref(czk_engine *e, srs_entry *s);
void czk_srs_unref(czk_engine *e, srs_entry *s);
/* Evicts idle entries (refs 0, idle >= min idle; lowest keep_prio first, then least recently
 * used) until need bytes are free or none is left; force ignores the idle time. Returns true
 * if need bytes are free. */
bool czk_srs_make_room(czk_engine *e, uint64_t need, bool force);
void czk_srs_free_entry(czk_engine *e, srs_entry *s);
/* The loader thread. */
void *czk_srs_loader_main(void *arg);

/* ---- pipeline.c ---- */
void *czk_synth_main(void *arg);
void *czk_gpu_main(void *arg);
void *czk_fin_main(void *arg);
/* Fails a job (mu held): records the error, drops its queued items. Nothing for an ended job. */
void czk_job_fail(czk_engine *e, czk_job *j, czk_status code, const char *fmt, ...)
    CZK_PRINTF(4, 5);
/* Drops the queued items of a job (mu held), returning their memory. */
void czk_job_drop_queued(czk_engine *e, czk_job *j);
/* Ends a job (mu held): state, counters, JOB_DONE, waiters woken. */
void czk_job_finish(czk_engine *e, czk_job *j, czk_job_state st);
/* Releases what a finished job holds once no item of it is out (mu held). */
void czk_job_release(czk_engine *e, czk_job *j);
/* Cancels a job that has not finished (mu held): drops its queued items; CANCELLED when nothing
 * of it is out, else CANCELLING until its last item is freed. why: for the log line. */
void czk_job_cancel(czk_engine *e, czk_job *j, const char *why);
/* Frees an item and returns its memory (mu held). */
void czk_item_free(czk_engine *e, czk_item *it);

/* ---- wpool.c ---- */
/* Bytes of one witness buffer of a shape: its inputs and aux, and with e->pack_witness the
 * packed form's room (czk_witness_packed_bytes). */
uint64_t czk_wpool_buffer_bytes(const czk_engine *e, const czk_shape *shape);
/* Packs the witness of buffer b into its room (czk_witness_pack on pool) and points w->packed at
 * it; w->packed NULL where the buffer has no room or the witness's others do not fit it.
 * Returns whether it packed. mu not held. */
bool czk_wpool_pack(czk_wbuf *b, czk_witness *w, czk_pool *pool);
/* Takes an idle buffer of s (mu held); NULL when none is idle. */
czk_wbuf *czk_wpool_take(srs_entry *s);
/* Allocates a buffer for shape (mu NOT held: page-locking takes ~0.3 s per GiB): the first
 * device's host_alloc when it offers one, else czk_hostmem_alloc. */
czk_status czk_wpool_alloc(czk_engine *e, const czk_shape *shape, czk_wbuf **out, czk_err *err);
/* Returns a partition's buffer to its entry's idle list (mu held). */
void czk_wpool_put(srs_entry *s, czk_wbuf *b);
/* Frees a buffer's memory (mu not needed). */
void czk_wpool_release(czk_wbuf *b);
/* The most buffers of one circuit the pipeline holds at once: synthesis workers + GPU queue
 * limit − 1 (no limit: + synthesis workers) + GPU workers (finalizers hold none unless the
 * backend defers B2). */
uint32_t czk_wpool_capacity(const czk_engine *e);
/* Fills s's pool up to czk_wpool_capacity as far as the budget's free bytes less `reserve`
 * allow, on a few threads, and logs it (mu held on entry and exit, released while
 * allocating; s LOADING, its shape set). Failures leave fewer buffers, never an error. */
void czk_wpool_prefill(czk_engine *e, srs_entry *s, uint64_t reserve);
/* Frees idle buffers (mu held) of entry `only` (NULL: every entry; skip: one not to trim) until
 * `need` bytes are free in the budget or none is left; returns the bytes freed. */
uint64_t czk_wpool_trim(czk_engine *e, srs_entry *only, srs_entry *skip, uint64_t need);

/* ---- engine.c ---- */
const czk_proof_kind *czk_engine_kind(czk_engine *e, int idx);
/* A job's czk_job_info (mu held). */
void czk_job_info_fill(czk_engine *e, const czk_job *j, czk_job_info *out);

/* ---- config.c ---- */
void czk_engine_config_finish(czk_engine_config *cfg);

#endif
