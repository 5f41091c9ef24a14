/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 900 */
/*
 * A full 8MiB sector (2^18 nodes, 2 layers, TreeR/TreeC 8^6): every vanilla
 * proof verifies (vverify.h), and an empty 8MiB sector has the CC comm_d
 * (sealing-vectors.md §E, full value by Python hashlib).
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/seal.h"
#include "vverify.h"

static void test_full_8m(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    assert_non_null(pool);
    czk_seal_request r;
    vv_request(&r, 6);
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 11;
    czk_c1 *c1 = NULL;
    czk_assert_ok(czk_seal_generate(&c1, NULL, &r, pool, &err), &err);
    assert_int_equal(c1->proofs[0].comm_r_last_proof.num_levels, 6);
    vv_verify_ok(c1);
    czk_c1_free(c1);
    vv_request(&r, 1); /* V1: the API 1.0 graph */
    czk_seal_result res;
    czk_assert_ok(czk_seal_generate(&c1, &res, &r, pool, &err), &err);
    uint8_t want[32];
    czk_test_hex(want, 32, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c");
    assert_memory_equal(res.comm_d, want, 32);
    vv_verify_ok(c1);
    czk_c1_free(c1);
    czk_pool_destroy(pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_8m),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
