/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 900 */
/*
 * Exact counts of the SnapDeals update circuit, one partition.
 *
 * Sources of the expected values:
 *   [U]  rust-fil-proofs storage-proofs-update/tests/circuit.rs (v28,
 *        87348a74): TestConstraintSystem / BenchCS num_constraints
 *        (synthesized, no finalization) 1KiB 1,248,389; 2KiB 1,705,039;
 *        4KiB 2,165,109; 8KiB 2,620,359; 16KiB 6,300,021; 32KiB 6,760,091;
 *        32GiB 81,049,499; inputs ONE + 4 (circuit.rs PublicInputs).
 *   [S]  spec/post-snap.md §0: the prover's n for 32GiB 81,049,504 (one
 *        constraint per input added), domain 2^27.
 *
 * czk_snap_count (recordings of one and two challenge bodies,
 * extrapolated) is held to whole recordings field by field for the sizes
 * whose whole circuit records in seconds (1KiB, 2KiB, 4KiB, 8KiB); the
 * others are counted (their whole recordings, 6–81 M constraints, are in
 * tests/snap/circuit_slow.c under CZK_SLOW_TESTS).
 */
#include "support.h"

#include <string.h>

#include "czk/snap.h"

static czk_shape_counts record(const czk_snap_shape *s) {
    czk_shape *sh = NULL;
    czk_err err;
    czk_assert_ok(czk_snap_record(&sh, s, NULL, &err), &err);
    czk_shape_counts c;
    czk_shape_counts_of(&c, sh);
    czk_shape_free(sh);
    return c;
}

static czk_shape_counts count(const czk_snap_shape *s) {
    czk_shape_counts c;
    czk_err err;
    czk_assert_ok(czk_snap_count(&c, s, &err), &err);
    return c;
}

static void assert_counts_equal(const czk_shape_counts *a, const czk_shape_counts *b) {
    assert_int_equal(a->constraints, b->constraints);
    assert_int_equal(a->synthesized_constraints, b->synthesized_constraints);
    assert_int_equal(a->inputs, b->inputs);
    assert_int_equal(a->aux, b->aux);
    for (int m = 0; m < 3; m++)
        assert_int_equal(a->nnz[m], b->nnz[m]);
    assert_int_equal(a->a_aux, b->a_aux);
    assert_int_equal(a->b_input, b->b_input);
    assert_int_equal(a->b_aux, b->b_aux);
}

static const czk_snap_shape *shape(const char *name) {
    for (int i = 0; i < CZK_SNAP_SHAPE_COUNT; i++)
        if (!strcmp(czk_snap_shapes[i].name, name)) return &czk_snap_shapes[i];
    fail_msg("no shape %s", name);
    return NULL;
}

typedef struct expect {
    const char *shape;
    uint64_t synth; /* [U] */
    bool record;    /* cheap enough to record whole here */
} expect;

static const expect expects[] = {
    {"1KiB", 1248389, true},    {"2KiB", 1705039, true},   {"4KiB", 2165109, true},
    {"8KiB", 2620359, true},    {"16KiB", 6300021, false}, {"32KiB", 6760091, false},
    {"32GiB", 81049499, false},
};

static void test_upstream_counts(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof expects / sizeof expects[0]; i++) {
        const expect *e = &expects[i];
        const czk_snap_shape *s = shape(e->shape);
        czk_shape_counts c = count(s);
        if (c.synthesized_constraints != e->synth)
            fail_msg("%s: %llu synthesized constraints, upstream %llu", e->shape,
                     (unsigned long long)c.synthesized_constraints,
                     (unsigned long long)e->synth);
        assert_int_equal(c.inputs, CZK_SNAP_INPUTS);
        assert_int_equal(c.constraints, e->synth + CZK_SNAP_INPUTS);
        if (e->record) {
            czk_shape_counts r = record(s);
            assert_counts_equal(&c, &r);
        }
    }
}

/* [S]: the prover's n and domain of a 32GiB partition. */
static void test_32gib_prover_n(void **state) {
    (void)state;
    czk_shape_counts c = count(shape("32GiB"));
    assert_int_equal(c.constraints, 81049504);
    assert_true(c.constraints > (1ull << 26) && c.constraints <= (1ull << 27));
}

/* Every shape counts with 5 inputs; the production sizes' counts grow with the tree. */
static void test_all_shapes(void **state) {
    (void)state;
    for (int i = 0; i < CZK_SNAP_SHAPE_COUNT; i++) {
        const czk_snap_shape *s = &czk_snap_shapes[i];
        czk_shape_counts c = count(s);
        assert_int_equal(c.inputs, CZK_SNAP_INPUTS);
        assert_int_equal(c.b_input, 1); /* ONE only: inputs appear in C (inputize) */
        print_message("%-6s %11llu constraints %11llu aux\n", s->name,
                      (unsigned long long)c.synthesized_constraints, (unsigned long long)c.aux);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_counts),
        cmocka_unit_test(test_32gib_prover_n),
        cmocka_unit_test(test_all_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
