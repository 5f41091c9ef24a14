/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * CPU NTT (czk_ntt) against independent computations: a naive O(N^2) DFT,
 * Horner evaluation on the coset, round trips, thread-count independence and
 * a literal computed with Python.
 */
#include "support.h"

#include "czk/ntt.h"

#include <stdlib.h>
#include <string.h>

static czk_fr *random_vec(size_t n, czk_rng *rng) {
    czk_fr *v = malloc(n * sizeof *v);
    assert_non_null(v);
    czk_err err;
    for (size_t i = 0; i < n; i++)
        czk_assert_ok(czk_fr_random(&v[i], rng, &err), &err);
    return v;
}

static czk_fr *copy_vec(const czk_fr *x, size_t n) {
    czk_fr *v = malloc(n * sizeof *v);
    assert_non_null(v);
    memcpy(v, x, n * sizeof *v);
    return v;
}

static void run_ntt(czk_fr *x, unsigned log_n, czk_ntt_kind kind, czk_pool *pool) {
    czk_err err;
    czk_assert_ok(czk_ntt(x, log_n, kind, pool, &err), &err);
}

static void assert_vec_eq(const czk_fr *a, const czk_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!czk_fr_eq(&a[i], &b[i])) fail_msg("element %zu differs (of %zu)", i, n);
}

/* ω_N from czk_fr_root_of_unity, or its inverse; powers ω^t for t < N. */
static czk_fr *root_powers(unsigned log_n, bool inverse) {
    size_t n = (size_t)1 << log_n;
    czk_fr w;
    czk_err err;
    czk_assert_ok(czk_fr_root_of_unity(&w, log_n, &err), &err);
    if (inverse) czk_fr_inv(&w, &w);
    czk_fr *pw = malloc(n * sizeof *pw);
    assert_non_null(pw);
    pw[0] = czk_fr_one;
    for (size_t t = 1; t < n; t++)
        czk_fr_mul(&pw[t], &pw[t - 1], &w);
    return pw;
}

/* Naive DFT output i: Σ_j x[j]·pw[i·j mod N]. */
static void naive_at(czk_fr *out, const czk_fr *x, const czk_fr *pw, size_t n, size_t i) {
    czk_fr acc = czk_fr_zero, t;
    for (size_t j = 0; j < n; j++) {
        czk_fr_mul(&t, &x[j], &pw[(i * j) & (n - 1)]);
        czk_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static void fr_u64(czk_fr *out, uint64_t v) {
    czk_fr_from_u64(out, v);
}

/* Forward NTT equals the naive DFT at every point, N = 2^1 .. 2^10. */
static void test_forward_naive_small(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 101);
    for (unsigned log_n = 1; log_n <= 10; log_n++) {
        size_t n = (size_t)1 << log_n;
        czk_fr *x = random_vec(n, &rng), *y = copy_vec(x, n), *pw = root_powers(log_n, false);
        run_ntt(y, log_n, CZK_NTT_FORWARD, NULL);
        for (size_t i = 0; i < n; i++) {
            czk_fr want;
            naive_at(&want, x, pw, n, i);
            if (!czk_fr_eq(&y[i], &want))
                fail_msg("2^%u: output %zu differs from naive DFT", log_n, i);
        }
        free(x);
        free(y);
        free(pw);
    }
}

/*
 * Larger N (the four-step path, odd and even log_n): forward and inverse equal
 * the naive DFT (inverse: with ω^-1 and 1/N) at sampled points, N = 2^11 .. 2^16.
 */
static void test_naive_sampled_large(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 102);
    czk_err err;
    czk_pool *pool = czk_pool_create(3, &err);
    assert_non_null(pool);
    for (unsigned log_n = 11; log_n <= 16; log_n++) {
        size_t n = (size_t)1 << log_n;
        czk_fr *x = random_vec(n, &rng);
        for (int inv = 0; inv < 2; inv++) {
            czk_fr *y = copy_vec(x, n), *pw = root_powers(log_n, inv);
            run_ntt(y, log_n, inv ? CZK_NTT_INVERSE : CZK_NTT_FORWARD, pool);
            czk_fr n_inv;
            fr_u64(&n_inv, n);
            czk_fr_inv(&n_inv, &n_inv);
            for (int s = 0; s < 12; s++) {
                size_t i = s == 0 ? 0 : s == 1 ? n - 1 : czk_rng_u64(&rng) & (n - 1);
                czk_fr want;
                naive_at(&want, x, pw, n, i);
                if (inv) czk_fr_mul(&want, &want, &n_inv);
                if (!czk_fr_eq(&y[i], &want))
                    fail_msg("2^%u %s: output %zu differs from naive DFT", log_n,
                             inv ? "inverse" : "forward", i);
            }
            free(y);
            free(pw);
        }
        free(x);
    }
    czk_pool_destroy(pool);
}

/* Inverse equals the naive inverse DFT (ω^-1, scaled by 1/N) everywhere, N <= 2^8. */
static void test_inverse_naive_small(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 103);
    for (unsigned log_n = 1; log_n <= 8; log_n++) {
        size_t n = (size_t)1 << log_n;
        czk_fr *x = random_vec(n, &rng), *y = copy_vec(x, n), *pw = root_powers(log_n, true);
        run_ntt(y, log_n, CZK_NTT_INVERSE, NULL);
        czk_fr n_inv;
        fr_u64(&n_inv, n);
        czk_fr_inv(&n_inv, &n_inv);
        for (size_t i = 0; i < n; i++) {
            czk_fr want;
            naive_at(&want, x, pw, n, i);
            czk_fr_mul(&want, &want, &n_inv);
            if (!czk_fr_eq(&y[i], &want)) fail_msg("2^%u: inverse output %zu differs", log_n, i);
        }
        free(x);
        free(y);
        free(pw);
    }
}

/* inverse(forward(x)) = x and forward(inverse(x)) = x, N = 2^1 .. 2^16 and 2^20. */
static void test_roundtrip(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 104);
    czk_err err;
    czk_pool *pool = czk_pool_create(2, &err);
    assert_non_null(pool);
    unsigned sizes[18];
    for (unsigned i = 0; i < 16; i++)
        sizes[i] = i + 1;
    sizes[16] = 20;
    sizes[17] = 0;
    for (unsigned *s = sizes; *s; s++) {
        size_t n = (size_t)1 << *s;
        czk_fr *x = random_vec(n, &rng), *y = copy_vec(x, n);
        run_ntt(y, *s, CZK_NTT_FORWARD, pool);
        run_ntt(y, *s, CZK_NTT_INVERSE, pool);
        assert_vec_eq(y, x, n);
        if (*s <= 16) {
            run_ntt(y, *s, CZK_NTT_INVERSE, pool);
            run_ntt(y, *s, CZK_NTT_FORWARD, pool);
            assert_vec_eq(y, x, n);
        }
        free(x);
        free(y);
    }
    czk_pool_destroy(pool);
}

/* Horner: Σ_j x[j]·z^j. */
static void horner(czk_fr *out, const czk_fr *x, size_t n, const czk_fr *z) {
    czk_fr acc = czk_fr_zero;
    for (size_t j = n; j-- > 0;) {
        czk_fr_mul(&acc, &acc, z);
        czk_fr_add(&acc, &acc, &x[j]);
    }
    *out = acc;
}

/*
 * Coset forward output i equals the polynomial with coefficients x evaluated
 * at g·ω^i (g = 7), by Horner, at sampled i; the coset inverse gives back x
 * and, at sampled j, equals (1/N)·g^-j·Σ_i y[i]·ω^-ij.
 */
static void test_coset(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 105);
    czk_err err;
    czk_pool *pool = czk_pool_create(3, &err);
    assert_non_null(pool);
    const unsigned sizes[] = {1, 2, 3, 7, 10, 11, 12, 13, 15, 17};
    czk_fr g;
    fr_u64(&g, 7);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned log_n = sizes[k];
        size_t n = (size_t)1 << log_n;
        czk_fr w;
        czk_assert_ok(czk_fr_root_of_unity(&w, log_n, &err), &err);
        czk_fr *x = random_vec(n, &rng), *y = copy_vec(x, n);
        run_ntt(y, log_n, CZK_NTT_COSET_FORWARD, pool);
        for (int s = 0; s < 8; s++) {
            size_t i = s == 0 ? 0 : s == 1 ? n - 1 : czk_rng_u64(&rng) & (n - 1);
            czk_fr z, want;
            czk_fr_pow_u64(&z, &w, i);
            czk_fr_mul(&z, &z, &g);
            horner(&want, x, n, &z);
            if (!czk_fr_eq(&y[i], &want))
                fail_msg("2^%u: coset forward output %zu differs from Horner at g·ω^i", log_n, i);
        }
        /* Coset inverse of fresh random values against the direct formula. */
        czk_fr *v = random_vec(n, &rng), *u = copy_vec(v, n);
        run_ntt(u, log_n, CZK_NTT_COSET_INVERSE, pool);
        czk_fr w_inv, g_inv, n_inv;
        czk_fr_inv(&w_inv, &w);
        czk_fr_inv(&g_inv, &g);
        fr_u64(&n_inv, n);
        czk_fr_inv(&n_inv, &n_inv);
        for (int s = 0; s < 4; s++) {
            size_t j = s == 0 ? 0 : s == 1 ? n - 1 : czk_rng_u64(&rng) & (n - 1);
            czk_fr z, want, f;
            czk_fr_pow_u64(&z, &w_inv, j);
            horner(&want, v, n, &z); /* Σ_i v[i]·ω^-ij */
            czk_fr_pow_u64(&f, &g_inv, j);
            czk_fr_mul(&want, &want, &f);
            czk_fr_mul(&want, &want, &n_inv);
            if (!czk_fr_eq(&u[j], &want))
                fail_msg("2^%u: coset inverse output %zu differs from the direct formula", log_n,
                         j);
        }
        run_ntt(y, log_n, CZK_NTT_COSET_INVERSE, pool);
        assert_vec_eq(y, x, n);
        run_ntt(u, log_n, CZK_NTT_COSET_FORWARD, pool);
        assert_vec_eq(u, v, n);
        free(x);
        free(y);
        free(u);
        free(v);
    }
    czk_pool_destroy(pool);
}

/* Every kind gives the same output with no pool, 1 thread, 2, 3 and 4 threads. */
static void test_thread_independence(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 106);
    czk_err err;
    czk_pool *pools[4];
    const unsigned threads[4] = {1, 2, 3, 4};
    for (int i = 0; i < 4; i++) {
        pools[i] = czk_pool_create(threads[i], &err);
        assert_non_null(pools[i]);
    }
    const unsigned sizes[] = {9, 12, 15, 18};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = (size_t)1 << sizes[k];
        czk_fr *x = random_vec(n, &rng);
        for (int kind = CZK_NTT_FORWARD; kind <= CZK_NTT_COSET_INVERSE; kind++) {
            czk_fr *ref = copy_vec(x, n);
            run_ntt(ref, sizes[k], (czk_ntt_kind)kind, NULL);
            for (int i = 0; i < 4; i++) {
                czk_fr *y = copy_vec(x, n);
                run_ntt(y, sizes[k], (czk_ntt_kind)kind, pools[i]);
                assert_vec_eq(y, ref, n);
                free(y);
            }
            free(ref);
        }
        free(x);
    }
    for (int i = 0; i < 4; i++)
        czk_pool_destroy(pools[i]);
}

/*
 * N = 4, x = [1, 2, 3, 4]. Expected values from Python with
 * r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
 * ω_32 = 0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b,
 * ω_4 = pow(ω_32, 2**30, r):
 *   forward: [sum(x[j]*pow(ω_4, i*j, r) for j in range(4)) % r for i in range(4)]
 *   coset:   [sum(x[j]*pow(7*pow(ω_4, i, r), j, r) for j in range(4)) % r ...]
 */
static void test_literal_n4(void **state) {
    (void)state;
    static const char *FWD[4] = {
        "000000000000000000000000000000000000000000000000000000000000000a",
        "73eda753299d7d4718963e6b1d9bce637bb7a3fe13f85bfefffdfffeffffffff",
        "73eda753299d7d483339d80809a1d80553bda402fffe5bfefffffffeffffffff",
        "00000000000000011aa3999cec0609a1d8060004ec0600000001fffffffffffe",
    };
    static const char *COSET[4] = {
        "00000000000000000000000000000000000000000000000000000000000005fe",
        "73eda753299d7a5a8b4d68d2059e4bc15bd396f4fc145bfefab1fffeffffff6f",
        "73eda753299d7d483339d80809a1d80553bda402fffe5bfefffffffefffffb2b",
        "00000000000002eda7ec6f3604038c43f7ea0d0e03ea0000054dffffffffff6e",
    };
    czk_fr x[4], y[4], want;
    for (int i = 0; i < 4; i++)
        fr_u64(&x[i], (uint64_t)i + 1);
    memcpy(y, x, sizeof x);
    run_ntt(y, 2, CZK_NTT_FORWARD, NULL);
    for (int i = 0; i < 4; i++) {
        czk_test_fr_from_hex_be(&want, FWD[i]);
        if (!czk_fr_eq(&y[i], &want)) fail_msg("forward output %d differs from the literal", i);
    }
    memcpy(y, x, sizeof x);
    run_ntt(y, 2, CZK_NTT_COSET_FORWARD, NULL);
    for (int i = 0; i < 4; i++) {
        czk_test_fr_from_hex_be(&want, COSET[i]);
        if (!czk_fr_eq(&y[i], &want))
            fail_msg("coset forward output %d differs from the literal", i);
    }
}

static void test_bad_args(void **state) {
    (void)state;
    czk_fr x[4] = {0};
    czk_err err;
    err.msg[0] = 0;
    assert_int_equal(czk_ntt(x, 0, CZK_NTT_FORWARD, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(err.code, CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "log_n"));
    err.msg[0] = 0;
    assert_int_equal(czk_ntt(x, 29, CZK_NTT_INVERSE, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "log_n"));
    assert_non_null(strstr(err.msg, "29"));
    err.msg[0] = 0;
    assert_int_equal(czk_ntt(x, 2, (czk_ntt_kind)7, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "kind"));
    assert_int_equal(czk_ntt(NULL, 2, CZK_NTT_FORWARD, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_ntt(x, 40, CZK_NTT_FORWARD, NULL, NULL), CZK_ERR_INVALID_ARG);
    for (int i = 0; i < 4; i++)
        assert_true(czk_fr_is_zero(&x[i])); /* untouched */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_naive_small),
        cmocka_unit_test(test_naive_sampled_large),
        cmocka_unit_test(test_inverse_naive_small),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_coset),
        cmocka_unit_test(test_thread_independence),
        cmocka_unit_test(test_literal_n4),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
