/* CZK_TEST_LABELS: unit */
/*
 * The device arithmetic of src/cuda (Fp, Fr, Fp2 Montgomery arithmetic in every
 * multiplication and squaring form, G1/G2 xyzz formulas with their special
 * cases) run on the host and compared with blst: the Fp squarings (sqr_eo and
 * by multiplication) against blst_fp_sqr on edge values (0, 1, R, R², p − 1,
 * p − 2, all-ones limbs, inputs in [p, 2p)) and random inputs, Fp2 over both
 * squaring forms, the binary inversion (inv_binary, Fp and Fr) against
 * blst's, and xyzz sums/doublings over both forms equal to each other
 * and to blst (src/cuda/host_check.cu). Needs no GPU, so CI checks the formulas
 * of every CUDA build; tests/cuda/gpu.c checks the device build of the same code.
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
