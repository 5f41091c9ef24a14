/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * Round trips of full-size 32GiB (TreeR/TreeC Sub proofs, 8-8-0) and 64GiB
 * (Top proofs, 8-8-2) C1s with random values: parse(write(x)) = x through
 * write(parse(write(x))) = write(x), and the path of a refusal deep in the
 * last vanilla proof. Each document is ≈ 38 MB.
 */
#include "support.h"

#include "c1_sector.h"

#include <stdio.h>
#include <string.h>

static void round_trip(uint32_t id, const char *variant, const char *kind) {
    czk_c1 *c1 = ts_random_c1(id, 1234 + id);
    assert_non_null(c1);
    char *a, *b;
    size_t la, lb;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &a, &la, &err), &err);
    char head[128];
    snprintf(head, sizeof head, "\"vanilla_proofs\":{\"%s\":[[", variant);
    assert_non_null(strstr(a, head));
    char kindkey[64];
    snprintf(kindkey, sizeof kindkey,
             "\"comm_r_last_proof\":{\"data\":{\"%s\":{\"base_proof\":", kind);
    assert_non_null(strstr(a, kindkey));
    czk_c1 *back;
    czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)a, la, &err), &err);
    assert_int_equal(back->num_partitions, 10);
    assert_int_equal(back->challenges_per_partition, 18);
    const czk_vanilla_proof *x = &c1->proofs[179], *y = &back->proofs[179];
    assert_int_equal(y->comm_r_last_proof.kind, x->comm_r_last_proof.kind);
    assert_int_equal(y->exp_parents[7].inclusion.num_levels,
                     x->exp_parents[7].inclusion.num_levels);
    assert_memory_equal(y->exp_parents[7].inclusion.siblings, x->exp_parents[7].inclusion.siblings,
                        32 * (id == 9 ? 71 : 70));
    czk_assert_ok(czk_c1_to_json(back, &b, &lb, &err), &err);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(b);
    czk_c1_free(back);
    /* a value ≥ r in the top path of the last proof's last column */
    czk_domain *d =
        &c1->proofs[179].exp_parents[7].inclusion.siblings[id == 9 ? 70 : 69]; /* the last one */
    memset(d->b, 0xff, 32);
    free(a);
    czk_assert_ok(czk_c1_to_json(c1, &a, &la, &err), &err);
    assert_int_equal(czk_c1_parse(&back, (const uint8_t *)a, la, &err), CZK_ERR_FORMAT);
    char want[300];
    snprintf(
        want, sizeof want,
        "vanilla_proofs.%s[9][17].replica_column_proofs.exp_parents[7].inclusion_proof.data.%s.%s."
        "path[0].hashes[%d]: value is not below the field modulus r",
        variant, kind, id == 9 ? "top_proof" : "sub_proof", id == 9 ? 0 : 6);
    assert_string_equal(err.msg, want);
    free(a);
    czk_c1_free(c1);
}

static void test_32gib(void **state) {
    (void)state;
    round_trip(8, "StackedDrg32GiBV1", "Sub");
}

static void test_64gib(void **state) {
    (void)state;
    round_trip(9, "StackedDrg64GiBV1", "Top");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_32gib),
        cmocka_unit_test(test_64gib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
