/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * What `czk daemon`, `czk client`, `czk timeline` and `czk --help` say,
 * seen from outside ($CZK_TEST_CLI), on a CPU daemon serving the test kind
 * from a temp dir:
 *   - the daemon's start-up log: the engine banner names the CPU
 *     pseudo-device ("the CPU (no GPU) × 2 prover workers", not "1 devices
 *     × 2 GPU workers"), the status_listen address it bound (port 0: the
 *     port picked), and the key search path (srs.param_cache,
 *     $FIL_PROOFS_PARAMETER_CACHE, $CZK_CACHE_DIR/test-keys); a raw C1
 *     submitted without a miner id is logged as accepted with "replica_id
 *     NOT checked", and its job fails naming the directories searched;
 *   - `czk client` takes --addr and --deadline after the command too (as
 *     --opt VALUE and --opt=VALUE), for prove, await and status; a
 *     deadline that passes is exit 1, as its usage lists it with TIMEOUT,
 *     and says so; an unknown option is named;
 *   - `czk timeline` of the daemon's timeline names the CPU pseudo-device
 *     "device cpu", not "device -1";
 *   - `czk --help` describes prove as CPU or CUDA.
 */
#include "../engine/porep_intake.h"

#include "spawn.h"

#include "czk/httpstatus.h"

#include <sys/wait.h>

static const char *cli(void) {
    const char *p = getenv("CZK_TEST_CLI");
    if (!p) fail_msg("CZK_TEST_CLI is not set (run under ctest)");
    return p;
}

static char g_dir[256], g_addr[320];

/* Runs `czk ARGS` (stdout and stderr into <dir>/out.txt); its exit status, the text in *out. */
static int run(const char *args, char **out) {
    char cmd[3000], path[400];
    snprintf(path, sizeof path, "%s/out.txt", g_dir);
    snprintf(cmd, sizeof cmd, "'%s' %s > '%s' 2>&1", cli(), args, path);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    *out = czk_test_slurp(path, NULL);
    assert_non_null(*out);
    fprintf(stderr, "$ czk %s  (exit %d)\n%s", args, WEXITSTATUS(rc), *out);
    return WEXITSTATUS(rc);
}

/* The daemon log once it holds `what` (up to 30 s). */
static char *log_with(const char *what) {
    char path[400];
    snprintf(path, sizeof path, "%s/daemon.log", g_dir);
    for (int i = 0; i < 300; i++) {
        char *t = czk_test_slurp(path, NULL);
        if (t && strstr(t, what)) return t;
        free(t);
        usleep(100 * 1000);
    }
    char *t = czk_test_slurp(path, NULL);
    fail_msg("no '%s' in the daemon log:\n%s", what, t ? t : "");
    return NULL;
}

static pid_t spawn_daemon(bool http) {
    char cfg[400], log[400];
    snprintf(cfg, sizeof cfg, "%s/cuzk.toml", g_dir);
    snprintf(log, sizeof log, "%s/daemon.log", g_dir);
    FILE *f = fopen(cfg, "w");
    assert_non_null(f);
    fprintf(f,
            "[daemon]\nlisten = \"%s\"\nstatus_listen = \"%s\"\n"
            "[srs]\nparam_cache = \"%s/params\"\n"
            "[gpus]\nbackend = \"cpu\"\ngpu_threads = 2\ngpu_workers_per_device = 2\n"
            "[synthesis]\nthreads = 1\npartition_workers = 2\n"
            "[memory]\ntotal_budget = \"1 GiB\"\n"
            "[logging]\nlevel = \"info\"\ntimeline_file = \"%s/timeline.log\"\n",
            g_addr, http ? "127.0.0.1:0" : "", g_dir, g_dir);
    fclose(f);
    char fil[400], cache[400];
    snprintf(fil, sizeof fil, "%s/fil", g_dir);
    snprintf(cache, sizeof cache, "%s/cache", g_dir);
    return spawn_czk_daemon(cfg, log, fil, cache);
}

static void test_words(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "cli-words");
    snprintf(g_addr, sizeof g_addr, "unix://%s/cuzk.sock", g_dir);
    bool http = czk_httpstatus_available();
    pid_t pid = spawn_daemon(http);
    char *log = log_with("czk daemon: serving");
    /* the banner names the CPU pseudo-device, workers in the singular or plural as counted */
    assert_non_null(strstr(log, "the CPU (no GPU) × 2 prover workers (2 threads)"));
    assert_null(strstr(log, "devices ×"));
    assert_non_null(strstr(log, "2 synthesis workers (1 thread)"));
    /* where /status is, and where keys are looked for */
    if (http) {
        const char *a = strstr(log, "GET /status and /metrics on http://127.0.0.1:");
        assert_non_null(a);
        long port = strtol(a + strlen("GET /status and /metrics on http://127.0.0.1:"), NULL, 10);
        assert_true(port > 0 && port < 65536);
    }
    char want[1400];
    snprintf(want, sizeof want, "keys searched in %s/params, %s/fil and %s/cache/test-keys\n",
             g_dir, g_dir, g_dir);
    assert_non_null(strstr(log, want));
    free(log);

    /* --addr and --deadline after the command, both spellings */
    char job[400], slow[400], args[2000], *out;
    snprintf(job, sizeof job, "%s/job.txt", g_dir);
    czk_test_write(job, "seed=1 partitions=1 log=6\n", 26);
    snprintf(slow, sizeof slow, "%s/slow.txt", g_dir);
    czk_test_write(slow, "seed=2 partitions=1 log=6 synth_ms=4000\n", 40);
    snprintf(args, sizeof args, "client prove --kind test '%s' --addr '%s' --deadline 60", job,
             g_addr);
    assert_int_equal(run(args, &out), 0);
    assert_non_null(strstr(out, ": COMPLETED, 192 proof bytes"));
    free(out);
    snprintf(args, sizeof args, "client submit --kind test --addr=%s '%s' --deadline=60", g_addr,
             job);
    assert_int_equal(run(args, &out), 0);
    char id[64] = {0};
    assert_int_equal(sscanf(out, "%63s", id), 1);
    free(out);
    snprintf(args, sizeof args, "client await %s --deadline 60 --addr '%s'", id, g_addr);
    assert_int_equal(run(args, &out), 0);
    assert_non_null(strstr(out, ": COMPLETED"));
    free(out);
    snprintf(args, sizeof args, "client status -a '%s' -d 10", g_addr);
    assert_int_equal(run(args, &out), 0);
    assert_non_null(strstr(out, "proofs completed 2"));
    free(out);
    /* a deadline that passes before the answer: exit 1, said in words */
    snprintf(args, sizeof args, "client --addr '%s' prove --kind test '%s' --deadline 1", g_addr,
             slow);
    assert_int_equal(run(args, &out), 1);
    assert_non_null(strstr(out, "no answer within the deadline of 1 s (--deadline)"));
    free(out);
    assert_int_equal(run("client --help", &out), 0);
    assert_non_null(strstr(out, "or --deadline passed before the answer"));
    assert_non_null(strstr(out, "(--addr and --deadline go before or after COMMAND)"));
    free(out);
    /* unknown options and bad values are named */
    snprintf(args, sizeof args, "client prove --kind test '%s' --addr '%s' --frob 1", job, g_addr);
    assert_int_equal(run(args, &out), 2);
    assert_non_null(strstr(out, "czk client: unknown option --frob"));
    free(out);
    assert_int_equal(run("client status --deadline soon", &out), 2);
    assert_non_null(strstr(out, "--deadline: seconds, not 'soon'"));
    free(out);
    assert_int_equal(run("client await", &out), 2);
    assert_non_null(strstr(out, "await takes one JOB"));
    free(out);

    /* a raw C1 without a miner id: accepted, logged as not checked; no keys anywhere */
    czk_c1 *c1 = pi_seal_2k();
    char *json;
    size_t jlen;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &json, &jlen, &err), &err);
    czk_c1_free(c1);
    char c1p[400];
    snprintf(c1p, sizeof c1p, "%s/c1.json", g_dir);
    czk_test_write(c1p, json, jlen);
    free(json);
    snprintf(args, sizeof args, "client prove '%s' --addr '%s' --sector-num 7", c1p, g_addr);
    assert_int_equal(run(args, &out), 1);
    assert_non_null(strstr(out, ": FAILED"));
    snprintf(want, sizeof want, "no .params key for 2KiB sectors in %s/params (absent), %s/fil",
             g_dir, g_dir);
    assert_non_null(strstr(out, want));
    free(out);
    log = log_with("replica_id NOT checked");
    assert_non_null(strstr(log, ": accepted: porep-2k, 1 partition; replica_id NOT checked (the "
                                "request has no miner id): the C1's own is used"));
    assert_non_null(strstr(log, ": accepted: test-6, 1 partition\n"));
    free(log);

    /* stopped; its timeline names the CPU pseudo-device */
    assert_int_equal(kill(pid, SIGTERM), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    snprintf(args, sizeof args, "timeline '%s/timeline.log'", g_dir);
    assert_int_equal(run(args, &out), 0);
    assert_non_null(strstr(out, "device cpu "));
    assert_null(strstr(out, "device -1"));
    free(out);
    /* czk --help: prove runs on either backend */
    assert_int_equal(run("--help", &out), 0);
    assert_non_null(strstr(
        out, "prove          PoRep C2 (or a PoSt/SnapDeals request, --kind) through the engine"));
    assert_null(strstr(out, "on the CPU"));
    free(out);
    czk_test_rm_rf(g_dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_words)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
