/* CZK_TEST_LABELS: unit */
/*
 * AllocatedNum, constraint::{equal, add} and multipack: to_bits_le against
 * the canonical bytes, reverse_bit_numbering against bytes_into_boolean_vec_be
 * of the LE encoding (storage-proofs util.rs test_reverse_bit_numbering),
 * pack_bits / pack_into_inputs against native packing (bellpepper
 * compute_multipacking), exact rows (bellpepper-core num.rs, multipack.rs,
 * storage-proofs constraint.rs), corrupted values failing named constraints.
 */
#include "gtest.h"

#include <stdlib.h>

typedef struct bits_ctx {
    czk_fr x;
    bool corrupt;
    czk_bool bits[CZK_FR_NUM_BITS];
    czk_bool rbn[256];
} bits_ctx;

static czk_status bits_circuit(czk_cs *cs, void *p) {
    bits_ctx *c = p;
    czk_num x = czk_num_alloc(cs, &c->x);
    if (c->corrupt) czk_fr_add(&x.value, &x.value, &czk_fr_one);
    czk_status st = czk_num_to_bits_le(cs, &x, c->bits);
    assert_int_equal(czk_reverse_bit_numbering(c->rbn, c->bits, CZK_FR_NUM_BITS), 256);
    return st;
}

static void test_to_bits_le(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 31);
    czk_err err;
    for (int iter = 0; iter < 20; iter++) {
        bits_ctx c = {.corrupt = false};
        if (iter == 0)
            c.x = czk_fr_minus_one; /* r − 1: all 255 bits used */
        else
            czk_assert_ok(czk_fr_random(&c.x, &rng, &err), &err);
        uint8_t le[32];
        czk_fr_to_bytes(le, &c.x);
        for (int mode = CZK_CS_WITNESS; mode <= CZK_CS_CHECK; mode++) {
            czk_cs *cs = gt_run((czk_cs_mode)mode, bits_circuit, &c, CZK_OK);
            if (mode == CZK_CS_CHECK) assert_int_equal(gt_synthesized(cs), 255 + 1);
            assert_int_equal(czk_cs_num_aux(cs), 1 + 255);
            for (unsigned i = 0; i < CZK_FR_NUM_BITS; i++) {
                assert_int_equal(c.bits[i].kind, CZK_BOOL_IS);
                assert_int_equal(c.bits[i].var, czk_var_aux(1 + i));
                assert_int_equal(c.bits[i].value, (le[i / 8] >> (i % 8)) & 1);
            }
            /* rbn(to_bits_le(x)) = the LE bytes, each most significant bit
             * first; bit 255 (top of byte 31) is Constant(false) */
            for (unsigned i = 0; i < 256; i++)
                assert_int_equal(c.rbn[i].value, (le[i / 8] >> (7 - i % 8)) & 1);
            assert_int_equal(c.rbn[248].kind, CZK_BOOL_CONST);
            czk_cs_free(cs);
        }
    }
    /* a value that disagrees with the variable: the unpacking constraint fails */
    bits_ctx c = {.corrupt = true};
    czk_assert_ok(czk_fr_random(&c.x, &rng, &err), &err);
    czk_cs *cs = gt_run(CZK_CS_CHECK, bits_circuit, &c, CZK_ERR_UNSATISFIED);
    assert_string_equal(czk_cs_first_unsatisfied_path(cs), "unpacking");
    assert_int_equal(czk_cs_first_unsatisfied(cs), 255);
    czk_cs_free(cs);
}

/* The unpacking row: 0·0 = Σ 2^i·bit_i − x. */
static void test_to_bits_row(void **state) {
    (void)state;
    bits_ctx c = {.x = czk_fr_one};
    czk_shape *s = gt_shape(bits_circuit, &c);
    char want[16384], k[32];
    size_t off = (size_t)snprintf(want, sizeof want, "-a0");
    for (unsigned i = 0; i < 255; i++) {
        gt_coeff(k, sizeof k, czk_fr_pow2(i));
        off += (size_t)snprintf(want + off, sizeof want - off, " + %sa%u", k, 1 + i);
    }
    gt_assert_row(s, 255, "0", "0", want);
    gt_assert_row(s, 0, "i0 + -a1", "a1", "0");
    czk_shape_free(s);
}

/* ---- inputize, equal, add ---- */

typedef struct ops_ctx {
    czk_fr a, b;
    int corrupt; /* 0 none, 1 inputize, 2 equal, 3 add */
    czk_num sum;
} ops_ctx;

static czk_status ops_circuit(czk_cs *cs, void *p) {
    ops_ctx *c = p;
    czk_num a = czk_num_alloc(cs, &c->a), b = czk_num_alloc(cs, &c->b);
    czk_num a2 = a;
    if (c->corrupt == 1) czk_fr_add(&a2.value, &a2.value, &czk_fr_one);
    czk_var j = czk_num_inputize(cs, &a2); /* input 1, constraint 0 */
    assert_int_equal(j, czk_var_input(1));
    czk_num e = czk_num_alloc(cs, c->corrupt == 2 ? &c->b : &c->a); /* a2 */
    czk_num_equal(cs, &a, &e);                                      /* constraint 1 */
    czk_num bb = b;
    if (c->corrupt == 3) czk_fr_add(&bb.value, &bb.value, &czk_fr_one);
    c->sum = czk_num_add(cs, &a, &bb); /* a3, constraint 2 */
    return czk_cs_status(cs);
}

static void test_num_ops(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 32);
    czk_err err;
    ops_ctx c = {.corrupt = 0};
    czk_assert_ok(czk_fr_random(&c.a, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(&c.b, &rng, &err), &err);
    czk_cs *cs = gt_run(CZK_CS_CHECK, ops_circuit, &c, CZK_OK);
    czk_fr want;
    czk_fr_add(&want, &c.a, &c.b);
    assert_true(czk_fr_eq(&c.sum.value, &want));
    assert_int_equal(czk_cs_num_inputs(cs), 2);
    czk_witness w;
    czk_assert_ok(czk_cs_take_witness(cs, &w, &err), &err);
    assert_true(czk_fr_eq(&w.inputs[1], &c.a));
    assert_true(czk_fr_eq(&w.aux[3], &want));
    czk_witness_free(&w);
    czk_cs_free(cs);

    czk_shape *s = gt_shape(ops_circuit, &c);
    gt_assert_row(s, 0, "i1", "i0", "a0");
    gt_assert_row(s, 1, "a0", "i0", "a2");
    gt_assert_row(s, 2, "a0 + a1", "i0", "a3");
    czk_shape_free(s);

    static const char *names[] = {"", "inputize", "equal", "add"};
    for (int k = 1; k <= 3; k++) {
        c.corrupt = k;
        cs = gt_run(CZK_CS_CHECK, ops_circuit, &c, CZK_ERR_UNSATISFIED);
        assert_string_equal(czk_cs_first_unsatisfied_path(cs), names[k]);
        czk_cs_free(cs);
    }
}

/* ---- multipack ---- */

typedef struct pack_ctx {
    size_t n;
    const uint8_t *vals; /* one bit value per byte */
    const uint8_t *kinds;
    czk_num packed;
    size_t inputs;
    bool corrupt;
} pack_ctx;

static czk_status pack_circuit(czk_cs *cs, void *p) {
    pack_ctx *c = p;
    czk_bool *bits = malloc((c->n ? c->n : 1) * sizeof *bits);
    if (!bits) return czk_cs_fail(cs, CZK_ERR_NOMEM, "test bits");
    for (size_t i = 0; i < c->n; i++) {
        bool v = c->vals[i];
        switch (c->kinds[i] % 3) {
        case 0:
            bits[i] = czk_bit_alloc(cs, v);
            break;
        case 1:
            bits[i] = czk_bool_not(czk_bit_alloc(cs, !v));
            break;
        default:
            bits[i] = czk_bool_constant(v);
            break;
        }
    }
    if (c->corrupt && c->n && bits[0].kind != CZK_BOOL_CONST) bits[0].value ^= 1;
    c->packed = czk_pack_bits(cs, bits, c->n);
    c->inputs = czk_pack_into_inputs(cs, bits, c->n);
    free(bits);
    return czk_cs_status(cs);
}

/* compute_multipacking: Σ 2^i·bit_i per 254-bit chunk, by doubling. */
static void native_pack(czk_fr *out, const uint8_t *vals, size_t n) {
    czk_fr acc = czk_fr_zero, k = czk_fr_one;
    for (size_t i = 0; i < n; i++) {
        if (vals[i]) czk_fr_add(&acc, &acc, &k);
        czk_fr_add(&k, &k, &k);
    }
    *out = acc;
}

static void test_multipack(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 33);
    czk_err err;
    static const size_t sizes[] = {0, 1, 64, 253, 254, 255, 508, 600, 1000};
    uint8_t vals[1000], kinds[1000];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        for (size_t i = 0; i < n; i++) {
            vals[i] = czk_rng_u64(&rng) & 1;
            kinds[i] = (uint8_t)(czk_rng_u64(&rng) & 0xff);
        }
        pack_ctx c = {n, vals, kinds, {0, {{0}}}, 0, false};
        czk_cs *cs = gt_run(CZK_CS_CHECK, pack_circuit, &c, CZK_OK);
        size_t chunks = (n + 253) / 254;
        assert_int_equal(c.inputs, chunks);
        assert_int_equal(czk_cs_num_inputs(cs), 1 + chunks);
        czk_fr want;
        native_pack(&want, vals, n < 254 ? n : 254);
        assert_true(czk_fr_eq(&c.packed.value, &want));
        czk_witness w;
        czk_assert_ok(czk_cs_take_witness(cs, &w, &err), &err);
        for (size_t k = 0; k < chunks; k++) {
            size_t len = n - 254 * k < 254 ? n - 254 * k : 254;
            native_pack(&want, vals + 254 * k, len);
            assert_true(czk_fr_eq(&w.inputs[1 + k], &want));
        }
        czk_witness_free(&w);
        czk_cs_free(cs);
    }
    /* a bit value that disagrees with its variable: the packing fails */
    for (size_t i = 0; i < 10; i++)
        kinds[i] = 0;
    pack_ctx c = {10, vals, kinds, {0, {{0}}}, 0, true};
    czk_cs *cs = gt_run(CZK_CS_CHECK, pack_circuit, &c, CZK_ERR_UNSATISFIED);
    assert_string_equal(czk_cs_first_unsatisfied_path(cs), "packing");
    czk_cs_free(cs);
}

/* Rows: constant-true bits go to ONE, Not bits contribute 2^i·ONE − 2^i·v. */
static void test_pack_row(void **state) {
    (void)state;
    /* bits: Is(a0)=1, Const(true), Not(a1) (value 1), Const(false), Is(a2) */
    static const uint8_t vals[] = {1, 1, 1, 0, 1}, kinds[] = {0, 2, 1, 2, 0};
    pack_ctx c = {5, vals, kinds, {0, {{0}}}, 0, false};
    czk_shape *s = gt_shape(pack_circuit, &c);
    /* 3 bits, pack_bits r = a3, then input 1 */
    gt_assert_row(s, 3, "6*i0 + a0 + -4*a1 + 16*a2", "i0", "a3");
    gt_assert_row(s, 4, "6*i0 + a0 + -4*a1 + 16*a2", "i0", "i1");
    czk_shape_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_to_bits_le), cmocka_unit_test(test_to_bits_row),
        cmocka_unit_test(test_num_ops),    cmocka_unit_test(test_multipack),
        cmocka_unit_test(test_pack_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
