/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 180 */
/*
 * Witness buffers and the memory budget.
 *
 * With a backend that offers host_alloc/host_free (here: the CPU backend
 * plus a counting allocator standing in for page-locked memory), every
 * partition's witness lies in a block that backend allocated, and the same
 * few blocks serve partition after partition: with one worker per stage
 * three jobs of four partitions allocate a handful (synthesis or the GPU
 * queue of 1, device, the finalize queue and the finalizer), not twelve.
 * The status counts them (all page-locked,
 * all idle once the jobs are done), the budget charges exactly their bytes
 * (the witness and the room for its packed form, czk_witness_packed_bytes),
 * evicting the circuit frees every one of them with its size, and the
 * budget returns to zero.
 *
 * Prefill: while a circuit loads, before it is READY, its pool gets as many
 * buffers as the pipeline can hold at once (synthesis workers + GPU queue
 * limit − 1 + GPU workers, counted here from the configuration); with a
 * backend that defers nothing to the finalizer (sums under the lock) a
 * buffer goes back when device work ends, so jobs on a slow device never
 * need one more. A budget that cannot hold them all gets what fits, and
 * once room comes (another circuit evicted) partitions allocate the rest
 * lazily. Idle buffers are freed before an SRS entry is
 * evicted when another circuit needs the room. A partition that can never
 * fit fails naming what it needs and what the budget has. The budget comes
 * from a cgroup's memory.max when that is below MemTotal (fake /proc and
 * /sys/fs/cgroup trees under CZK_SYS_ROOT): the parser, and the engine's
 * budget and its source in the status.
 */
#include "engine/internal.h"
#include "etest.h"
#include "host_blocks.h"

#include <sys/stat.h>

static char g_dir[256];
static czk_params *g_k8, *g_k9;

static int group_setup(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "engine");
    g_k8 = et_make_keys(g_dir, 8, 801);
    g_k9 = et_make_keys(g_dir, 9, 901);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_params_free(g_k8);
    czk_params_free(g_k9);
    czk_test_rm_rf(g_dir);
    return 0;
}

/* ---- a backend with host_alloc: the CPU backend, blocks counted ---- */

typedef struct pin_be {
    czk_backend cpu;
    host_blocks hb;
    pthread_mutex_t mu;
    int foreign_witness, devices;
    czk_engine *e;      /* set once the engine exists: allocations look at its status */
    int allocs_loading; /* allocations made while a circuit was loading its buffers */
    unsigned device_ms; /* the no-deferral variant holds the device lock this long */
} pin_be;

static pin_be g_pin; /* one engine at a time */

/* A witness buffer of n values where the backend offers host_alloc: the witness, and the room
 * for its packed form (the engine packs witnesses for such a backend: czk_witness_pack) */
#define PINNED_WB(n) ((uint64_t)(n)*32 + czk_witness_packed_bytes(n))

static void pin_reset(unsigned device_ms) {
    memset(&g_pin, 0, sizeof g_pin);
    pthread_mutex_init(&g_pin.mu, NULL);
    hb_init(&g_pin.hb);
    g_pin.device_ms = device_ms;
}

static czk_status pin_sums(void *self, const czk_params *p, const czk_shape *s,
                           const czk_witness *w, size_t count, czk_msm_sums *out,
                           czk_prove_timings *t, czk_err *err) {
    pin_be *b = self;
    return b->cpu.ops->sums(b->cpu.self, p, s, w, count, out, t, err);
}

static czk_status pin_device(void *self, const czk_params *p, const czk_shape *s,
                             const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                             unsigned *deferred, czk_prove_timings *t, czk_err *err) {
    pin_be *b = self;
    bool mine = hb_contains(&b->hb, w->inputs, w->num_inputs * sizeof(czk_fr)) &&
                hb_contains(&b->hb, w->aux, w->num_aux * sizeof(czk_fr));
    pthread_mutex_lock(&b->mu);
    b->devices++;
    if (!mine) b->foreign_witness++;
    pthread_mutex_unlock(&b->mu);
    return czk_prove_device(&b->cpu, p, s, w, lock, out, deferred, t, err);
}

static void *pin_alloc(void *self, size_t bytes) {
    pin_be *b = self;
    if (b->e) { /* on an allocating thread, the engine's mutex not held */
        czk_engine_status *s = et_status(b->e);
        bool loading = false;
        for (size_t i = 0; i < s->num_srs; i++)
            loading |=
                s->srs[i].tier == CZK_SRS_COLD && !strcmp(s->srs[i].load_stage, "witness buffers");
        czk_engine_status_free(s);
        pthread_mutex_lock(&b->mu);
        if (loading) b->allocs_loading++;
        pthread_mutex_unlock(&b->mu);
    }
    return hb_alloc(&b->hb, bytes);
}

/* The no-deferral variant: no device op, so the whole prove runs in sums under the lock
 * (after device_ms of holding it) and the finalizer has nothing left to compute. */
static czk_status pin_sums_slow(void *self, const czk_params *p, const czk_shape *s,
                                const czk_witness *w, size_t count, czk_msm_sums *out,
                                czk_prove_timings *t, czk_err *err) {
    pin_be *b = self;
    bool mine = hb_contains(&b->hb, w->inputs, w->num_inputs * sizeof(czk_fr)) &&
                hb_contains(&b->hb, w->aux, w->num_aux * sizeof(czk_fr));
    pthread_mutex_lock(&b->mu);
    b->devices++;
    if (!mine) b->foreign_witness++;
    pthread_mutex_unlock(&b->mu);
    usleep(1000 * b->device_ms);
    return b->cpu.ops->sums(b->cpu.self, p, s, w, count, out, t, err);
}

static void pin_free(void *self, void *p, size_t bytes) {
    hb_free(&((pin_be *)self)->hb, p, bytes);
}

static void pin_destroy(void *self) {
    pin_be *b = self;
    czk_backend_release(&b->cpu);
}

static const czk_backend_ops PIN_OPS = {"pinned", pin_sums, pin_destroy, pin_device, NULL,
                                        NULL,     NULL,     pin_alloc,   pin_free};
static const czk_backend_ops PIN_NODEFER_OPS = {
    "pinned-nodefer", pin_sums_slow, pin_destroy, NULL, NULL, NULL, NULL, pin_alloc, pin_free};

/* ctx NULL: PIN_OPS; non-NULL: PIN_NODEFER_OPS */
static czk_status pin_factory(void *ctx, int device, czk_pool *pool, czk_backend *out,
                              czk_err *err) {
    (void)device;
    czk_status st = czk_backend_cpu(&g_pin.cpu, pool, err);
    if (st) return st;
    out->ops = ctx ? &PIN_NODEFER_OPS : &PIN_OPS;
    out->self = &g_pin;
    return CZK_OK;
}

/* Log lines kept for the prefill's report. */
typedef struct log_keep {
    pthread_mutex_t mu;
    char lines[64][512];
    int n;
} log_keep;

static log_keep g_log;

static void keep_log(void *ctx, const char *level, const char *line) {
    log_keep *l = ctx;
    quiet_log(NULL, level, line);
    pthread_mutex_lock(&l->mu);
    if (l->n < 64) snprintf(l->lines[l->n++], sizeof l->lines[0], "%s", line);
    pthread_mutex_unlock(&l->mu);
}

/* The kept line that holds `needle`, or fails naming what was logged. */
static const char *logged(const char *needle) {
    const char *hit = NULL;
    pthread_mutex_lock(&g_log.mu);
    for (int i = 0; i < g_log.n && !hit; i++)
        if (strstr(g_log.lines[i], needle)) hit = g_log.lines[i];
    pthread_mutex_unlock(&g_log.mu);
    if (!hit) {
        for (int i = 0; i < g_log.n; i++)
            fprintf(stderr, "logged: %s\n", g_log.lines[i]);
        fail_msg("no log line holds '%s'", needle);
    }
    return hit;
}

/* Allocations of the counting backend of one size. */
static int allocs_of(size_t bytes) {
    int n = 0;
    pthread_mutex_lock(&g_pin.hb.mu);
    for (int i = 0; i < g_pin.hb.allocs; i++)
        n += g_pin.hb.bytes[i] == bytes;
    pthread_mutex_unlock(&g_pin.hb.mu);
    return n;
}

static const czk_engine_srs_status *find_srs(const czk_engine_status *s, const char *id) {
    for (size_t i = 0; i < s->num_srs; i++)
        if (!strcmp(s->srs[i].circuit_id, id)) return &s->srs[i];
    return NULL;
}

static void wait_unheld(czk_engine *e, const char *id) {
    for (int i = 0; i < 400; i++) {
        czk_engine_status *s = et_status(e);
        const czk_engine_srs_status *x = find_srs(s, id);
        bool unheld = x && x->ref_count == 0;
        czk_engine_status_free(s);
        if (unheld) return;
        usleep(5000);
    }
    fail_msg("%s is still held", id);
}

static void test_reuse_pinned(void **state) {
    (void)state;
    pin_reset(0);
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.partition_workers = 1;
    o.config.gpu_workers_per_device = 1;
    o.config.finalize_workers = 1;
    o.config.max_gpu_queue_depth = 1;
    o.make_backend = pin_factory;
    czk_engine *e = et_start(&o);
    g_pin.e = e;
    czk_err err;
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    czk_engine_status *s = et_status(e);
    const uint64_t wb = PINNED_WB(3 + 252); /* 3 inputs + 252 aux: the test-8 witness */
    /* prefilled while loading: 1 synthesis worker + (queue 1) − 1 + 1 GPU worker */
    assert_int_equal(s->budget_witness_buffers, 2 * wb);
    assert_int_equal(g_pin.hb.allocs, 2);
    assert_int_equal(g_pin.allocs_loading, 2);
    uint64_t used0 = s->budget_used - s->budget_witness_buffers; /* keys and shape */
    assert_int_equal(s->gpu_queue_limit, 1);
    czk_engine_status_free(s);
    char id[3][CZK_JOB_ID_MAX];
    char payload[3][64];
    for (int i = 0; i < 3; i++) {
        snprintf(payload[i], sizeof payload[i], "seed=%d partitions=4 log=8", 40 + i);
        et_submit(e, id[i], NULL, CZK_PRIORITY_UNSPECIFIED, payload[i]);
    }
    for (int i = 0; i < 3; i++) {
        czk_job_result r = et_await(e, id[i]);
        et_verify(&g_k8->vk, &r, 40 + (uint64_t)i, 4, 8);
        czk_job_result_free(&r);
    }
    s = et_wait_idle(e);
    const czk_engine_srs_status *x = find_srs(s, "test-8");
    assert_non_null(x);
    assert_int_equal(x->witness_buffer_bytes, wb);
    /* every partition's witness was in one of the backend's blocks, and few blocks served all:
     * B2 is deferred here, so beside the 2 prefilled (synthesis or GPU queue, device) the
     * finalize stage holds buffers too, made lazily; its queue has no bound, so a slow
     * finalizer on a loaded machine may hold more than one (usually 3-5 in all) */
    assert_int_equal(g_pin.devices, 12);
    assert_int_equal(g_pin.foreign_witness, 0);
    if (g_pin.hb.allocs < 2 || g_pin.hb.allocs > 8)
        fail_msg("%d witness buffers allocated (want 2..8)", g_pin.hb.allocs);
    assert_int_equal(g_pin.allocs_loading, 2);
    assert_int_equal(x->witness_buffers, (uint32_t)g_pin.hb.allocs);
    assert_int_equal(x->witness_buffers_pinned, x->witness_buffers);
    assert_int_equal(x->witness_buffers_idle, x->witness_buffers);
    for (int i = 0; i < g_pin.hb.allocs; i++)
        assert_int_equal(g_pin.hb.bytes[i], wb);
    assert_int_equal(s->budget_witness_buffers, (uint64_t)g_pin.hb.allocs * wb);
    assert_int_equal(s->budget_used, used0 + s->budget_witness_buffers);
    /* the witness is at least what the probe measured */
    assert_true(x->partition_bytes > wb);
    czk_engine_status_free(s);
    assert_int_equal(g_pin.hb.frees, 0);
    /* evicting the circuit frees every buffer, with its size; the budget is back to zero */
    wait_unheld(e, "test-8");
    czk_assert_ok(czk_engine_evict(e, "test-8", NULL, NULL, &err), &err);
    assert_int_equal(g_pin.hb.frees, g_pin.hb.allocs);
    assert_int_equal(g_pin.hb.bad_frees, 0);
    s = et_status(e);
    assert_int_equal(s->budget_used, 0);
    assert_int_equal(s->budget_witness_buffers, 0);
    czk_engine_status_free(s);
    /* buffers of a new job again; at destroy they are freed too */
    et_submit(e, id[0], NULL, CZK_PRIORITY_UNSPECIFIED, "seed=50 partitions=2 log=8");
    czk_job_result r = et_await(e, id[0]);
    et_verify(&g_k8->vk, &r, 50, 2, 8);
    czk_job_result_free(&r);
    int before = g_pin.hb.frees;
    assert_true(g_pin.hb.allocs > before);
    assert_int_equal(g_pin.allocs_loading, 4); /* the reload prefilled again */
    g_pin.e = NULL;
    czk_engine_destroy(e);
    assert_int_equal(g_pin.hb.frees, g_pin.hb.allocs);
    assert_int_equal(g_pin.hb.bad_frees, 0);
    pthread_mutex_destroy(&g_pin.mu);
    pthread_mutex_destroy(&g_pin.hb.mu);
}

static uint64_t file_bytes(unsigned log);

/* An engine on the no-deferral counting backend: 2 synthesis workers, 1 GPU worker, a GPU
 * queue of 2, so the pipeline holds at most 2 + (2 − 1) + 1 = 4 witness buffers. */
static czk_engine *start_nodefer(uint64_t budget, unsigned device_ms, ev_log *log) {
    pin_reset(device_ms);
    pthread_mutex_init(&g_log.mu, NULL);
    g_log.n = 0;
    czk_engine_opts o;
    et_opts(&o, log, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.partition_workers = 2;
    o.config.gpu_workers_per_device = 1;
    o.config.finalize_workers = 1;
    o.config.max_gpu_queue_depth = 2;
    o.config.total_budget = budget;
    o.config.eviction_min_idle_ms = 3600 * 1000;
    o.make_backend = pin_factory;
    o.backend_ctx = &g_pin; /* non-NULL: no deferral */
    o.log = keep_log;
    o.log_ctx = &g_log;
    czk_engine *e = et_start(&o);
    g_pin.e = e;
    return e;
}

static void stop_nodefer(czk_engine *e) {
    g_pin.e = NULL;
    czk_engine_destroy(e);
    assert_int_equal(g_pin.hb.frees, g_pin.hb.allocs);
    assert_int_equal(g_pin.hb.bad_frees, 0);
    pthread_mutex_destroy(&g_pin.mu);
    pthread_mutex_destroy(&g_pin.hb.mu);
    pthread_mutex_destroy(&g_log.mu);
}

/* The pool is full before the circuit is READY, and the jobs never need another buffer. */
static void test_prefill(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start_nodefer(1ull << 30, 20, &log);
    czk_err err;
    const uint64_t wb = PINNED_WB(3 + 252);
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    assert_int_equal(g_pin.hb.allocs, 4);
    assert_int_equal(g_pin.allocs_loading, 4); /* every one while the entry was still loading */
    for (int i = 0; i < 4; i++)
        assert_int_equal(g_pin.hb.bytes[i], wb);
    czk_engine_status *s = et_status(e);
    const czk_engine_srs_status *x = find_srs(s, "test-8");
    assert_non_null(x);
    assert_int_equal(x->tier, CZK_SRS_WARM);
    assert_int_equal(x->witness_buffers, 4);
    assert_int_equal(x->witness_buffers_idle, 4);
    assert_int_equal(x->witness_buffers_pinned, 4);
    assert_string_equal(x->load_stage, "");
    assert_int_equal(s->budget_witness_buffers, 4 * wb);
    czk_engine_status_free(s);
    logged("srs test-8: 4 witness buffers (33920 bytes, page-locked) in ");
    const ev_rec *end = NULL;
    for (size_t i = 0; i < log.n && !end; i++)
        if (log.v[i].type == CZK_EV_SRS_LOAD_END) end = &log.v[i];
    assert_true(ev_has(end, "circuit=test-8") && ev_has(end, "witness_buffers=4 "));
    /* Jobs of 16 and 8 partitions, synthesis (30 ms) and device (20 ms) both slow enough that
     * the pipeline stays full: the pipeline never needs a fifth buffer. While the one
     * finalizer assembles the first job (16 verifications) the second's partitions wait for
     * it: they hold no buffer, since nothing is deferred to the finalizer. */
    char id[2][CZK_JOB_ID_MAX], payload[2][80];
    const unsigned parts[2] = {16, 8};
    for (int i = 0; i < 2; i++) {
        snprintf(payload[i], sizeof payload[i], "seed=%d partitions=%u log=8 synth_ms=30", 80 + i,
                 parts[i]);
        et_submit(e, id[i], NULL, CZK_PRIORITY_UNSPECIFIED, payload[i]);
    }
    for (int i = 0; i < 2; i++) {
        czk_job_result r = et_await(e, id[i]);
        et_verify(&g_k8->vk, &r, 80 + (uint64_t)i, parts[i], 8);
        czk_job_result_free(&r);
    }
    s = et_wait_idle(e);
    assert_int_equal(g_pin.devices, 24);
    assert_int_equal(g_pin.foreign_witness, 0);
    assert_int_equal(g_pin.hb.allocs, 4);
    x = find_srs(s, "test-8");
    assert_int_equal(x->witness_buffers, 4);
    assert_int_equal(x->witness_buffers_idle, 4);
    czk_engine_status_free(s);
    /* the queue was full at times: the bound was reached, not just never approached */
    size_t deep = 0;
    for (size_t i = 0; i < log.n; i++)
        deep += log.v[i].type == CZK_EV_GPU_QUEUE && ev_has(&log.v[i], "depth=2");
    assert_true(deep > 0);
    /* evict: all four freed with their size, the budget back to zero */
    wait_unheld(e, "test-8");
    czk_assert_ok(czk_engine_evict(e, "test-8", NULL, NULL, &err), &err);
    assert_int_equal(g_pin.hb.frees, 4);
    assert_int_equal(g_pin.hb.bad_frees, 0);
    s = et_status(e);
    assert_int_equal(s->budget_used, 0);
    assert_int_equal(s->budget_witness_buffers, 0);
    czk_engine_status_free(s);
    /* loaded again: prefilled again, freed at destroy */
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    assert_int_equal(g_pin.hb.allocs, 8);
    assert_int_equal(g_pin.allocs_loading, 8);
    stop_nodefer(e);
    free(log.v);
    pthread_mutex_destroy(&log.mu);
}

/*
 * A budget that holds test-8's keys and one and a half buffers beside another circuit
 * (test-12, made by the test kind's own setup, its prefill complete): one buffer is made in
 * advance, and the log says the rest come later. Once test-12 is evicted the partitions
 * allocate more as they need them, never more than the pipeline holds.
 */
static void test_prefill_bounded(void **state) {
    (void)state;
    czk_err err;
    const uint64_t wb8 = PINNED_WB(3 + 252), wb12 = PINNED_WB(3 + 4092);
    /* the sizes of both entries, from an engine with room for everything */
    czk_engine *e = start_nodefer(1ull << 30, 0, NULL);
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    czk_assert_ok(czk_engine_preload(e, "test-12", true, NULL, NULL, &err), &err);
    czk_engine_status *s = et_status(e);
    const czk_engine_srs_status *x8 = find_srs(s, "test-8"), *x12 = find_srs(s, "test-12");
    assert_non_null(x8);
    assert_non_null(x12);
    assert_int_equal(x12->witness_buffer_bytes, wb12);
    uint64_t k8 = x8->size_bytes + x8->shape_bytes, k12 = x12->size_bytes + x12->shape_bytes;
    czk_engine_status_free(s);
    stop_nodefer(e);
    /* test-8 loads when its file's size fits: it does beside test-12 and its buffers */
    assert_true(file_bytes(8) <= k8 + wb8);
    e = start_nodefer(k12 + 4 * wb12 + k8 + wb8 + wb8 / 2, 20, NULL);
    czk_assert_ok(czk_engine_preload(e, "test-12", true, NULL, NULL, &err), &err);
    assert_int_equal(allocs_of(wb12), 4);
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    assert_int_equal(allocs_of(wb8), 1);
    assert_int_equal(g_pin.allocs_loading, 5);
    logged("srs test-8: 1 witness buffers (8480 bytes, page-locked) in ");
    logged("the pipeline holds up to 4, the budget had room for 1 ");
    s = et_status(e);
    x8 = find_srs(s, "test-8");
    assert_int_equal(x8->witness_buffers, 1);
    assert_int_equal(s->budget_witness_buffers, 4 * wb12 + wb8);
    assert_true(s->budget_used <= s->budget_total);
    czk_engine_status_free(s);
    /* room: test-12 goes; test-8's partitions grow its pool as they need */
    czk_assert_ok(czk_engine_evict(e, "test-12", NULL, NULL, &err), &err);
    char id[2][CZK_JOB_ID_MAX], payload[2][64];
    for (int i = 0; i < 2; i++) {
        snprintf(payload[i], sizeof payload[i], "seed=%d partitions=4 log=8", 90 + i);
        et_submit(e, id[i], NULL, CZK_PRIORITY_UNSPECIFIED, payload[i]);
    }
    for (int i = 0; i < 2; i++) {
        czk_job_result r = et_await(e, id[i]);
        et_verify(&g_k8->vk, &r, 90 + (uint64_t)i, 4, 8);
        czk_job_result_free(&r);
    }
    s = et_wait_idle(e);
    int made = allocs_of(wb8);
    if (made < 2 || made > 4) fail_msg("test-8 witness buffers allocated: %d (want 2..4)", made);
    assert_int_equal(g_pin.allocs_loading, 5); /* the new ones were lazy */
    assert_int_equal(g_pin.foreign_witness, 0);
    x8 = find_srs(s, "test-8");
    assert_true(s->budget_used <= s->budget_total);
    assert_int_equal(s->budget_witness_buffers, (uint64_t)x8->witness_buffers * wb8);
    czk_engine_status_free(s);
    stop_nodefer(e);
}

static uint64_t file_bytes(unsigned log) {
    char path[400];
    snprintf(path, sizeof path, "%s/czk-test-%u.params", g_dir, log);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (uint64_t)sb.st_size;
}

static czk_engine *start_cpu(uint64_t budget, uint64_t min_idle_ms) {
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.total_budget = budget;
    o.config.eviction_min_idle_ms = min_idle_ms;
    return et_start(&o);
}

/* When another circuit's keys need the room, idle buffers go first (test-8 is not idle long
 * enough to be evicted, so only freeing its buffer lets test-9 in). A one-partition job makes
 * exactly one buffer. */
static void test_idle_buffers_make_room(void **state) {
    (void)state;
    czk_err err;
    czk_engine *e = start_cpu(1ull << 30, 3600 * 1000);
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    czk_engine_status *s = et_status(e);
    uint64_t keys8 = s->budget_used - s->budget_witness_buffers;
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    const uint64_t wb = (3 + 252) * 32;
    /* room for test-8's keys, its prefilled buffers (2 workers + queue 4 − 1 + 2 GPU workers
     * = 7) and test-9's file only without the buffers */
    e = start_cpu(keys8 + file_bytes(9) + wb - 1, 3600 * 1000);
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    s = et_status(e);
    assert_int_equal(s->budget_witness_buffers, 7 * wb);
    czk_engine_status_free(s);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=61 partitions=1 log=8");
    czk_job_result r = et_await(e, id);
    et_verify(&g_k8->vk, &r, 61, 1, 8);
    czk_job_result_free(&r);
    s = et_wait_idle(e);
    assert_int_equal(s->budget_witness_buffers, 7 * wb); /* the job used a prefilled one */
    czk_engine_status_free(s);
    wait_unheld(e, "test-8");
    czk_assert_ok(czk_engine_preload(e, "test-9", true, NULL, NULL, &err), &err);
    s = et_status(e);
    const czk_engine_srs_status *x8 = find_srs(s, "test-8"), *x9 = find_srs(s, "test-9");
    assert_non_null(x8); /* not evicted: its buffers made the room */
    assert_non_null(x9);
    assert_int_equal(x9->tier, CZK_SRS_WARM);
    assert_int_equal(x8->witness_buffers, 0);
    assert_int_equal(s->budget_witness_buffers,
                     (uint64_t)x9->witness_buffers * x9->witness_buffer_bytes);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
}

/* A partition whose witness buffer alone does not fit beside the keys: refused, numbers named. */
static void test_never_fits(void **state) {
    (void)state;
    czk_err err;
    czk_engine *e = start_cpu(1ull << 30, 0);
    czk_assert_ok(czk_engine_preload(e, "test-8", true, NULL, NULL, &err), &err);
    czk_engine_status *s = et_status(e);
    uint64_t keys8 = s->budget_used - s->budget_witness_buffers;
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    const uint64_t wb = (3 + 252) * 32;
    e = start_cpu(keys8 + wb - 100, 0);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=70 partitions=2 log=8");
    czk_job_result r = et_await(e, id);
    assert_int_equal(r.state, CZK_JOB_FAILED);
    assert_int_equal(r.error_code, CZK_ERR_NOMEM);
    char want[200];
    snprintf(want, sizeof want,
             "needs %llu bytes (its witness buffer, at least), the memory budget has %llu free "
             "of %llu (memory.total_budget;",
             (unsigned long long)wb + 1, (unsigned long long)wb - 100,
             (unsigned long long)(keys8 + wb - 100));
    if (!strstr(r.error, want)) fail_msg("got '%s', want '...%s...'", r.error, want);
    assert_non_null(strstr(r.error, "partition 0 admission"));
    czk_job_result_free(&r);
    s = et_wait_idle(e);
    assert_int_equal(s->budget_witness_buffers, 0);
    assert_int_equal(s->budget_working, 0);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
}

/* ---- the budget from a cgroup ---- */

static void put_file(const char *root, const char *rel, const char *text) {
    char path[1200], cmd[1300];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void test_cgroup_limit(void **state) {
    (void)state;
    char root[256];
    czk_test_tmpdir(root, sizeof root, "engine");
    czk_mem_limit m;
    /* nothing there: unknown */
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.mem_total, 0);
    assert_int_equal(m.cgroup_max, 0);
    assert_int_equal(m.limit, 0);
    /* MemTotal 16 GiB, no cgroup file */
    put_file(root, "proc/meminfo", "MemFree:         1000 kB\nMemTotal:       16777216 kB\n");
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.mem_total, 16ull << 30);
    assert_int_equal(m.cgroup_max, 0);
    assert_int_equal(m.limit, 16ull << 30);
    /* cgroup v1 lines only: not read */
    put_file(root, "proc/self/cgroup", "4:memory:/a\n1:name=systemd:/a\n");
    put_file(root, "sys/fs/cgroup/memory/a/memory.limit_in_bytes", "1073741824\n");
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.cgroup_max, 0);
    assert_int_equal(m.limit, 16ull << 30);
    /* v2, leaf "max", its parent 8 GiB, the root without the file: the parent's */
    put_file(root, "proc/self/cgroup", "0::/a/b.slice\n");
    put_file(root, "sys/fs/cgroup/a/b.slice/memory.max", "max\n");
    put_file(root, "sys/fs/cgroup/a/memory.max", "8589934592\n");
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.cgroup_max, 8ull << 30);
    assert_string_equal(m.cgroup, "/a");
    assert_int_equal(m.limit, 8ull << 30);
    /* the leaf tighter still */
    put_file(root, "sys/fs/cgroup/a/b.slice/memory.max", "4294967296\n");
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.cgroup_max, 4ull << 30);
    assert_string_equal(m.cgroup, "/a/b.slice");
    /* a limit above MemTotal: MemTotal wins */
    put_file(root, "sys/fs/cgroup/a/b.slice/memory.max", "max\n");
    put_file(root, "sys/fs/cgroup/a/memory.max", "34359738368\n");
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.cgroup_max, 32ull << 30);
    assert_int_equal(m.limit, 16ull << 30);
    /* a container: "0::/" and the limit on its root */
    put_file(root, "proc/self/cgroup", "0::/\n");
    put_file(root, "sys/fs/cgroup/memory.max", "2147483648\n");
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.cgroup_max, 2ull << 30);
    assert_string_equal(m.cgroup, "/");
    /* garbage in memory.max, and no meminfo: no limit known but the cgroup's */
    put_file(root, "sys/fs/cgroup/memory.max", "lots\n");
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.cgroup_max, 0);
    put_file(root, "sys/fs/cgroup/memory.max", "3221225472\n");
    char mi[400];
    snprintf(mi, sizeof mi, "%s/proc/meminfo", root);
    assert_int_equal(unlink(mi), 0);
    czk_mem_limit_read(&m, root);
    assert_int_equal(m.mem_total, 0);
    assert_int_equal(m.limit, 3ull << 30);

    /* the engine: budget = the cgroup's limit − safety_margin, and the status says so */
    put_file(root, "proc/meminfo", "MemTotal:       16777216 kB\n");
    assert_int_equal(setenv("CZK_SYS_ROOT", root, 1), 0);
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    o.config.total_budget = 0; /* auto */
    o.config.safety_margin = 1ull << 30;
    czk_engine *e = et_start(&o);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->budget_total, 2ull << 30);
    if (!strstr(s->budget_source, "cgroup / memory.max 3.2 GB (MemTotal 17.2 GB)"))
        fail_msg("budget source '%s'", s->budget_source);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    /* no cgroup limit: MemTotal */
    put_file(root, "sys/fs/cgroup/memory.max", "max\n");
    e = et_start(&o);
    s = et_status(e);
    assert_int_equal(s->budget_total, 15ull << 30);
    assert_non_null(strstr(s->budget_source, "MemTotal 17.2 GB - safety_margin 1.1 GB"));
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    unsetenv("CZK_SYS_ROOT");
    czk_test_rm_rf(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_pinned),    cmocka_unit_test(test_prefill),
        cmocka_unit_test(test_prefill_bounded), cmocka_unit_test(test_idle_buffers_make_room),
        cmocka_unit_test(test_never_fits),      cmocka_unit_test(test_cgroup_limit),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
