/* CZK_TEST_LABELS: unit */
/* Linear combinations (append, scale, copy, merge, normalize) and the constants 2^k and −1. */
#include "support.h"
#include "czk/r1cs.h"

#include <stdlib.h>
#include <string.h>

static void test_pow2_and_minus_one(void **state) {
    (void)state;
    for (unsigned k = 0; k < 255; k++) { /* 2^k < r: canonical bytes have bit k alone */
        uint8_t b[32], want[32] = {0};
        want[k / 8] = (uint8_t)(1u << (k % 8));
        czk_fr_to_bytes(b, czk_fr_pow2(k));
        assert_memory_equal(b, want, 32);
    }
    czk_fr want; /* Python: hex(pow(2, 255, r)) */
    czk_test_fr_from_hex_be(&want,
                            "0c1258acd66282b7ccc627f7f65e27faac425bfd0001a40100000000ffffffff");
    assert_true(czk_fr_eq(czk_fr_pow2(255), &want));
    assert_null(czk_fr_pow2(256));
    /* −1 = r − 1 */
    czk_test_fr_from_hex_be(&want,
                            "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000");
    assert_true(czk_fr_eq(&czk_fr_minus_one, &want));
    czk_fr z;
    czk_fr_add(&z, &czk_fr_minus_one, &czk_fr_one);
    assert_true(czk_fr_is_zero(&z));
}

static czk_fr fr(uint64_t x) {
    czk_fr f;
    czk_fr_from_u64(&f, x);
    return f;
}

static void test_normalize_literal(void **state) {
    (void)state;
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    czk_lc lc = CZK_LC_INIT;
    czk_fr two = fr(2), three = fr(3), five = fr(5), m2;
    czk_fr_neg(&m2, &two);
    czk_lc_add(cs, &lc, czk_var_aux(3), &two);
    czk_lc_add_var(cs, &lc, czk_var_input(1));
    czk_lc_add(cs, &lc, czk_var_aux(1), &five);
    czk_lc_add(cs, &lc, czk_var_aux(3), &m2); /* cancels aux 3 */
    czk_lc_add(cs, &lc, czk_var_input(0), &three);
    czk_lc_add_var(cs, &lc, czk_var_aux(1));
    czk_lc_add(cs, &lc, czk_var_aux(0), NULL); /* NULL coefficient = 1 */
    czk_lc_sub_var(cs, &lc, czk_var_input(1)); /* cancels input 1 */
    assert_int_equal(lc.len, 8);
    czk_lc_normalize(&lc);
    /* inputs before aux: input 0 (3), aux 0 (1), aux 1 (6) */
    assert_int_equal(lc.len, 3);
    assert_int_equal(lc.terms[0].var, czk_var_input(0));
    assert_true(czk_fr_eq(&lc.terms[0].coeff, &three));
    assert_int_equal(lc.terms[1].var, czk_var_aux(0));
    assert_true(czk_fr_is_one(&lc.terms[1].coeff));
    assert_int_equal(lc.terms[2].var, czk_var_aux(1));
    czk_fr six = fr(6);
    assert_true(czk_fr_eq(&lc.terms[2].coeff, &six));
    /* normalizing twice changes nothing; clearing keeps the storage */
    czk_lc_normalize(&lc);
    assert_int_equal(lc.len, 3);
    czk_term *keep = lc.terms;
    czk_lc_clear(&lc);
    assert_int_equal(lc.len, 0);
    assert_ptr_equal(lc.terms, keep);
    czk_lc_normalize(&lc);
    assert_int_equal(lc.len, 0);
    czk_lc_free(&lc);
    assert_null(lc.terms);
    czk_cs_free(cs);
}

/* Long lcs (the qsort path) against a naive per-variable sum. */
static void test_normalize_random(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 7);
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    for (int round = 0; round < 50; round++) {
        /* variables: inputs 0..9 and aux 0..29, encoded as slot 0..39 */
        czk_fr sum[40];
        for (int i = 0; i < 40; i++)
            sum[i] = czk_fr_zero;
        czk_lc lc = CZK_LC_INIT;
        int n = 1 + (int)(czk_rng_u64(&rng) % 200);
        for (int i = 0; i < n; i++) {
            int slot = (int)(czk_rng_u64(&rng) % 40);
            czk_var v =
                slot < 10 ? czk_var_input((uint32_t)slot) : czk_var_aux((uint32_t)slot - 10);
            czk_fr c = fr(czk_rng_u64(&rng) % 3); /* zeros and repeats are common */
            if (czk_rng_u64(&rng) & 1) czk_fr_neg(&c, &c);
            czk_lc_add(cs, &lc, v, &c);
            czk_fr_add(&sum[slot], &sum[slot], &c);
        }
        czk_lc_normalize(&lc);
        uint32_t k = 0;
        for (int slot = 0; slot < 40; slot++) {
            if (czk_fr_is_zero(&sum[slot])) continue;
            czk_var v =
                slot < 10 ? czk_var_input((uint32_t)slot) : czk_var_aux((uint32_t)slot - 10);
            assert_true(k < lc.len);
            assert_int_equal(lc.terms[k].var, v);
            assert_true(czk_fr_eq(&lc.terms[k].coeff, &sum[slot]));
            k++;
        }
        assert_int_equal(lc.len, k);
        czk_lc_free(&lc);
    }
    czk_cs_free(cs);
}

static void test_add_lc_and_copy(void **state) {
    (void)state;
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_WITNESS, NULL, &err); /* lcs work in any mode */
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT;
    czk_fr three = fr(3), seven = fr(7), x;
    czk_lc_add(cs, &a, czk_var_aux(1), &three);
    czk_lc_add_var(cs, &a, CZK_VAR_ONE);
    czk_lc_add_lc(cs, &b, &a, &seven); /* b = 21·aux1 + 7·ONE */
    assert_int_equal(b.len, 2);
    czk_fr_from_u64(&x, 21);
    assert_true(czk_fr_eq(&b.terms[0].coeff, &x));
    assert_true(czk_fr_eq(&b.terms[1].coeff, &seven));
    czk_lc_add_lc(cs, &b, &b, NULL); /* aliasing: b = 2b */
    czk_lc_normalize(&b);
    assert_int_equal(b.len, 2);
    assert_int_equal(b.terms[0].var, CZK_VAR_ONE);
    czk_fr_from_u64(&x, 14);
    assert_true(czk_fr_eq(&b.terms[0].coeff, &x));
    czk_fr_from_u64(&x, 42);
    assert_true(czk_fr_eq(&b.terms[1].coeff, &x));
    czk_lc_copy(cs, &b, &a);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.terms, a.terms, 2 * sizeof(czk_term));
    czk_lc_add_lc(cs, &b, &a, &czk_fr_minus_one); /* b − a = 0 */
    czk_lc_normalize(&b);
    assert_int_equal(b.len, 0);
    /* 1000 appends grow the storage */
    for (uint32_t i = 0; i < 1000; i++)
        czk_lc_add_var(cs, &b, czk_var_aux(999 - i));
    assert_int_equal(b.len, 1000);
    czk_lc_normalize(&b);
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(b.terms[i].var, czk_var_aux(i));
    czk_lc_free(&a);
    czk_lc_free(&b);
    assert_int_equal(czk_cs_status(cs), CZK_OK);
    czk_cs_free(cs);
}

/* A random lc over inputs 0..9 and aux 0..29 (slots 0..39), its per-slot sums in sum[]. */
static void random_lc(czk_cs *cs, czk_rng *rng, czk_lc *lc, czk_fr sum[40], int max_terms) {
    czk_lc_clear(lc);
    for (int i = 0; i < 40; i++)
        sum[i] = czk_fr_zero;
    int n = (int)(czk_rng_u64(rng) % (uint64_t)(max_terms + 1));
    for (int i = 0; i < n; i++) {
        int slot = (int)(czk_rng_u64(rng) % 40);
        czk_var v = slot < 10 ? czk_var_input((uint32_t)slot) : czk_var_aux((uint32_t)slot - 10);
        czk_fr c = fr(czk_rng_u64(rng) % 3);
        if (czk_rng_u64(rng) & 1) czk_fr_neg(&c, &c);
        czk_lc_add(cs, lc, v, &c);
        czk_fr_add(&sum[slot], &sum[slot], &c);
    }
}

/* The lc equals the per-slot sums, normalized (sorted, merged, no zero). */
static void assert_lc_is(const czk_lc *lc, const czk_fr sum[40]) {
    uint32_t k = 0;
    for (int slot = 0; slot < 40; slot++) {
        if (czk_fr_is_zero(&sum[slot])) continue;
        czk_var v = slot < 10 ? czk_var_input((uint32_t)slot) : czk_var_aux((uint32_t)slot - 10);
        assert_true(k < lc->len);
        assert_int_equal(lc->terms[k].var, v);
        assert_true(czk_fr_eq(&lc->terms[k].coeff, &sum[slot]));
        k++;
    }
    assert_int_equal(lc->len, k);
}

/* czk_lc_merge of normalized lcs against the slot sums of dst + scale·src. */
static void test_merge_random(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 11);
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    czk_lc d = CZK_LC_INIT, s = CZK_LC_INIT;
    czk_fr sd[40], ss[40];
    for (int round = 0; round < 400; round++) {
        random_lc(cs, &rng, &d, sd, round % 7 == 0 ? 0 : 60);
        random_lc(cs, &rng, &s, ss, round % 11 == 0 ? 0 : 60);
        czk_lc_normalize(&d);
        czk_lc_normalize(&s);
        czk_fr k;
        int which = round % 4; /* NULL, 1, −1 (cancellations), a random scale */
        const czk_fr *scale = which == 0 ? NULL : which == 1 ? &czk_fr_one : &k;
        if (which == 2)
            k = czk_fr_minus_one;
        else
            k = fr(1 + czk_rng_u64(&rng) % 1000);
        for (int i = 0; i < 40; i++) {
            czk_fr p = ss[i];
            if (scale) czk_fr_mul(&p, &p, scale);
            czk_fr_add(&sd[i], &sd[i], &p);
        }
        czk_lc_merge(cs, &d, &s, scale);
        assert_lc_is(&d, sd);
    }
    /* d − d: merging −1·copy leaves nothing; a zero scale adds nothing */
    random_lc(cs, &rng, &d, sd, 60);
    czk_lc_normalize(&d);
    czk_lc_copy(cs, &s, &d);
    czk_lc_merge(cs, &d, &s, &czk_fr_zero);
    assert_lc_is(&d, sd);
    czk_lc_merge(cs, &d, &s, &czk_fr_minus_one);
    assert_int_equal(d.len, 0);
    /* not normalized: the same lc, terms of one variable summed once normalized */
    random_lc(cs, &rng, &d, sd, 60);
    random_lc(cs, &rng, &s, ss, 60);
    czk_lc_merge(cs, &d, &s, NULL);
    for (int i = 0; i < 40; i++)
        czk_fr_add(&sd[i], &sd[i], &ss[i]);
    czk_lc_normalize(&d);
    assert_lc_is(&d, sd);
    assert_int_equal(czk_cs_status(cs), CZK_OK);
    czk_lc_free(&d);
    czk_lc_free(&s);
    czk_cs_free(cs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pow2_and_minus_one), cmocka_unit_test(test_normalize_literal),
        cmocka_unit_test(test_normalize_random),   cmocka_unit_test(test_add_lc_and_copy),
        cmocka_unit_test(test_merge_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
