/* CZK_TEST_LABELS: unit */
/*
 * The device arithmetic of src/cuda (Fp, Fr, Fp2 Montgomery arithmetic in every
 * multiplication and squaring form, G1/G2 xyzz formulas with their special
 * cases) run on the host and compared with blst: the Fp squarings (sqr_eo and
 * by multiplication) against blst_fp_sqr on edge values (0, 1, R, R², p − 1,
 * p − 2, all-ones limbs, inputs in [p, 2p)) and random inputs, Fp2 over both
 * squaring forms, the binary inversion (inv_binary, Fp and Fr) against
 * blst's, and xyzz sums/doublings over both forms equal to each other
 * and to blst (src/cuda/host_check.cu). The packed witness's expansion
 * (src/cuda/witness.cu: the kernel's index code, czk_cuda_witness_expand_emulate)
 * gives back the witness czk_witness_pack packed, byte for byte, at sizes
 * around the 32-value words up to 2^20 + 7 values, with no others, the PoRep
 * mix and others filling 3 % of the values; a count of others that the codes
 * do not hold is refused. The G1 NTT of the Lagrange form's derivation
 * (src/cuda/g1ntt.cu: the kernels' per-thread code, czk_cuda_g1_ntt_emulate)
 * equals czk_g1_ntt_cpu's from 2^1 to 2^8 points, n_used N, N − 1 and N/2,
 * ρ and ρ^(−1). Needs no GPU, so CI checks the formulas
 * of every CUDA build; tests/cuda/gpu.c checks the device build of the same code.
 */
#include "support.h"

#ifdef CZK_HAVE_CUDA
#include "cuda/internal.h"
#include "czk/groth16.h"
#include "czk/r1cs.h"
#include "mixed_witness.h"

#include <stdlib.h>
#include <string.h>

static void test_arithmetic_matches_blst(void **state) {
    (void)state;
    czk_err err;
    for (uint64_t seed = 1; seed <= 4; seed++)
        czk_assert_ok(czk_cuda_host_check(seed, 2000, &err), &err);
}

static void test_witness_expand_emulated(void **state) {
    (void)state;
    const uint32_t sizes[][2] = {{1, 0},  {2, 30},    {1, 31},
                                 {3, 62}, {40, 1000}, {2, (1u << 20) + 5}};
    const uint32_t mix[][2] = {{500000, 0}, {510000, 20000}, {400000, 30000}}; /* zero, other */
    uint64_t rng = 11;
    czk_err err;
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t m = 0; m < sizeof mix / sizeof mix[0]; m++) {
            uint64_t n = (uint64_t)sizes[a][0] + sizes[a][1];
            czk_fr *z = malloc(n * sizeof *z), *got = malloc(n * sizeof *got);
            void *block = malloc(czk_witness_packed_bytes(n));
            assert_non_null(z);
            assert_non_null(got);
            assert_non_null(block);
            czk_witness w = mw_witness(z, sizes[a][0], sizes[a][1], mix[m][0], mix[m][1], &rng);
            czk_witness_packed p;
            czk_witness_packed_place(&p, block, n);
            uint64_t others = 0; /* a few small witnesses get more than the room holds */
            for (uint64_t i = 0; i < n; i++)
                others += memcmp(&z[i], &czk_fr_zero, 32) && memcmp(&z[i], &czk_fr_one, 32);
            assert_int_equal(czk_witness_pack(&p, &w, NULL), others <= p.others_cap);
            assert_true(p.n || n < 1000);
            if (p.n) {
                memset(got, 0xa5, n * sizeof *got);
                czk_assert_ok(czk_cuda_witness_expand_emulate(got, &p, &err), &err);
                assert_memory_equal(got, z, n * sizeof *z);
                if (p.num_others) { /* the codes hold one more than it says */
                    p.num_others--;
                    assert_int_equal(czk_cuda_witness_expand_emulate(got, &p, &err),
                                     CZK_ERR_INVALID_ARG);
                }
            }
            free(block);
            free(got);
            free(z);
        }
}
/* The G1 NTT's kernel code on the host against czk_g1_ntt_cpu (blst), n_used N, N − 1 and N/2,
 * ρ a root of unity and its inverse. */
static void test_g1_ntt_emulated(void **state) {
    (void)state;
    static const unsigned sizes[] = {1, 3, 6, 8};
    czk_err err;
    czk_rng rng;
    czk_rng_seed(&rng, 77);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned log_n = sizes[si];
        size_t n = (size_t)1 << log_n;
        czk_g1_affine *in = malloc(n * sizeof *in), *got = malloc(n * sizeof *got),
                      *want = malloc(n * sizeof *want);
        assert_non_null(in);
        assert_non_null(got);
        assert_non_null(want);
        for (size_t i = 0; i < n; i++) {
            czk_fr k;
            czk_assert_ok(czk_fr_random(&k, &rng, &err), &err);
            blst_p1 p;
            czk_g1_mul(&p, blst_p1_generator(), &k);
            blst_p1_to_affine(&in[i], &p);
        }
        czk_fr c[2], rho[2];
        czk_assert_ok(czk_fr_random(&c[0], &rng, &err), &err);
        czk_assert_ok(czk_fr_random(&c[1], &rng, &err), &err);
        czk_assert_ok(czk_fr_root_of_unity(&rho[0], log_n, &err), &err);
        czk_fr_inv(&rho[1], &rho[0]);
        const size_t used[3] = {n, n - 1, n / 2};
        for (int u = 0; u < 3; u++)
            for (int r = 0; r < 2; r++) {
                czk_assert_ok(
                    czk_cuda_g1_ntt_emulate(got, in, used[u], log_n, &c[0], &c[1], &rho[r], &err),
                    &err);
                czk_assert_ok(
                    czk_g1_ntt_cpu(NULL, want, in, used[u], log_n, &c[0], &c[1], &rho[r], &err),
                    &err);
                for (size_t j = 0; j < n; j++)
                    if (!blst_p1_affine_is_equal(&got[j], &want[j]))
                        fail_msg("g1 ntt emulated 2^%u, %zu used, rho %d: point %zu differs", log_n,
                                 used[u], r, j);
            }
        assert_int_equal(
            czk_cuda_g1_ntt_emulate(got, in, n + 1, log_n, &c[0], &c[1], &rho[0], &err),
            CZK_ERR_INVALID_ARG);
        free(in);
        free(got);
        free(want);
    }
}
#else
static void test_g1_ntt_emulated(void **state) {
    (void)state;
    skip();
}
static void test_arithmetic_matches_blst(void **state) {
    (void)state;
    skip(); /* no CUDA backend in this build */
}
static void test_witness_expand_emulated(void **state) {
    (void)state;
    skip();
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_arithmetic_matches_blst),
                                       cmocka_unit_test(test_witness_expand_emulated),
                                       cmocka_unit_test(test_g1_ntt_emulated)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
