/* CZK_TEST_LABELS: slow */
/* CZK_TEST_TIMEOUT: 3600 */
/*
 * Whole 32GiB and 64GiB partitions recorded (18 challenges each; about
 * 9 GiB of memory and two minutes on two cores each).
 *
 * Expected values:
 *   32GiB: filecoin-project/curio@e0294b0f extern/cuzk/cuzk-project.md
 *   ("Phase 5 Wave 1", the R1CS measured from bellperson): 130,278,869
 *   constraints, 328 inputs, 130,169,893 aux, nnz A/B/C 309,405,051 /
 *   130,327,340 / 282,656,500, a_aux 129,753,292, b_input 1, b_aux
 *   33,112,281; the same n as the v26 "32G seal" entry of a bellperson GPU
 *   table (spec/porep-circuit.md §7).
 *   64GiB: spec/porep-circuit.md §1 table: n 131,186,177, 328 inputs,
 *   131,076,643 aux, a_aux 130,637,542, b_aux 33,386,943.
 */
#include "support.h"

#include <string.h>

#include "czk/porep_circuit.h"

static czk_shape *record(const char *name) {
    const czk_porep_shape *s = NULL;
    for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (!strcmp(czk_porep_shapes[i].name, name)) s = &czk_porep_shapes[i];
    assert_non_null(s);
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, s);
    assert_int_equal(cfg.challenges, 18);
    czk_shape *sh = NULL;
    czk_err err;
    czk_assert_ok(czk_porep_record(&sh, &cfg, NULL, &err), &err);
    return sh;
}

static void test_32gib_partition(void **state) {
    (void)state;
    czk_shape *sh = record("32GiB");
    assert_int_equal(sh->num_constraints, 130278869);
    assert_int_equal(sh->num_inputs, 328);
    assert_int_equal(sh->num_aux, 130169893);
    assert_int_equal(sh->m[0].nnz, 309405051);
    assert_int_equal(sh->m[1].nnz, 130327340);
    assert_int_equal(sh->m[2].nnz, 282656500);
    assert_int_equal(sh->a_aux.popcount, 129753292);
    assert_int_equal(sh->b_input.popcount, 1);
    assert_int_equal(sh->b_aux.popcount, 33112281);
    czk_shape_free(sh);
}

static void test_64gib_partition(void **state) {
    (void)state;
    czk_shape *sh = record("64GiB");
    assert_int_equal(sh->num_constraints, 131186177);
    assert_int_equal(sh->num_inputs, 328);
    assert_int_equal(sh->num_aux, 131076643);
    assert_int_equal(sh->a_aux.popcount, 130637542);
    assert_int_equal(sh->b_input.popcount, 1);
    assert_int_equal(sh->b_aux.popcount, 33386943);
    czk_shape_free(sh);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_32gib_partition),
        cmocka_unit_test(test_64gib_partition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
