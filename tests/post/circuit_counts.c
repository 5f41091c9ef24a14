/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * Exact counts of the FallbackPoSt partition circuit.
 *
 * Sources of the expected values:
 *   [U]  rust-fil-proofs storage-proofs-post/tests/fallback_circuit.rs
 *        (v28, 87348a74), MetricCS counts (synthesized, no finalization) of
 *        64-leaf base trees × get_base_tree_count: base-8 3 sectors × 5
 *        challenges 19 inputs 16,869; 8-4 22,674; 8-4-2 27,384; two
 *        partitions of 2 sectors 13 inputs 11,246; the BenchCS 32GiB tree,
 *        5 sectors × 10 challenges, 266,665.
 *   [C]  filecoin-proofs constants.rs comments: WindowPoSt 32GiB 125,279,217,
 *        64GiB 129,887,900.
 *   [T]  spec/post-snap.md §0/§1.2, derived from the gadget costs: WindowPoSt
 *        2KiB 21,866, 8MiB 64,266, 512MiB 85,466; WinningPoSt 90,750 /
 *        230,670 / 300,630 / 370,590 / 391,314; inputs incl. ONE 23 (test
 *        sizes), 25,840 (32GiB), 25,301 (64GiB), 133 (Winning); prover n
 *        125,305,057 / 129,913,201 / 370,723.
 *   [A]  aux, computed for this test from porep-circuit.md's per-gadget aux
 *        (octree level 537, quad 390, binary 315, Poseidon-2 311, the three
 *        commitments and each leaf one): per sector 314 + C·(1 + Σ levels).
 *
 * czk_post_count (recordings of 1 and 2 sectors, extrapolated) is held to
 * whole recordings field by field wherever a recording is cheap: every
 * upstream configuration, every WinningPoSt and the test-size WindowPoSts,
 * and 3 sectors of the 32GiB and 64GiB WindowPoSt circuits.
 */
#include "support.h"

#include <string.h>

#include "czk/post.h"

static czk_post_counts record(const czk_post_config *cfg) {
    czk_shape *sh = NULL;
    czk_err err;
    czk_assert_ok(czk_post_record(&sh, cfg, NULL, NULL, &err), &err);
    czk_post_counts c;
    czk_post_counts_of_shape(&c, sh);
    czk_shape_free(sh);
    return c;
}

static czk_post_counts count(const czk_post_config *cfg) {
    czk_post_counts c;
    czk_err err;
    czk_assert_ok(czk_post_count(&c, cfg, &err), &err);
    return c;
}

static czk_post_config shape_config(czk_post_kind kind, const char *name) {
    for (int i = 0; i < CZK_POST_SHAPE_COUNT; i++)
        if (!strcmp(czk_post_shapes[i].name, name)) {
            czk_post_config cfg;
            czk_post_config_for(&cfg, kind, &czk_post_shapes[i]);
            return cfg;
        }
    fail_msg("no shape %s", name);
    return (czk_post_config){0};
}

/* [U]: the recorded count and the extrapolated one; inputs as upstream's. */
static void check_upstream(uint64_t leaves_per_base, unsigned base, unsigned sub, unsigned top,
                           unsigned sectors, unsigned challenges, uint64_t inputs, uint64_t synth) {
    uint64_t trees = (uint64_t)(sub ? sub : 1) * (top ? top : 1);
    czk_post_config cfg = {leaves_per_base * trees, base, sub, top, sectors, challenges};
    czk_post_counts r = record(&cfg), c = count(&cfg);
    assert_int_equal(r.inputs, inputs);
    assert_int_equal(czk_post_num_inputs(&cfg), inputs);
    assert_int_equal(r.synthesized_constraints, synth);
    assert_int_equal(r.constraints, synth + inputs);
    assert_int_equal(r.b_input, 1);
    czk_test_assert_counts_equal(&c, &r);
}

static void test_upstream_configurations(void **state) {
    (void)state;
    check_upstream(64, 8, 0, 0, 3, 5, 19, 16869);
    check_upstream(64, 8, 4, 0, 3, 5, 19, 22674);
    check_upstream(64, 8, 4, 2, 3, 5, 19, 27384);
    check_upstream(64, 8, 0, 0, 2, 5, 13, 11246);
    /* BenchCS: the 32GiB TreeR, 5 sectors × 10 challenges (inputs 1 + 5·11) */
    check_upstream(1ull << 27, 8, 8, 0, 5, 10, 56, 266665);
}

typedef struct expect {
    czk_post_kind kind;
    const char *shape;
    unsigned sectors, challenges;
    uint64_t synth;  /* [T] / [C] */
    uint64_t inputs; /* [T], ONE included */
    uint64_t aux;    /* [A] */
    bool record;     /* cheap enough to record whole */
} expect;

static const expect expects[] = {
    {CZK_POST_WINDOW, "2KiB", 2, 10, 21866, 23, 22128, true},
    {CZK_POST_WINDOW, "8MiB", 2, 10, 64266, 23, 65088, true},
    {CZK_POST_WINDOW, "512MiB", 2, 10, 85466, 23, 86568, true},
    {CZK_POST_WINDOW, "32GiB", 2349, 10, 125279217, 25840, 126902376, false},
    {CZK_POST_WINDOW, "64GiB", 2300, 10, 129887900, 25301, 131500200, false},
    {CZK_POST_WINNING, "2KiB", 66, 1, 90750, 133, 91674, true},
    {CZK_POST_WINNING, "8MiB", 66, 1, 230670, 133, 233442, true},
    {CZK_POST_WINNING, "512MiB", 66, 1, 300630, 133, 304326, true},
    {CZK_POST_WINNING, "32GiB", 66, 1, 370590, 133, 375210, true},
    {CZK_POST_WINNING, "64GiB", 66, 1, 391314, 133, 396000, true},
};

static void test_production_shapes(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++) {
        const expect *e = &expects[i];
        czk_post_config cfg = shape_config(e->kind, e->shape);
        assert_int_equal(cfg.sectors, e->sectors);
        assert_int_equal(cfg.challenges, e->challenges);
        czk_post_counts c = count(&cfg);
        assert_int_equal(c.synthesized_constraints, e->synth);
        assert_int_equal(c.inputs, e->inputs);
        assert_int_equal(czk_post_num_inputs(&cfg), e->inputs);
        assert_int_equal(c.constraints, e->synth + e->inputs);
        assert_int_equal(c.aux, e->aux);
        assert_int_equal(c.b_input, 1);
        if (e->record) {
            czk_post_counts r = record(&cfg);
            czk_test_assert_counts_equal(&c, &r);
        }
    }
}

/* [T] prover n and domains: WindowPoSt 32GiB 125,305,057 and 64GiB 129,913,201 (2^27),
 * WinningPoSt 32GiB 370,723 (2^19). */
static void test_prover_n(void **state) {
    (void)state;
    czk_post_config w32 = shape_config(CZK_POST_WINDOW, "32GiB");
    czk_post_config w64 = shape_config(CZK_POST_WINDOW, "64GiB");
    czk_post_config g32 = shape_config(CZK_POST_WINNING, "32GiB");
    czk_post_counts a = count(&w32), b = count(&w64), c = count(&g32);
    assert_int_equal(a.constraints, 125305057);
    assert_int_equal(b.constraints, 129913201);
    assert_int_equal(c.constraints, 370723);
    assert_true(a.constraints > (1ull << 26) && a.constraints <= (1ull << 27));
    assert_true(b.constraints > (1ull << 26) && b.constraints <= (1ull << 27));
    assert_true(c.constraints > (1ull << 18) && c.constraints <= (1ull << 19));
}

/* The extrapolation of the big trees against a whole recording of 3 sectors. */
static void test_big_trees_three_sectors(void **state) {
    (void)state;
    const char *names[2] = {"32GiB", "64GiB"};
    for (int k = 0; k < 2; k++) {
        czk_post_config cfg = shape_config(CZK_POST_WINDOW, names[k]);
        cfg.sectors = 3;
        czk_post_counts r = record(&cfg), c = count(&cfg);
        czk_test_assert_counts_equal(&c, &r);
        assert_int_equal(r.inputs, 1 + 3 * 11);
    }
}

/* Bad configurations are refused naming the field. */
static void test_bad_config(void **state) {
    (void)state;
    czk_err err;
    czk_post_config cfg = shape_config(CZK_POST_WINDOW, "2KiB");
    cfg.sectors = 0;
    assert_int_equal(czk_post_config_check(&cfg, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "sectors"));
    cfg = shape_config(CZK_POST_WINDOW, "2KiB");
    cfg.challenges = 0;
    assert_int_equal(czk_post_config_check(&cfg, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "challenges"));
    cfg = shape_config(CZK_POST_WINDOW, "2KiB");
    cfg.nodes = 100;
    assert_int_equal(czk_post_config_check(&cfg, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "TreeR"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_configurations),
        cmocka_unit_test(test_production_shapes),
        cmocka_unit_test(test_prover_n),
        cmocka_unit_test(test_big_trees_three_sectors),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
