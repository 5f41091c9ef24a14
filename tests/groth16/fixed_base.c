/* CZK_TEST_LABELS: unit */
/*
 * The batched fixed-base products of the setup (src/groth16/fixed_base.h)
 * against blst's general scalar multiplication (blst_p1_mult/blst_p2_mult),
 * for G1 and G2 (and the one-at-a-time czk_fb_P_mul): random scalars, edge scalars (1, 2, r − 1,
 * 2^k, values with every window digit negative, a batch with many zero digits), a batch size not a
 * multiple of anything, and the rare paths of the affine sums — a doubling and a cancellation (P +
 * (−P)) — forced by a table whose window 1 repeats window 0, so that digits e0 = ±e1 collide.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "groth16/fixed_base.h"

CZK_FIXED_BASE_IMPL(p1)
CZK_FIXED_BASE_IMPL(p2)
CZK_FIXED_BASE_BATCH_IMPL(p1, fp)
CZK_FIXED_BASE_BATCH_IMPL(p2, fp2)

/* k as a blst scalar, from a canonical Fr. */
static void scalar_of(blst_scalar *s, const czk_fr *k) {
    blst_scalar_from_fr(s, k);
}

/* r − 1 (Python: hex(r - 1), r the BLS12-381 scalar field order), big-endian hex. */
static const char *R_MINUS_1 = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000";

static void scalars(czk_fr *k, size_t n) {
    czk_rng rng;
    czk_rng_seed(&rng, 77);
    czk_err err;
    for (size_t i = 0; i < n; i++)
        czk_assert_ok(czk_fr_random(&k[i], &rng, &err), &err);
    czk_fr_from_u64(&k[0], 1);
    czk_fr_from_u64(&k[1], 2);
    czk_test_fr_from_hex_be(&k[2], R_MINUS_1);
    for (unsigned b = 0; b < 40 && 3 + b < n; b++) { /* 2^(7b mod 254) */
        czk_fr two, t = czk_fr_one;
        czk_fr_from_u64(&two, 2);
        for (unsigned j = 0; j < (7 * b) % 254; j++)
            czk_fr_mul(&t, &t, &two);
        k[3 + b] = t;
    }
    /* 2^252 − 1: every window all ones, so every digit −1 with a carry */
    uint8_t le[32];
    memset(le, 0xff, 32);
    le[31] = 0x0f;
    czk_assert_ok(czk_fr_from_bytes(&k[50], le, &err), &err);
    for (size_t i = 51; i < 120 && i < n; i++)
        czk_fr_from_u64(&k[i], (uint64_t)i * 1000003u); /* small: most windows zero */
}

#define CHECK_IMPL(P, F, N)                                                                        \
    static void check_##P(size_t n) {                                                              \
        czk_fb_##P tab;                                                                            \
        czk_err err;                                                                               \
        czk_assert_ok(czk_fb_##P##_build(&tab, blst_##P##_generator(), &err), &err);               \
        czk_fb_##P##_scratch *s = czk_fb_##P##_scratch_new();                                      \
        czk_fr *k = malloc(n * sizeof *k);                                                         \
        blst_##P##_affine *out = malloc(n * sizeof *out);                                          \
        assert_true(s &&k &&out);                                                                  \
        scalars(k, n);                                                                             \
        for (size_t i = 0; i < n; i += CZK_FB_BATCH)                                               \
            czk_fb_##P##_batch(out + i, &tab, k + i, n - i < CZK_FB_BATCH ? n - i : CZK_FB_BATCH,  \
                               s);                                                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            blst_scalar sc;                                                                        \
            scalar_of(&sc, &k[i]);                                                                 \
            blst_##P want;                                                                         \
            blst_##P##_affine wa;                                                                  \
            blst_##P##_mult(&want, blst_##P##_generator(), sc.b, 255);                             \
            blst_##P##_to_affine(&wa, &want);                                                      \
            if (!blst_##P##_affine_is_equal(&out[i], &wa))                                         \
                fail_msg("%s: product %zu differs from blst's", N, i);                             \
            if (i < 60) { /* the one-at-a-time product too */                                      \
                blst_##P one;                                                                      \
                czk_fb_##P##_mul(&one, &tab, &k[i]);                                               \
                if (!blst_##P##_is_equal(&one, &want)) fail_msg("%s: single product %zu", N, i);   \
            }                                                                                      \
        }                                                                                          \
        /* window 1 := window 0, so that e0 = e1 doubles and e0 = −e1 cancels */                 \
        memcpy(tab.t + CZK_FB_HALF, tab.t, CZK_FB_HALF * sizeof *tab.t);                           \
        /* W = 2^w: digits (5, 5, 3), (5, −5, 3) after the carry, (0, 9) */                      \
        const uint64_t W = (uint64_t)1 << CZK_FB_WBITS;                                            \
        czk_fr kk[3];                                                                              \
        czk_fr_from_u64(&kk[0], 5 + 5 * W + 3 * W * W);                                            \
        czk_fr_from_u64(&kk[1], 5 + (W - 5) * W + 2 * W * W);                                      \
        czk_fr_from_u64(&kk[2], 9 * W);                                                            \
        const uint64_t eq[3] = {10 + 3 * W * W, 3 * W * W, 9}; /* with T[1] = T[0] */              \
        czk_fb_##P##_batch(out, &tab, kk, 3, s);                                                   \
        for (int i = 0; i < 3; i++) {                                                              \
            blst_scalar sc;                                                                        \
            czk_fr e;                                                                              \
            czk_fr_from_u64(&e, eq[i]);                                                            \
            scalar_of(&sc, &e);                                                                    \
            blst_##P want;                                                                         \
            blst_##P##_affine wa;                                                                  \
            blst_##P##_mult(&want, blst_##P##_generator(), sc.b, 255);                             \
            blst_##P##_to_affine(&wa, &want);                                                      \
            if (!blst_##P##_affine_is_equal(&out[i], &wa))                                         \
                fail_msg("%s: colliding digits, case %d, wrong", N, i);                            \
        }                                                                                          \
        free(k);                                                                                   \
        free(out);                                                                                 \
        free(s);                                                                                   \
        czk_fb_##P##_free(&tab);                                                                   \
    }

CHECK_IMPL(p1, fp, "G1")
CHECK_IMPL(p2, fp2, "G2")

static void test_g1(void **state) {
    (void)state;
    check_p1(1100);
}

static void test_g2(void **state) {
    (void)state;
    check_p2(700);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_g1),
        cmocka_unit_test(test_g2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
