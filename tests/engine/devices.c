/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 180 */
/*
 * Several devices, as CPU pseudo-devices (gpus.cpu_devices = 2: each its own
 * backend and GPU workers; here the tests' slow pseudo-GPU, 40 ms of device
 * lock per partition):
 *   - dispatch: one job's partitions run on both devices at once (a device
 *     starts one while the other holds its lock), two jobs interleave across
 *     them, and every partition goes to a free device;
 *   - byte-equal proofs: with r, s fixed per partition (the engine's
 *     test-only randomness hook), the proof bytes of a job proved on two
 *     devices, or on two devices one of which fails midway, equal those of
 *     the same job on one device;
 *   - a device failure (its backend returns CZK_ERR_DEVICE, injected here
 *     into one pseudo-device) takes only that device down: its partition
 *     goes back to the GPU queue, the job completes on the other device with
 *     a proof that verifies, the status, the /status JSON and the metrics
 *     show the device failed, and later jobs are served; when every device
 *     has failed, jobs fail with CZK_ERR_DEVICE naming why, and the engine
 *     still answers.
 */
#include "etest.h"

#include "czk/httpstatus.h"

#include <stdatomic.h>

ET_KEYS_GROUP(8, 88) /* test-8 */

/* ---- r, s fixed per (job, partition): the same in every engine of a test ---- */

static void fixed_rs(void *ctx, const char *job_id, uint32_t partition, czk_fr *r, czk_fr *s) {
    (void)ctx;
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the job id */
    for (const char *c = job_id; *c; c++)
        h = (h ^ (uint8_t)*c) * 1099511628211ull;
    czk_rng rng;
    czk_rng_seed(&rng, h + partition);
    czk_err err;
    czk_assert_ok(czk_fr_random(r, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(s, &rng, &err), &err);
}

/* ---- a pseudo-device that fails: the slow backend, with device failures injected ---- */

typedef struct fail_be {
    czk_backend inner;
    atomic_int fail_after; /* device parts that succeed before every later one fails; -1 never */
    atomic_int calls;
} fail_be;

static fail_be *g_fail[CZK_ENGINE_MAX_DEVICES]; /* by pseudo-device k */
static int g_fail_after[CZK_ENGINE_MAX_DEVICES];

static czk_status fail_sums(void *self, const czk_params *p, const czk_shape *s,
                            const czk_witness *w, size_t count, czk_msm_sums *out,
                            czk_prove_timings *t, czk_err *err) {
    fail_be *b = self;
    return b->inner.ops->sums(b->inner.self, p, s, w, count, out, t, err);
}

static czk_status fail_device(void *self, const czk_params *p, const czk_shape *s,
                              const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                              unsigned *deferred, czk_prove_timings *t, czk_err *err) {
    fail_be *b = self;
    int n = atomic_fetch_add(&b->calls, 1), after = atomic_load(&b->fail_after);
    if (after >= 0 && n >= after) {
        /* as the CUDA backend reports a kernel that faulted: the lock was held */
        czk_device_lock_acquire(lock);
        czk_device_lock_release(lock);
        return czk_errf(err, CZK_ERR_DEVICE,
                        "msm_g1: launch: cudaErrorLaunchFailure (injected into this device)");
    }
    return b->inner.ops->device(b->inner.self, p, s, w, lock, out, deferred, t, err);
}

static void fail_destroy(void *self) {
    fail_be *b = self;
    czk_backend_release(&b->inner);
    free(b);
}

static const czk_backend_ops FAIL_OPS = {"cpu-fail", fail_sums, fail_destroy, fail_device, NULL,
                                         NULL,       NULL,      NULL,         NULL};

/* ctx: the slow backend's gpu_ms. Pseudo-device k fails after g_fail_after[k] partitions. */
static czk_status fail_factory(void *ctx, int device, czk_pool *pool, czk_backend *out,
                               czk_err *err) {
    assert_true(device < 0); /* pseudo-devices: -1 - k */
    int k = -1 - device;
    fail_be *b = calloc(1, sizeof *b);
    assert_non_null(b);
    czk_assert_ok(slow_factory(ctx, device, pool, &b->inner, err), err);
    atomic_store(&b->fail_after, g_fail_after[k]);
    g_fail[k] = b;
    out->ops = &FAIL_OPS;
    out->self = b;
    return CZK_OK;
}

/* ---- engines ---- */

static czk_engine *start(ev_log *log, unsigned devices, unsigned gpu_ms, unsigned workers) {
    czk_engine_opts o;
    et_opts(&o, log, gpu_ms);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.cpu_devices = devices;
    o.config.gpu_workers_per_device = workers;
    o.make_backend = fail_factory;
    o.randomness = fixed_rs;
    return et_start(&o);
}

static void no_failures(void) {
    for (int k = 0; k < CZK_ENGINE_MAX_DEVICES; k++)
        g_fail_after[k] = -1;
}

/* The proof bytes of one test job (request id rid) on an engine with `devices` devices. */
static czk_job_result prove(czk_engine *e, const char *rid, const char *payload) {
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, rid, CZK_PRIORITY_UNSPECIFIED, payload);
    assert_string_equal(id, rid);
    return et_await(e, id);
}

/* The device (ordinal) of the k-th GPU_START of a job, from its line ("device=-2"). */
static int start_device(const ev_rec *r) {
    const char *p = r ? strstr(r->line, "device=") : NULL;
    assert_non_null(p);
    return atoi(p + 7);
}

static void dispatch(unsigned workers) {
    no_failures();
    ev_log log;
    /* 150 ms of device time a partition: well above a partition's synthesis even on a loaded
     * 2-core CI machine, so partitions wait in the GPU queue and a device that frees up finds
     * one. With 40 ms a CI run once left a device with fewer than 3, most likely because
     * synthesis fell behind: a partition that comes while both devices are free goes to the
     * lower index. */
    czk_engine *e = start(&log, 2, 150, workers);
    char a[CZK_JOB_ID_MAX], b[CZK_JOB_ID_MAX];
    et_submit(e, a, "d-a", CZK_PRIORITY_UNSPECIFIED, "seed=201 partitions=6 log=8");
    et_submit(e, b, "d-b", CZK_PRIORITY_UNSPECIFIED, "seed=202 partitions=4 log=8");
    czk_job_result ra = et_await(e, a), rb = et_await(e, b);
    et_verify(&g_keys->vk, &ra, 201, 6, 8);
    et_verify(&g_keys->vk, &rb, 202, 4, 8);
    czk_engine_status *s = et_wait_idle(e);
    assert_int_equal(s->num_devices, 2);
    assert_int_equal(s->devices[0].ordinal, -1);
    assert_int_equal(s->devices[1].ordinal, -2);
    assert_string_equal(s->devices[1].identity.name, "cpu pseudo-device 1");
    uint64_t p0 = s->devices[0].partitions_proved, p1 = s->devices[1].partitions_proved;
    assert_int_equal(p0 + p1, 10);
    /* a device is free first about as often as the other: neither idles */
    if (p0 < 3 || p1 < 3)
        fail_msg("dispatch, %u GPU workers a device: partitions proved %llu and %llu, expected "
                 "at least 3 each",
                 workers, (unsigned long long)p0, (unsigned long long)p1);
    assert_int_equal(s->devices_failed, 0);
    czk_engine_status_free(s);
    /* the devices worked at once: some GPU_START on one device while the other held its
     * lock, and partitions of job a ran on both */
    bool overlap = false, a_on[2] = {false, false};
    pthread_mutex_lock(&log.mu);
    for (size_t i = 0; i < log.n; i++) {
        const ev_rec *r = &log.v[i];
        if (r->type != CZK_EV_GPU_START) continue;
        int d = start_device(r);
        if (!strcmp(r->job, "d-a")) a_on[-1 - d] = true;
        /* is the other device between a GPU_START and its GPU_END at this point? */
        int depth = 0;
        for (size_t k = 0; k < i; k++) {
            const ev_rec *q = &log.v[k];
            if ((q->type == CZK_EV_GPU_START || q->type == CZK_EV_GPU_END) && start_device(q) != d)
                depth += q->type == CZK_EV_GPU_START ? 1 : -1;
        }
        overlap |= depth > 0;
    }
    pthread_mutex_unlock(&log.mu);
    assert_true(overlap);
    assert_true(a_on[0] && a_on[1]);
    czk_job_result_free(&ra);
    czk_job_result_free(&rb);
    czk_engine_destroy(e);
    free(log.v);
}

static void test_dispatch(void **state) {
    (void)state;
    dispatch(1); /* one GPU worker per device */
    dispatch(2); /* two: a device's second worker prepares while the first holds the lock */
}

static void test_byte_equal(void **state) {
    (void)state;
    no_failures();
    const char *payload = "seed=211 partitions=6 log=8";
    czk_engine *e1 = start(NULL, 1, 0, 2);
    czk_job_result one = prove(e1, "eq-1", payload);
    et_verify(&g_keys->vk, &one, 211, 6, 8);
    czk_engine_destroy(e1);

    czk_engine *e2 = start(NULL, 2, 30, 1);
    czk_job_result two = prove(e2, "eq-1", payload);
    et_verify(&g_keys->vk, &two, 211, 6, 8);
    czk_engine_status *s = et_wait_idle(e2);
    assert_true(s->devices[0].partitions_proved >= 1 && s->devices[1].partitions_proved >= 1);
    czk_engine_status_free(s);
    czk_engine_destroy(e2);
    assert_int_equal(two.proof_len, one.proof_len);
    assert_memory_equal(two.proof, one.proof, one.proof_len);

    /* another job id: other r, s, other bytes (the hook is what fixes them) */
    czk_engine *e3 = start(NULL, 1, 0, 2);
    czk_job_result other = prove(e3, "eq-2", payload);
    et_verify(&g_keys->vk, &other, 211, 6, 8);
    czk_engine_destroy(e3);
    for (unsigned k = 0; k < 6; k++)
        assert_memory_not_equal(other.proof + k * CZK_PROOF_BYTES, one.proof + k * CZK_PROOF_BYTES,
                                CZK_PROOF_BYTES);
    czk_job_result_free(&one);
    czk_job_result_free(&two);
    czk_job_result_free(&other);
}

static bool contains(const char *hay, const char *needle) {
    if (strstr(hay, needle)) return true;
    fprintf(stderr, "'%s' not found in:\n%s\n", needle, hay);
    return false;
}

static void test_one_device_fails(void **state) {
    (void)state;
    no_failures();
    const char *payload = "seed=221 partitions=6 log=8";
    czk_engine *e1 = start(NULL, 1, 0, 2);
    czk_job_result ref = prove(e1, "f-1", payload);
    czk_engine_destroy(e1);

    g_fail_after[0] = 1; /* pseudo-device 0 proves one partition, then fails */
    ev_log log;
    czk_engine *e = start(&log, 2, 40, 1);
    czk_job_result r = prove(e, "f-1", payload);
    et_verify(&g_keys->vk, &r, 221, 6, 8);
    assert_int_equal(r.proof_len, ref.proof_len);
    assert_memory_equal(r.proof, ref.proof, ref.proof_len);
    assert_int_equal(atomic_load(&g_fail[0]->calls), 2); /* it took no work after failing */

    czk_engine_status *s = et_wait_idle(e);
    const czk_engine_device_status *d0 = &s->devices[0], *d1 = &s->devices[1];
    assert_true(d0->failed);
    assert_false(d1->failed);
    assert_true(contains(d0->error, "cudaErrorLaunchFailure (injected into this device)"));
    assert_int_equal(d0->partitions_proved, 1);
    assert_int_equal(d0->partitions_requeued, 1);
    assert_int_equal(d1->partitions_proved, 5);
    assert_int_equal(s->devices_failed, 1);
    assert_int_equal(s->proofs_failed, 0);
    /* its workers stopped; the other device's serve */
    unsigned gpu_busy = 0;
    for (size_t i = 0; i < s->num_workers; i++)
        gpu_busy += s->workers[i].role == CZK_WORKER_GPU && s->workers[i].busy;
    assert_int_equal(gpu_busy, 0);
    char *json;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_status_page_json(s, 0, &json, &len, &err), &err);
    assert_true(contains(json, "\"index\":0,\"ordinal\":-1,\"name\":\"cpu-fail\","
                               "\"device_name\":\"cpu pseudo-device 0\",\"uuid\":\"\","
                               "\"pci_bus_id\":\"\",\"cpu_pseudo_device\":true,\"failed\":true,"
                               "\"error\":\"msm_g1: launch: cudaErrorLaunchFailure (injected into "
                               "this device)\""));
    assert_true(contains(json, "\"index\":1,\"ordinal\":-2,\"name\":\"cpu-fail\","
                               "\"device_name\":\"cpu pseudo-device 1\""));
    assert_true(contains(json, "\"devices_failed\":1"));
    free(json);
    czk_engine_status_free(s);
    char *m;
    czk_assert_ok(czk_metrics_text(e, &m, &err), &err);
    assert_true(contains(m, "czk_gpu_failed{device=\"-1\"} 1\n"));
    assert_true(contains(m, "czk_gpu_failed{device=\"-2\"} 0\n"));
    assert_true(contains(m, "czk_gpu_partitions_requeued_total{device=\"-1\"} 1\n"));
    assert_true(contains(m, "czk_gpu_partitions_proved_total{device=\"-2\"} 5\n"));
    free(m);
    const ev_rec *fe = NULL;
    for (int k = 0; k < 6 && !fe; k++)
        fe = ev_find(&log, CZK_EV_DEVICE_FAILED, "f-1", k, 0);
    assert_true(ev_has(fe, "device=-1 requeued=1 error=CZK_ERR_DEVICE"));
    assert_int_equal(ev_count(&log, CZK_EV_DEVICE_FAILED, NULL), 1);

    /* the engine keeps serving, on the device left */
    czk_job_result again = prove(e, "f-2", "seed=222 partitions=3 log=8");
    et_verify(&g_keys->vk, &again, 222, 3, 8);
    s = et_wait_idle(e);
    assert_int_equal(s->devices[1].partitions_proved, 8);
    assert_int_equal(s->devices[0].partitions_proved, 1);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
    czk_job_result_free(&ref);
    czk_job_result_free(&r);
    czk_job_result_free(&again);
}

static void test_every_device_fails(void **state) {
    (void)state;
    no_failures();
    g_fail_after[0] = 0;
    g_fail_after[1] = 0;
    czk_engine *e = start(NULL, 2, 20, 1);
    czk_job_result r = prove(e, "all-1", "seed=231 partitions=4 log=8");
    assert_int_equal(r.state, CZK_JOB_FAILED);
    assert_int_equal(r.error_code, CZK_ERR_DEVICE);
    if (!strstr(r.error, "no device is left") && !strstr(r.error, "every device has failed"))
        fail_msg("error: %s", r.error);
    czk_job_result_free(&r);
    czk_engine_status *s = et_wait_idle(e);
    assert_int_equal(s->devices_failed, 2);
    assert_true(s->devices[0].failed && s->devices[1].failed);
    czk_engine_status_free(s);
    /* later work is refused by the device stage, not lost: it fails, naming why */
    r = prove(e, "all-2", "seed=232 partitions=2 log=8");
    assert_int_equal(r.state, CZK_JOB_FAILED);
    assert_int_equal(r.error_code, CZK_ERR_DEVICE);
    assert_true(contains(r.error, "every device has failed"));
    czk_job_result_free(&r);
    czk_engine_destroy(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_byte_equal),
        cmocka_unit_test(test_one_device_fails),
        cmocka_unit_test(test_every_device_fails),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
