/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * Jobs over cuzk.v1.ProvingEngine in-process (an engine whose pseudo-GPU
 * holds the device 800 ms per partition, a server on a unix socket, the C
 * client), the wire rules of proving.proto's header:
 *   - a result stays after it was awaited: a second AwaitProof, and an
 *     AwaitProof after a Prove, get the same proof bytes (they verify here);
 *   - a Prove whose client went away (its deadline) cancels the job, and the
 *     same request under the same id right after is a new job that
 *     completes, not CANCELLED; while another Prove call waits for the same
 *     job, a disconnect does not cancel it;
 *   - CancelProof of a partition on the device: GetStatus's jobs (field 100)
 *     say CANCELLING until its device work has stopped, AwaitProof times out
 *     meanwhile and then answers CANCELLED; nothing is left in jobs after;
 *   - another request under a running job's id is ALREADY_EXISTS; a payload
 *     the kind refuses at intake is INVALID_ARGUMENT.
 */
#include "../engine/etest.h"
#include "rpc_util.h"

#include "util/time.h"

#define LOG 6

static char g_dir[256], g_addr[320];
static czk_params *g_keys;
static czk_engine *g_engine;
static czk_rpc_server *g_server;
static czk_rpc_client *g_client;

static int setup(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "engine");
    g_keys = et_make_keys(g_dir, LOG, 33);
    czk_engine_opts o;
    et_opts(&o, NULL, 800);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    g_engine = et_start(&o);
    snprintf(g_addr, sizeof g_addr, "unix://%s/czk.sock", g_dir);
    g_server = rpc_test_server(g_engine, g_addr, 0);
    czk_err err;
    czk_assert_ok(czk_rpc_client_connect(&g_client, g_addr, 0, &err), &err);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    czk_rpc_client_close(g_client);
    czk_rpc_server_destroy(g_server);
    czk_engine_destroy(g_engine);
    czk_params_free(g_keys);
    czk_test_rm_rf(g_dir);
    return 0;
}

static void req(czk_proof_request *r, const char *id, const char *payload) {
    memset(r, 0, sizeof *r);
    r->kind = CZK_KIND_TEST;
    r->request_id = id;
    r->vanilla_proof = (const uint8_t *)payload;
    r->vanilla_proof_len = strlen(payload);
}

static void test_await_twice(void **state) {
    (void)state;
    czk_proof_request r;
    req(&r, "twice-1", "seed=21 partitions=2 log=6");
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    czk_assert_ok(czk_rpc_submit(g_client, &r, id, NULL, 5000, NULL, &err), &err);
    czk_job_result a, b;
    czk_assert_ok(czk_rpc_await(g_client, id, 0, 60000, &a, NULL, &err), &err);
    czk_assert_ok(czk_rpc_await(g_client, id, 0, 60000, &b, NULL, &err), &err);
    et_verify(&g_keys->vk, &a, 21, 2, LOG);
    assert_int_equal(b.state, CZK_JOB_COMPLETED);
    assert_int_equal(a.proof_len, b.proof_len);
    assert_memory_equal(a.proof, b.proof, a.proof_len);
    czk_job_result_free(&a);
    czk_job_result_free(&b);
    /* a Prove's result too: the same request again, and an await of its id */
    czk_assert_ok(czk_rpc_prove(g_client, &r, 60000, &a, NULL, &err), &err);
    czk_assert_ok(czk_rpc_await(g_client, "twice-1", 0, 60000, &b, NULL, &err), &err);
    et_verify(&g_keys->vk, &a, 21, 2, LOG);
    assert_memory_equal(a.proof, b.proof, a.proof_len);
    czk_job_result_free(&a);
    czk_job_result_free(&b);
}

static void test_resubmit_after_client_left(void **state) {
    (void)state;
    uint64_t before = engine_cancelled(g_engine);
    czk_proof_request r;
    req(&r, "K2", "seed=22 partitions=1 log=6 synth_ms=1000");
    czk_job_result res;
    czk_err err;
    int code = -1;
    /* the client goes away (its deadline) while the job synthesizes: the job is cancelled */
    assert_int_equal(czk_rpc_prove(g_client, &r, 300, &res, &code, &err), CZK_ERR_TIMEOUT);
    czk_job_result_free(&res);
    /* and the same request under the same id at once: a new job, which completes */
    czk_assert_ok(czk_rpc_prove(g_client, &r, 60000, &res, &code, &err), &err);
    assert_int_equal(res.state, CZK_JOB_COMPLETED);
    et_verify(&g_keys->vk, &res, 22, 1, LOG);
    czk_job_result_free(&res);
    assert_int_equal(engine_cancelled(g_engine), before + 1);
}

typedef struct prove_arg {
    const char *id, *payload;
    int64_t deadline_ms;
    czk_job_result res;
    czk_status st;
    czk_err err;
} prove_arg;

static void *prove_thread(void *p) {
    prove_arg *a = p;
    czk_proof_request r;
    req(&r, a->id, a->payload);
    a->st = czk_rpc_prove(g_client, &r, a->deadline_ms, &a->res, NULL, &a->err);
    return NULL;
}

static void test_disconnect_while_another_waits(void **state) {
    (void)state;
    uint64_t before = engine_cancelled(g_engine);
    const char *payload = "seed=23 partitions=1 log=6 synth_ms=1500";
    prove_arg early = {.id = "K3", .payload = payload, .deadline_ms = 600};
    prove_arg late = {.id = "K3", .payload = payload, .deadline_ms = 60000};
    pthread_t t1, t2;
    assert_int_equal(pthread_create(&t1, NULL, prove_thread, &early), 0);
    for (int i = 0; i < 400 && listed_state(g_client, "K3") == CZK_JOB_UNKNOWN; i++)
        usleep(5000);
    assert_int_equal(pthread_create(&t2, NULL, prove_thread, &late), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert_int_equal(early.st, CZK_ERR_TIMEOUT); /* its deadline */
    czk_job_result_free(&early.res);
    czk_assert_ok(late.st, &late.err);
    et_verify(&g_keys->vk, &late.res, 23, 1, LOG);
    czk_job_result_free(&late.res);
    assert_int_equal(engine_cancelled(g_engine), before);
}

static void test_cancelling_in_status(void **state) {
    (void)state;
    czk_proof_request r;
    req(&r, "C1", "seed=24 partitions=1 log=6");
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    czk_assert_ok(czk_rpc_submit(g_client, &r, id, NULL, 5000, NULL, &err), &err);
    /* wait until its partition holds the device (800 ms there) */
    bool on_device = false;
    for (int i = 0; i < 2000 && !on_device; i++) {
        czk_engine_status *es;
        czk_assert_ok(czk_engine_status_get(g_engine, &es, &err), &err);
        for (size_t k = 0; k < es->num_partitions; k++)
            on_device |= !strcmp(es->partitions[k].job_id, "C1") && es->partitions[k].lock_held;
        czk_engine_status_free(es);
        if (!on_device) usleep(2000);
    }
    assert_true(on_device);
    assert_int_equal(listed_state(g_client, "C1"), CZK_JOB_RUNNING);
    bool was_running = false;
    czk_assert_ok(czk_rpc_cancel(g_client, "C1", &was_running, 5000, NULL, &err), &err);
    assert_true(was_running);
    assert_int_equal(listed_state(g_client, "C1"), CZK_JOB_CANCELLING);
    czk_job_result res;
    czk_assert_ok(czk_rpc_await(g_client, "C1", 50, 5000, &res, NULL, &err), &err);
    assert_int_equal(res.state, CZK_JOB_TIMEOUT); /* not finished while it stops */
    czk_job_result_free(&res);
    czk_assert_ok(czk_rpc_await(g_client, "C1", 0, 10000, &res, NULL, &err), &err);
    assert_int_equal(res.state, CZK_JOB_CANCELLED);
    czk_job_result_free(&res);
    assert_int_equal(listed_state(g_client, "C1"),
                     CZK_JOB_UNKNOWN); /* stopped: no longer in flight */
}

static void test_id_refusals(void **state) {
    (void)state;
    czk_proof_request r;
    req(&r, "A1", "seed=25 partitions=1 log=6 synth_ms=300");
    char id[CZK_JOB_ID_MAX];
    czk_err err;
    int code = -1;
    czk_assert_ok(czk_rpc_submit(g_client, &r, id, NULL, 5000, NULL, &err), &err);
    req(&r, "A1", "seed=26 partitions=1 log=6");
    assert_int_not_equal(czk_rpc_submit(g_client, &r, id, NULL, 5000, &code, &err), CZK_OK);
    assert_int_equal(code, 6); /* ALREADY_EXISTS */
    req(&r, "A2", "seed=x");
    assert_int_not_equal(czk_rpc_submit(g_client, &r, id, NULL, 5000, &code, &err), CZK_OK);
    assert_int_equal(code, 3); /* INVALID_ARGUMENT: refused at intake */
    czk_job_result res;
    czk_assert_ok(czk_rpc_await(g_client, "A1", 0, 60000, &res, NULL, &err), &err);
    et_verify(&g_keys->vk, &res, 25, 1, LOG);
    czk_job_result_free(&res);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_await_twice),
        cmocka_unit_test(test_resubmit_after_client_left),
        cmocka_unit_test(test_disconnect_while_another_waits),
        cmocka_unit_test(test_cancelling_in_status),
        cmocka_unit_test(test_id_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
