/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * The gRPC service cuzk.v1.ProvingEngine in-process: an engine on the CPU
 * backend serving czk's test kind (keys made here, circuit "test-6") and
 * PoRep (a 2KiB sector sealed here), a server on a unix socket in a temp
 * dir, and the C client calling every RPC over it. Proof bytes that come
 * over the wire are verified here against the test's own keys with public
 * inputs recomputed here (etest.h). Checked: every RPC answers; concurrent
 * Prove calls; a client's deadline cancels a running proof in the engine;
 * malformed and refused requests get INVALID_ARGUMENT (PoSt and SnapDeals
 * requests refused by their kinds; a registered update proof the SnapDeals
 * kind does not know UNIMPLEMENTED) and the server keeps serving; a 50 MB request goes
 * through; the socket's mode is 0660; a second server on a live unix socket
 * or TCP port is refused ("address in use"), a stale socket is replaced and a
 * socket someone else put at our path is left alone; bad listen addresses say
 * why; a missing key file is FAILED_PRECONDITION; graceful shutdown.
 */
#include "../engine/porep_intake.h"
#include "rpc_util.h"

#include "util/time.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define LOG 6

static char g_dir[256], g_addr[320];

static void sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}
static czk_params *g_keys;
static czk_engine *g_engine;
static czk_rpc_server *g_server;
static czk_rpc_client *g_client;

static czk_rpc_server *start_server(const char *addr) {
    return rpc_test_server(g_engine, addr, 16);
}

static int setup(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "engine");
    g_keys = et_make_keys(g_dir, LOG, 77);
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", g_dir);
    /* the rest of the key search path there too: no key of this machine's caches is found */
    setenv("FIL_PROOFS_PARAMETER_CACHE", g_dir, 1);
    setenv("CZK_CACHE_DIR", g_dir, 1);
    g_engine = et_start(&o);
    snprintf(g_addr, sizeof g_addr, "unix://%s/czk.sock", g_dir);
    g_server = start_server(g_addr);
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

static void test_req(czk_proof_request *r, const char *payload) {
    memset(r, 0, sizeof *r);
    r->kind = CZK_KIND_TEST;
    r->vanilla_proof = (const uint8_t *)payload;
    r->vanilla_proof_len = strlen(payload);
}

/* The server still answers. */
static void assert_serving(void) {
    czk_rpc_status *s;
    czk_err err;
    czk_assert_ok(czk_rpc_get_status(g_client, &s, 5000, NULL, &err), &err);
    assert_true(s->num_gpus >= 1);
    czk_rpc_status_free(s);
}

static void test_socket_mode(void **state) {
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/czk.sock", g_dir);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(S_ISSOCK(sb.st_mode));
    assert_int_equal(sb.st_mode & 0777, 0660);
}

static void test_status_and_metrics(void **state) {
    (void)state;
    czk_rpc_status *s;
    czk_err err;
    int code = -1;
    czk_assert_ok(czk_rpc_get_status(g_client, &s, 5000, &code, &err), &err);
    assert_int_equal(code, 0);
    assert_int_equal(s->num_gpus, 1); /* the CPU pseudo-device */
    assert_string_equal(s->gpus[0].name, "cpu pseudo-device 0");
    assert_string_equal(s->gpus[0].backend, "cpu-slow"); /* the tests' slow pseudo-GPU */
    assert_true(s->gpus[0].cpu_pseudo_device);
    assert_int_equal(s->gpus[0].ordinal, 0);
    assert_int_equal(s->gpus[0].index, 0);
    assert_string_equal(s->gpus[0].uuid, "");
    assert_string_equal(s->gpus[0].pci_bus_id, "");
    assert_false(s->gpus[0].failed);
    czk_rpc_status_free(s);
    char *text;
    czk_assert_ok(czk_rpc_get_metrics(g_client, &text, 5000, NULL, &err), &err);
    assert_non_null(strstr(text, "cuzk_proofs_completed_total"));
    assert_non_null(strstr(text, "cuzk_uptime_seconds"));
    free(text);
}

static void test_prove_verifies(void **state) {
    (void)state;
    czk_proof_request r;
    test_req(&r, "seed=11 partitions=3 log=6");
    czk_job_result res;
    czk_err err;
    int code = -1;
    czk_assert_ok(czk_rpc_prove(g_client, &r, 60000, &res, &code, &err), &err);
    assert_int_equal(code, 0);
    assert_int_equal(res.state, CZK_JOB_COMPLETED);
    assert_int_equal(res.proof_len, 3 * 192); /* §2: 192 bytes per partition */
    et_verify(&g_keys->vk, &res, 11, 3, LOG);
    czk_job_result_free(&res);
    /* and the counter moved */
    czk_rpc_status *s;
    czk_assert_ok(czk_rpc_get_status(g_client, &s, 5000, NULL, &err), &err);
    assert_true(s->total_proofs_completed >= 1);
    czk_rpc_status_free(s);
}

static void test_submit_await_cancel(void **state) {
    (void)state;
    czk_err err;
    /* submit + await */
    czk_proof_request r;
    test_req(&r, "seed=12 partitions=2 log=6");
    r.request_id = "rpc-submit-1";
    char id[CZK_JOB_ID_MAX];
    uint32_t qp = 99;
    czk_assert_ok(czk_rpc_submit(g_client, &r, id, &qp, 5000, NULL, &err), &err);
    assert_string_equal(id, "rpc-submit-1");
    czk_job_result res;
    czk_assert_ok(czk_rpc_await(g_client, id, 0, 60000, &res, NULL, &err), &err);
    assert_int_equal(res.state, CZK_JOB_COMPLETED);
    assert_string_equal(res.job_id, "rpc-submit-1");
    et_verify(&g_keys->vk, &res, 12, 2, LOG);
    czk_job_result_free(&res);

    /* a slow job: AwaitProof's timeout gives TIMEOUT, CancelProof cancels it */
    test_req(&r, "seed=13 partitions=2 log=6 synth_ms=20000");
    r.request_id = "rpc-slow-1";
    czk_assert_ok(czk_rpc_submit(g_client, &r, id, NULL, 5000, NULL, &err), &err);
    czk_assert_ok(czk_rpc_await(g_client, id, 200, 5000, &res, NULL, &err), &err);
    assert_int_equal(res.state, CZK_JOB_TIMEOUT);
    czk_job_result_free(&res);
    bool was_running = false;
    czk_assert_ok(czk_rpc_cancel(g_client, id, &was_running, 5000, NULL, &err), &err);
    assert_true(was_running);
    czk_assert_ok(czk_rpc_await(g_client, id, 10000, 15000, &res, NULL, &err), &err);
    assert_int_equal(res.state, CZK_JOB_CANCELLED);
    assert_int_equal(res.proof_len, 0);
    czk_job_result_free(&res);
}

static void test_not_found(void **state) {
    (void)state;
    czk_err err;
    czk_job_result res;
    int code = -1;
    assert_int_equal(czk_rpc_await(g_client, "no-such-job", 100, 5000, &res, &code, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(code, 5); /* NOT_FOUND */
    czk_job_result_free(&res);
    assert_int_equal(czk_rpc_cancel(g_client, "no-such-job", NULL, 5000, &code, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(code, 5);
}

static void test_failed_proof(void **state) {
    (void)state;
    czk_proof_request r;
    test_req(&r, "seed=14 partitions=2 log=6 fail=1");
    czk_job_result res;
    czk_err err;
    int code = -1;
    czk_assert_ok(czk_rpc_prove(g_client, &r, 60000, &res, &code, &err), &err);
    assert_int_equal(code, 0); /* the call succeeds; the proof failed (status in the body) */
    assert_int_equal(res.state, CZK_JOB_FAILED);
    assert_non_null(strstr(res.error, "bad input"));
    czk_job_result_free(&res);
}

/* Expects a call of r to fail with grpc code `code` and a message holding `msg`. */
static void expect_prove_refused(const czk_proof_request *r, int want, const char *msg) {
    czk_job_result res;
    czk_err err;
    int code = -1;
    czk_status st = czk_rpc_prove(g_client, r, 30000, &res, &code, &err);
    assert_int_not_equal(st, CZK_OK);
    if (code != want) fprintf(stderr, "got %d: %s\n", code, err.msg);
    assert_int_equal(code, want);
    if (msg && !strstr(err.msg, msg)) fprintf(stderr, "message: %s\n", err.msg);
    if (msg) assert_non_null(strstr(err.msg, msg));
    czk_job_result_free(&res);
    /* SubmitProof refuses it the same way */
    char id[CZK_JOB_ID_MAX];
    code = -1;
    assert_int_not_equal(czk_rpc_submit(g_client, r, id, NULL, 30000, &code, &err), CZK_OK);
    assert_int_equal(code, want);
    assert_serving();
}

static void test_bad_requests(void **state) {
    (void)state;
    czk_proof_request r;
    test_req(&r, "seed=1");
    r.kind = CZK_KIND_UNSPECIFIED;
    expect_prove_refused(&r, 3, "UNSPECIFIED");
    r.kind = (czk_kind_id)7;
    expect_prove_refused(&r, 3, "unknown proof_kind 7");
    /* SnapDeals is served: refused by its kind, an unknown registered proof UNIMPLEMENTED */
    r.kind = CZK_KIND_SNAP_UPDATE;
    r.registered_proof = 0;
    expect_prove_refused(&r, 3, "snap-update: comm_r_old is missing");
    r.registered_proof = 5;
    expect_prove_refused(&r, 12, "registered update proof 5: known are 0-4");
    /* the PoSt kinds are served: a request without their fields is refused by the kind */
    r.kind = CZK_KIND_WINDOW_POST;
    r.registered_proof = 5;
    expect_prove_refused(&r, 3, "window-post: vanilla_proofs holds 0 blobs");
    r.kind = CZK_KIND_WINNING_POST;
    r.registered_proof = 0;
    r.randomness[31] = 0xff;
    expect_prove_refused(&r, 3, "winning-post: randomness");
    test_req(&r, "seed=1 bogus=3");
    expect_prove_refused(&r, 3, "bogus");
    test_req(&r, "seed=1");
    r.priority = (czk_priority)9;
    expect_prove_refused(&r, 3, "priority");
    /* PoRep: an envelope that is not JSON */
    memset(&r, 0, sizeof r);
    r.kind = CZK_KIND_POREP_C2;
    r.vanilla_proof = (const uint8_t *)"{\"SectorNum\":1,\"Phase1Out\":\"!!\",";
    r.vanilla_proof_len = strlen((const char *)r.vanilla_proof);
    expect_prove_refused(&r, 3, "porep-c2");
    r.vanilla_proof_len = 0;
    expect_prove_refused(&r, 3, "empty");

    /* raw messages the typed client cannot send */
    uint8_t *resp;
    size_t rlen;
    czk_err err;
    int code = -1;
    /* an empty ProveRequest: no submit */
    assert_int_not_equal(czk_rpc_call_raw(g_client, "/cuzk.v1.ProvingEngine/Prove", NULL, 0, &resp,
                                          &rlen, 5000, &code, &err),
                         CZK_OK);
    assert_int_equal(code, 3);
    assert_non_null(strstr(err.msg, "without submit"));
    /* bytes that are not a protobuf message (field 1, length 100, 3 bytes follow) */
    static const uint8_t junk[] = {0x0a, 0x64, 0x01, 0x02, 0x03};
    assert_int_not_equal(czk_rpc_call_raw(g_client, "/cuzk.v1.ProvingEngine/SubmitProof", junk,
                                          sizeof junk, &resp, &rlen, 5000, &code, &err),
                         CZK_OK);
    assert_int_equal(code, 3);
    assert_non_null(strstr(err.msg, "malformed"));
    /* a method the service does not have */
    assert_int_not_equal(czk_rpc_call_raw(g_client, "/cuzk.v1.ProvingEngine/Nope", NULL, 0, &resp,
                                          &rlen, 5000, &code, &err),
                         CZK_OK);
    assert_int_equal(code, 12);
    /* GetStatus by raw bytes decodes as a GetStatusResponse would: an OK answer */
    czk_assert_ok(czk_rpc_call_raw(g_client, "/cuzk.v1.ProvingEngine/GetStatus", NULL, 0, &resp,
                                   &rlen, 5000, &code, &err),
                  &err);
    assert_int_equal(code, 0);
    assert_true(rlen > 0);
    free(resp);
    assert_serving();
}

static void test_porep_refusals(void **state) {
    (void)state;
    czk_c1 *c1 = pi_seal_2k();
    size_t len;
    char *env = pi_envelope(c1, &len);
    czk_proof_request r;
    /* the wrong sector size */
    pi_request(&r, env, len);
    r.sector_size = 34359738368ull;
    expect_prove_refused(&r, 3, "sector size");
    /* a vanilla proof changed by one byte: flip a byte in the middle of the base64 C1 */
    char *bad = malloc(len);
    assert_non_null(bad);
    memcpy(bad, env, len);
    size_t at = len / 2;
    bad[at] = bad[at] == 'A' ? 'B' : 'A';
    pi_request(&r, bad, len);
    expect_prove_refused(&r, 3, NULL);
    free(bad);
    /* the right envelope is accepted (its job fails later: no 2KiB keys in the dir) */
    pi_request(&r, env, len);
    czk_job_result res;
    czk_err err;
    int code = -1;
    czk_assert_ok(czk_rpc_prove(g_client, &r, 60000, &res, &code, &err), &err);
    assert_int_equal(code, 0);
    assert_int_equal(res.state, CZK_JOB_FAILED);
    assert_true(res.error[0] != 0);
    czk_job_result_free(&res);
    free(env);
    czk_c1_free(c1);
}

typedef struct prove_arg {
    uint64_t seed;
    czk_job_result res;
    czk_status st;
    czk_err err;
} prove_arg;

static void *prove_thread(void *p) {
    prove_arg *a = p;
    char payload[128];
    snprintf(payload, sizeof payload, "seed=%llu partitions=2 log=6 synth_ms=150",
             (unsigned long long)a->seed);
    czk_proof_request r;
    test_req(&r, payload);
    a->st = czk_rpc_prove(g_client, &r, 120000, &a->res, NULL, &a->err);
    return NULL;
}

static void test_concurrent_prove(void **state) {
    (void)state;
    enum { N = 4 };
    prove_arg args[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].seed = 100 + (uint64_t)i;
        assert_int_equal(pthread_create(&th[i], NULL, prove_thread, &args[i]), 0);
    }
    /* while they run, GetStatus answers and shows queued or running test partitions */
    bool saw_queue = false;
    for (int t = 0; t < 100 && !saw_queue; t++) {
        czk_rpc_status *s;
        czk_err err;
        czk_assert_ok(czk_rpc_get_status(g_client, &s, 5000, NULL, &err), &err);
        for (size_t q = 0; q < s->num_queues; q++)
            if (!strcmp(s->queues[q].proof_kind, "test") &&
                s->queues[q].pending + s->queues[q].in_progress > 0)
                saw_queue = true;
        czk_rpc_status_free(s);
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    assert_true(saw_queue);
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        czk_assert_ok(args[i].st, &args[i].err);
        et_verify(&g_keys->vk, &args[i].res, args[i].seed, 2, LOG);
        czk_job_result_free(&args[i].res);
    }
}

static void test_deadline_cancels_proof(void **state) {
    (void)state;
    uint64_t before = engine_cancelled(g_engine);
    czk_proof_request r;
    test_req(&r, "seed=21 partitions=2 log=6 synth_ms=30000");
    r.request_id = "rpc-deadline-1";
    czk_job_result res;
    czk_err err;
    int code = -1;
    uint64_t t0 = czk_now_ms();
    assert_int_equal(czk_rpc_prove(g_client, &r, 1000, &res, &code, &err), CZK_ERR_TIMEOUT);
    assert_int_equal(code, 4); /* DEADLINE_EXCEEDED */
    czk_job_result_free(&res);
    /* the engine cancels the job (its 30 s synthesis stops at its next cancel check) */
    while (engine_cancelled(g_engine) == before && czk_now_ms() - t0 < 10000)
        sleep_ms(25);
    assert_int_equal(engine_cancelled(g_engine), before + 1);
    czk_job_info info;
    if (czk_engine_job_info(g_engine, "rpc-deadline-1", &info, NULL) == CZK_OK)
        assert_int_equal(info.state, CZK_JOB_CANCELLED); /* else collected by the server */
    assert_serving();
}

static void test_large_request(void **state) {
    (void)state;
    /* 50 MB in vanilla_proofs (the test kind ignores it), more than gRPC's 4 MiB default */
    size_t n = 50u * 1000 * 1000;
    uint8_t *big = malloc(n);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (uint8_t)(i * 131u + 7u);
    const uint8_t *vp[1] = {big};
    size_t vl[1] = {n};
    czk_proof_request r;
    test_req(&r, "seed=31 partitions=1 log=6");
    r.vanilla_proofs = vp;
    r.vanilla_proofs_len = vl;
    r.num_vanilla_proofs = 1;
    czk_job_result res;
    czk_err err;
    czk_assert_ok(czk_rpc_prove(g_client, &r, 120000, &res, NULL, &err), &err);
    et_verify(&g_keys->vk, &res, 31, 1, LOG);
    czk_job_result_free(&res);
    free(big);
}

static void test_preload_evict(void **state) {
    (void)state;
    czk_err err;
    bool already = true, was = false;
    uint64_t ms = 0, freed = 0;
    /* whatever earlier tests left: evict, then a preload loads it */
    czk_assert_ok(czk_rpc_evict(g_client, "test-6", NULL, NULL, 5000, NULL, &err), &err);
    czk_assert_ok(czk_rpc_preload(g_client, "test-6", &already, &ms, 60000, NULL, &err), &err);
    assert_false(already);
    czk_assert_ok(czk_rpc_preload(g_client, "test-6", &already, &ms, 60000, NULL, &err), &err);
    assert_true(already);
    czk_rpc_status *s;
    czk_assert_ok(czk_rpc_get_status(g_client, &s, 5000, NULL, &err), &err);
    bool listed = false;
    for (size_t i = 0; i < s->num_srs; i++)
        if (!strcmp(s->loaded_srs[i].circuit_id, "test-6"))
            listed = s->loaded_srs[i].size_bytes > 0;
    assert_true(listed);
    czk_rpc_status_free(s);
    czk_assert_ok(czk_rpc_evict(g_client, "test-6", &was, &freed, 5000, NULL, &err), &err);
    assert_true(was);
    assert_true(freed > 0);
    czk_assert_ok(czk_rpc_evict(g_client, "test-6", &was, &freed, 5000, NULL, &err), &err);
    assert_false(was);
    int code = -1;
    assert_int_equal(czk_rpc_preload(g_client, "no-such-circuit", NULL, NULL, 5000, &code, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(code, 3);
}

/* Starting a server on opts that must fail: the status and a part of the message. */
static void expect_start_fails(const char *addr, czk_status want, const char *msg) {
    czk_rpc_server_opts o;
    czk_rpc_server_opts_default(&o);
    o.listen[0] = addr;
    o.num_listen = 1;
    o.max_calls = 2;
    o.log = quiet_rpc_log;
    czk_rpc_server *s = NULL;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_rpc_server_start(&s, g_engine, &o, &err);
    if (st != want || !strstr(err.msg, msg))
        fail_msg("start on %s: status %d '%s' (want %d, '%s')", addr, (int)st, err.msg, (int)want,
                 msg);
    assert_null(s);
}

/* A unix socket at path, bound; listening when listen_too. The fd stays open. */
static int raw_unix_socket(const char *path, bool listen_too) {
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    if (listen_too) assert_int_equal(listen(fd, 4), 0);
    return fd;
}

/* A second server on the live socket is refused, and the first keeps serving
 * (before: it removed the socket file and took the address over). */
static void test_unix_in_use(void **state) {
    (void)state;
    expect_start_fails(g_addr, CZK_ERR_IO, "address in use (another process is listening)");
    test_socket_mode(state); /* the file is still the first server's */
    assert_serving();
    /* someone else's listening socket too */
    char path[300], addr[320];
    snprintf(path, sizeof path, "%s/other.sock", g_dir);
    snprintf(addr, sizeof addr, "unix://%s", path);
    int fd = raw_unix_socket(path, true);
    expect_start_fails(addr, CZK_ERR_IO, "address in use");
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    close(fd);
    unlink(path);
}

/* A stale socket file (nobody listens) is replaced; a regular file is not. */
static void test_unix_stale(void **state) {
    (void)state;
    char path[300], addr[320];
    snprintf(path, sizeof path, "%s/stale.sock", g_dir);
    snprintf(addr, sizeof addr, "unix://%s", path);
    close(raw_unix_socket(path, false)); /* the file stays, nobody accepts */
    czk_rpc_server *s = start_server(addr);
    czk_rpc_client *c;
    czk_err err;
    czk_assert_ok(czk_rpc_client_connect(&c, addr, 0, &err), &err);
    czk_assert_ok(czk_rpc_client_wait_ready(c, 10000, &err), &err);
    czk_rpc_client_close(c);
    czk_rpc_server_destroy(s);
    struct stat sb;
    assert_int_equal(lstat(path, &sb), -1); /* ours: removed at the end */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    expect_start_fails(addr, CZK_ERR_IO, "is not a socket");
    assert_int_equal(lstat(path, &sb), 0);
    unlink(path);
}

/* The socket file replaced while the server runs (someone removed ours and
 * listens there now): the server's end leaves that one in place. */
static void test_unix_replaced_kept(void **state) {
    (void)state;
    char path[300], addr[320];
    snprintf(path, sizeof path, "%s/repl.sock", g_dir);
    snprintf(addr, sizeof addr, "unix://%s", path);
    czk_rpc_server *s = start_server(addr);
    assert_int_equal(unlink(path), 0);
    int fd = raw_unix_socket(path, true);
    struct stat before, after;
    assert_int_equal(lstat(path, &before), 0);
    czk_rpc_server_destroy(s);
    assert_int_equal(lstat(path, &after), 0);
    assert_true(after.st_ino == before.st_ino && after.st_dev == before.st_dev);
    close(fd);
    unlink(path);
}

/* A second server on a TCP port in use fails (gRPC's default SO_REUSEPORT let
 * it share the port). */
static void test_tcp_in_use(void **state) {
    (void)state;
    czk_rpc_server *s = start_server("127.0.0.1:0");
    int port = czk_rpc_server_port(s, 0);
    assert_true(port > 0 && port < 65536);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
    expect_start_fails(addr, CZK_ERR_IO, "address in use");
    czk_rpc_server_destroy(s);
}

/* Listen addresses that cannot work say why. */
static void test_listen_errors(void **state) {
    (void)state;
    char addr[400];
    snprintf(addr, sizeof addr, "unix://%s/no-such-dir/czk.sock", g_dir);
    expect_start_fails(addr, CZK_ERR_IO, "/no-such-dir does not exist");
    /* sun_path holds 107 bytes and the NUL */
    char longp[200];
    memset(longp, 'x', sizeof longp);
    longp[0] = '/';
    longp[150] = 0;
    snprintf(addr, sizeof addr, "unix://%s", longp);
    expect_start_fails(addr, CZK_ERR_INVALID_ARG, "socket path is 150 bytes (at most 107)");
    expect_start_fails("127.0.0.1:65536", CZK_ERR_INVALID_ARG, "bad address 127.0.0.1:65536");
    expect_start_fails("127.0.0.1:http", CZK_ERR_INVALID_ARG, "bad address");
    expect_start_fails("no-such-host.invalid:1234", CZK_ERR_INVALID_ARG,
                       "bad address no-such-host.invalid:1234");
    expect_start_fails("1.2.3.4", CZK_ERR_INVALID_ARG, "bad address 1.2.3.4");
    /* gRPC's own schemes are gRPC's to parse */
    czk_rpc_server *s = start_server("unix-abstract:czk-test-abstract");
    czk_rpc_server_destroy(s);
    assert_serving();
}

/* A circuit whose key file is missing: FAILED_PRECONDITION (9), and the
 * message names the preload once. */
static void test_preload_missing_key(void **state) {
    (void)state;
    int code = -1;
    czk_err err;
    czk_err_clear(&err);
    assert_int_not_equal(czk_rpc_preload(g_client, "porep-32g", NULL, NULL, 10000, &code, &err),
                         CZK_OK);
    assert_int_equal(code, 9);
    const char *first = strstr(err.msg, "preload porep-32g");
    if (!first || strstr(first + 1, "preload porep-32g")) fail_msg("message: %s", err.msg);
    assert_serving();
}

static void *slow_prove_thread(void *p) {
    prove_arg *a = p;
    czk_proof_request r;
    test_req(&r, "seed=41 partitions=1 log=6 synth_ms=30000");
    r.request_id = "rpc-shutdown-1";
    czk_rpc_client *c = NULL;
    a->st = czk_rpc_client_connect(&c, g_addr, 0, &a->err);
    if (!a->st) a->st = czk_rpc_prove(c, &r, 60000, &a->res, NULL, &a->err);
    czk_rpc_client_close(c);
    return NULL;
}

/* Runs last: the server stops taking calls, cancels what is left after the grace. */
static void test_graceful_shutdown(void **state) {
    (void)state;
    prove_arg a;
    memset(&a, 0, sizeof a);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, slow_prove_thread, &a), 0);
    czk_job_info info;
    for (int t = 0; t < 400; t++) {
        if (czk_engine_job_info(g_engine, "rpc-shutdown-1", &info, NULL) == CZK_OK) break;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    czk_rpc_server_shutdown(g_server, 200);
    pthread_join(th, NULL);
    assert_int_not_equal(a.st, CZK_OK); /* its call was cancelled */
    czk_job_result_free(&a.res);
    /* its job was cancelled with it */
    czk_job_state st = CZK_JOB_RUNNING;
    for (int t = 0; t < 200; t++) {
        if (czk_engine_job_info(g_engine, "rpc-shutdown-1", &info, NULL) != CZK_OK) {
            st = CZK_JOB_UNKNOWN;
            break;
        }
        if ((st = info.state) == CZK_JOB_CANCELLED) break;
        struct timespec ts = {0, 25 * 1000000L};
        nanosleep(&ts, NULL);
    }
    assert_true(st == CZK_JOB_CANCELLED || st == CZK_JOB_UNKNOWN);
    /* new calls are refused */
    czk_rpc_status *s = NULL;
    czk_err err;
    assert_int_not_equal(czk_rpc_get_status(g_client, &s, 2000, NULL, &err), CZK_OK);
    assert_true(czk_rpc_server_calls(g_server) > 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_socket_mode),        cmocka_unit_test(test_status_and_metrics),
        cmocka_unit_test(test_prove_verifies),     cmocka_unit_test(test_submit_await_cancel),
        cmocka_unit_test(test_not_found),          cmocka_unit_test(test_failed_proof),
        cmocka_unit_test(test_bad_requests),       cmocka_unit_test(test_porep_refusals),
        cmocka_unit_test(test_concurrent_prove),   cmocka_unit_test(test_deadline_cancels_proof),
        cmocka_unit_test(test_large_request),      cmocka_unit_test(test_preload_evict),
        cmocka_unit_test(test_unix_in_use),        cmocka_unit_test(test_unix_stale),
        cmocka_unit_test(test_unix_replaced_kept), cmocka_unit_test(test_tcp_in_use),
        cmocka_unit_test(test_listen_errors),      cmocka_unit_test(test_preload_missing_key),
        cmocka_unit_test(test_graceful_shutdown),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
