/* CZK_TEST_LABELS: unit */
/*
 * Insertion (storage-proofs-core gadgets/insertion.rs): insert_2 / insert_4 /
 * insert_8 at every position against the expected vectors, their costs
 * (upstream's test assertions: insert_4 8 constraints, insert_8 22; insert_2
 * 2), exact rows of pick and of insert_8's first and last picks, a corrupted
 * condition failing "pick", and refused arguments.
 */
#include "gtest.h"

typedef struct ins_ctx {
    unsigned nbits, index;
    czk_fr vals[8]; /* vals[0..size-1): elements; vals[size-1]: the element */
    czk_num out[8];
    uint64_t cost;
    int variant; /* 0 honest, 1 corrupted bit value, 2 negated bit */
} ins_ctx;

static czk_status ins_circuit(czk_cs *cs, void *p) {
    ins_ctx *c = p;
    unsigned size = c->nbits <= 3 ? 1u << c->nbits : 8; /* nbits 4: refused anyway */
    czk_num elements[7], element;
    for (unsigned i = 0; i + 1 < size; i++)
        elements[i] = czk_num_alloc(cs, &c->vals[i]);
    element = czk_num_alloc(cs, &c->vals[size - 1]);
    czk_bool bits[4];
    czk_bits_alloc_u64_le(cs, c->index, c->nbits, bits);
    if (c->variant == 1) bits[c->nbits - 1].value ^= 1;
    if (c->variant == 2) bits[0] = czk_bool_not(bits[0]);
    uint64_t before = czk_cs_num_constraints(cs);
    czk_status st = czk_insert(cs, &element, bits, c->nbits, elements, c->out);
    c->cost = czk_cs_num_constraints(cs) - before;
    return st;
}

static void test_insert_all_positions(void **state) {
    (void)state;
    static const uint64_t cost[4] = {0, 2, 8, 22};
    czk_rng rng;
    czk_rng_seed(&rng, 41);
    czk_err err;
    for (unsigned nbits = 1; nbits <= 3; nbits++) {
        unsigned size = 1u << nbits;
        for (unsigned index = 0; index < size; index++) {
            ins_ctx c = {.nbits = nbits, .index = index};
            for (unsigned i = 0; i < size; i++)
                czk_assert_ok(czk_fr_random(&c.vals[i], &rng, &err), &err);
            for (int mode = CZK_CS_WITNESS; mode <= CZK_CS_CHECK; mode++) {
                czk_cs *cs = gt_run((czk_cs_mode)mode, ins_circuit, &c, CZK_OK);
                if (mode == CZK_CS_CHECK) assert_int_equal(c.cost, cost[nbits]);
                assert_int_equal(czk_cs_num_aux(cs), size + nbits + cost[nbits]);
                for (unsigned i = 0; i < size; i++) {
                    const czk_fr *want = i < index    ? &c.vals[i]
                                         : i == index ? &c.vals[size - 1]
                                                      : &c.vals[i - 1];
                    assert_true(czk_fr_eq(&c.out[i].value, want));
                }
                czk_cs_free(cs);
            }
        }
    }
}

static void test_rows(void **state) {
    (void)state;
    ins_ctx c = {.nbits = 1, .index = 1};
    czk_shape *s = gt_shape(ins_circuit, &c);
    /* s = a0, x = a1, b0 = a2 (row 0) */
    gt_assert_row(s, 1, "-a0 + a1", "a2", "a1 + -a3"); /* pick(b0, s, x) */
    gt_assert_row(s, 2, "a0 + -a1", "a2", "a0 + -a4"); /* pick(b0, x, s) */
    czk_shape_free(s);

    c.nbits = 3;
    s = gt_shape(ins_circuit, &c);
    /* b..h = a0..a6, x = a7, b0..b2 = a8..a10 (rows 0..2) */
    assert_int_equal(s->num_constraints, 3 + 22 + 1);
    gt_assert_row(s, 3, "i0 + -a8", "i0 + -a9", "a11");    /* b0 nor b1 */
    gt_assert_row(s, 4, "a8", "a9", "a12");                /* b0 and b1 */
    gt_assert_row(s, 5, "a0 + -a7", "a11", "a0 + -a13");   /* p0_xx0 = nor ? x : b */
    gt_assert_row(s, 6, "-a0 + a13", "a10", "a13 + -a14"); /* p0 = b2 ? b : p0_xx0 */
    gt_assert_row(s, 11, "a1 + -a18", "a9", "a1 + -a19");  /* p2_xx0 = b1 ? p2_x10 : c */
    gt_assert_row(s, 24, "a6 + -a31", "a10", "a6 + -a32"); /* p7 = b2 ? p7_xx1 : h */
    czk_shape_free(s);
}

static void test_corrupted_and_refused(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 42);
    czk_err err;
    ins_ctx c = {.nbits = 2, .index = 2, .variant = 1};
    for (unsigned i = 0; i < 4; i++)
        czk_assert_ok(czk_fr_random(&c.vals[i], &rng, &err), &err);
    czk_cs *cs = gt_run(CZK_CS_CHECK, ins_circuit, &c, CZK_ERR_UNSATISFIED);
    assert_string_equal(czk_cs_first_unsatisfied_path(cs), "pick");
    czk_cs_free(cs);

    c.nbits = 3;
    c.variant = 2; /* insert_8 needs Is bits */
    cs = gt_run(CZK_CS_CHECK, ins_circuit, &c, CZK_ERR_INVALID_ARG);
    czk_cs_free(cs);

    c.nbits = 4; /* only arities 2, 4, 8 */
    c.variant = 0;
    cs = gt_run(CZK_CS_RECORD, ins_circuit, &c, CZK_ERR_UNSUPPORTED);
    czk_cs_free(cs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_insert_all_positions),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_corrupted_and_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
