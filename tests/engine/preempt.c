/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * Priority under load: a long NORMAL job keeps the pseudo-GPU busy (150 ms
 * per partition, two GPU workers, the GPU queue full at its limit of 4 and
 * the synthesis workers held back by it) when a CRITICAL job is submitted.
 * Asserted from the timeline, in event order:
 *   - the CRITICAL partition's synthesis starts before any partition of the
 *     long job that had not started when the submit returned, and before
 *     the GPU takes another of the long job's partitions (the full GPU queue
 *     does not hold it back);
 *   - it is the next partition on the device once it is in the GPU queue:
 *     no partition of the long job starts on the device between its
 *     GPU_QUEUE and its GPU_START, although the second GPU worker already
 *     held one of the long job's partitions, waiting for the device;
 *   - the long job then completes with every partition proved once, and
 *     both jobs' proofs verify against keys the test made.
 * The same with the CRITICAL job on a circuit whose keys are loaded but
 * that was never measured (test-7): it does not wait for the pipeline to
 * drain so that its first partition can be measured alone; it runs at
 * once, unmeasured (no probe).
 */
#include "etest.h"

static char g_dir[256];
static czk_params *g_k7, *g_k8;

static int group_setup(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "preempt");
    g_k7 = et_make_keys(g_dir, 7, 70);
    g_k8 = et_make_keys(g_dir, 8, 80);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_params_free(g_k7);
    czk_params_free(g_k8);
    czk_test_rm_rf(g_dir);
    return 0;
}

/* The index in the log of the nth event of a type for (job, partition -2: any), or -1. */
static long ev_index(ev_log *l, czk_event_type t, const char *job, int nth) {
    long r = -1;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n && r < 0; i++)
        if (l->v[i].type == t && !strcmp(l->v[i].job, job) && nth-- == 0) r = (long)i;
    pthread_mutex_unlock(&l->mu);
    if (r < 0) fail_msg("no %s #%d of %s", czk_event_name(t), nth, job);
    return r;
}

/* Events of a type for job at indices [from, to). */
static size_t ev_between(ev_log *l, czk_event_type t, const char *job, long from, long to) {
    size_t n = 0;
    pthread_mutex_lock(&l->mu);
    for (long i = from < 0 ? 0 : from; i < to && i < (long)l->n; i++)
        n += l->v[i].type == t && !strcmp(l->v[i].job, job);
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* Waits until the nth partition of job has started on the device, then a third of a hold:
 * a submit now falls while the device is held (not in the instant between two holds, when
 * both GPU workers may already have taken the next partitions). */
static void wait_device(ev_log *l, const char *id, size_t n) {
    for (int i = 0; i < 2000 && ev_count(l, CZK_EV_GPU_START, id) < n; i++)
        usleep(5000);
    if (ev_count(l, CZK_EV_GPU_START, id) < n)
        fail_msg("job %s: %zu partitions not started", id, n);
    usleep(50000);
}

#define LONG_PARTS 16

static void run(unsigned crit_log) {
    ev_log log;
    czk_engine_opts o;
    et_opts(&o, &log, 150);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    czk_engine *e = et_start(&o);
    assert_int_equal(czk_engine_get_config(e)->max_gpu_queue_depth, CZK_GPU_QUEUE_AUTO);
    char warm[CZK_JOB_ID_MAX], lng[CZK_JOB_ID_MAX], crit[CZK_JOB_ID_MAX];
    et_submit(e, warm, NULL, CZK_PRIORITY_NORMAL, "seed=1 partitions=1 log=8"); /* measures */
    czk_job_result r = et_await(e, warm);
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    czk_job_result_free(&r);

    czk_err err;
    if (crit_log != 8) /* its keys loaded, the circuit not measured (no partition ran) */
        czk_assert_ok(czk_engine_preload(e, "test-7", true, NULL, NULL, &err), &err);
    et_submit(e, lng, NULL, CZK_PRIORITY_NORMAL, "seed=2 partitions=16 log=8");
    wait_device(&log, lng, 4);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->gpu_queue_limit, 4); /* 2 per GPU worker */
    czk_engine_status_free(s);
    char payload[64];
    snprintf(payload, sizeof payload, "seed=3 partitions=1 log=%u", crit_log);
    et_submit(e, crit, NULL, CZK_PRIORITY_CRITICAL, payload);
    long at_submit;
    pthread_mutex_lock(&log.mu);
    at_submit = (long)log.n;
    pthread_mutex_unlock(&log.mu);

    r = et_await(e, crit);
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    et_verify(crit_log == 7 ? &g_k7->vk : &g_k8->vk, &r, 3, 1, crit_log);
    czk_job_result_free(&r);
    r = et_await(e, lng);
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    et_verify(&g_k8->vk, &r, 2, LONG_PARTS, 8);
    czk_job_result_free(&r);

    long c_synth = ev_index(&log, CZK_EV_SYNTH_START, crit, 0);
    long c_queue = ev_index(&log, CZK_EV_GPU_QUEUE, crit, 0);
    long c_start = ev_index(&log, CZK_EV_GPU_START, crit, 0);
    /* from when the job was queued (read after the submit returned: a worker may have taken
     * it first) */
    long ready = at_submit < c_synth ? at_submit : c_synth;
    /* still running when the CRITICAL job came, and it was more than the device held */
    assert_true(ev_between(&log, CZK_EV_GPU_START, lng, c_start, (long)log.n) >= 4);
    /* synthesis: no partition of the long job started between the submit and it, and the GPU
     * did not have to take one of the long job's first (the queue was full); an unmeasured
     * circuit did not wait for the long job's partitions to drain (the 4 in the GPU queue
     * and the 2 on the GPU workers would have ended on the device first) */
    assert_int_equal(ev_between(&log, CZK_EV_SYNTH_START, lng, ready, c_synth), 0);
    assert_int_equal(ev_between(&log, CZK_EV_GPU_PICKUP, lng, ready, c_synth), 0);
    assert_int_equal(ev_between(&log, CZK_EV_GPU_END, lng, ready, c_synth), 0);
    /* the device: the next partition on it once it was queued */
    assert_int_equal(ev_between(&log, CZK_EV_GPU_START, lng, c_queue, c_start), 0);
    /* the second GPU worker held a long partition meanwhile (the lock's order mattered) */
    assert_true(ev_between(&log, CZK_EV_GPU_PICKUP, lng, 0, c_start) >
                ev_between(&log, CZK_EV_GPU_START, lng, 0, c_start));
    /* every long partition proved once */
    assert_int_equal(ev_count(&log, CZK_EV_GPU_START, lng), LONG_PARTS);
    if (crit_log == 7) /* unmeasured: not the probe, which runs alone */
        assert_false(ev_has(ev_find(&log, CZK_EV_SYNTH_START, crit, 0, 0), "probe=1"));
    czk_engine_destroy(e);
    free(log.v);
}

static void test_critical_same_circuit(void **state) {
    (void)state;
    run(8);
}

static void test_critical_new_circuit(void **state) {
    (void)state;
    run(7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_critical_same_circuit),
        cmocka_unit_test(test_critical_new_circuit),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
