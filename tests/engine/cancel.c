/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 180 */
/*
 * Cancellation that reaches work in progress, and the request ids and
 * results around it (include/czk/engine.h, "Request ids", "Results",
 * "Cancellation"):
 *   - the CPU backend's device part stops at its checkpoints when the
 *     lock's cancel flag is set (czk_device_lock.cancel): at once when it is
 *     set before the device is held, and between phases when it is set while
 *     the device part runs; without it the sums equal czk_prove's;
 *   - a job cancelled while a partition is on the (pseudo-)device, or while
 *     partitions synthesize, is CANCELLING (job info, the status snapshot's
 *     jobs) until that work has stopped, then CANCELLED, after the
 *     partitions' last events;
 *   - a cancelled (still stopping) or failed job's request id submits a new
 *     job at once (czk_submit_info.replaced), whose proof verifies; a
 *     completed one's is the stored result (existing), another request
 *     under it is a MISMATCH that is not an intake refusal, a refused
 *     payload says refused;
 *   - an awaited result stays for the retention time, then is pruned;
 *   - czk_engine_wait_stopped names what is still in flight and times out,
 *     then returns once the work has stopped.
 */
#include "etest.h"

#include "util/time.h"

#define LOG 8      /* the engine's jobs (keys in g_dir) */
#define BIG_LOG 12 /* the backend test's circuit: a device part of a few hundred ms */

ET_KEYS_GROUP(LOG, 61) /* test-8 */

/* ---- the CPU backend's checkpoints ---- */

/* The test kind's chain with values: x_{i+1} = x_i·(x_i + 1) + (i + 1) (etest.h et_chain). */
typedef struct chain {
    unsigned log;
    czk_fr x0;
} chain;

static czk_status chain_circuit(czk_cs *cs, void *ctx) {
    const chain *c = ctx;
    uint32_t steps = (1u << c->log) - 3u;
    czk_fr x = c->x0, end;
    et_chain(&end, &c->x0, c->log);
    bool vals = czk_cs_has_values(cs);
    czk_var xv = czk_cs_alloc_input(cs, vals ? &x : NULL);
    czk_var ev = czk_cs_alloc_input(cs, vals ? &end : NULL);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, cc = CZK_LC_INIT;
    for (uint32_t i = 0; i < steps; i++) {
        czk_fr ci, t, next;
        czk_fr_from_u64(&ci, i + 1);
        czk_fr_mul(&t, &x, &x);
        czk_fr_add(&t, &t, &x);
        czk_fr_add(&next, &t, &ci);
        czk_var nv = i + 1 == steps ? ev : czk_cs_alloc(cs, vals ? &next : NULL);
        czk_fr_sub(&ci, &czk_fr_zero, &ci);
        czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&cc);
        czk_lc_add_var(cs, &a, xv);
        czk_lc_add_var(cs, &b, xv);
        czk_lc_add_var(cs, &b, CZK_VAR_ONE);
        czk_lc_add_var(cs, &cc, nv);
        czk_lc_add(cs, &cc, CZK_VAR_ONE, &ci);
        czk_cs_enforce(cs, &a, &b, &cc);
        x = next;
        xv = nv;
    }
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&cc);
    return czk_cs_status(cs);
}

/* A lock that marks when the device is held; cancel_on_acquire sets the cancel flag then. */
typedef struct mark_lock {
    atomic_int cancel;
    atomic_int held;
    bool cancel_on_acquire;
} mark_lock;

static void mark_acquire(void *ctx) {
    mark_lock *m = ctx;
    if (m->cancel_on_acquire) atomic_store(&m->cancel, 1);
    atomic_store(&m->held, 1);
}
static void mark_release(void *ctx) {
    (void)ctx;
}

/* Sets the cancel flag as soon as the device is held (from another thread). */
static void *cancel_when_held(void *arg) {
    mark_lock *m = arg;
    while (!atomic_load(&m->held))
        usleep(200);
    atomic_store(&m->cancel, 1);
    return NULL;
}

static bool g1_eq(const czk_g1 *x, const czk_g1 *y) {
    return blst_p1_is_equal(x, y);
}

static void test_backend_checkpoints(void **state) {
    (void)state;
    czk_err err;
    chain c = {BIG_LOG, {{0}}};
    czk_fr_from_u64(&c.x0, 12345);
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, chain_circuit, &c, &err), &err);
    czk_shape *shape;
    czk_assert_ok(czk_cs_take_shape(cs, &shape, &err), &err);
    czk_cs_free(cs);
    czk_params *p;
    czk_assert_ok(czk_test_keys(&p, shape, 7, NULL, &err), &err);
    cs = czk_cs_create(CZK_CS_WITNESS, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, chain_circuit, &c, &err), &err);
    czk_witness w;
    czk_assert_ok(czk_cs_take_witness(cs, &w, &err), &err);
    czk_cs_free(cs);
    czk_pool *pool = czk_pool_create(2, &err);
    assert_non_null(pool);
    czk_backend be;
    czk_assert_ok(czk_backend_cpu(&be, pool, &err), &err);

    /* no cancel: the sums are czk_prove's (the CPU backend's sums()) */
    mark_lock m;
    memset(&m, 0, sizeof m);
    czk_device_lock lk = {mark_acquire, mark_release, &m, &m.cancel};
    czk_msm_sums full, ref;
    unsigned deferred = 0;
    czk_prove_timings t = {0};
    double t0 = czk_now_ms();
    czk_assert_ok(czk_prove_device(&be, p, shape, &w, &lk, &full, &deferred, &t, &err), &err);
    double full_ms = czk_now_ms() - t0;
    assert_int_equal(deferred, CZK_SUM_B2);
    czk_prove_timings t2 = {0};
    czk_assert_ok(be.ops->sums(be.self, p, shape, &w, 1, &ref, &t2, &err), &err);
    assert_true(g1_eq(&full.h, &ref.h) && g1_eq(&full.l, &ref.l) && g1_eq(&full.a, &ref.a) &&
                g1_eq(&full.b1, &ref.b1));

    /* cancelled while waiting for the device: stops before the first phase */
    memset(&m, 0, sizeof m);
    m.cancel_on_acquire = true;
    memset(&t, 0, sizeof t);
    czk_err_clear(&err);
    czk_msm_sums out;
    assert_int_equal(czk_prove_device(&be, p, shape, &w, &lk, &out, &deferred, &t, &err),
                     CZK_ERR_CANCELLED);
    assert_string_equal(err.msg, "prove: cancelled after the wait for the device");
    assert_true(t.spmv == 0 && t.ntt == 0 && t.msm_h == 0);

    /* cancelled while it runs (set by another thread once the device is held, long before the
     * last checkpoint: the device part takes full_ms): stops between phases, short of the
     * last MSM */
    memset(&m, 0, sizeof m);
    memset(&t, 0, sizeof t);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cancel_when_held, &m), 0);
    t0 = czk_now_ms();
    czk_status st = czk_prove_device(&be, p, shape, &w, &lk, &out, &deferred, &t, &err);
    double cut_ms = czk_now_ms() - t0;
    pthread_join(th, NULL);
    print_message("device part %.0f ms in full, %.0f ms cancelled (%s)\n", full_ms, cut_ms,
                  err.msg);
    assert_int_equal(st, CZK_ERR_CANCELLED);
    assert_non_null(strstr(err.msg, "prove: cancelled after "));
    assert_true(t.msm_b1 == 0); /* the last phase never ran */

    czk_backend_release(&be);
    czk_pool_destroy(pool);
    czk_witness_free(&w);
    czk_params_free(p);
    czk_shape_free(shape);
}

/* ---- the engine ---- */

static et_lines g_log;

static bool log_has(const char *s) {
    return et_lines_has(&g_log, s);
}

/* gpu_ms: the pseudo-GPU holds the device lock that long before the CPU backend's device part
 * (etest.h: a kernel that cannot be interrupted), ms. */
static czk_engine *start(ev_log *log, unsigned gpu_ms, uint64_t retention_ms) {
    czk_engine_opts o;
    et_opts(&o, log, gpu_ms);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.result_retention_ms = retention_ms;
    et_lines_init(&g_log, &o);
    return et_start(&o);
}

static czk_job_state state_of(czk_engine *e, const char *id) {
    czk_job_info info;
    if (czk_engine_job_info(e, id, &info, NULL)) return CZK_JOB_UNKNOWN;
    return info.state;
}

static void wait_event(ev_log *log, czk_event_type t, const char *job, int nth) {
    for (int i = 0; i < 2000 && !ev_find(log, t, job, -2, nth); i++)
        usleep(5000);
    assert_non_null(ev_find(log, t, job, -2, nth));
}

/* Position of an event in the log (emission order), or SIZE_MAX. */
static size_t ev_index(ev_log *l, czk_event_type t, const char *job, int partition) {
    size_t r = SIZE_MAX;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n && r == SIZE_MAX; i++)
        if (l->v[i].type == t && !strcmp(l->v[i].job, job) &&
            (partition == -2 || l->v[i].partition == partition))
            r = i;
    pthread_mutex_unlock(&l->mu);
    return r;
}

static void test_cancel_on_device(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 1500, 60000);
    char x[CZK_JOB_ID_MAX];
    et_submit(e, x, "on-device", CZK_PRIORITY_UNSPECIFIED, "seed=5 partitions=1 log=8");
    wait_event(&log, CZK_EV_GPU_START, x, 0);
    /* the partition holds the device for 1.5 s: cancelled now, it is still there */
    bool was_running = false;
    czk_err err;
    czk_assert_ok(czk_engine_cancel(e, x, &was_running, &err), &err);
    assert_true(was_running);
    assert_int_equal(state_of(e, x), CZK_JOB_CANCELLING);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->jobs_cancelling, 1);
    assert_int_equal(s->num_jobs, 1);
    assert_string_equal(s->jobs[0].job_id, x);
    assert_int_equal(s->jobs[0].state, CZK_JOB_CANCELLING);
    assert_int_equal(s->jobs[0].in_flight, 1);
    assert_int_equal(s->proofs_cancelled, 0); /* not until it has stopped */
    czk_engine_status_free(s);
    /* an await within the stop times out: it is not finished */
    czk_job_result r;
    assert_int_equal(czk_engine_await(e, x, 0, &r, &err), CZK_ERR_TIMEOUT);
    r = et_await(e, x);
    assert_int_equal(r.state, CZK_JOB_CANCELLED);
    czk_job_result_free(&r);
    /* CANCELLED after the device was let go, and the backend stopped at its first checkpoint:
     * the partition never reached a finalizer */
    size_t end = ev_index(&log, CZK_EV_GPU_END, x, 0),
           done = ev_index(&log, CZK_EV_JOB_DONE, x, -1);
    assert_true(end != SIZE_MAX && done != SIZE_MAX && end < done);
    assert_true(ev_has(ev_find(&log, CZK_EV_JOB_DONE, x, -1, 0), "status=CANCELLED"));
    assert_int_equal(ev_count(&log, CZK_EV_FINALIZE_START, x), 0);
    assert_true(log_has("job on-device: cancelling (requested): 0 queued partitions dropped, 1 "
                        "still held by workers"));
    assert_true(log_has("job on-device partition 0 device -1: stopped (prove: cancelled after "
                        "the wait for the device)"));
    assert_true(log_has("job on-device: cancelled; its work stopped "));
    s = et_wait_idle(e);
    assert_int_equal(s->jobs_cancelling, 0);
    assert_int_equal(s->num_jobs, 0);
    assert_int_equal(s->proofs_cancelled, 1);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
}

static void test_cancel_in_synthesis(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 0, 60000);
    char x[CZK_JOB_ID_MAX];
    /* a first job measures the circuit's partition (its first partition runs alone) */
    et_submit(e, x, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=1 partitions=1 log=8");
    czk_job_result r = et_await(e, x);
    czk_job_result_free(&r);
    et_submit(e, x, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=6 partitions=4 log=8 synth_ms=20000");
    wait_event(&log, CZK_EV_SYNTH_START, x, 1); /* two partitions synthesize, two are queued */
    czk_err err;
    uint64_t t_cancel = czk_now_ms();
    czk_assert_ok(czk_engine_cancel(e, x, NULL, &err), &err);
    /* the synthesizing partitions stop at their next cancel check (every 5 ms): on a loaded
     * machine (CI's 2 cores under ASan) that can come before this thread looks again, so the
     * job is CANCELLING or already CANCELLED here, never still RUNNING */
    czk_job_state st = state_of(e, x);
    if (st != CZK_JOB_CANCELLED) assert_int_equal(st, CZK_JOB_CANCELLING);
    r = et_await(e, x);
    uint64_t stopped_ms = czk_now_ms() - t_cancel;
    assert_int_equal(r.state, CZK_JOB_CANCELLED);
    czk_job_result_free(&r);
    /* they stopped at their next cancel check (every 5 ms), not after their 20 s; the bound
     * only has to tell those apart */
    print_message("cancel to CANCELLED: %llu ms\n", (unsigned long long)stopped_ms);
    assert_true(stopped_ms < 5000);
    /* both synthesis ends (cancelled) come before the job's end */
    size_t done = ev_index(&log, CZK_EV_JOB_DONE, x, -1), ends = 0;
    assert_true(done != SIZE_MAX);
    for (size_t i = 0; i < done; i++)
        if (log.v[i].type == CZK_EV_SYNTH_END && !strcmp(log.v[i].job, x)) {
            assert_true(strstr(log.v[i].line, "error=CZK_ERR_CANCELLED") != NULL);
            ends++;
        }
    assert_int_equal(ends, 2);
    assert_int_equal(ev_count(&log, CZK_EV_SYNTH_START, x), 2);
    czk_engine_destroy(e);
    free(log.v);
}

static czk_status submit(czk_engine *e, const char *rid, const char *payload,
                         char id[CZK_JOB_ID_MAX], czk_submit_info *info, czk_err *err) {
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.request_id = rid;
    r.kind = CZK_KIND_TEST;
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    return czk_engine_submit(e, &r, id, info, err);
}

static void test_request_id_reuse(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 0, 60000);
    char id[CZK_JOB_ID_MAX];
    czk_submit_info si;
    czk_err err;
    /* cancelled, its partitions still stopping: the same request under its id is a new job */
    const char *slow = "seed=7 partitions=2 log=8 synth_ms=400";
    czk_assert_ok(submit(e, "K2", slow, id, &si, &err), &err);
    assert_false(si.existing || si.replaced || si.refused);
    wait_event(&log, CZK_EV_SYNTH_START, "K2", 0);
    czk_assert_ok(czk_engine_cancel(e, "K2", NULL, &err), &err);
    czk_assert_ok(submit(e, "K2", slow, id, &si, &err), &err);
    assert_string_equal(id, "K2");
    assert_true(si.replaced);
    assert_false(si.existing);
    assert_int_equal(ev_count(&log, CZK_EV_JOB_SUBMIT, "K2"), 2);
    czk_job_result r = et_await(e, "K2");
    et_verify(&g_keys->vk, &r, 7, 2, LOG);
    czk_job_result_free(&r);
    /* the first one ended CANCELLED, the new one COMPLETED */
    assert_true(ev_has(ev_find(&log, CZK_EV_JOB_DONE, "K2", -1, 0), "status=CANCELLED"));
    assert_true(ev_has(ev_find(&log, CZK_EV_JOB_DONE, "K2", -1, 1), "status=COMPLETED"));

    /* completed: the same request is the stored result, another one is refused, and that
     * refusal is not an intake refusal */
    czk_assert_ok(submit(e, "K2", slow, id, &si, &err), &err);
    assert_true(si.existing);
    assert_int_equal(ev_count(&log, CZK_EV_JOB_SUBMIT, "K2"), 2);
    assert_int_equal(submit(e, "K2", "seed=8 partitions=1 log=8", id, &si, &err), CZK_ERR_MISMATCH);
    assert_false(si.refused);
    assert_non_null(strstr(err.msg, "request id K2 is the job of another request (test, "
                                    "COMPLETED)"));
    /* a payload the kind refuses: refused at intake, and no job under the id */
    assert_int_equal(submit(e, "R1", "seed=x", id, &si, &err), CZK_ERR_FORMAT);
    assert_true(si.refused);
    assert_int_equal(state_of(e, "R1"), CZK_JOB_UNKNOWN);

    /* failed: a new request under its id is a new job */
    czk_assert_ok(submit(e, "F1", "seed=9 partitions=2 log=8 fail=1", id, &si, &err), &err);
    r = et_await(e, "F1");
    assert_int_equal(r.state, CZK_JOB_FAILED);
    czk_job_result_free(&r);
    czk_assert_ok(submit(e, "F1", "seed=10 partitions=1 log=8", id, &si, &err), &err);
    assert_true(si.replaced);
    r = et_await(e, "F1");
    et_verify(&g_keys->vk, &r, 10, 1, LOG);
    czk_job_result_free(&r);
    czk_engine_status *s = et_wait_idle(e);
    assert_int_equal(s->proofs_completed, 2);
    assert_int_equal(s->proofs_cancelled, 1);
    assert_int_equal(s->proofs_failed, 2); /* F1's first job, and R1 refused at intake */
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
}

static void test_result_kept_after_await(void **state) {
    (void)state;
    czk_engine *e = start(NULL, 0, 400);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, "keep-1", CZK_PRIORITY_UNSPECIFIED, "seed=11 partitions=1 log=8");
    czk_job_result a = et_await(e, id), b = et_await(e, id);
    et_verify(&g_keys->vk, &a, 11, 1, LOG);
    assert_int_equal(a.proof_len, b.proof_len);
    assert_memory_equal(a.proof, b.proof, a.proof_len);
    czk_job_result_free(&a);
    czk_job_result_free(&b);
    /* then pruned after the retention time (fetched: not counted as pruned unfetched) */
    for (int i = 0; i < 300 && state_of(e, id) != CZK_JOB_UNKNOWN; i++)
        usleep(10000);
    assert_int_equal(state_of(e, id), CZK_JOB_UNKNOWN);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->results_pruned, 0);
    assert_int_equal(s->results_stored, 0);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
}

static void test_wait_stopped(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 1500, 60000);
    char x[CZK_JOB_ID_MAX];
    et_submit(e, x, "stuck", CZK_PRIORITY_UNSPECIFIED, "seed=12 partitions=1 log=8");
    wait_event(&log, CZK_EV_GPU_START, x, 0);
    czk_engine_shutdown(e, false);
    assert_int_equal(state_of(e, x), CZK_JOB_CANCELLING);
    czk_err err;
    czk_err_clear(&err);
    assert_int_equal(czk_engine_wait_stopped(e, 100, &err), CZK_ERR_TIMEOUT);
    assert_non_null(strstr(err.msg, "engine: work still in flight after "));
    assert_non_null(strstr(err.msg, "job stuck (CANCELLING) partition 0 on device -1 for "));
    assert_true(log_has("engine: waiting for work to stop (1 in flight, for at most 100 ms): job "
                        "stuck (CANCELLING) partition 0 on device -1"));
    czk_assert_ok(czk_engine_wait_stopped(e, -1, &err), &err);
    assert_int_equal(state_of(e, x), CZK_JOB_CANCELLED);
    czk_assert_ok(czk_engine_wait_stopped(e, 0, &err), &err);
    czk_engine_destroy(e);
    free(log.v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend_checkpoints),     cmocka_unit_test(test_cancel_on_device),
        cmocka_unit_test(test_cancel_in_synthesis),     cmocka_unit_test(test_request_id_reuse),
        cmocka_unit_test(test_result_kept_after_await), cmocka_unit_test(test_wait_stopped),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
