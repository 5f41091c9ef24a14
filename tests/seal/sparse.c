/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * Sparse C1s of the production shapes (32GiB 8-8-0, 64GiB 8-8-2, both API
 * versions): every vanilla proof verifies (vverify.h) against one set of
 * roots; zero data gives the CC comm_d (sealing-vectors.md §E; 32GiB given in
 * full there, 64GiB by Python hashlib); a changed label, row or sibling is
 * caught naming the challenge; two runs give the same C1.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/seal.h"
#include "vverify.h"

static czk_pool *g_pool;

static void run_sparse(uint64_t id, const char *cc_hex, czk_c1 **keep) {
    czk_seal_request r;
    vv_request(&r, id);
    r.sparse = true;
    czk_c1 *c1 = NULL;
    czk_err err;
    czk_assert_ok(czk_seal_generate(&c1, NULL, &r, g_pool, &err), &err);
    uint8_t want[32];
    czk_test_hex(want, 32, cc_hex);
    assert_memory_equal(c1->comm_d.b, want, 32);
    assert_int_equal(c1->num_partitions, 10);
    assert_int_equal(c1->challenges_per_partition, 18);
    assert_int_equal(c1->proofs[0].num_labeling, 11);
    vv_verify_ok(c1);
    if (keep)
        *keep = c1;
    else
        czk_c1_free(c1);
}

static void test_sparse_32g(void **state) {
    (void)state;
    czk_c1 *c1 = NULL;
    run_sparse(8, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e", &c1);
    assert_int_equal(c1->proofs[0].comm_r_last_proof.kind, CZK_MERKLE_SUB);
    char why[256];
    /* partition 3, challenge 5: a label of c_x (layer 7) */
    czk_vanilla_proof *v = &c1->proofs[3 * 18 + 5];
    v->c_x.rows[6].b[0] ^= 1;
    assert_false(vv_verify(c1, why, sizeof why));
    assert_non_null(strstr(why, "partition 3 challenge 5"));
    v->c_x.rows[6].b[0] ^= 1;
    /* a parent column's row */
    v->drg_parents[4].rows[10].b[17] ^= 0x40;
    assert_false(vv_verify(c1, why, sizeof why));
    assert_non_null(strstr(why, "partition 3 challenge 5 drg_parents[4]"));
    v->drg_parents[4].rows[10].b[17] ^= 0x40;
    /* a TreeR sibling in the sub-tree level */
    czk_merkle_proof *p = &v->comm_r_last_proof;
    p->siblings[9 * 7 + 2].b[1] ^= 2;
    assert_false(vv_verify(c1, why, sizeof why));
    assert_non_null(strstr(why, "partition 3 challenge 5 comm_r_last_proof"));
    p->siblings[9 * 7 + 2].b[1] ^= 2;
    vv_verify_ok(c1);
    czk_c1_free(c1);
}

static void test_sparse_32g_v1(void **state) {
    (void)state;
    run_sparse(3, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e", NULL);
}

static void test_sparse_64g(void **state) {
    (void)state;
    czk_c1 *c1 = NULL;
    run_sparse(9, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02", &c1);
    assert_int_equal(c1->proofs[0].c_x.inclusion.kind, CZK_MERKLE_TOP);
    assert_int_equal(c1->proofs[0].comm_d_proof.num_levels, 31);
    czk_c1_free(c1);
    run_sparse(4, "e64005a6bfe3777953b8ad6ef93f0fca1049b2041654f2a411f7702799cece02", NULL);
}

/* Random data and the determinism of a sparse run. */
static void test_sparse_random_deterministic(void **state) {
    (void)state;
    czk_seal_request r;
    vv_request(&r, 8);
    r.sparse = true;
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 77;
    czk_c1 *a = NULL, *b = NULL;
    czk_err err;
    czk_assert_ok(czk_seal_generate(&a, NULL, &r, g_pool, &err), &err);
    czk_assert_ok(czk_seal_generate(&b, NULL, &r, NULL, &err), &err);
    vv_verify_ok(a);
    char *ja = NULL, *jb = NULL;
    size_t na = 0, nb = 0;
    czk_assert_ok(czk_c1_to_json(a, &ja, &na, &err), &err);
    czk_assert_ok(czk_c1_to_json(b, &jb, &nb, &err), &err);
    assert_int_equal(na, nb);
    assert_memory_equal(ja, jb, na);
    free(ja);
    free(jb);
    czk_c1_free(a);
    czk_c1_free(b);
}

static int setup(void **state) {
    (void)state;
    g_pool = czk_pool_create(0, NULL);
    return g_pool ? 0 : -1;
}
static int teardown(void **state) {
    (void)state;
    czk_pool_destroy(g_pool);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_32g),
        cmocka_unit_test(test_sparse_32g_v1),
        cmocka_unit_test(test_sparse_64g),
        cmocka_unit_test(test_sparse_random_deterministic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
