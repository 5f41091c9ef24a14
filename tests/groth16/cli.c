/* CZK_TEST_LABELS: e2e */
/*
 * `czk setup --seed N`: the same seed and shape give the same files byte for
 * byte, the files equal what czk_setup writes from the toxic waste of that
 * seed, another seed gives other keys, and the keys prove and verify.
 */
#include "testkeys.h"

static void run_setup(const char *shape, const char *out, const char *seed) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "'%s' setup --shape '%s' --out '%s' --seed %s --threads 2 >/dev/null",
             cli, shape, out, seed);
    assert_int_equal(system(cmd), 0);
}

static void test_setup_seed(void **state) {
    (void)state;
    char dir[256], shape_path[300], o1[300], o2[300], o3[300], p[400];
    czk_test_tmpdir(dir, sizeof dir, "groth16");
    snprintf(shape_path, sizeof shape_path, "%s/c.shape", dir);
    snprintf(o1, sizeof o1, "%s/k1", dir);
    snprintf(o2, sizeof o2, "%s/k2", dir);
    snprintf(o3, sizeof o3, "%s/k3", dir);
    tk_circuit c = {.structure_seed = 8, .value_seed = 1, .ni = 3, .nbits = 10, .nmul = 40};
    czk_shape *shape = tk_record(&c);
    czk_err err;
    czk_assert_ok(czk_shape_write(shape, shape_path, &err), &err);
    run_setup(shape_path, o1, "5");
    run_setup(shape_path, o2, "5");
    run_setup(shape_path, o3, "6");
    size_t n1, n2, n3, nv;
    snprintf(p, sizeof p, "%s.params", o1);
    uint8_t *b1 = czk_test_read(p, &n1);
    snprintf(p, sizeof p, "%s.params", o2);
    uint8_t *b2 = czk_test_read(p, &n2);
    snprintf(p, sizeof p, "%s.params", o3);
    uint8_t *b3 = czk_test_read(p, &n3);
    snprintf(p, sizeof p, "%s.vk", o1);
    uint8_t *bv = czk_test_read(p, &nv);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    assert_int_equal(n1, n3);
    assert_memory_not_equal(b1, b3, CZK_VK_FIXED_BYTES);
    assert_int_equal(nv, czk_vk_encoded_size(3));
    assert_memory_equal(bv, b1, nv);
    /* the same as czk_setup from the toxic waste of seed 5 */
    czk_params *params;
    czk_assert_ok(czk_test_keys(&params, shape, 5, NULL, &err), &err);
    snprintf(p, sizeof p, "%s/direct.params", dir);
    czk_assert_ok(czk_params_write(params, p, NULL, &err), &err);
    size_t nd;
    uint8_t *bd = czk_test_read(p, &nd);
    assert_int_equal(nd, n1);
    assert_memory_equal(bd, b1, n1);
    /* the keys work */
    czk_backend be;
    czk_assert_ok(czk_backend_cpu(&be, NULL, &err), &err);
    czk_witness w;
    tk_witness(&c, &w);
    czk_proof pr;
    czk_assert_ok(czk_prove(&be, params, shape, &w, 1, NULL, NULL, &pr, NULL, &err), &err);
    czk_vk vk;
    czk_assert_ok(czk_vk_decode(&vk, bv, nv, &err), &err);
    czk_pvk *pvk = malloc(sizeof *pvk);
    czk_assert_ok(czk_pvk_prepare(pvk, &vk, &err), &err);
    czk_assert_ok(czk_verify(pvk, &pr, c.in, 2, &err), &err);
    czk_pvk_free(pvk);
    free(pvk);
    czk_vk_free(&vk);
    czk_witness_free(&w);
    czk_backend_release(&be);
    czk_params_free(params);
    czk_shape_free(shape);
    tk_circuit_free(&c);
    free(b1);
    free(b2);
    free(b3);
    free(bv);
    free(bd);
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_setup_seed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
