/* CZK_TEST_LABELS: unit */
/* Fr: canonical bytes, range checks, arithmetic, batch inversion, roots of unity. */
#include "support.h"

#include <string.h>

/* r, little-endian. */
static const char *R_BE = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";

static void be_to_le(uint8_t le[32], const char *hex) {
    uint8_t be[32];
    czk_test_hex(be, 32, hex);
    for (int i = 0; i < 32; i++) le[i] = be[31 - i];
}

static void test_bytes_roundtrip_and_range(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 1);
    czk_err err;
    for (int i = 0; i < 1000; i++) {
        czk_fr x, y;
        czk_assert_ok(czk_fr_random(&x, &rng, &err), &err);
        uint8_t b[32];
        czk_fr_to_bytes(b, &x);
        czk_assert_ok(czk_fr_from_bytes(&y, b, &err), &err);
        assert_true(czk_fr_eq(&x, &y));
    }
    uint8_t le[32];
    be_to_le(le, R_BE); /* r itself */
    czk_fr x;
    assert_int_equal(czk_fr_from_bytes(&x, le, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, ">= r"));
    memset(le, 0xff, 32);
    assert_int_equal(czk_fr_from_bytes(&x, le, &err), CZK_ERR_FR_RANGE);
    be_to_le(le, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000"); /* r - 1 */
    czk_assert_ok(czk_fr_from_bytes(&x, le, &err), &err);
    czk_fr one_plus;
    czk_fr_add(&one_plus, &x, &czk_fr_one);
    assert_true(czk_fr_is_zero(&one_plus));
}

/* 2^256 reduced mod r, computed independently (Python: pow(2, 256, r)). */
static void test_reduce(void **state) {
    (void)state;
    uint8_t ff[32];
    memset(ff, 0xff, 32);
    czk_fr x;
    czk_fr_from_bytes_reduce(&x, ff);
    czk_fr want; /* 2^256 - 1 mod r */
    czk_test_fr_from_hex_be(&want, "1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffd");
    assert_true(czk_fr_eq(&x, &want));
}

static void test_arith_identities(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 2);
    czk_err err;
    czk_fr a, b, c, t, u;
    for (int i = 0; i < 200; i++) {
        czk_assert_ok(czk_fr_random(&a, &rng, &err), &err);
        czk_assert_ok(czk_fr_random(&b, &rng, &err), &err);
        czk_assert_ok(czk_fr_random(&c, &rng, &err), &err);
        /* (a + b)·c = a·c + b·c */
        czk_fr_add(&t, &a, &b);
        czk_fr_mul(&t, &t, &c);
        czk_fr ac, bc;
        czk_fr_mul(&ac, &a, &c);
        czk_fr_mul(&bc, &b, &c);
        czk_fr_add(&u, &ac, &bc);
        assert_true(czk_fr_eq(&t, &u));
        /* a·a^-1 = 1 */
        czk_fr_inv(&t, &a);
        czk_fr_mul(&t, &t, &a);
        assert_true(czk_fr_is_one(&t));
        /* a - a = 0, -(-a) = a */
        czk_fr_neg(&t, &a);
        czk_fr_add(&u, &t, &a);
        assert_true(czk_fr_is_zero(&u));
    }
    /* small integers: 3·5 = 15 in canonical bytes */
    czk_fr three, five, p;
    czk_fr_from_u64(&three, 3);
    czk_fr_from_u64(&five, 5);
    czk_fr_mul(&p, &three, &five);
    uint64_t l[4];
    czk_fr_to_u64s(l, &p);
    assert_int_equal(l[0], 15);
    assert_int_equal(l[1] | l[2] | l[3], 0);
}

static void test_batch_inv(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 3);
    czk_err err;
    enum { N = 257 };
    czk_fr in[N], out[N];
    for (int i = 0; i < N; i++) czk_assert_ok(czk_fr_random(&in[i], &rng, &err), &err);
    in[5] = czk_fr_zero;
    in[100] = czk_fr_zero;
    czk_assert_ok(czk_fr_batch_inv(out, in, N, NULL, &err), &err);
    for (int i = 0; i < N; i++) {
        czk_fr want;
        czk_fr_inv(&want, &in[i]);
        assert_true(czk_fr_eq(&out[i], &want));
    }
    /* in place */
    czk_fr copy[N];
    memcpy(copy, in, sizeof in);
    czk_assert_ok(czk_fr_batch_inv(copy, copy, N, NULL, &err), &err);
    assert_memory_equal(copy, out, sizeof out);
}

/*
 * ω_32 = 7^((r-1)/2^32), the value blstrs names ROOT_OF_UNITY, computed
 * independently with Python's pow(7, (r-1) >> 32, r).
 */
static void test_roots_of_unity(void **state) {
    (void)state;
    czk_err err;
    czk_fr w, want;
    czk_assert_ok(czk_fr_root_of_unity(&w, 32, &err), &err);
    czk_test_fr_from_hex_be(&want, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
    assert_true(czk_fr_eq(&w, &want));
    for (unsigned k = 1; k <= 32; k++) {
        czk_fr wk, t;
        czk_assert_ok(czk_fr_root_of_unity(&wk, k, &err), &err);
        t = wk;
        for (unsigned i = 0; i + 1 < k; i++) czk_fr_sqr(&t, &t); /* ω^(2^(k-1)) */
        assert_false(czk_fr_is_one(&t));
        czk_fr_sqr(&t, &t); /* ω^(2^k) */
        assert_true(czk_fr_is_one(&t));
    }
    czk_fr one;
    czk_assert_ok(czk_fr_root_of_unity(&one, 0, &err), &err);
    assert_true(czk_fr_is_one(&one));
    assert_int_equal(czk_fr_root_of_unity(&w, 33, &err), CZK_ERR_INVALID_ARG);
}

static void test_pow(void **state) {
    (void)state;
    czk_fr seven, x, y;
    czk_fr_from_u64(&seven, 7);
    czk_fr_pow_u64(&x, &seven, 3);
    czk_fr_from_u64(&y, 343);
    assert_true(czk_fr_eq(&x, &y));
    /* Fermat: a^(r-1) = 1 */
    uint64_t rm1[4] = {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
                       0x73eda753299d7d48ull};
    czk_fr_pow(&x, &seven, rm1);
    assert_true(czk_fr_is_one(&x));
}

static void test_rng_seeded_and_os(void **state) {
    (void)state;
    czk_rng a, b;
    czk_rng_seed(&a, 42);
    czk_rng_seed(&b, 42);
    for (int i = 0; i < 10; i++) assert_int_equal(czk_rng_u64(&a), czk_rng_u64(&b));
    uint8_t x[32] = {0}, y[32] = {0};
    czk_err err;
    czk_assert_ok(czk_random_bytes(NULL, x, 32, &err), &err);
    czk_assert_ok(czk_random_bytes(NULL, y, 32, &err), &err);
    assert_memory_not_equal(x, y, 32);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_roundtrip_and_range),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_arith_identities),
        cmocka_unit_test(test_batch_inv),
        cmocka_unit_test(test_roots_of_unity),
        cmocka_unit_test(test_pow),
        cmocka_unit_test(test_rng_seeded_and_os),
    };
    return cmocka_run_group_tests_name("ff.fr", tests, NULL, NULL);
}
