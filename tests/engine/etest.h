/*
 * Helpers for the engine tests: an engine on the CPU backend with a
 * pseudo-GPU that holds the device lock a fixed time per partition (so that
 * synthesis of one job visibly overlaps device work of another), an event
 * recorder, test-kind payloads, and an independent check of the test kind's
 * proofs: public inputs recomputed here (the chain evaluated natively) and
 * verified against keys the test makes itself.
 */
#ifndef CZK_TEST_ENGINE_ETEST_H
#define CZK_TEST_ENGINE_ETEST_H

#include "support.h"

#include "czk/cuda.h" /* czk_cuda_provider */
#include "czk/engine.h"
#include "czk/kinds.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- recorded events ---- */

typedef struct ev_rec {
    czk_event_type type;
    uint64_t ms;
    char job[CZK_JOB_ID_MAX];
    int partition, worker;
    char line[256];
} ev_rec;

typedef struct ev_log {
    pthread_mutex_t mu;
    ev_rec *v;
    size_t n, cap;
} ev_log;

static inline void ev_hook(void *ctx, const czk_engine_event *ev) {
    ev_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    ev_rec *r = &l->v[l->n++];
    r->type = ev->type;
    r->ms = ev->ms;
    snprintf(r->job, sizeof r->job, "%s", ev->job_id);
    r->partition = ev->partition;
    r->worker = ev->worker;
    snprintf(r->line, sizeof r->line, "%s", ev->line);
    pthread_mutex_unlock(&l->mu);
}

/* The i-th event of a type for (job, partition) (partition -2: any), or NULL. */
static inline const ev_rec *ev_find(ev_log *l, czk_event_type t, const char *job, int partition,
                                    int nth) {
    const ev_rec *r = NULL;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n && !r; i++)
        if (l->v[i].type == t && !strcmp(l->v[i].job, job) &&
            (partition == -2 || l->v[i].partition == partition) && nth-- == 0)
            r = &l->v[i];
    pthread_mutex_unlock(&l->mu);
    return r;
}

/* r is non-NULL and its line holds s. */
static inline bool ev_has(const ev_rec *r, const char *s) {
    return r && strstr(r->line, s) != NULL;
}

static inline size_t ev_count(ev_log *l, czk_event_type t, const char *job) {
    size_t n = 0;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].type == t && (!job || !strcmp(l->v[i].job, job))) n++;
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* ---- a slow pseudo-GPU: the CPU backend, holding the device lock gpu_ms longer ---- */

typedef struct slow_be {
    czk_backend inner;
    unsigned gpu_ms;
} slow_be;

typedef struct slow_lock {
    const czk_device_lock *outer;
    unsigned ms;
} slow_lock;

static inline void slow_acquire(void *ctx) {
    slow_lock *s = ctx;
    czk_device_lock_acquire(s->outer);
    struct timespec ts = {s->ms / 1000, (long)(s->ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}
static inline void slow_release(void *ctx) {
    slow_lock *s = ctx;
    czk_device_lock_release(s->outer);
}

static inline czk_status slow_sums(void *self, const czk_params *p, const czk_shape *s,
                                   const czk_witness *w, size_t count, czk_msm_sums *out,
                                   czk_prove_timings *t, czk_err *err) {
    slow_be *b = self;
    return b->inner.ops->sums(b->inner.self, p, s, w, count, out, t, err);
}

static inline czk_status slow_device(void *self, const czk_params *p, const czk_shape *s,
                                     const czk_witness *w, const czk_device_lock *lock,
                                     czk_msm_sums *out, unsigned *deferred, czk_prove_timings *t,
                                     czk_err *err) {
    slow_be *b = self;
    slow_lock sl = {lock, b->gpu_ms};
    czk_device_lock l2 = {slow_acquire, slow_release, &sl, lock ? lock->cancel : NULL};
    return czk_prove_device(&b->inner, p, s, w, &l2, out, deferred, t, err);
}

static inline void slow_destroy(void *self) {
    slow_be *b = self;
    czk_backend_release(&b->inner);
    free(b);
}

static const czk_backend_ops SLOW_OPS = {"cpu-slow", slow_sums, slow_destroy, slow_device, NULL,
                                         NULL,       NULL,      NULL,         NULL};

static inline czk_status slow_factory(void *ctx, int device, czk_pool *pool, czk_backend *out,
                                      czk_err *err) {
    (void)device;
    slow_be *b = calloc(1, sizeof *b);
    if (!b) return czk_errf(err, CZK_ERR_NOMEM, "slow backend");
    b->gpu_ms = (unsigned)(uintptr_t)ctx;
    czk_status st = czk_backend_cpu(&b->inner, pool, err);
    if (st) {
        free(b);
        return st;
    }
    out->ops = &SLOW_OPS;
    out->self = b;
    return CZK_OK;
}

/* ---- the engine under test ---- */

static inline void quiet_log(void *ctx, const char *level, const char *line) {
    (void)ctx;
    if (getenv("CZK_TEST_VERBOSE") || !strcmp(level, "error"))
        fprintf(stderr, "[engine %s] %s\n", level, line);
}

static inline void et_opts(czk_engine_opts *o, ev_log *log, unsigned gpu_ms) {
    czk_engine_opts_default(o);
    czk_engine_config *c = &o->config;
    snprintf(c->backend, sizeof c->backend, "cpu");
    c->partition_workers = 2;
    c->gpu_workers_per_device = 2;
    c->finalize_workers = 2;
    c->threads = 1;
    c->gpu_threads = 2;
    c->total_budget = 1ull << 30;
    snprintf(c->param_cache, sizeof c->param_cache, "/nonexistent-czk-test");
    o->make_backend = slow_factory;
    o->backend_ctx = (void *)(uintptr_t)gpu_ms;
    o->gpu = &czk_cuda_provider; /* for tests that clear make_backend (tests/cuda/engine.c) */
    if (log) {
        pthread_mutex_init(&log->mu, NULL);
        log->v = NULL;
        log->n = log->cap = 0;
        o->on_event = ev_hook;
        o->event_ctx = log;
    }
    o->log = quiet_log;
}

/* ---- the engine's log lines, kept for the tests that look for what it said ---- */

typedef struct et_lines {
    pthread_mutex_t mu;
    char text[32768]; /* "level: line\n" each, cut at the end */
    size_t n;
} et_lines;

static inline void et_lines_hook(void *ctx, const char *level, const char *line) {
    et_lines *l = ctx;
    pthread_mutex_lock(&l->mu);
    int w = snprintf(l->text + l->n, sizeof l->text - l->n, "%s: %s\n", level, line);
    if (w > 0) l->n = l->n + (size_t)w < sizeof l->text ? l->n + (size_t)w : sizeof l->text - 1;
    pthread_mutex_unlock(&l->mu);
}

/* Empties l and makes it o's log. */
static inline void et_lines_init(et_lines *l, czk_engine_opts *o) {
    pthread_mutex_init(&l->mu, NULL);
    l->n = 0;
    l->text[0] = 0;
    o->log = et_lines_hook;
    o->log_ctx = l;
}

static inline bool et_lines_has(et_lines *l, const char *s) {
    pthread_mutex_lock(&l->mu);
    bool r = strstr(l->text, s) != NULL;
    pthread_mutex_unlock(&l->mu);
    return r;
}

/* An engine serving no kind yet (a test registers its own). */
static inline czk_engine *et_start_bare(const czk_engine_opts *o) {
    czk_engine *e;
    czk_err err;
    czk_assert_ok(czk_engine_create(&e, o, &err), &err);
    return e;
}

/* An engine serving czk's kinds: the test kind, PoRep C2, the two PoSt kinds and SnapDeals
 * (the tests' composition root). */
static inline czk_engine *et_start(const czk_engine_opts *o) {
    czk_engine *e = et_start_bare(o);
    czk_err err;
    czk_assert_ok(czk_kinds_register_test(e, &err), &err);
    czk_assert_ok(czk_kinds_register_porep(e, &err), &err);
    czk_assert_ok(czk_kinds_register_post(e, &err), &err);
    czk_assert_ok(czk_kinds_register_snap(e, &err), &err);
    return e;
}

static inline void et_submit(czk_engine *e, char id[CZK_JOB_ID_MAX], const char *rid,
                             czk_priority prio, const char *payload) {
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.request_id = rid;
    r.kind = CZK_KIND_TEST;
    r.priority = prio;
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    czk_err err;
    czk_assert_ok(czk_engine_submit(e, &r, id, NULL, &err), &err);
}

static inline czk_job_result et_await(czk_engine *e, const char *id) {
    czk_job_result r;
    czk_err err;
    czk_status st = czk_engine_await(e, id, 60000, &r, &err);
    if (st) fail_msg("await %s: %s", id, err.msg);
    return r;
}

static inline czk_engine_status *et_status(czk_engine *e) {
    czk_engine_status *s;
    czk_err err;
    czk_assert_ok(czk_engine_status_get(e, &s, &err), &err);
    return s;
}

/* Waits until nothing is in flight and no working memory is held (5 s at most). */
static inline czk_engine_status *et_wait_idle(czk_engine *e) {
    for (int i = 0; i < 500; i++) {
        czk_engine_status *s = et_status(e);
        if (!s->budget_working && !s->synth_queue && !s->synthesizing && !s->gpu_queue &&
            !s->on_device && !s->finalize_queue && !s->finalizing)
            return s;
        czk_engine_status_free(s);
        usleep(10000);
    }
    fail_msg("engine did not become idle");
    return NULL;
}

/* ---- independent check of test-kind proofs ---- */

/* x_{i+1} = x_i·(x_i + 1) + (i + 1), 2^log − 3 steps (the test kind's chain, written again). */
static inline void et_chain(czk_fr *out, const czk_fr *x0, unsigned log) {
    czk_fr x = *x0, c, t;
    for (uint32_t i = 0; i < (1u << log) - 3u; i++) {
        czk_fr_from_u64(&c, i + 1);
        czk_fr_mul(&t, &x, &x);
        czk_fr_add(&t, &t, &x);
        czk_fr_add(&x, &t, &c);
    }
    *out = x;
}

/* Verifies every 192-byte partition proof of a test job against vk. */
static inline void et_verify(const czk_vk *vk, const czk_job_result *r, uint64_t seed,
                             unsigned partitions, unsigned log) {
    assert_int_equal(r->state, CZK_JOB_COMPLETED);
    assert_int_equal(r->proof_len, (size_t)partitions * CZK_PROOF_BYTES);
    czk_pvk *pvk = calloc(1, sizeof *pvk);
    czk_err err;
    czk_assert_ok(czk_pvk_prepare(pvk, vk, &err), &err);
    for (unsigned k = 0; k < partitions; k++) {
        czk_fr in[2];
        czk_rng rng;
        czk_rng_seed(&rng, seed * 1000003u + k);
        czk_assert_ok(czk_fr_random(&in[0], &rng, &err), &err);
        et_chain(&in[1], &in[0], log);
        czk_proof p;
        czk_assert_ok(czk_proof_decode(&p, r->proof + (size_t)k * CZK_PROOF_BYTES, &err), &err);
        czk_assert_ok(czk_verify(pvk, &p, in, 2, &err), &err);
        /* and it is bound to its inputs */
        czk_fr_add(&in[1], &in[1], &czk_fr_one);
        assert_int_equal(czk_verify(pvk, &p, in, 2, &err), CZK_ERR_VERIFY);
    }
    czk_pvk_free(pvk);
    free(pvk);
}

/* ---- keys for the test kind, made here from the circuit written again ---- */

static czk_status et_circuit(czk_cs *cs, void *ctx) {
    unsigned log = *(const unsigned *)ctx;
    czk_var x = czk_cs_alloc_input(cs, NULL), end = czk_cs_alloc_input(cs, NULL);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    uint32_t steps = (1u << log) - 3u;
    for (uint32_t i = 0; i < steps; i++) {
        czk_var next = i + 1 == steps ? end : czk_cs_alloc(cs, NULL);
        czk_fr ci;
        czk_fr_from_u64(&ci, i + 1);
        czk_fr_sub(&ci, &czk_fr_zero, &ci);
        czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
        czk_lc_add_var(cs, &a, x);
        czk_lc_add_var(cs, &b, x);
        czk_lc_add_var(cs, &b, CZK_VAR_ONE);
        czk_lc_add_var(cs, &c, next);
        czk_lc_add(cs, &c, CZK_VAR_ONE, &ci);
        czk_cs_enforce(cs, &a, &b, &c);
        x = next;
    }
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    return czk_cs_status(cs);
}

/* Writes <dir>/czk-test-<log>.params from a random setup; returns the parameters (their vk). */
static inline czk_params *et_make_keys(const char *dir, unsigned log, uint64_t seed) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, et_circuit, &log, &err), &err);
    czk_shape *shape;
    czk_assert_ok(czk_cs_take_shape(cs, &shape, &err), &err);
    czk_cs_free(cs);
    assert_int_equal(shape->num_constraints, 1u << log);
    czk_params *p;
    czk_assert_ok(czk_test_keys(&p, shape, seed, NULL, &err), &err);
    char path[1200];
    snprintf(path, sizeof path, "%s/czk-test-%u.params", dir, log);
    czk_assert_ok(czk_params_write(p, path, NULL, &err), &err);
    czk_shape_free(shape);
    return p;
}

/*
 * The group fixture of the engine tests that share one key set: g_dir, a fresh temporary
 * folder holding czk-test-<LOG>.params (et_make_keys, seed SEED), g_keys those parameters, and
 * group_setup / group_teardown for cmocka_run_group_tests.
 */
#define ET_KEYS_GROUP(LOG, SEED)                                                                   \
    static char g_dir[256];                                                                        \
    static czk_params *g_keys;                                                                     \
    static int group_setup(void **state) {                                                         \
        (void)state;                                                                               \
        czk_test_tmpdir(g_dir, sizeof g_dir, "engine");                                            \
        g_keys = et_make_keys(g_dir, (LOG), (SEED));                                               \
        return 0;                                                                                  \
    }                                                                                              \
    static int group_teardown(void **state) {                                                      \
        (void)state;                                                                               \
        czk_params_free(g_keys);                                                                   \
        czk_test_rm_rf(g_dir);                                                                     \
        return 0;                                                                                  \
    }

#endif
