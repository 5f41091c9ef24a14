/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 180 */
/*
 * The partition pipeline on the CPU backend with a pseudo-GPU that holds
 * its lock 50 ms per partition: several multi-partition jobs in flight with
 * two synthesis workers interleave per partition (asserted from the
 * timeline), every stage of every partition happens in order, synthesis
 * never runs on more than two workers, the device lock is never held twice,
 * priorities order the synthesis queue, cancellation stops work and returns
 * the memory, a bad job fails alone, and every completed proof verifies
 * against keys made by the test (not by the engine).
 */
#include "etest.h"

ET_KEYS_GROUP(8, 77) /* test-8 */

static czk_engine *start(ev_log *log, unsigned gpu_ms, unsigned gpu_queue_depth) {
    czk_engine_opts o;
    et_opts(&o, log, gpu_ms);
    o.config.max_gpu_queue_depth = gpu_queue_depth;
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    return et_start(&o);
}

/* Position of an event in the log (emission order), or SIZE_MAX. */
static size_t ev_index(ev_log *l, czk_event_type t, const char *job, int partition) {
    size_t r = SIZE_MAX;
    pthread_mutex_lock(&l->mu);
    for (size_t i = 0; i < l->n && r == SIZE_MAX; i++)
        if (l->v[i].type == t && !strcmp(l->v[i].job, job) && l->v[i].partition == partition) r = i;
    pthread_mutex_unlock(&l->mu);
    return r;
}

/* Largest number of [start, end) intervals of (t0, t1) events open at once. */
static int max_overlap(ev_log *l, czk_event_type t0, czk_event_type t1) {
    int open = 0, best = 0;
    pthread_mutex_lock(&l->mu);
    /* events are in emission order, which is the order of the state changes */
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].type == t0 && ++open > best) best = open;
        if (l->v[i].type == t1) open--;
    }
    pthread_mutex_unlock(&l->mu);
    return best;
}

static void test_interleave(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 50, 2);
    char ids[3][CZK_JOB_ID_MAX];
    const uint64_t seeds[3] = {11, 12, 13};
    for (int i = 0; i < 3; i++) {
        char p[128];
        snprintf(p, sizeof p, "seed=%llu partitions=4 log=8 synth_ms=40",
                 (unsigned long long)seeds[i]);
        et_submit(e, ids[i], NULL, CZK_PRIORITY_UNSPECIFIED, p);
    }
    for (int i = 0; i < 3; i++) {
        czk_job_result r = et_await(e, ids[i]);
        et_verify(&g_keys->vk, &r, seeds[i], 4, 8);
        assert_true(r.gpu_compute_ms >= 4 * 50);
        czk_job_result_free(&r);
    }
    /* every partition went through every stage, in order */
    static const czk_event_type order[] = {
        CZK_EV_SYNTH_START, CZK_EV_SYNTH_END, CZK_EV_GPU_QUEUE,      CZK_EV_GPU_PICKUP,
        CZK_EV_GPU_START,   CZK_EV_GPU_END,   CZK_EV_FINALIZE_START, CZK_EV_FINALIZE_END};
    for (int i = 0; i < 3; i++) {
        const ev_rec *done = ev_find(&log, CZK_EV_JOB_DONE, ids[i], -1, 0);
        assert_non_null(done);
        assert_true(ev_has(done, "status=COMPLETED"));
        for (int k = 0; k < 4; k++) {
            size_t prev = 0;
            for (size_t s = 0; s < sizeof order / sizeof order[0]; s++) {
                size_t at = ev_index(&log, order[s], ids[i], k);
                if (at == SIZE_MAX)
                    fail_msg("job %s partition %d: no %s", ids[i], k, czk_event_name(order[s]));
                assert_true(at >= prev);
                prev = at;
            }
            assert_true(ev_index(&log, CZK_EV_JOB_DONE, ids[i], -1) > prev);
        }
    }
    if (getenv("CZK_TEST_TIMELINE"))
        for (size_t i = 0; i < log.n; i++)
            fprintf(stderr, "%s\n", log.v[i].line);
    /* interleaving: the next job's partitions are synthesized while the device still proves
     * the previous job's (between its first GPU_START and its last GPU_END) */
    for (int i = 0; i + 1 < 3; i++) {
        size_t first_gpu = SIZE_MAX, last_gpu = 0;
        for (int k = 0; k < 4; k++) {
            size_t g0 = ev_index(&log, CZK_EV_GPU_START, ids[i], k);
            size_t g1 = ev_index(&log, CZK_EV_GPU_END, ids[i], k);
            if (g0 < first_gpu) first_gpu = g0;
            if (g1 > last_gpu) last_gpu = g1;
        }
        bool overlap = false;
        for (int b = 0; b < 4 && !overlap; b++)
            overlap = ev_index(&log, CZK_EV_SYNTH_START, ids[i + 1], b) < last_gpu &&
                      ev_index(&log, CZK_EV_SYNTH_END, ids[i + 1], b) > first_gpu;
        if (!overlap)
            fail_msg("job %s: no partition synthesized while %s was proved", ids[i + 1], ids[i]);
    }
    /* two synthesis workers, one device lock */
    assert_int_equal(max_overlap(&log, CZK_EV_SYNTH_START, CZK_EV_SYNTH_END), 2);
    assert_int_equal(max_overlap(&log, CZK_EV_GPU_START, CZK_EV_GPU_END), 1);
    /* the shape's first partition was measured alone */
    const ev_rec *first = ev_find(&log, CZK_EV_SYNTH_START, ids[0], 0, 0);
    assert_true(ev_has(first, "probe=1"));
    size_t f0 = ev_index(&log, CZK_EV_SYNTH_START, ids[0], 0);
    size_t f1 = ev_index(&log, CZK_EV_FINALIZE_END, ids[0], 0);
    for (size_t i = f0 + 1; i < f1; i++)
        assert_int_not_equal(log.v[i].type, CZK_EV_SYNTH_START);
    czk_engine_status *s = et_wait_idle(e);
    assert_int_equal(s->proofs_completed, 3);
    assert_int_equal(s->proofs_failed, 0);
    assert_int_equal(s->verify_failures, 0);
    assert_int_equal(s->partitions_proved, 12);
    assert_int_equal(s->num_srs, 1);
    /* at least the witness: (3 inputs + 252 aux) × 32 bytes */
    assert_true(s->srs[0].partition_bytes >= (3 + 252) * 32);
    assert_int_equal(s->num_devices, 1);
    assert_int_equal(s->devices[0].ordinal, -1);
    assert_int_equal(s->devices[0].partitions_proved, 12);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
}

static void test_priorities(void **state) {
    (void)state;
    /* the defaults are the descriptors' (cuzk-engine.md §2: PoRep NORMAL; a kind's own
     * default is tested in engine.kinds) */
    czk_proof_kind pk;
    czk_err kerr;
    czk_assert_ok(czk_kind_porep(&pk, NULL, &kerr), &kerr);
    assert_int_equal(pk.default_priority, CZK_PRIORITY_NORMAL);
    czk_assert_ok(czk_kind_test(&pk, &kerr), &kerr);
    assert_int_equal(pk.default_priority, CZK_PRIORITY_NORMAL);
    ev_log log;
    czk_engine *e = start(&log, 5, 0);
    char warm[CZK_JOB_ID_MAX], blk[CZK_JOB_ID_MAX];
    et_submit(e, warm, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=1 partitions=1 log=8");
    czk_job_result r = et_await(e, warm);
    czk_job_result_free(&r);
    /* both synthesis workers busy 400 ms while the others are submitted */
    et_submit(e, blk, NULL, CZK_PRIORITY_LOW, "seed=2 partitions=2 synth_ms=400 log=8");
    for (int i = 0; i < 400 && ev_count(&log, CZK_EV_SYNTH_START, blk) < 2; i++)
        usleep(5000);
    assert_int_equal(ev_count(&log, CZK_EV_SYNTH_START, blk), 2);
    char lo[CZK_JOB_ID_MAX], n1[CZK_JOB_ID_MAX], hi[CZK_JOB_ID_MAX], cr[CZK_JOB_ID_MAX],
        n2[CZK_JOB_ID_MAX];
    et_submit(e, lo, NULL, CZK_PRIORITY_LOW, "seed=3 partitions=1 log=8");
    et_submit(e, n1, NULL, CZK_PRIORITY_NORMAL, "seed=4 partitions=1 log=8");
    et_submit(e, hi, NULL, CZK_PRIORITY_HIGH, "seed=5 partitions=1 log=8");
    et_submit(e, cr, NULL, CZK_PRIORITY_CRITICAL, "seed=6 partitions=1 log=8");
    et_submit(e, n2, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=7 partitions=1 log=8");
    czk_job_info info;
    czk_err err;
    czk_assert_ok(czk_engine_job_info(e, n2, &info, &err), &err);
    assert_int_equal(info.priority, CZK_PRIORITY_NORMAL); /* the test kind's default */
    assert_int_equal(info.state, CZK_JOB_QUEUED);
    assert_int_equal(info.queue_position, 3); /* behind CRITICAL, HIGH, NORMAL n1 */
    const char *all[] = {blk, lo, n1, hi, cr, n2};
    const uint64_t seeds[] = {2, 3, 4, 5, 6, 7};
    for (int i = 0; i < 6; i++) {
        r = et_await(e, all[i]);
        et_verify(&g_keys->vk, &r, seeds[i], i ? 1 : 2, 8);
        czk_job_result_free(&r);
    }
    size_t t_cr = ev_index(&log, CZK_EV_SYNTH_START, cr, 0);
    size_t t_hi = ev_index(&log, CZK_EV_SYNTH_START, hi, 0);
    size_t t_n1 = ev_index(&log, CZK_EV_SYNTH_START, n1, 0);
    size_t t_n2 = ev_index(&log, CZK_EV_SYNTH_START, n2, 0);
    size_t t_lo = ev_index(&log, CZK_EV_SYNTH_START, lo, 0);
    assert_true(t_cr < t_hi);
    assert_true(t_hi < t_n1);
    assert_true(t_n1 < t_n2); /* same priority: submit order */
    assert_true(t_n2 < t_lo);
    czk_engine_destroy(e);
    free(log.v);
}

static void test_cancel(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 5, 0);
    char warm[CZK_JOB_ID_MAX], x[CZK_JOB_ID_MAX];
    et_submit(e, warm, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=1 partitions=1 log=8");
    czk_job_result r = et_await(e, warm);
    czk_job_result_free(&r);
    czk_engine_status *s0 = et_wait_idle(e);
    uint64_t used0 = s0->budget_used - s0->budget_witness_buffers;
    assert_int_equal(s0->budget_working, 0);
    czk_engine_status_free(s0);

    et_submit(e, x, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=9 partitions=8 synth_ms=2000 log=8");
    for (int i = 0; i < 400 && ev_count(&log, CZK_EV_SYNTH_START, x) < 2; i++)
        usleep(5000);
    assert_int_equal(ev_count(&log, CZK_EV_SYNTH_START, x), 2);
    czk_engine_status *s1 = et_status(e);
    assert_true(s1->budget_working > 0); /* two partitions hold working memory */
    assert_int_equal(s1->synth_queue, 6);
    czk_engine_status_free(s1);
    bool was_running = false;
    czk_err err;
    czk_assert_ok(czk_engine_cancel(e, x, &was_running, &err), &err);
    assert_true(was_running);
    r = et_await(e, x);
    assert_int_equal(r.state, CZK_JOB_CANCELLED);
    assert_int_equal(r.proof_len, 0);
    czk_job_result_free(&r);
    czk_engine_status *s2 = et_wait_idle(e);
    /* the memory came back; the witness buffers stay, all idle, for later partitions */
    assert_int_equal(s2->budget_used - s2->budget_witness_buffers, used0);
    assert_int_equal(s2->budget_working, 0);
    assert_int_equal(s2->srs[0].witness_buffers_idle, s2->srs[0].witness_buffers);
    assert_int_equal(s2->budget_witness_buffers,
                     (uint64_t)s2->srs[0].witness_buffers * s2->srs[0].witness_buffer_bytes);
    assert_int_equal(s2->proofs_cancelled, 1);
    czk_engine_status_free(s2);
    /* queued partitions never started; running ones stopped at their next cancel check,
     * long before their 2000 ms */
    assert_int_equal(ev_count(&log, CZK_EV_SYNTH_START, x), 2);
    for (int k = 0; k < 8; k++) {
        const ev_rec *st = ev_find(&log, CZK_EV_SYNTH_START, x, k, 0);
        if (!st) continue;
        const ev_rec *en = ev_find(&log, CZK_EV_SYNTH_END, x, k, 0);
        assert_non_null(en);
        assert_true(ev_has(en, "error=CZK_ERR_CANCELLED"));
        assert_true(en->ms - st->ms < 1500);
    }
    assert_int_equal(ev_count(&log, CZK_EV_GPU_QUEUE, x), 0);
    const ev_rec *done = ev_find(&log, CZK_EV_JOB_DONE, x, -1, 0);
    assert_true(ev_has(done, "status=CANCELLED"));
    /* cancelling it again changes nothing; cancelling an unknown job is an error */
    czk_assert_ok(czk_engine_cancel(e, x, &was_running, &err), &err);
    assert_false(was_running);
    assert_int_equal(czk_engine_cancel(e, "no-such-job", &was_running, &err), CZK_ERR_INVALID_ARG);
    /* the engine goes on */
    char y[CZK_JOB_ID_MAX];
    et_submit(e, y, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=10 partitions=2 log=8");
    r = et_await(e, y);
    et_verify(&g_keys->vk, &r, 10, 2, 8);
    czk_job_result_free(&r);
    czk_engine_destroy(e);
    free(log.v);
}

static void test_bad_job_alone(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 5, 0);
    char a[CZK_JOB_ID_MAX], b[CZK_JOB_ID_MAX], c[CZK_JOB_ID_MAX], d[CZK_JOB_ID_MAX],
        f[CZK_JOB_ID_MAX];
    et_submit(e, a, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=21 partitions=3 log=8");
    et_submit(e, b, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=22 partitions=3 fail=1 log=8");
    et_submit(e, c, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=23 partitions=3 log=8");
    et_submit(e, d, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=24 partitions=2 corrupt=1 log=8");
    /* a payload the kind refuses: the submit itself says so, and no job is kept */
    czk_proof_request fr;
    memset(&fr, 0, sizeof fr);
    fr.kind = CZK_KIND_TEST;
    fr.request_id = "refused-1";
    fr.vanilla_proof = (const uint8_t *)"seed=x partitions=2 log=8";
    fr.vanilla_proof_len = strlen((const char *)fr.vanilla_proof);
    czk_err ferr;
    czk_err_clear(&ferr);
    assert_int_equal(czk_engine_submit(e, &fr, f, NULL, &ferr), CZK_ERR_FORMAT);
    assert_int_equal(ferr.code, CZK_ERR_FORMAT);
    assert_string_equal(f, "");
    assert_non_null(strstr(ferr.msg, "job refused-1: payload refused by kind test"));
    assert_non_null(strstr(ferr.msg, "'seed=x' is not key=<unsigned>"));
    czk_job_info finfo;
    assert_int_equal(czk_engine_job_info(e, "refused-1", &finfo, NULL), CZK_ERR_INVALID_ARG);
    assert_int_equal(finfo.state, CZK_JOB_UNKNOWN);
    /* the same request id is free again: a good payload under it is a new job */
    fr.vanilla_proof = (const uint8_t *)"seed=25 partitions=1 log=8";
    fr.vanilla_proof_len = strlen((const char *)fr.vanilla_proof);
    czk_assert_ok(czk_engine_submit(e, &fr, f, NULL, &ferr), &ferr);
    assert_string_equal(f, "refused-1");
    czk_job_result r = et_await(e, f);
    et_verify(&g_keys->vk, &r, 25, 1, 8);
    czk_job_result_free(&r);
    r = et_await(e, a);
    et_verify(&g_keys->vk, &r, 21, 3, 8);
    czk_job_result_free(&r);
    r = et_await(e, c);
    et_verify(&g_keys->vk, &r, 23, 3, 8);
    czk_job_result_free(&r);
    r = et_await(e, b);
    assert_int_equal(r.state, CZK_JOB_FAILED);
    assert_int_equal(r.error_code, CZK_ERR_FORMAT);
    assert_non_null(strstr(r.error, "partition 1 synthesis"));
    assert_non_null(strstr(r.error, "bad input"));
    czk_job_result_free(&r);
    r = et_await(e, d);
    assert_int_equal(r.state, CZK_JOB_FAILED);
    assert_int_equal(r.error_code, CZK_ERR_VERIFY);
    assert_non_null(strstr(r.error, "partition 1"));
    assert_non_null(strstr(r.error, "does not verify"));
    assert_int_equal(r.proof_len, 0);
    czk_job_result_free(&r);
    czk_engine_status *s = et_wait_idle(e);
    assert_int_equal(s->proofs_completed, 3);
    assert_int_equal(s->proofs_failed, 3); /* the refused payload counts as failed */
    assert_int_equal(s->verify_failures, 1);
    assert_int_equal(s->budget_working, 0);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleave),
        cmocka_unit_test(test_priorities),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_bad_job_alone),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
