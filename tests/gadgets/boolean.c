/* CZK_TEST_LABELS: unit */
/*
 * Boolean gadgets: truth tables over every combination of Constant(false),
 * Constant(true), Is and Not operands (values against native bool logic, the
 * assignment of the result's variable, satisfiability in CHECK mode), the
 * exact constraints of bellpepper-core boolean.rs (operand order, merged
 * coefficients), and corrupted values failing the named constraint.
 */
#include "gtest.h"

/* Operand codes: 0 Constant(false), 1 Constant(true), 2 Is(0), 3 Is(1),
 * 4 Not(var = 1), 5 Not(var = 0). The Boolean's value is code & 1. */
static czk_bool make(czk_cs *cs, int code) {
    switch (code) {
    case 0:
    case 1:
        return czk_bool_constant(code & 1);
    case 2:
    case 3:
        return czk_bit_alloc(cs, code & 1);
    default:
        return czk_bool_not(czk_bit_alloc(cs, !(code & 1)));
    }
}

enum { OP_XOR, OP_AND, OP_OR, OP_CH, OP_MAJ };

typedef struct tt_ctx {
    int op, codes[3];
    czk_bool r;
    uint64_t cost;
} tt_ctx;

static czk_status tt_circuit(czk_cs *cs, void *p) {
    tt_ctx *c = p;
    czk_bool x = make(cs, c->codes[0]), y = make(cs, c->codes[1]), z = make(cs, c->codes[2]);
    uint64_t before = czk_cs_num_constraints(cs);
    switch (c->op) {
    case OP_XOR:
        c->r = czk_bool_xor(cs, x, y);
        break;
    case OP_AND:
        c->r = czk_bool_and(cs, x, y);
        break;
    case OP_OR:
        c->r = czk_bool_or(cs, x, y);
        break;
    case OP_CH:
        c->r = czk_bool_sha256_ch(cs, x, y, z);
        break;
    default:
        c->r = czk_bool_sha256_maj(cs, x, y, z);
        break;
    }
    c->cost = czk_cs_num_constraints(cs) - before;
    return czk_cs_status(cs);
}

static bool native(int op, bool a, bool b, bool c) {
    switch (op) {
    case OP_XOR:
        return a ^ b;
    case OP_AND:
        return a & b;
    case OP_OR:
        return a | b;
    case OP_CH:
        return (a & b) ^ (!a & c);
    default:
        return (a & b) ^ (a & c) ^ (b & c);
    }
}

static void test_truth_tables(void **state) {
    (void)state;
    czk_err err;
    for (int op = OP_XOR; op <= OP_MAJ; op++) {
        int n3 = op >= OP_CH ? 6 : 1;
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++)
                for (int k = 0; k < n3; k++) {
                    tt_ctx c = {op, {i, j, k}, {0}, 0};
                    czk_cs *cs = gt_run(CZK_CS_CHECK, tt_circuit, &c, CZK_OK);
                    bool want = native(op, i & 1, j & 1, k & 1);
                    assert_int_equal(c.r.value, want);
                    if (c.r.kind != CZK_BOOL_CONST) {
                        czk_witness w;
                        czk_assert_ok(czk_cs_take_witness(cs, &w, &err), &err);
                        bool var = !czk_fr_is_zero(&w.aux[czk_var_index(c.r.var)]);
                        assert_int_equal(var ^ (c.r.kind == CZK_BOOL_NOT), want);
                        czk_witness_free(&w);
                    }
                    /* two-operand ops cost one constraint iff no operand is constant */
                    bool vars2 = i >= 2 && j >= 2;
                    if (op <= OP_OR) assert_int_equal(c.cost, vars2 ? 1 : 0);
                    /* all constant: a constant, nothing emitted */
                    if (i < 2 && j < 2 && (op <= OP_OR || k < 2)) {
                        assert_int_equal(c.r.kind, CZK_BOOL_CONST);
                        assert_int_equal(c.cost, 0);
                    }
                    /* ch and maj on three variables: the general case, one
                     * constraint for ch, two (maj and b∧c) for maj */
                    if (op >= OP_CH && i >= 2 && j >= 2 && k >= 2)
                        assert_int_equal(c.cost, op == OP_CH ? 1 : 2);
                    czk_cs_free(cs);
                }
    }
}

/* The constraints of boolean.rs, row by row (see the file's comments):
 * bits a0, a1 allocated first. */
static czk_status rows_circuit(czk_cs *cs, void *p) {
    (void)p;
    czk_bool a = czk_bit_alloc(cs, true), b = czk_bit_alloc(cs, false);
    czk_bool na = czk_bool_not(a), nb = czk_bool_not(b), t = czk_bool_constant(true),
             f = czk_bool_constant(false);
    czk_bool_xor(cs, a, b);               /* 2: AllocatedBit::xor(a, b) */
    czk_bool_xor(cs, na, b);              /* 3: Not ⊕ Is = Not(xor(b, a)): the Is operand first */
    czk_bool_and(cs, a, nb);              /* 4: and_not(a, b) */
    czk_bool_and(cs, na, b);              /* 5: and_not(b, a) */
    czk_bool_and(cs, na, nb);             /* 6: nor(a, b) */
    czk_bool_and(cs, a, b);               /* 7: and(a, b) */
    czk_bool c = czk_bit_alloc(cs, true); /* 8: a8 */
    czk_bool_sha256_ch(cs, a, nb, c);     /* 9: general, ch = a9 */
    czk_bool_sha256_maj(cs, a, b, c);     /* maj = a10, 10: bc = a11, 11: maj */
    czk_bool_sha256_ch(cs, t, b, c);      /* 12: a = true: general, B = ONE */
    czk_bool_sha256_ch(cs, a, f, c);      /* 13: b = false: and(¬a, c) = and_not(c, a) */
    czk_bool_sha256_maj(cs, a, b, t);     /* 14: c = true: ¬and(¬a, ¬b) = ¬nor(a, b) */
    czk_bool_sha256_ch(cs, a, b, t);      /* 15: c = true: ¬and(a, ¬b) = ¬and_not(a, b) */
    czk_bool_sha256_ch(cs, a, t, c);      /* 16: b = true: ¬and(¬a, ¬c) = ¬nor(a, c) */
    czk_bool_sha256_maj(cs, t, b, c);     /* 17: a = true: ¬and(¬b, ¬c) = ¬nor(b, c) */
    czk_bool_sha256_ch(cs, f, a, t);      /* a = false: c, nothing */
    czk_bool_sha256_maj(cs, f, b, c);     /* 18: a = false: and(b, c) */
    return czk_cs_status(cs);
}

static void test_rows(void **state) {
    (void)state;
    czk_shape *s = gt_shape(rows_circuit, NULL);
    assert_int_equal(s->num_aux, 19);
    assert_int_equal(s->num_constraints, 19 + 1);
    gt_assert_row(s, 0, "i0 + -a0", "a0", "0");
    gt_assert_row(s, 1, "i0 + -a1", "a1", "0");
    gt_assert_row(s, 2, "2*a0", "a1", "a0 + a1 + -a2");
    gt_assert_row(s, 3, "2*a1", "a0", "a0 + a1 + -a3");
    gt_assert_row(s, 4, "a0", "i0 + -a1", "a4");
    gt_assert_row(s, 5, "a1", "i0 + -a0", "a5");
    gt_assert_row(s, 6, "i0 + -a0", "i0 + -a1", "a6");
    gt_assert_row(s, 7, "a0", "a1", "a7");
    gt_assert_row(s, 8, "i0 + -a8", "a8", "0");
    gt_assert_row(s, 9, "i0 + -a1 + -a8", "a0", "-a8 + a9");
    gt_assert_row(s, 10, "a1", "a8", "a11");
    gt_assert_row(s, 11, "-a1 + -a8 + 2*a11", "a0", "-a10 + a11");
    gt_assert_row(s, 12, "a1 + -a8", "i0", "-a8 + a12");
    gt_assert_row(s, 13, "a8", "i0 + -a0", "a13");
    gt_assert_row(s, 14, "i0 + -a0", "i0 + -a1", "a14");
    gt_assert_row(s, 15, "a0", "i0 + -a1", "a15");
    gt_assert_row(s, 16, "i0 + -a0", "i0 + -a8", "a16");
    gt_assert_row(s, 17, "i0 + -a1", "i0 + -a8", "a17");
    gt_assert_row(s, 18, "a1", "a8", "a18");
    gt_assert_row(s, 19, "i0", "0", "0"); /* finalization: ONE·0 = 0 */
    czk_shape_free(s);
}

/* A Boolean whose value disagrees with its variable's assignment: the next
 * gadget computes its output from the wrong value, and its own constraint is
 * the first that fails. */
typedef struct bad_ctx {
    int op;
} bad_ctx;

static czk_status bad_circuit(czk_cs *cs, void *p) {
    bad_ctx *c = p;
    czk_bool a = czk_bit_alloc(cs, true), b = czk_bit_alloc(cs, true), d = czk_bit_alloc(cs, false);
    a.value = 0; /* corrupted */
    switch (c->op) {
    case 0:
        czk_bool_xor(cs, a, b);
        break;
    case 1:
        czk_bool_and(cs, a, b);
        break;
    case 2:
        czk_bool_and(cs, a, czk_bool_not(d));
        break;
    case 3:
        czk_bool_and(cs, czk_bool_not(a), czk_bool_not(d));
        break;
    case 4:
        czk_bool_sha256_ch(cs, a, b, d);
        break;
    default:
        czk_bool_sha256_maj(cs, a, d, b);
        break;
    }
    return czk_cs_status(cs);
}

static void test_corrupted(void **state) {
    (void)state;
    static const char *names[] = {"xor", "and", "and_not", "nor", "ch", "maj"};
    for (int op = 0; op < 6; op++) {
        bad_ctx c = {op};
        czk_cs *cs = gt_run(CZK_CS_CHECK, bad_circuit, &c, CZK_ERR_UNSATISFIED);
        assert_string_equal(czk_cs_first_unsatisfied_path(cs), names[op]);
        czk_cs_free(cs);
    }
}

typedef struct alloc_ctx {
    uint64_t v;
    uint8_t bytes[5];
    czk_bool u64[64], be[40], le[40];
} alloc_ctx;

static czk_status alloc_circuit(czk_cs *cs, void *p) {
    alloc_ctx *c = p;
    czk_bits_alloc_u64_le(cs, c->v, 64, c->u64);
    czk_bits_alloc_bytes(cs, c->bytes, 5, true, c->be);
    czk_bits_alloc_bytes(cs, c->bytes, 5, false, c->le);
    return czk_cs_status(cs);
}

static void test_bit_allocation(void **state) {
    (void)state;
    alloc_ctx c = {.v = 0x8000000000000001ull ^ 0x0123456789abcdefull,
                   .bytes = {0x80, 0x01, 0xa5, 0x3c, 0xff}};
    czk_cs *cs = gt_run(CZK_CS_CHECK, alloc_circuit, &c, CZK_OK);
    assert_int_equal(czk_cs_num_aux(cs), 64 + 80);
    assert_int_equal(gt_synthesized(cs), 64 + 80);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(c.u64[i].kind, CZK_BOOL_IS);
        assert_int_equal(c.u64[i].var, czk_var_aux(i));
        assert_int_equal(c.u64[i].value, (c.v >> i) & 1);
    }
    for (int i = 0; i < 40; i++) {
        assert_int_equal(c.be[i].value, (c.bytes[i / 8] >> (7 - i % 8)) & 1);
        assert_int_equal(c.le[i].value, (c.bytes[i / 8] >> (i % 8)) & 1);
    }
    czk_cs_free(cs);
}

/* AllocatedBit::and / nor insist on Is operands (insert_8's requirement). */
static czk_status bad_and_circuit(czk_cs *cs, void *p) {
    (void)p;
    czk_bool a = czk_bit_alloc(cs, true);
    czk_bool r = czk_bit_and(cs, a, czk_bool_not(a));
    assert_int_equal(r.kind, CZK_BOOL_CONST);
    return czk_cs_status(cs);
}

static void test_bit_and_needs_is(void **state) {
    (void)state;
    czk_cs *cs = gt_run(CZK_CS_CHECK, bad_and_circuit, NULL, CZK_ERR_INVALID_ARG);
    czk_cs_free(cs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truth_tables),     cmocka_unit_test(test_rows),
        cmocka_unit_test(test_corrupted),        cmocka_unit_test(test_bit_allocation),
        cmocka_unit_test(test_bit_and_needs_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
