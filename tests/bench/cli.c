/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * `czk bench --in-process` on the engine's test kind (small circuits, CPU
 * backend), read back from its output:
 *   - a run of 5 proofs with 2 in flight prints 5 per-proof rows, each with
 *     its own request id, all COMPLETED; the summary is consistent with itself
 *     and with the rows: s/proof × completed = wall (to the printed digits),
 *     wall ≥ the longest proof's wall, busy % in 0…100, 3 partitions per proof
 *     counted by the timeline (5 × 3 = 15), and the configuration printed is
 *     the one given (--config, then --set over it);
 *   - --svg writes a picture with one bar per partition per stage;
 *   - --warmup proofs are neither rows nor in the summary;
 *   - progress: plain lines when stderr is no terminal, the bar (done/total,
 *     s/proof so far, ETA, redrawn with CR + erase-line) with --progress;
 *   - a sweep over two keys (2 × 2 values) prints 4 rows, in grid order, each
 *     with every proof done; an unknown key or a bad value is refused before
 *     any run;
 *   - --lagrange-seed: with the test keys' seed the form made at load
 *     proves and the srs line says it is attached; with another seed every
 *     proof fails its verification; refused without --in-process;
 *   - --addr with no daemon there (or no gRPC client in the build) fails
 *     naming the address (exit 2); usage errors exit 2.
 */
#include "support.h"
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[256];

static char *czk(const char *args, int *rc) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' bench %s 2>stderr.txt", g_dir, cli, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    size_t k;
    while ((k = fread(out + n, 1, cap - 1 - n, p)) > 0)
        n += k;
    out[n] = 0;
    int st = pclose(p);
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    fprintf(stderr, "$ czk bench %s  (exit %d)\n%s", args, *rc, out);
    return out;
}

static char *err_text(void) {
    static char b[4096];
    char p[512];
    snprintf(p, sizeof p, "%s/stderr.txt", g_dir);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t n = fread(b, 1, sizeof b - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

static void put(const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s/czk-bench-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(g_dir));
    put("c.toml", "[gpus]\nbackend = \"cpu\"\ngpu_workers_per_device = 1\ngpu_threads = 2\n"
                  "[synthesis]\npartition_workers = 2\nthreads = 1\n"
                  "[memory]\ntotal_budget = \"1 GiB\"\n");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd);
}

static void test_run(void **state) {
    (void)state;
    int rc;
    char *out = czk("--in-process --config c.toml --set gpus.gpu_workers_per_device=2 -c 5 -j 2 "
                    "--kind test --test-payload 'partitions=3 log=8' --svg run.svg --no-progress",
                    &rc);
    assert_int_equal(rc, 0);
    /* 5 rows, one per request number, each its own id, all completed */
    size_t rows = 0;
    double max_wall = 0;
    char ids[5][128];
    for (const char *p = out; (p = strstr(p, "\n    ")); p++) {
        unsigned idx;
        char id[128], state_[32];
        double wall;
        if (sscanf(p + 1, "%u %127s %31s %lf", &idx, id, state_, &wall) != 4) continue;
        assert_true(idx < 5);
        assert_string_equal(state_, "COMPLETED");
        for (size_t j = 0; j < rows; j++)
            assert_string_not_equal(ids[j], id);
        snprintf(ids[rows++], sizeof ids[0], "%s", id);
        if (wall > max_wall) max_wall = wall;
    }
    assert_int_equal(rows, 5);
    assert_non_null(strstr(out, "proofs                 5 (completed 5, failed 0)"));
    double wall = bench_summary(out, "wall"), sp = bench_summary(out, "s/proof");
    /* s/proof × completed = wall, to the printed 3 decimals */
    assert_true(fabs(sp * 5 - wall) <= 5 * 0.0005 + 0.0005);
    assert_true(wall + 0.0005 >= max_wall);
    double busy = bench_summary(out, "gpu busy");
    assert_true(busy >= 0 && busy <= 100);
    assert_non_null(strstr(out, "; 15 partitions)")); /* 5 proofs × 3 partitions */
    assert_non_null(strstr(out, "idle gaps"));
    assert_non_null(strstr(out, "peak RSS"));
    /* the configuration used: the file's, with --set over it */
    assert_non_null(strstr(out, "gpus.gpu_workers_per_device = 2\n"));
    assert_non_null(strstr(out, "synthesis.partition_workers = 2\n"));
    assert_non_null(strstr(out, "memory.total_budget = 1.00 GiB\n"));
    /* the CPU backend: the "gpu" figures said to be the proving stage on the host */
    assert_non_null(strstr(out, "gpus.backend = cpu (no GPU in use: the figures named gpu"));
    /* --no-progress: no progress lines on stderr */
    const char *e = err_text();
    size_t prog = 0;
    for (const char *p = e; (p = strstr(p, "progress ")); p++)
        prog++;
    assert_int_equal(prog, 0); /* --no-progress */
    free(out);
    /* the picture: 5 × 3 partitions, each synthesized, proved and finalized once */
    char path[512];
    snprintf(path, sizeof path, "%s/run.svg", g_dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char svg[1 << 20];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = 0;
    fclose(f);
    size_t bars = 0;
    for (const char *p = svg; (p = strstr(p, "class=\"bar")); p++)
        bars++;
    assert_true(bars >= 3 * 15); /* a partition may take the device lock more than once */
    assert_non_null(strstr(svg, "</svg>"));

    /* plain progress lines when stderr is no terminal; warm-up proofs are not counted */
    out = czk("--in-process --config c.toml -c 2 -j 1 --kind test --test-payload 'partitions=1 "
              "log=6' --warmup 3",
              &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "proofs                 2 (completed 2, failed 0)"));
    assert_non_null(strstr(out, "; 2 partitions)")); /* the timeline starts after the warm-up */
    e = err_text();
    assert_non_null(strstr(e, "3 warm-up proofs in "));
    assert_non_null(strstr(e, "progress 1/2, "));
    assert_non_null(strstr(e, "progress 2/2, "));
    assert_non_null(strstr(e, "ETA"));
    free(out);

    /* --progress: the bar (as on a terminal), redrawn in place: done/total, s/proof, ETA */
    out = czk("--in-process --config c.toml -c 3 -j 1 --kind test --test-payload 'partitions=1 "
              "log=6' --progress",
              &rc);
    assert_int_equal(rc, 0);
    e = err_text();
    assert_non_null(strstr(e, "[..............................] 0/3  starting"));
    assert_non_null(strstr(e, "\r\033[K[##########....................] 1/3  "));
    assert_non_null(strstr(e, "] 2/3  "));
    assert_non_null(strstr(e, " s/proof  elapsed "));
    assert_non_null(strstr(e, "  ETA "));
    assert_null(strstr(e, "progress 1/3")); /* no plain lines with the bar */
    free(out);
}

static void test_sweep(void **state) {
    (void)state;
    int rc;
    char *out = czk("--in-process --config c.toml -c 2 -j 2 --kind test --test-payload "
                    "'partitions=2 log=7' --sweep synthesis.partition_workers=1,2 "
                    "gpus.gpu_workers_per_device=1,2",
                    &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "sweep: 4 configurations, 2 proofs each, 2 in flight"));
    /* rows in grid order: the last key varies fastest */
    static const unsigned WANT[4][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}};
    const char *p = strstr(out, "RSS GiB\n");
    assert_non_null(p);
    p += 8;
    for (int r = 0; r < 4; r++) {
        unsigned a, b, done, fail;
        double wall, sp;
        assert_int_equal(sscanf(p, "%u %u %u %u %lf %lf", &a, &b, &done, &fail, &wall, &sp), 6);
        assert_int_equal(a, WANT[r][0]);
        assert_int_equal(b, WANT[r][1]);
        assert_int_equal(done, 2);
        assert_int_equal(fail, 0);
        assert_true(fabs(sp * 2 - wall) <= 2 * 0.0005 + 0.0005);
        p = strchr(p, '\n');
        assert_non_null(p);
        p++;
    }
    free(out);
    /* a typo is not swept over the defaults, a bad value is refused, before any run */
    out = czk("--in-process -c 1 --kind test --sweep synthesis.partition_worker=1,2", &rc);
    assert_int_equal(rc, 2);
    assert_null(strstr(out, "sweep:"));
    assert_non_null(strstr(err_text(), "unknown key synthesis.partition_worker"));
    free(out);
    out = czk("--in-process -c 1 --kind test --sweep gpus.gpu_workers_per_device=1,x", &rc);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err_text(), "expected an integer, got string"));
    free(out);
}

/* --lagrange-seed: the test kind's keys come from czk_setup with czk_rng seed 0x7e57c0de + log
 * (src/kinds/test.c); with that seed the form made at load proves (and the srs line says so),
 * with another every proof fails its verification inside the engine. */
static void test_lagrange_seed(void **state) {
    (void)state;
    int rc;
    char args[512];
    snprintf(args, sizeof args,
             "--in-process --config c.toml -c 2 -j 1 --kind test --test-payload "
             "\"partitions=2 log=8\" --no-progress --lagrange-seed %llu",
             0x7e57c0deull + 8);
    char *out = czk(args, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "proofs                 2 (completed 2, failed 0)"));
    assert_non_null(strstr(out, "srs test-8: "));
    assert_non_null(strstr(out, ", Lagrange form attached; "));
    free(out);
    snprintf(args, sizeof args,
             "--in-process --config c.toml -c 1 -j 1 --kind test --test-payload "
             "\"partitions=1 log=8\" --no-progress --lagrange-seed 5");
    out = czk(args, &rc);
    assert_non_null(strstr(out, "failed 1)"));
    assert_non_null(strstr(out, "the proof does not verify against the VK of test-8"));
    free(out);
    free(czk("--addr 127.0.0.1:1 -c 1 --kind test --lagrange-seed 1", &rc));
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err_text(), "--lagrange-seed is for --in-process"));
}

static void test_usage(void **state) {
    (void)state;
    int rc;
    free(czk("--addr 127.0.0.1:1 -c 1 --kind test", &rc));
    assert_int_equal(rc, 2);
    /* no daemon there (or no gRPC client in this build): the message names the address */
    assert_non_null(strstr(err_text(), "czk bench: --addr 127.0.0.1:1: "));
    free(czk("-c 1 --kind test", &rc)); /* neither --addr nor --in-process */
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err_text(), "exactly one of --addr ADDR and --in-process"));
    free(czk("--in-process -c 0 --kind test", &rc));
    assert_int_equal(rc, 2);
    free(czk("--in-process -c 1", &rc)); /* no input */
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err_text(), "--c1 FILE"));
    free(czk("--in-process -c 1 --c1 /nonexistent/c1.json", &rc));
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err_text(), "/nonexistent/c1.json"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_lagrange_seed),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
