/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 180 */
/*
 * `czk daemon` (a subprocess, CPU backend) and `czk client` as a storage
 * provider meets them, the results and request ids of proving.proto's
 * header through the daemon:
 *   - a result is fetched twice: `czk client await ID --out F` a second time
 *     writes the same proof (it verifies against the test's keys), so a
 *     client that could not write it the first time tries again;
 *   - `czk client prove --request-id K2` killed (SIGKILL) while its job runs,
 *     then the same command again: a new job runs and completes (before: it
 *     answered CANCELLED at once, for as long as the old job's last partition
 *     ran); the timeline shows the old job CANCELLED, then the new one
 *     COMPLETED;
 *   - SIGTERM drains and logs the job it waits for; a second SIGTERM cancels
 *     it, the daemon exits 0 within seconds (the job's synthesis stops at its
 *     next cancel check) and says so.
 */
#include "../engine/etest.h"
#include "rpc_util.h"

#include "util/time.h"

#include <sys/wait.h>

#define LOG 6

static char g_dir[256], g_addr[320], g_log[320], g_tl[320];
static czk_params *g_keys;
static pid_t g_pid;
static czk_rpc_client *g_client;

static int setup(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "engine");
    g_keys = et_make_keys(g_dir, LOG, 19);
    char cfg[320];
    snprintf(cfg, sizeof cfg, "%s/cuzk.toml", g_dir);
    snprintf(g_log, sizeof g_log, "%s/daemon.log", g_dir);
    snprintf(g_tl, sizeof g_tl, "%s/timeline.log", g_dir);
    FILE *f = fopen(cfg, "w");
    assert_non_null(f);
    fprintf(f,
            "[daemon]\nlisten = \"unix://%s/cuzk.sock\"\n"
            "[srs]\nparam_cache = \"%s\"\n"
            "[gpus]\nbackend = \"cpu\"\ngpu_threads = 2\n"
            "[synthesis]\nthreads = 1\npartition_workers = 2\n"
            "[memory]\ntotal_budget = \"1 GiB\"\n"
            "[logging]\ntimeline_file = \"%s\"\n",
            g_dir, g_dir, g_tl);
    fclose(f);
    g_pid = spawn_cli_daemon(cfg, g_log);
    snprintf(g_addr, sizeof g_addr, "unix://%s/cuzk.sock", g_dir);
    czk_err err;
    czk_assert_ok(czk_rpc_client_connect(&g_client, g_addr, 0, &err), &err);
    wait_serving(g_client);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    czk_rpc_client_close(g_client);
    if (g_pid > 0) {
        kill(g_pid, SIGKILL);
        waitpid(g_pid, NULL, 0);
    }
    czk_params_free(g_keys);
    czk_test_rm_rf(g_dir);
    return 0;
}

/* Runs `czk client --addr A <args>` (stdout and stderr into <dir>/<out>); its exit status. */
static int client(const char *out, const char *args) {
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "'%s' client --addr '%s' %s > '%s/%s' 2>&1", cli(), g_addr, args,
             g_dir, out);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    return WEXITSTATUS(rc);
}

static void write_payload(const char *name, const char *text) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* <dir>/<name>'s bytes as a COMPLETED result (for et_verify). */
static czk_job_result read_proof(const char *name) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    czk_job_result r;
    memset(&r, 0, sizeof r);
    r.state = CZK_JOB_COMPLETED;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    r.proof = malloc(4096);
    r.proof_len = fread(r.proof, 1, 4096, f);
    fclose(f);
    return r;
}

static bool out_has(const char *name, const char *s) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return file_has(path, s, "");
}

static void wait_listed(const char *id, czk_job_state want) {
    for (int i = 0; i < 2000 && listed_state(g_client, id) != want; i++)
        usleep(5000);
    assert_int_equal(listed_state(g_client, id), want);
}

static void test_await_again(void **state) {
    (void)state;
    write_payload("o1.txt", "seed=3 partitions=2 log=6");
    char args[900];
    snprintf(args, sizeof args, "submit '%s/o1.txt' --kind test --request-id O1", g_dir);
    assert_int_equal(client("submit.txt", args), 0);
    snprintf(args, sizeof args, "await O1 --out '%s/a.bin'", g_dir);
    assert_int_equal(client("await1.txt", args), 0);
    /* fetched once; the second await gets it again (before: NOT_FOUND, already fetched) */
    snprintf(args, sizeof args, "await O1 --out '%s/b.bin'", g_dir);
    assert_int_equal(client("await2.txt", args), 0);
    assert_true(out_has("await2.txt", "job O1: COMPLETED, 384 proof bytes"));
    czk_job_result a = read_proof("a.bin"), b = read_proof("b.bin");
    et_verify(&g_keys->vk, &a, 3, 2, LOG);
    assert_int_equal(a.proof_len, b.proof_len);
    assert_memory_equal(a.proof, b.proof, a.proof_len);
    czk_job_result_free(&a);
    czk_job_result_free(&b);
}

static void test_client_killed_then_again(void **state) {
    (void)state;
    write_payload("k2.txt", "seed=4 partitions=1 log=6 synth_ms=3000");
    char cmd[1600];
    snprintf(cmd, sizeof cmd,
             "exec '%s' client --addr '%s' prove '%s/k2.txt' --kind test "
             "--request-id K2 --out '%s/k2-first.bin' > '%s/k2-first.txt' 2>&1",
             cli(), g_addr, g_dir, g_dir, g_dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    wait_listed("K2", CZK_JOB_RUNNING);
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    /* the same command again: a new job under K2, which completes */
    char args[900];
    snprintf(args, sizeof args, "prove '%s/k2.txt' --kind test --request-id K2 --out '%s/k2.bin'",
             g_dir, g_dir);
    uint64_t t0 = czk_now_ms();
    assert_int_equal(client("k2.txt.out", args), 0);
    uint64_t ms = czk_now_ms() - t0;
    assert_true(out_has("k2.txt.out", "job K2: COMPLETED"));
    assert_true(ms >= 2000); /* it ran (its 3 s synthesis), it was not an old answer */
    czk_job_result r = read_proof("k2.bin");
    et_verify(&g_keys->vk, &r, 4, 1, LOG);
    czk_job_result_free(&r);
    assert_true(file_has(g_tl, "JOB_DONE,K2", "status=CANCELLED"));
    assert_true(file_has(g_tl, "JOB_DONE,K2", "status=COMPLETED"));
    assert_true(file_has(g_log, "job K2: submitted again after it was ", ""));
}

typedef struct prove_arg {
    czk_job_result res;
    czk_status st;
    czk_err err;
} prove_arg;

static void *slow_prove(void *p) {
    prove_arg *a = p;
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.kind = CZK_KIND_TEST;
    r.request_id = "S1";
    const char *payload = "seed=5 partitions=2 log=6 synth_ms=60000";
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    a->st = czk_rpc_prove(g_client, &r, 120000, &a->res, NULL, &a->err);
    return NULL;
}

/* Runs last: it stops the daemon. */
static void test_second_sigterm(void **state) {
    (void)state;
    prove_arg a;
    memset(&a, 0, sizeof a);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, slow_prove, &a), 0);
    wait_listed("S1", CZK_JOB_RUNNING);
    /* the first signal drains: the daemon waits for S1 (a minute of synthesis) and says so */
    assert_int_equal(kill(g_pid, SIGTERM), 0);
    for (int i = 0; i < 400 && !file_has(g_log,
                                         "draining (again to cancel) for: 1 job: S1 "
                                         "(RUNNING, 0 of 2 partitions done)",
                                         "");
         i++)
        usleep(5000);
    assert_true(file_has(g_log,
                         "draining (again to cancel) for: 1 job: S1 (RUNNING, 0 of 2 "
                         "partitions done)",
                         ""));
    usleep(300 * 1000);
    int status = 0;
    assert_int_equal(waitpid(g_pid, &status, WNOHANG), 0); /* still draining */
    /* the second cancels: the work stops at its next check, the daemon exits at once */
    uint64_t t0 = czk_now_ms();
    assert_int_equal(kill(g_pid, SIGTERM), 0);
    assert_int_equal(waitpid(g_pid, &status, 0), g_pid);
    uint64_t ms = czk_now_ms() - t0;
    g_pid = 0;
    print_message("second SIGTERM to exit: %llu ms\n", (unsigned long long)ms);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(ms < 10000); /* not the minute the job had left */
    pthread_join(th, NULL);
    if (a.st == CZK_OK) assert_int_equal(a.res.state, CZK_JOB_CANCELLED);
    czk_job_result_free(&a.res);
    assert_true(file_has(g_log, "cancelling every job", ""));
    assert_true(file_has(g_log, "job S1: cancelling (shutdown)", ""));
    assert_true(file_has(g_log, "stopped: 2 proofs completed, 0 failed, 2 cancelled; ", ""));
    assert_true(file_has(g_tl, "JOB_DONE,S1", "status=CANCELLED"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_await_again),
        cmocka_unit_test(test_client_killed_then_again),
        cmocka_unit_test(test_second_sigterm),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
