/* CZK_TEST_LABELS: unit */
/*
 * The device arithmetic of src/cuda (Fp, Fr, Fp2 Montgomery arithmetic in both
 * multiplication forms, G1/G2 xyzz formulas with their special cases) run on
 * the host and compared with blst. Needs no GPU, so CI checks the formulas of
 * every CUDA build; tests/cuda/gpu.c checks the device build of the same code.
 */
#include "support.h"

#ifdef CZK_HAVE_CUDA
#include "cuda/internal.h"

static void test_arithmetic_matches_blst(void **state) {
    (void)state;
    czk_err err;
    for (uint64_t seed = 1; seed <= 4; seed++)
        czk_assert_ok(czk_cuda_host_check(seed, 2000, &err), &err);
}
#else
static void test_arithmetic_matches_blst(void **state) {
    (void)state;
    skip(); /* no CUDA backend in this build */
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_arithmetic_matches_blst)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
