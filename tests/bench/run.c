/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * czk_bench_run with a fake runner whose prove sleeps 40 ms and counts the
 * calls in flight, so that what the run loop promises is checked without
 * an engine:
 *   - 7 requests at concurrency 3: 7 prove calls, never more than 3 at once
 *     and 3 at some moment; request ids "<prefix>-<index>", all distinct, in
 *     every row; on_done called 7 times with done = 1..7;
 *   - wall = the last row's end, s/proof = wall / completed, wall ≥ 7 × 40 / 3 ms
 *     (the sleeps cannot overlap more than 3 deep); steady s/proof = the interval
 *     between the 3rd and the 7th result over 4, at least 40 / 4 ms (of those 4
 *     results one thread makes two);
 *   - a FAILED job counts as failed (not an error of the run), a prove error
 *     is returned with its message and the row says UNKNOWN;
 *   - concurrency larger than count runs count at once; count 0 is refused;
 *   - czk_bench_config_set: section.key=value through the engine's parser,
 *     a string value quoted, an unknown key or a bad value refused.
 */
#include "support.h"

#include "czk/bench.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fake {
    pthread_mutex_t mu;
    int in_flight, max_in_flight, calls;
    char ids[64][CZK_JOB_ID_MAX];
    int fail_at;  /* request index whose job FAILED (-1 none) */
    int error_at; /* request index whose prove errs (-1 none) */
} fake;

static czk_status fake_prove(void *self, const czk_proof_request *req, czk_job_result *out,
                             czk_err *err) {
    fake *f = self;
    pthread_mutex_lock(&f->mu);
    int k = f->calls++;
    snprintf(f->ids[k], sizeof f->ids[k], "%s", req->request_id);
    if (++f->in_flight > f->max_in_flight) f->max_in_flight = f->in_flight;
    pthread_mutex_unlock(&f->mu);
    struct timespec ts = {0, 40 * 1000000L};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&f->mu);
    f->in_flight--;
    pthread_mutex_unlock(&f->mu);
    int index = atoi(strrchr(req->request_id, '-') + 1);
    memset(out, 0, sizeof *out);
    snprintf(out->job_id, sizeof out->job_id, "%s", req->request_id);
    if (index == f->error_at) return czk_errf(err, CZK_ERR_IO, "connection lost at %d", index);
    out->state = index == f->fail_at ? CZK_JOB_FAILED : CZK_JOB_COMPLETED;
    if (index == f->fail_at) snprintf(out->error, sizeof out->error, "bad input");
    out->queue_wait_ms = 1;
    out->synthesis_ms = 10;
    out->gpu_compute_ms = 30;
    return CZK_OK;
}

static const czk_bench_runner_ops FAKE_OPS = {"fake", fake_prove, NULL, NULL, NULL, NULL, NULL};

static czk_status req_fn(void *ctx, size_t index, czk_proof_request *req, czk_err *err) {
    (void)ctx, (void)index, (void)err;
    req->kind = CZK_KIND_TEST;
    return CZK_OK;
}

typedef struct done_log {
    size_t calls, last_done;
    bool in_order;
} done_log;

static void done_fn(void *ctx, const czk_bench_row *row, size_t done, size_t count, double t) {
    (void)row, (void)count, (void)t;
    done_log *d = ctx;
    d->calls++;
    if (done != d->last_done + 1) d->in_order = false;
    d->last_done = done;
}

static void test_run(void **state) {
    (void)state;
    fake f = {.fail_at = -1, .error_at = -1};
    pthread_mutex_init(&f.mu, NULL);
    czk_bench_runner r = {&FAKE_OPS, &f};
    done_log d = {0, 0, true};
    czk_bench_plan p = {7, 3, "t", req_fn, NULL, done_fn, &d};
    czk_bench_result res;
    czk_err err;
    czk_assert_ok(czk_bench_run(&r, &p, &res, &err), &err);
    assert_int_equal(f.calls, 7);
    assert_int_equal(f.max_in_flight, 3);
    assert_int_equal(d.calls, 7);
    assert_true(d.in_order);
    assert_int_equal(res.count, 7);
    assert_int_equal(res.completed, 7);
    assert_int_equal(res.failed, 0);
    double last = 0;
    for (size_t i = 0; i < 7; i++) {
        char want[32];
        snprintf(want, sizeof want, "t-%zu", i);
        assert_string_equal(res.rows[i].job_id, want);
        assert_int_equal(res.rows[i].index, i);
        assert_int_equal(res.rows[i].gpu_ms, 30);
        assert_true(res.rows[i].wall_s >= 0.039);
        if (res.rows[i].end_s > last) last = res.rows[i].end_s;
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(f.ids[i], f.ids[j]);
    }
    assert_true(res.wall_s == last);
    assert_true(res.wall_s >= 7 * 0.040 / 3);
    assert_true(res.s_per_proof == res.wall_s / 7);
    /* steady: the interval between results after the first 3 (naively: the 3rd and 7th ends);
     * of the 4 results after the 3rd, one thread makes two, 40 ms apart at least */
    {
        double e[7];
        for (size_t i = 0; i < 7; i++)
            e[i] = res.rows[i].end_s;
        for (size_t i = 0; i < 7; i++) /* insertion sort */
            for (size_t k = i; k > 0 && e[k - 1] > e[k]; k--) {
                double t = e[k];
                e[k] = e[k - 1];
                e[k - 1] = t;
            }
        assert_int_equal(res.steady_after, 3);
        assert_true(res.steady_s_per_proof == (e[6] - e[2]) / 4);
        assert_true(res.steady_s_per_proof >= 0.040 / 4 * 0.99);
    }
    /* no timeline: averages per proof from the rows */
    assert_false(res.have_timeline);
    assert_false(res.per_partition);
    assert_true(res.synthesis_avg_ms == 10.0 && res.gpu_avg_ms == 30.0);
    czk_bench_result_free(&res);

    /* one FAILED job, then a prove error */
    f = (fake){.fail_at = 2, .error_at = -1};
    pthread_mutex_init(&f.mu, NULL);
    p = (czk_bench_plan){4, 2, "u", req_fn, NULL, NULL, NULL};
    czk_assert_ok(czk_bench_run(&r, &p, &res, &err), &err);
    assert_int_equal(res.completed, 3);
    assert_int_equal(res.failed, 1);
    assert_int_equal(res.rows[2].state, CZK_JOB_FAILED);
    assert_string_equal(res.rows[2].error, "bad input");
    assert_true(res.s_per_proof == res.wall_s / 3);
    assert_true(res.steady_s_per_proof > 0); /* 3 completed, 2 in flight: one interval */
    czk_bench_result_free(&res);
    f = (fake){.fail_at = -1, .error_at = 1};
    pthread_mutex_init(&f.mu, NULL);
    p = (czk_bench_plan){3, 1, "v", req_fn, NULL, NULL, NULL};
    assert_int_equal(czk_bench_run(&r, &p, &res, &err), CZK_ERR_IO);
    assert_non_null(strstr(err.msg, "connection lost at 1"));
    assert_int_equal(res.rows[1].state, CZK_JOB_UNKNOWN);
    assert_int_equal(res.rows[0].state, CZK_JOB_COMPLETED);
    czk_bench_result_free(&res);

    /* concurrency above count; count 0 */
    f = (fake){.fail_at = -1, .error_at = -1};
    pthread_mutex_init(&f.mu, NULL);
    p = (czk_bench_plan){2, 16, "w", req_fn, NULL, NULL, NULL};
    czk_assert_ok(czk_bench_run(&r, &p, &res, &err), &err);
    assert_int_equal(f.max_in_flight, 2);
    czk_bench_result_free(&res);
    p.count = 0;
    assert_int_equal(czk_bench_run(&r, &p, &res, &err), CZK_ERR_INVALID_ARG);
    czk_bench_result_free(&res);
}

static void test_config_set(void **state) {
    (void)state;
    czk_engine_config c;
    czk_engine_config_default(&c);
    czk_err err;
    czk_assert_ok(czk_bench_config_set(&c, "synthesis.partition_workers=3", NULL, NULL, &err),
                  &err);
    assert_int_equal(c.partition_workers, 3);
    czk_assert_ok(czk_bench_config_set(&c, "gpus.backend=cpu", NULL, NULL, &err), &err);
    assert_string_equal(c.backend, "cpu");
    czk_assert_ok(czk_bench_config_set(&c, "memory.total_budget=2 GiB", NULL, NULL, &err), &err);
    assert_true(c.total_budget == 2ull << 30);
    czk_assert_ok(czk_bench_config_set(&c, "pipeline.enabled=true", NULL, NULL, &err), &err);
    assert_int_equal(czk_bench_config_set(&c, "synthesis.partition_worker=3", NULL, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "unknown key synthesis.partition_worker"));
    /* a table the config does not have: an error naming the whole key, not a warning */
    assert_int_equal(czk_bench_config_set(&c, "nosuch.key=1", NULL, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    assert_string_equal(err.msg, "unknown key nosuch.key (unknown table [nosuch])");
    assert_int_equal(czk_bench_config_set(&c, "gpus.gpu_workers_per_device=x", NULL, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_bench_config_set(&c, "no_equals", NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_bench_config_set(&c, "=1", NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_bench_config_set(&c, "a b=1", NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(c.partition_workers, 3); /* unchanged by the refused ones */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_config_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
