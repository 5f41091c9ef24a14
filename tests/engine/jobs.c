/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * Jobs and the SRS cache: request-id semantics (same id while running is
 * the same job; after completion the stored result; a different request
 * under a used id is refused), results handed to every waiter, kept after
 * an await (a second await gets the same bytes) and pruned after the
 * retention time or beyond max_results; await
 * time-outs; preload from param_cache (the proofs verify against the keys
 * the test wrote there), eviction on request and refusal while held,
 * background loading; the status snapshot and the metrics text.
 */
#include "etest.h"
#include "czk/httpstatus.h" /* czk_metrics_* */

ET_KEYS_GROUP(8, 99) /* test-8, written to g_dir */

static czk_engine *start(ev_log *log, uint64_t retention_ms, unsigned max_results) {
    czk_engine_opts o;
    et_opts(&o, log, 2);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    o.config.result_retention_ms = retention_ms;
    o.config.max_results = max_results;
    return et_start(&o);
}

static czk_job_state state_of(czk_engine *e, const char *id) {
    czk_job_info info;
    czk_err err;
    if (czk_engine_job_info(e, id, &info, &err)) return CZK_JOB_UNKNOWN;
    return info.state;
}

static void wait_state(czk_engine *e, const char *id, czk_job_state want) {
    for (int i = 0; i < 1000 && state_of(e, id) != want; i++)
        usleep(5000);
    assert_int_equal(state_of(e, id), want);
}

static void test_request_ids(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 60000, 100);
    const char *rid = "porep-1000-7";
    const char *p1 = "seed=31 partitions=2 log=8 synth_ms=150";
    char id[CZK_JOB_ID_MAX], id2[CZK_JOB_ID_MAX];
    et_submit(e, id, rid, CZK_PRIORITY_UNSPECIFIED, p1);
    assert_string_equal(id, rid);
    et_submit(e, id2, rid, CZK_PRIORITY_UNSPECIFIED, p1); /* running: the same job */
    assert_string_equal(id2, rid);
    assert_int_equal(ev_count(&log, CZK_EV_JOB_SUBMIT, rid), 1);
    /* the same id with another payload, or another priority */
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.request_id = rid;
    r.kind = CZK_KIND_TEST;
    r.vanilla_proof = (const uint8_t *)"seed=32 partitions=2 log=8";
    r.vanilla_proof_len = strlen((const char *)r.vanilla_proof);
    czk_err err;
    assert_int_equal(czk_engine_submit(e, &r, id2, NULL, &err), CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, rid));
    r.vanilla_proof = (const uint8_t *)p1;
    r.vanilla_proof_len = strlen(p1);
    r.priority = CZK_PRIORITY_HIGH;
    assert_int_equal(czk_engine_submit(e, &r, id2, NULL, &err), CZK_ERR_MISMATCH);
    /* finished, not fetched: the stored result */
    wait_state(e, rid, CZK_JOB_COMPLETED);
    et_submit(e, id2, rid, CZK_PRIORITY_UNSPECIFIED, p1);
    assert_string_equal(id2, rid);
    assert_int_equal(ev_count(&log, CZK_EV_JOB_SUBMIT, rid), 1);
    czk_job_result res = et_await(e, rid);
    et_verify(&g_keys->vk, &res, 31, 2, 8);
    czk_job_result_free(&res);
    /* fetched, and still there for the retention time: the same bytes again (a client that
     * lost them asks again); the id stays the completed request's */
    czk_job_result again = et_await(e, rid);
    et_verify(&g_keys->vk, &again, 31, 2, 8);
    czk_job_result_free(&again);
    assert_int_equal(state_of(e, rid), CZK_JOB_COMPLETED);
    r.priority = CZK_PRIORITY_UNSPECIFIED;
    r.vanilla_proof = (const uint8_t *)"seed=33 partitions=1 log=8";
    r.vanilla_proof_len = strlen((const char *)r.vanilla_proof);
    assert_int_equal(czk_engine_submit(e, &r, id2, NULL, &err), CZK_ERR_MISMATCH);
    assert_int_equal(ev_count(&log, CZK_EV_JOB_SUBMIT, rid), 1);
    /* fresh ids are distinct; bad requests are refused */
    char a[CZK_JOB_ID_MAX], b[CZK_JOB_ID_MAX];
    et_submit(e, a, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=34 partitions=1 log=8");
    et_submit(e, b, "", CZK_PRIORITY_UNSPECIFIED, "seed=34 partitions=1 log=8");
    assert_string_not_equal(a, b);
    char longid[200];
    memset(longid, 'x', sizeof longid - 1);
    longid[sizeof longid - 1] = 0;
    r.request_id = longid;
    r.priority = 0;
    assert_int_equal(czk_engine_submit(e, &r, id2, NULL, &err), CZK_ERR_INVALID_ARG);
    r.request_id = NULL;
    r.kind = CZK_KIND_UNSPECIFIED;
    assert_int_equal(czk_engine_submit(e, &r, id2, NULL, &err), CZK_ERR_INVALID_ARG);
    r.kind = (czk_kind_id)5; /* no such kind registered */
    assert_int_equal(czk_engine_submit(e, &r, id2, NULL, &err), CZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "proof kind 5 is not implemented in this engine"));
    r.kind = CZK_KIND_TEST;
    r.priority = (czk_priority)9;
    assert_int_equal(czk_engine_submit(e, &r, id2, NULL, &err), CZK_ERR_INVALID_ARG);
    for (int i = 0; i < 2; i++) {
        res = et_await(e, i ? b : a);
        et_verify(&g_keys->vk, &res, 34, 1, 8);
        czk_job_result_free(&res);
    }
    czk_engine_destroy(e);
    free(log.v);
}

typedef struct waiter {
    czk_engine *e;
    const char *id;
    czk_job_result r;
    czk_status st;
} waiter;

static void *await_thread(void *arg) {
    waiter *w = arg;
    czk_err err;
    w->st = czk_engine_await(w->e, w->id, 30000, &w->r, &err);
    return NULL;
}

static void test_await(void **state) {
    (void)state;
    czk_engine *e = start(NULL, 60000, 100);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=41 partitions=2 log=8 synth_ms=300");
    czk_job_result r;
    czk_err err;
    assert_int_equal(czk_engine_await(e, id, 0, &r, &err), CZK_ERR_TIMEOUT);
    assert_int_equal(r.state, CZK_JOB_TIMEOUT);
    assert_int_equal(czk_engine_await(e, id, 20, &r, &err), CZK_ERR_TIMEOUT);
    assert_int_equal(r.state, CZK_JOB_TIMEOUT);
    /* two waiters at completion both get the result */
    waiter w;
    memset(&w, 0, sizeof w);
    w.e = e;
    w.id = id;
    w.st = CZK_ERR_INTERNAL;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, await_thread, &w), 0);
    usleep(50000);
    r = et_await(e, id);
    pthread_join(t, NULL);
    assert_int_equal(w.st, CZK_OK);
    et_verify(&g_keys->vk, &r, 41, 2, 8);
    et_verify(&g_keys->vk, &w.r, 41, 2, 8);
    assert_memory_equal(r.proof, w.r.proof, r.proof_len);
    assert_true(r.synthesis_ms >= 2 * 300);
    assert_true(r.total_ms >= r.synthesis_ms / 2);
    czk_job_result_free(&r);
    czk_job_result_free(&w.r);
    assert_int_equal(state_of(e, id), CZK_JOB_COMPLETED); /* kept for the retention time */
    czk_engine_destroy(e);
}

static void test_pruning(void **state) {
    (void)state;
    /* retention: an unfetched result goes after 300 ms */
    czk_engine *e = start(NULL, 300, 100);
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=51 partitions=1 log=8");
    wait_state(e, id, CZK_JOB_COMPLETED);
    for (int i = 0; i < 200 && state_of(e, id) != CZK_JOB_UNKNOWN; i++)
        usleep(10000);
    assert_int_equal(state_of(e, id), CZK_JOB_UNKNOWN);
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->results_pruned, 1);
    assert_int_equal(s->results_stored, 0);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    /* max_results: of four unfetched results the two newest stay */
    e = start(NULL, 600000, 2);
    char ids[4][CZK_JOB_ID_MAX];
    for (int i = 0; i < 4; i++) {
        char p[64];
        snprintf(p, sizeof p, "seed=%d partitions=1 log=8", 52 + i);
        et_submit(e, ids[i], NULL, CZK_PRIORITY_UNSPECIFIED, p);
    }
    for (int i = 0; i < 500; i++) {
        s = et_status(e);
        bool done = s->proofs_completed == 4 && s->results_stored <= 2;
        czk_engine_status_free(s);
        if (done) break;
        usleep(10000);
    }
    s = et_status(e);
    assert_int_equal(s->proofs_completed, 4);
    assert_int_equal(s->results_stored, 2);
    assert_int_equal(s->results_pruned, 2);
    czk_engine_status_free(s);
    assert_int_equal(state_of(e, ids[0]), CZK_JOB_UNKNOWN);
    assert_int_equal(state_of(e, ids[1]), CZK_JOB_UNKNOWN);
    for (int i = 2; i < 4; i++) {
        czk_job_result r = et_await(e, ids[i]);
        et_verify(&g_keys->vk, &r, 52 + (uint64_t)i, 1, 8);
        czk_job_result_free(&r);
    }
    czk_engine_destroy(e);
}

static void test_srs(void **state) {
    (void)state;
    ev_log log;
    czk_engine *e = start(&log, 60000, 100);
    czk_err err;
    bool already = true;
    uint64_t ms = 0;
    czk_assert_ok(czk_engine_preload(e, "test-8", true, &already, &ms, &err), &err);
    assert_false(already);
    /* host bytes: ic, h, l, a, b_g1 G1 points (96 B) and b_g2 G2 points (192 B) */
    const czk_params *p = g_keys;
    uint64_t want = 96ull * (p->vk.ic_len + p->h_len + p->l_len + p->a_len + p->b_g1_len) +
                    192ull * p->b_g2_len;
    czk_engine_status *s = et_status(e);
    assert_int_equal(s->num_srs, 1);
    assert_string_equal(s->srs[0].circuit_id, "test-8");
    assert_int_equal(s->srs[0].tier, CZK_SRS_WARM); /* in host memory: the CPU backend */
    assert_int_equal(s->srs[0].size_bytes, want);
    assert_int_equal(s->srs[0].ref_count, 0);
    assert_int_equal(s->budget_srs, want);
    assert_true(s->budget_shapes > 0);
    assert_int_equal(s->srs[0].partition_bytes, 0); /* not measured before a partition ran */
    uint64_t shape_bytes = s->budget_shapes;
    czk_engine_status_free(s);
    czk_assert_ok(czk_engine_preload(e, "test-8", true, &already, NULL, &err), &err);
    assert_true(already);
    assert_int_equal(czk_engine_preload(e, "test-3", true, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_engine_preload(e, "nope", true, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_engine_preload(e, "porep-999g", true, NULL, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    /* a job holds its entry: no eviction under it */
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=61 partitions=2 log=8 synth_ms=200");
    bool was = false;
    uint64_t freed = 1;
    assert_int_equal(czk_engine_evict(e, "test-8", &was, &freed, &err), CZK_ERR_MISMATCH);
    assert_true(was);
    assert_int_equal(freed, 0);
    czk_job_result r = et_await(e, id);
    et_verify(&g_keys->vk, &r, 61, 2, 8);
    czk_job_result_free(&r);
    s = et_wait_idle(e);
    assert_true(s->srs[0].partition_bytes > 0);
    czk_engine_status_free(s);
    for (int i = 0; i < 200; i++) { /* the job lets go of it once its last partition is out */
        s = et_status(e);
        bool free_now = s->srs[0].ref_count == 0;
        czk_engine_status_free(s);
        if (free_now) break;
        usleep(5000);
    }
    czk_assert_ok(czk_engine_evict(e, "test-8", &was, &freed, &err), &err);
    assert_true(was);
    assert_int_equal(freed, want + shape_bytes);
    s = et_status(e);
    assert_int_equal(s->num_srs, 0);
    assert_int_equal(s->budget_used, 0);
    czk_engine_status_free(s);
    assert_int_equal(ev_count(&log, CZK_EV_SRS_EVICT, "-"), 1);
    czk_assert_ok(czk_engine_evict(e, "test-8", &was, &freed, &err), &err);
    assert_false(was);
    /* work is accepted while keys load: a job on a circuit not loaded (test-9: keys made by
     * the kind from its fixed seed) waits for the load, then completes, verified by the
     * engine against that key's VK */
    et_submit(e, id, NULL, CZK_PRIORITY_UNSPECIFIED, "seed=62 partitions=2 log=9");
    r = et_await(e, id);
    assert_int_equal(r.state, CZK_JOB_COMPLETED);
    assert_true(r.srs_load_ms > 0);
    czk_job_result_free(&r);
    size_t sub = SIZE_MAX, end = SIZE_MAX;
    pthread_mutex_lock(&log.mu);
    for (size_t i = 0; i < log.n; i++) {
        if (log.v[i].type == CZK_EV_JOB_SUBMIT && !strcmp(log.v[i].job, id)) sub = i;
        if (log.v[i].type == CZK_EV_SRS_LOAD_END && strstr(log.v[i].line, "circuit=test-9"))
            end = i;
    }
    pthread_mutex_unlock(&log.mu);
    assert_true(sub < end);
    /* metrics */
    char *m;
    czk_assert_ok(czk_metrics_text(e, &m, &err), &err);
    assert_non_null(strstr(m, "cuzk_proofs_completed_total 2\n"));
    assert_non_null(strstr(m, "cuzk_proofs_completed{proof_kind=\"test\"} 2\n"));
    assert_non_null(strstr(m, "cuzk_proofs_failed_total 0\n"));
    assert_non_null(strstr(m, "cuzk_proof_duration_seconds_count 2\n"));
    assert_non_null(strstr(m, "cuzk_gpu_workers 2\n"));
    free(m);
    s = et_status(e);
    assert_true(s->num_timeline > 0);
    assert_int_equal(strncmp(s->timeline[0], "TIMELINE,", 9), 0);
    czk_engine_status_free(s);
    czk_engine_destroy(e);
    free(log.v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_ids),
        cmocka_unit_test(test_await),
        cmocka_unit_test(test_pruning),
        cmocka_unit_test(test_srs),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
