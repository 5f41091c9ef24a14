/* CZK_TEST_LABELS: unit */
/*
 * UInt32 and MultiEq (bellpepper gadgets/uint32.rs, multieq.rs): addmany
 * against native u32 sums, xor / ch / maj / rotr / shr against native word
 * ops, on operands mixing allocated, negated and constant bits; the result
 * bit counts k = bitlen(n·(2^32 − 1)); the MultiEq batching (flush before a
 * pair that would reach 254 bits, after the new bits' boolean constraints;
 * coefficients 2^(bits_used + i)); a corrupted operand failing "multieq 0".
 */
#include "gtest.h"

#include <stdlib.h>

/* A word of value v whose bit i is, by kinds (2 bits per bit):
 * 0 allocated, 1 Not of an allocated bit, 2 constant. */
static void make_word(czk_cs *cs, czk_u32 *w, uint32_t v, uint64_t kinds) {
    for (unsigned i = 0; i < 32; i++) {
        bool b = (v >> i) & 1;
        switch ((kinds >> (2 * i)) % 4 % 3) {
        case 0:
            w->bits[i] = czk_bit_alloc(cs, b);
            break;
        case 1:
            w->bits[i] = czk_bool_not(czk_bit_alloc(cs, !b));
            break;
        default:
            w->bits[i] = czk_bool_constant(b);
            break;
        }
    }
    w->value = v;
}

static uint32_t word_value(const czk_u32 *w) {
    uint32_t v = 0;
    for (unsigned i = 0; i < 32; i++)
        v |= (uint32_t)(w->bits[i].value & 1) << i;
    return v;
}

typedef struct add_ctx {
    unsigned n;
    uint32_t vals[10];
    uint64_t kinds[10];
    czk_u32 out;
    uint64_t cost;
} add_ctx;

static czk_status add_circuit(czk_cs *cs, void *p) {
    add_ctx *c = p;
    czk_u32 ops[10];
    for (unsigned j = 0; j < c->n; j++)
        make_word(cs, &ops[j], c->vals[j], c->kinds[j]);
    uint64_t before = czk_cs_num_constraints(cs);
    czk_multieq m = CZK_MULTIEQ_INIT;
    czk_u32_addmany(cs, &m, ops, c->n, &c->out);
    czk_multieq_finish(cs, &m);
    c->cost = czk_cs_num_constraints(cs) - before;
    return czk_cs_status(cs);
}

static void test_addmany_native(void **state) {
    (void)state;
    /* bitlen(n·(2^32 − 1)) for n = 2..10 (spec §4.4 table; Python:
     * (n*(2**32-1)).bit_length()) */
    static const unsigned k_of_n[11] = {0, 0, 33, 34, 34, 35, 35, 35, 35, 36, 36};
    czk_rng rng;
    czk_rng_seed(&rng, 21);
    for (int iter = 0; iter < 300; iter++) {
        add_ctx c = {.n = 2 + (unsigned)(czk_rng_u64(&rng) % 9)};
        uint32_t sum = 0;
        for (unsigned j = 0; j < c.n; j++) {
            c.vals[j] = (uint32_t)czk_rng_u64(&rng);
            c.kinds[j] = iter % 3 == 0 ? 0 : czk_rng_u64(&rng); /* all Is, or mixed */
            if (iter % 7 == 1) c.kinds[j] = ~0ull;              /* 3 % 3 = 0: Is too */
            sum += c.vals[j];
        }
        czk_cs_mode mode = iter % 2 ? CZK_CS_CHECK : CZK_CS_WITNESS;
        czk_cs *cs = gt_run(mode, add_circuit, &c, CZK_OK);
        assert_int_equal(c.out.value, sum);
        assert_int_equal(word_value(&c.out), sum);
        for (unsigned i = 0; i < 32; i++)
            assert_int_equal(c.out.bits[i].kind, CZK_BOOL_IS);
        /* k boolean constraints and one MultiEq constraint */
        if (mode == CZK_CS_CHECK) assert_int_equal(c.cost, k_of_n[c.n] + 1);
        czk_cs_free(cs);
    }
}

/* All-constant operands: a constant sum, nothing allocated or emitted. */
static void test_addmany_constants(void **state) {
    (void)state;
    add_ctx c = {.n = 5, .vals = {0xffffffffu, 0xffffffffu, 7, 0x80000000u, 1}};
    for (unsigned j = 0; j < 5; j++)
        c.kinds[j] = 0xaaaaaaaaaaaaaaaaull; /* 2 = constant */
    czk_cs *cs = gt_run(CZK_CS_CHECK, add_circuit, &c, CZK_OK);
    assert_int_equal(czk_cs_num_aux(cs), 0);
    assert_int_equal(c.cost, 0);
    assert_int_equal(c.out.value, 0x80000006u);
    for (unsigned i = 0; i < 32; i++) {
        assert_int_equal(c.out.bits[i].kind, CZK_BOOL_CONST);
        assert_int_equal(c.out.bits[i].value, (0x80000006u >> i) & 1);
    }
    czk_cs_free(cs);
}

/* ---- MultiEq batching, structurally ---- */

typedef struct meq_ctx {
    unsigned adds; /* number of 4-operand addmanys sharing one MultiEq */
} meq_ctx;

/* Operands: w = 32 allocated bits (a0..a31), then for each addition four
 * copies of w. */
static czk_status meq_circuit(czk_cs *cs, void *p) {
    meq_ctx *c = p;
    czk_u32 w, ops[4], r;
    czk_u32_alloc(cs, &w, 0x9e3779b9u);
    for (int j = 0; j < 4; j++)
        ops[j] = w;
    czk_multieq m = CZK_MULTIEQ_INIT;
    for (unsigned a = 0; a < c->adds; a++)
        czk_u32_addmany(cs, &m, ops, 4, &r);
    czk_multieq_finish(cs, &m);
    return czk_cs_status(cs);
}

/* 4-operand additions take 34 bits each: seven fit (238 < 254); the eighth
 * flushes the seven first, right after its own 34 boolean constraints. */
static void test_multieq_flush(void **state) {
    (void)state;
    meq_ctx c = {8};
    czk_shape *s = gt_shape(meq_circuit, &c);
    /* 32 + 8·34 bits, 2 MultiEq constraints */
    assert_int_equal(s->num_aux, 32 + 8 * 34);
    assert_int_equal(s->num_constraints, 32 + 8 * 34 + 2 + 1);
    uint64_t flush0 = 32 + 8 * 34, flush1 = flush0 + 1;
    char buf[8192];
    /* the row before the first flush is the eighth addition's last bit */
    gt_assert_row(s, flush0 - 1, "i0 + -a303", "a303", "0");
    /* first flush: lhs = Σ_{a<7} 2^(34a)·4·Σ_i 2^i·w_i (merged: the four
     * copies add up), rhs = Σ_a Σ_i 2^(34a + i)·r_{a,i}; B = ONE */
    gt_row(s, 1, flush0, buf, sizeof buf);
    assert_string_equal(buf, "i0");
    /* 32 terms: each w_i once, with coefficient 4·2^i·Σ_{a<7} 2^(34a) */
    czk_fr want = czk_fr_zero;
    for (unsigned a = 0; a < 7; a++)
        czk_fr_add(&want, &want, czk_fr_pow2(34 * a + 2));
    for (unsigned i = 0; i < 32; i++) {
        czk_fr got = czk_fr_zero;
        assert_true(gt_coeff_of(s, 0, flush0, s->num_inputs + i, &got));
        assert_true(czk_fr_eq(&got, &want));
        czk_fr_add(&want, &want, &want);
    }
    gt_row(s, 0, flush0, buf, sizeof buf);
    int terms = 1;
    for (char *q = buf; (q = strstr(q, " + ")); q += 3)
        terms++;
    assert_int_equal(terms, 32);
    gt_row(s, 2, flush0, buf, sizeof buf);
    assert_true(strncmp(buf, "a32 + 2*a33 + 4*a34", 19) == 0);
    terms = 1;
    for (char *q = buf; (q = strstr(q, " + ")); q += 3)
        terms++;
    assert_int_equal(terms, 7 * 34);
    /* the second addition's first result bit sits at 2^34 */
    assert_non_null(strstr(buf, " + 2^34*a66 + "));
    /* the final flush holds only the eighth addition, at offset 0 again */
    gt_row(s, 2, flush1, buf, sizeof buf);
    assert_true(strncmp(buf, "a270 + 2*a271", 13) == 0);
    terms = 1;
    for (char *q = buf; (q = strstr(q, " + ")); q += 3)
        terms++;
    assert_int_equal(terms, 34);
    czk_shape_free(s);
}

/* A two-operand addition of an allocated word and a constant, exactly:
 * constant-true bits go to ONE with coefficient Σ 2^i over the set bits. */
static czk_status small_add_circuit(czk_cs *cs, void *p) {
    (void)p;
    czk_u32 ops[2], r;
    czk_u32_alloc(cs, &ops[0], 5);
    czk_u32_constant(&ops[1], 6);
    czk_multieq m = CZK_MULTIEQ_INIT;
    czk_u32_addmany(cs, &m, ops, 2, &r);
    czk_multieq_finish(cs, &m);
    assert_int_equal(r.value, 11);
    return czk_cs_status(cs);
}

static void test_addmany_row(void **state) {
    (void)state;
    czk_shape *s = gt_shape(small_add_circuit, NULL);
    assert_int_equal(s->num_aux, 32 + 33);
    char a[4096], c[4096];
    size_t off = (size_t)snprintf(a, sizeof a, "6*i0");
    for (unsigned i = 0; i < 32; i++) {
        char k[32];
        gt_coeff(k, sizeof k, czk_fr_pow2(i));
        off += (size_t)snprintf(a + off, sizeof a - off, " + %sa%u", k, i);
    }
    off = 0;
    for (unsigned i = 0; i < 33; i++) {
        char k[32];
        gt_coeff(k, sizeof k, czk_fr_pow2(i));
        off += (size_t)snprintf(c + off, sizeof c - off, "%s%sa%u", i ? " + " : "", k, 32 + i);
    }
    gt_assert_row(s, 32 + 33, a, "i0", c);
    czk_shape_free(s);
}

/* ---- word ops against native ---- */

typedef struct ops_ctx {
    uint32_t x, y, z;
    uint64_t kx, ky, kz;
    czk_u32 r[8];
} ops_ctx;

static czk_status ops_circuit(czk_cs *cs, void *p) {
    ops_ctx *c = p;
    czk_u32 x, y, z, be;
    make_word(cs, &x, c->x, c->kx);
    make_word(cs, &y, c->y, c->ky);
    make_word(cs, &z, c->z, c->kz);
    czk_u32_xor(cs, &c->r[0], &x, &y);
    czk_u32_sha256_ch(cs, &c->r[1], &x, &y, &z);
    czk_u32_sha256_maj(cs, &c->r[2], &x, &y, &z);
    czk_u32_rotr(&c->r[3], &x, 7);
    czk_u32_shr(&c->r[4], &x, 10);
    czk_bool bits[32];
    czk_u32_to_bits_be(&x, bits);
    czk_u32_from_bits_be(&be, bits);
    c->r[5] = be;
    c->r[6] = x;
    czk_u32_xor(cs, &c->r[7], &x, &x); /* a ⊕ a = 0 */
    return czk_cs_status(cs);
}

static void test_word_ops(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 22);
    for (int iter = 0; iter < 200; iter++) {
        ops_ctx c;
        memset(&c, 0, sizeof c);
        c.x = (uint32_t)czk_rng_u64(&rng);
        c.y = (uint32_t)czk_rng_u64(&rng);
        c.z = (uint32_t)czk_rng_u64(&rng);
        c.kx = czk_rng_u64(&rng);
        c.ky = czk_rng_u64(&rng);
        c.kz = czk_rng_u64(&rng);
        czk_cs *cs = gt_run(CZK_CS_CHECK, ops_circuit, &c, CZK_OK);
        uint32_t want[8] = {c.x ^ c.y,
                            (c.x & c.y) ^ (~c.x & c.z),
                            (c.x & c.y) ^ (c.x & c.z) ^ (c.y & c.z),
                            (c.x >> 7) | (c.x << 25),
                            c.x >> 10,
                            c.x,
                            c.x,
                            0};
        for (int k = 0; k < 8; k++) {
            assert_int_equal(word_value(&c.r[k]), want[k]);
            assert_int_equal(c.r[k].value, want[k]);
        }
        for (int i = 22; i < 32; i++)
            assert_int_equal(c.r[4].bits[i].kind, CZK_BOOL_CONST);
        assert_memory_equal(c.r[5].bits, c.r[6].bits, sizeof c.r[5].bits);
        czk_cs_free(cs);
    }
}

/* An operand whose value disagrees with its variables: the addition's
 * result bits hold the wrong sum, so the MultiEq constraint fails. */
static czk_status bad_add_circuit(czk_cs *cs, void *p) {
    (void)p;
    czk_u32 ops[3], r;
    czk_u32_alloc(cs, &ops[0], 1000);
    czk_u32_alloc(cs, &ops[1], 2000);
    czk_u32_alloc(cs, &ops[2], 3000);
    ops[1].value = 2001;
    ops[1].bits[0].value = 1;
    czk_multieq m = CZK_MULTIEQ_INIT;
    czk_u32_addmany(cs, &m, ops, 3, &r);
    czk_multieq_finish(cs, &m);
    return czk_cs_status(cs);
}

static void test_corrupted(void **state) {
    (void)state;
    czk_cs *cs = gt_run(CZK_CS_CHECK, bad_add_circuit, NULL, CZK_ERR_UNSATISFIED);
    assert_string_equal(czk_cs_first_unsatisfied_path(cs), "multieq 0");
    assert_int_equal(czk_cs_first_unsatisfied(cs), 96 + 34);
    czk_cs_free(cs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addmany_native), cmocka_unit_test(test_addmany_constants),
        cmocka_unit_test(test_multieq_flush),  cmocka_unit_test(test_addmany_row),
        cmocka_unit_test(test_word_ops),       cmocka_unit_test(test_corrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
