/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * `czk daemon` as a subprocess (the binary in $CZK_TEST_CLI) on a unix
 * socket of a temp dir's config: it answers GetStatus while the keys of
 * srs.preload are still loading (their file is a FIFO the test holds), its
 * proofs verify against the test's own keys, `czk client` talks to it, and
 * SIGTERM drains: a job submitted before the signal completes, the daemon
 * exits 0 and its timeline file holds the job's JOB_DONE line. A second
 * daemon on the same socket exits 2 ("address in use") and the first keeps
 * serving; preload of a circuit without keys is FAILED_PRECONDITION with the
 * circuit named once; --log-level's help and error list trace.
 */
#include "../engine/porep_intake.h"
#include "rpc_util.h"

#include "spawn.h"

#include <sys/stat.h>
#include <fcntl.h>
#include <sys/wait.h>

#define LOG 6

static pid_t spawn_daemon(const char *dir) {
    char cfg[600], log[600];
    snprintf(cfg, sizeof cfg, "%s/cuzk.toml", dir);
    snprintf(log, sizeof log, "%s/daemon.log", dir);
    FILE *f = fopen(cfg, "w");
    assert_non_null(f);
    fprintf(f,
            "[daemon]\nlisten = \"unix://%s/cuzk.sock\"\n"
            "[srs]\nparam_cache = \"%s\"\npreload = [\"test-17\"]\n"
            "[gpus]\nbackend = \"cpu\"\ngpu_threads = 2\n"
            "[synthesis]\nthreads = 1\npartition_workers = 2\n"
            "[memory]\ntotal_budget = \"1 GiB\"\n"
            "[logging]\ntimeline_file = \"%s/timeline.log\"\n",
            dir, dir, dir);
    fclose(f);
    /* the whole key search path in dir: this machine's test keys are not found */
    return spawn_czk_daemon(cfg, log, dir, dir);
}

static void test_daemon(void **state) {
    (void)state;
    char dir[256];
    czk_test_tmpdir(dir, sizeof dir, "engine");
    czk_params *keys = et_make_keys(dir, LOG, 5);
    char fifo[600];
    snprintf(fifo, sizeof fifo, "%s/czk-test-17.params", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = spawn_daemon(dir);
    char addr[320];
    snprintf(addr, sizeof addr, "unix://%s/cuzk.sock", dir);
    czk_rpc_client *c;
    czk_err err;
    czk_assert_ok(czk_rpc_client_connect(&c, addr, 0, &err), &err);
    wait_serving(c);
    /* GetStatus answers while srs.preload's keys are loading: test-17's key file is a FIFO
     * here, so its load blocks in open() until the test opens the other end */
    czk_rpc_status *s0;
    czk_assert_ok(czk_rpc_get_status(c, &s0, 5000, NULL, &err), &err);
    bool loading = false;
    for (size_t i = 0; i < s0->num_srs; i++)
        if (!strcmp(s0->loaded_srs[i].circuit_id, "test-17"))
            loading = s0->loaded_srs[i].tier == CZK_SRS_COLD; /* not resident yet */
    czk_rpc_status_free(s0);
    assert_true(loading);
    /* unblock it: the load fails (not a regular file) and the daemon goes on */
    int wfd = open(fifo, O_WRONLY | O_CLOEXEC);
    assert_true(wfd >= 0);
    close(wfd);

    /* a proof over the wire verifies against the keys made here */
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.kind = CZK_KIND_TEST;
    const char *payload = "seed=3 partitions=2 log=6";
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    czk_job_result res;
    czk_assert_ok(czk_rpc_prove(c, &r, 60000, &res, NULL, &err), &err);
    et_verify(&keys->vk, &res, 3, 2, LOG);
    czk_job_result_free(&res);
    /* a payload the kind refuses: an error naming it; the shutdown summary counts it as
     * failed and says it was refused */
    payload = "seed=3 partitions=0";
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    int gc = 0;
    assert_int_not_equal(czk_rpc_prove(c, &r, 60000, &res, &gc, &err), CZK_OK);
    czk_job_result_free(&res);
    assert_int_equal(gc, 3); /* INVALID_ARGUMENT */
    if (!strstr(err.msg, "partitions=0")) fail_msg("not named: %s", err.msg);

    /* czk client: status answers (exit 0), a refused request exits 1 */
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "'%s' client --addr '%s' status > '%s/status.txt'", cli(), addr, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/status.txt", dir);
    assert_true(file_has(cmd, "proofs completed 1", ""));
    snprintf(cmd, sizeof cmd, "'%s' client --addr '%s' cancel no-such-job 2>/dev/null", cli(),
             addr);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 1);

    /* a second daemon on the same live socket is refused (exit 2, says why) and the first
     * keeps its socket (before: the second took it over and removed it when it stopped) */
    snprintf(cmd, sizeof cmd, "timeout 30 '%s' daemon --config '%s/cuzk.toml' 2> '%s/second.txt'",
             cli(), dir, dir);
    rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 2);
    snprintf(cmd, sizeof cmd, "%s/second.txt", dir);
    assert_true(file_has(cmd, "address in use (another process is listening)", addr));
    wait_serving(c);
    /* a missing key file: FAILED_PRECONDITION, the circuit named once */
    snprintf(cmd, sizeof cmd, "'%s' client --addr '%s' preload porep-32g 2> '%s/preload.txt'",
             cli(), addr, dir);
    rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 1);
    snprintf(cmd, sizeof cmd, "%s/preload.txt", dir);
    assert_true(file_has(cmd, "FAILED_PRECONDITION: preload porep-32g: no .params key", ""));
    assert_false(file_has(cmd, "preload porep-32g: preload porep-32g", ""));

    /* czk client prove with a raw C1 JSON: wrapped in cuzk's envelope, taken in by the
     * PoRep kind (no refusal); the job then fails for want of 2KiB keys in the dir */
    czk_c1 *c1 = pi_seal_2k();
    char *json;
    size_t jlen;
    czk_assert_ok(czk_c1_to_json(c1, &json, &jlen, &err), &err);
    char c1_path[600];
    snprintf(c1_path, sizeof c1_path, "%s/c1.json", dir);
    FILE *f = fopen(c1_path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(json, 1, jlen, f), jlen);
    fclose(f);
    free(json);
    czk_c1_free(c1);
    /* an --out that cannot be written: refused before anything is submitted or fetched */
    snprintf(cmd, sizeof cmd,
             "'%s' client --addr '%s' prove '%s' --out /no/such/dir/p.bin > '%s/noout.txt' 2>&1",
             cli(), addr, c1_path, dir);
    rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 2);
    snprintf(cmd, sizeof cmd, "%s/noout.txt", dir);
    assert_true(file_has(cmd, "--out /no/such/dir/p.bin: cannot create a file there", ""));
    assert_true(file_has(cmd, "nothing was submitted", ""));
    assert_false(file_has(cmd, "job ", ""));
    snprintf(cmd, sizeof cmd, "'%s' client --addr '%s' await nojob --out '%s' > '%s/noout2.txt' 2>&1",
             cli(), addr, dir, dir);
    rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 2);
    snprintf(cmd, sizeof cmd, "%s/noout2.txt", dir);
    assert_true(file_has(cmd, "is a directory (give a file name)", ""));
    snprintf(cmd, sizeof cmd,
             "'%s' client --addr '%s' prove '%s' --sector-num 7 --miner-id 1000 > '%s/prove.txt' "
             "2>&1",
             cli(), addr, c1_path, dir);
    rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 1);
    snprintf(cmd, sizeof cmd, "%s/prove.txt", dir);
    assert_true(file_has(cmd, ": FAILED", ""));
    assert_false(file_has(cmd, "INVALID_ARGUMENT", ""));

    /* SIGTERM drains: a job submitted before it completes */
    payload = "seed=4 partitions=2 log=6 synth_ms=700";
    r.vanilla_proof = (const uint8_t *)payload;
    r.vanilla_proof_len = strlen(payload);
    r.request_id = "drain-1";
    char id[CZK_JOB_ID_MAX];
    czk_assert_ok(czk_rpc_submit(c, &r, id, NULL, 5000, NULL, &err), &err);
    assert_int_equal(kill(pid, SIGTERM), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char tl[600];
    snprintf(tl, sizeof tl, "%s/timeline.log", dir);
    assert_true(file_has(tl, "JOB_DONE,drain-1", "status=COMPLETED"));
    snprintf(tl, sizeof tl, "%s/daemon.log", dir);
    assert_true(file_has(
        tl, "stopped: 2 proofs completed, 2 failed (1 of them refused at intake), 0 cancelled",
        ""));
    /* the socket is gone, calls fail */
    czk_rpc_status *s = NULL;
    assert_int_not_equal(czk_rpc_get_status(c, &s, 1000, NULL, &err), CZK_OK);
    czk_rpc_client_close(c);
    czk_params_free(keys);
    czk_test_rm_rf(dir);
}

/* --log-level: help and the error list every level logging.level takes */
static void test_log_level_words(void **state) {
    (void)state;
    char dir[256], cmd[900], path[300];
    czk_test_tmpdir(dir, sizeof dir, "engine");
    snprintf(cmd, sizeof cmd, "'%s' daemon --help > '%s/help.txt'", cli(), dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/help.txt", dir);
    assert_true(file_has(path, "--log-level", "error, warn, info, debug, trace"));
    snprintf(cmd, sizeof cmd, "'%s' daemon --log-level loud 2> '%s/err.txt'", cli(), dir);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 2);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    assert_true(file_has(path, "--log-level loud", "error, warn, info, debug or trace"));
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_log_level_words),
                                       cmocka_unit_test(test_daemon)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
