/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1800 */
/* CZK_TEST_FIXTURES_REQUIRED: porep_2kib_keys */
/*
 * `czk bench` on real PoRep C2 work, CPU only: two 2KiB C1 files made by
 * `czk gen-vanilla` (miner f01000, sector 1, random data 9 and 10), the
 * 2KiB test keys of the porep.e2e_keys fixture (kept in
 * $CZK_CACHE_DIR/test-keys, never in the repository), 3 proofs with 2 in
 * flight through the in-process engine (gpus.backend = "cpu"). The only
 * 2KiB bench in CI: a 2KiB proof costs about a minute of CPU (README "CI
 * time budget"); the other bench tests use the engine's test kind.
 * Checked from the output: 3 COMPLETED rows with distinct request ids, the
 * C1 files used round-robin (both named), s/proof × completed = wall to the
 * printed digits, busy % within 0…100, one partition per proof (3 in the
 * timeline), and the timeline picture holds a bar per stage per partition.
 */
#include "../porep/e2e_util.h"
#include "summary.h"

#include <math.h>

static void test_bench_2k(void **state) {
    (void)state;
    char dir[700], keys[600], args[1500];
    czk_test_tmpdir(dir, sizeof dir, "e2e");
    e2e_keys_dir(keys, sizeof keys);
    for (int r = 9; r <= 10; r++) {
        snprintf(args, sizeof args,
                 "gen-vanilla --sector-size 2KiB --miner-id 1000 --sector-num 1 --random %d "
                 "--out c1-%d.json",
                 r, r);
        assert_int_equal(e2e_czk(dir, args, NULL, NULL), 0);
    }
    char cfg[1000], path[800];
    snprintf(cfg, sizeof cfg, "[gpus]\nbackend = \"cpu\"\n[srs]\nparam_cache = \"%s\"\n", keys);
    snprintf(path, sizeof path, "%s/c.toml", dir);
    czk_test_write(path, cfg, strlen(cfg));
    char *out = NULL;
    assert_int_equal(e2e_czk(dir,
                             "bench --in-process --config c.toml -c 3 -j 2 --c1 c1-9.json "
                             "c1-10.json --svg t.svg --no-progress",
                             &out, NULL),
                     0);
    assert_non_null(strstr(out, "inputs: c1-9.json (porep-2k) c1-10.json (porep-2k)"));
    size_t rows = 0;
    char ids[3][128];
    for (const char *p = out; (p = strstr(p, "\n    ")); p++) {
        unsigned idx;
        char id[128], st[32];
        double wall;
        if (sscanf(p + 1, "%u %127s %31s %lf", &idx, id, st, &wall) != 4) continue;
        assert_string_equal(st, "COMPLETED");
        for (size_t j = 0; j < rows; j++)
            assert_string_not_equal(ids[j], id);
        assert_true(rows < 3);
        snprintf(ids[rows++], sizeof ids[0], "%s", id);
    }
    assert_int_equal(rows, 3);
    assert_non_null(strstr(out, "proofs                 3 (completed 3, failed 0)"));
    double wall = bench_summary(out, "wall"), sp = bench_summary(out, "s/proof");
    assert_true(wall > 0);
    assert_true(fabs(sp * 3 - wall) <= 3 * 0.0005 + 0.0005);
    double busy = bench_summary(out, "gpu busy");
    assert_true(busy >= 0 && busy <= 100);
    assert_non_null(strstr(out, "; 3 partitions)"));
    assert_non_null(strstr(out, "srs.param_cache = "));
    free(out);
    snprintf(path, sizeof path, "%s/t.svg", dir);
    size_t n = 0;
    char *svg = czk_test_slurp(path, &n);
    assert_non_null(svg);
    size_t bars = 0;
    for (const char *p = svg; (p = strstr(p, "class=\"bar")); p++)
        bars++;
    assert_true(bars >= 3 * 3); /* synthesis, device, finalize of 3 partitions */
    assert_non_null(strstr(svg, "</svg>"));
    free(svg);
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bench_2k)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
