/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * `czk bench --addr` against a daemon started here (an engine on the CPU
 * backend with a 40 ms pseudo-GPU, served by czk_rpc_server on a unix
 * socket): 4 test-kind proofs with 2 in flight arrive as 4 jobs with
 * distinct request ids (the engine's own counters say 4 completed), the
 * output has 4 COMPLETED rows with the daemon's GPU times (≥ 40 ms per
 * partition, 2 partitions), the summary is consistent (s/proof × completed
 * = wall to the printed digits), and what the remote runner cannot know —
 * busy %, idle gaps, peak RSS — is printed as unknown, saying why; with
 * --timeline-file (the daemon's logging.timeline_file) busy % and the
 * per-partition times come from the lines the run appended (3 proofs × 2
 * partitions) and --svg draws them. --sweep is refused with --addr.
 */
#include "../engine/etest.h"
#include "../bench/summary.h"
#include "rpc_util.h"

#include "czk/rpc.h"

#include <math.h>
#include <sys/wait.h>

static char g_dir[256], g_addr[320];
static czk_engine *g_engine;
static czk_rpc_server *g_server;

static int setup(void **state) {
    (void)state;
    czk_test_tmpdir(g_dir, sizeof g_dir, "engine");
    czk_engine_opts o;
    et_opts(&o, NULL, 40);
    snprintf(o.config.timeline_file, sizeof o.config.timeline_file, "%s/timeline.log", g_dir);
    g_engine = et_start(&o);
    snprintf(g_addr, sizeof g_addr, "unix://%s/czk.sock", g_dir);
    g_server = rpc_test_server(g_engine, g_addr, 0);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    czk_rpc_server_destroy(g_server);
    czk_engine_destroy(g_engine);
    czk_test_rm_rf(g_dir);
    return 0;
}

static char *czk(const char *args, int *rc) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' bench %s 2>&1", g_dir, cli, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0, k;
    char *out = malloc(cap);
    assert_non_null(out);
    while ((k = fread(out + n, 1, cap - 1 - n, p)) > 0)
        n += k;
    out[n] = 0;
    int st = pclose(p);
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    fprintf(stderr, "$ czk bench %s  (exit %d)\n%s", args, *rc, out);
    return out;
}

static void test_remote(void **state) {
    (void)state;
    char args[700];
    snprintf(args, sizeof args,
             "--addr '%s' -c 4 -j 2 --kind test --test-payload 'partitions=2 log=7' --no-progress",
             g_addr);
    int rc;
    char *out = czk(args, &rc);
    assert_int_equal(rc, 0);
    size_t rows = 0;
    char ids[4][128];
    for (const char *p = out; (p = strstr(p, "\n    ")); p++) {
        unsigned idx;
        char id[128], st[32];
        double wall;
        unsigned long long q, syn, gpu;
        if (sscanf(p + 1, "%u %127s %31s %lf %llu %llu %llu", &idx, id, st, &wall, &q, &syn,
                   &gpu) != 7)
            continue;
        assert_string_equal(st, "COMPLETED");
        assert_true(gpu >= 2 * 40); /* the daemon's device time: 2 partitions, 40 ms each */
        for (size_t j = 0; j < rows; j++)
            assert_string_not_equal(ids[j], id);
        assert_true(rows < 4);
        snprintf(ids[rows++], sizeof ids[0], "%s", id);
    }
    assert_int_equal(rows, 4);
    double wall = bench_summary(out, "wall"), sp = bench_summary(out, "s/proof");
    assert_true(fabs(sp * 4 - wall) <= 4 * 0.0005 + 0.0005);
    assert_non_null(strstr(out, "gpu busy               - (no timeline from this runner"));
    assert_non_null(strstr(out, "peak RSS               - (unknown for this runner)"));
    assert_non_null(strstr(out, "runner = remote unix://"));
    free(out);
    /* the daemon made 4 proofs */
    czk_engine_status *s = et_status(g_engine);
    assert_int_equal(s->proofs_completed, 4);
    czk_engine_status_free(s);
    /* with the daemon's timeline file: busy %, gaps, per partition, and the picture */
    snprintf(args, sizeof args,
             "--addr '%s' -c 3 -j 3 --kind test --test-payload 'partitions=2 log=7' --no-progress "
             "--timeline-file '%s/timeline.log' --svg r.svg",
             g_addr, g_dir);
    out = czk(args, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "; 6 partitions)")); /* this run's only: 3 × 2 */
    double busy = bench_summary(out, "gpu busy");
    assert_true(busy > 0 && busy <= 100);
    assert_non_null(strstr(out, "timeline svg           r.svg"));
    free(out);
    /* in-process-only options */
    snprintf(args, sizeof args,
             "--addr '%s' -c 1 --kind test --sweep gpus.gpu_workers_per_device=1,2", g_addr);
    out = czk(args, &rc);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "need --in-process"));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_remote)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
