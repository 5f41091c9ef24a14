/* CZK_TEST_LABELS: slow */
/* CZK_TEST_TIMEOUT: 3600 */
/*
 * Whole SnapDeals partitions recorded and held field by field to
 * czk_snap_count (one recording of two challenge bodies, extrapolated):
 * the test sizes 16KiB and 32KiB (2 partitions, 128 apex leafs, the Sub and
 * Top TreeR variants) and 8MiB, 16MiB and 512MiB; then 32GiB, whose
 * recording (81 M constraints; 5.4 GiB peak, 100 s on two cores for the
 * whole test) also gives upstream's count,
 * 81,049,499 synthesized (storage-proofs-update tests/circuit.rs,
 * BenchCS).
 */
#include "support.h"

#include <string.h>

#include "czk/snap.h"

static void whole_equals_count(const char *name) {
    const czk_snap_shape *s = NULL;
    for (int i = 0; i < CZK_SNAP_SHAPE_COUNT; i++)
        if (!strcmp(czk_snap_shapes[i].name, name)) s = &czk_snap_shapes[i];
    assert_non_null(s);
    czk_err err;
    czk_shape *sh = NULL;
    czk_assert_ok(czk_snap_record(&sh, s, NULL, &err), &err);
    czk_shape_counts r, c;
    czk_shape_counts_of(&r, sh);
    czk_shape_free(sh);
    czk_assert_ok(czk_snap_count(&c, s, &err), &err);
    czk_test_assert_counts_equal(&c, &r);
    if (!strcmp(name, "32GiB")) assert_int_equal(r.synthesized_constraints, 81049499);
}

static void test_test_sizes(void **state) {
    (void)state;
    whole_equals_count("16KiB");
    whole_equals_count("32KiB");
}

static void test_production_sizes(void **state) {
    (void)state;
    whole_equals_count("8MiB");
    whole_equals_count("16MiB");
    whole_equals_count("512MiB");
    whole_equals_count("32GiB");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_test_sizes),
        cmocka_unit_test(test_production_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
