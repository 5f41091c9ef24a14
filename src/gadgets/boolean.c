/*
 * Booleans: bellpepper-core's AllocatedBit and Boolean{Constant, Is, Not}
 * (gadgets/boolean.rs; spec §4.1).
 *
 * A czk_bool is 8 bytes: the AllocatedBit's variable, the kind, and the
 * Boolean's own value. Constant folding is decided by kind and constant
 * value alone, so RECORD mode (no values) takes the same branches as the
 * prover. The cases of xor, and, sha256_ch and sha256_maj are tested in
 * bellpepper's order; the order matters when several operands are constants
 * (e.g. ch with b = false and c = true is and(¬a, c), not ¬and(a, ¬b)), and
 * the operand order of the AllocatedBit ops matters because their A and B
 * differ ((2a)·b for xor, a·(1 − b) for and_not).
 *
 * Every allocation is followed by its one constraint, as upstream does. In
 * WITNESS mode nothing but the allocation happens.
 */
#include "boolean_internal.h"

/* The value of the AllocatedBit under a non-constant Boolean. */
static inline bool var_value(czk_bool x) {
    return x.kind == CZK_BOOL_NOT ? !x.value : x.value;
}

static inline czk_bool make_is(czk_var v, bool value) {
    czk_bool r = {v, CZK_BOOL_IS, (uint8_t)value, 0};
    return r;
}

void czk_bool_lc(czk_cs *cs, czk_lc *lc, czk_bool b, const czk_fr *coeff) {
    const czk_fr *k = coeff ? coeff : &czk_fr_one;
    switch (b.kind) {
    case CZK_BOOL_CONST:
        if (b.value) czk_lc_add(cs, lc, CZK_VAR_ONE, k);
        break;
    case CZK_BOOL_IS:
        czk_lc_add(cs, lc, b.var, k);
        break;
    default: {
        czk_fr neg;
        czk_fr_neg(&neg, k);
        czk_lc_add(cs, lc, CZK_VAR_ONE, k);
        czk_lc_add(cs, lc, b.var, &neg);
        break;
    }
    }
}

/* lc += ONE − v */
static inline void one_minus(czk_cs *cs, czk_lc *lc, czk_var v) {
    czk_lc_add_var(cs, lc, CZK_VAR_ONE);
    czk_lc_sub_var(cs, lc, v);
}

static inline void enforce_named(czk_cs *cs, czk_gs *s, const char *name) {
    czk_cs_push_ns(cs, "%s", name);
    czk_cs_enforce(cs, &s->a, &s->b, &s->c);
    czk_cs_pop_ns(cs);
}

czk_bool czk_gb_alloc(czk_cs *cs, czk_gs *s, bool value) {
    czk_var v = czk_alloc_bitval(cs, value);
    if (czk_cs_records(cs)) {
        czk_gs_clear(s);
        one_minus(cs, &s->a, v);
        czk_lc_add_var(cs, &s->b, v);
        enforce_named(cs, s, "boolean");
    }
    return make_is(v, value);
}

enum bit_op { BIT_XOR, BIT_AND, BIT_AND_NOT, BIT_NOR };

/*
 * The AllocatedBit ops on variables a, b with values av, bv: a new aux c,
 * then one constraint:
 *   xor      (a + a)·b = a + b − c
 *   and      a·b = c
 *   and_not  a·(ONE − b) = c
 *   nor      (ONE − a)·(ONE − b) = c
 */
static czk_bool bit_op(czk_cs *cs, czk_gs *s, enum bit_op op, czk_var a, bool av, czk_var b,
                       bool bv) {
    bool cv;
    switch (op) {
    case BIT_XOR:
        cv = av ^ bv;
        break;
    case BIT_AND:
        cv = av & bv;
        break;
    case BIT_AND_NOT:
        cv = av & !bv;
        break;
    default:
        cv = !av & !bv;
        break;
    }
    czk_var c = czk_alloc_bitval(cs, cv);
    if (czk_cs_records(cs)) {
        czk_gs_clear(s);
        switch (op) {
        case BIT_XOR:
            czk_lc_add_var(cs, &s->a, a);
            czk_lc_add_var(cs, &s->a, a);
            czk_lc_add_var(cs, &s->b, b);
            czk_lc_add_var(cs, &s->c, a);
            czk_lc_add_var(cs, &s->c, b);
            czk_lc_sub_var(cs, &s->c, c);
            enforce_named(cs, s, "xor");
            break;
        case BIT_AND:
            czk_lc_add_var(cs, &s->a, a);
            czk_lc_add_var(cs, &s->b, b);
            czk_lc_add_var(cs, &s->c, c);
            enforce_named(cs, s, "and");
            break;
        case BIT_AND_NOT:
            czk_lc_add_var(cs, &s->a, a);
            one_minus(cs, &s->b, b);
            czk_lc_add_var(cs, &s->c, c);
            enforce_named(cs, s, "and_not");
            break;
        default:
            one_minus(cs, &s->a, a);
            one_minus(cs, &s->b, b);
            czk_lc_add_var(cs, &s->c, c);
            enforce_named(cs, s, "nor");
            break;
        }
    }
    return make_is(c, cv);
}

czk_bool czk_gb_xor(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b) {
    /* (Constant(false), x) | (x, Constant(false)) => x */
    if (a.kind == CZK_BOOL_CONST && !a.value) return b;
    if (b.kind == CZK_BOOL_CONST && !b.value) return a;
    /* (Constant(true), x) | (x, Constant(true)) => !x */
    if (a.kind == CZK_BOOL_CONST) return czk_bool_not(b);
    if (b.kind == CZK_BOOL_CONST) return czk_bool_not(a);
    if (a.kind != b.kind) {
        /* Is with Not: !(xor(is, not's variable)) */
        czk_bool is = a.kind == CZK_BOOL_IS ? a : b;
        czk_bool nt = a.kind == CZK_BOOL_IS ? b : a;
        czk_bool r = bit_op(cs, s, BIT_XOR, is.var, var_value(is), nt.var, var_value(nt));
        return czk_bool_not(r);
    }
    /* both Is or both Not: xor of the variables */
    return bit_op(cs, s, BIT_XOR, a.var, var_value(a), b.var, var_value(b));
}

czk_bool czk_gb_and(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b) {
    if ((a.kind == CZK_BOOL_CONST && !a.value) || (b.kind == CZK_BOOL_CONST && !b.value))
        return czk_bool_constant(false);
    if (a.kind == CZK_BOOL_CONST) return b;
    if (b.kind == CZK_BOOL_CONST) return a;
    if (a.kind != b.kind) {
        czk_bool is = a.kind == CZK_BOOL_IS ? a : b;
        czk_bool nt = a.kind == CZK_BOOL_IS ? b : a;
        return bit_op(cs, s, BIT_AND_NOT, is.var, var_value(is), nt.var, var_value(nt));
    }
    if (a.kind == CZK_BOOL_NOT)
        return bit_op(cs, s, BIT_NOR, a.var, var_value(a), b.var, var_value(b));
    return bit_op(cs, s, BIT_AND, a.var, var_value(a), b.var, var_value(b));
}

static inline bool ch_value(bool a, bool b, bool c) {
    return (a & b) ^ (!a & c);
}
static inline bool maj_value(bool a, bool b, bool c) {
    return (a & b) ^ (a & c) ^ (b & c);
}

czk_bool czk_gb_ch(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b, czk_bool c) {
    bool ka = a.kind == CZK_BOOL_CONST, kb = b.kind == CZK_BOOL_CONST,
         kc = c.kind == CZK_BOOL_CONST;
    if (ka && kb && kc) return czk_bool_constant(ch_value(a.value, b.value, c.value));
    if (ka && !a.value) return c;
    if (kb && !b.value) return czk_gb_and(cs, s, czk_bool_not(a), c);
    if (kc && !c.value) return czk_gb_and(cs, s, a, b);
    if (kc) return czk_bool_not(czk_gb_and(cs, s, a, czk_bool_not(b)));
    if (kb) return czk_bool_not(czk_gb_and(cs, s, czk_bool_not(a), czk_bool_not(c)));
    /* a = true, or no constant: ch, then (b − c)·a = ch − c */
    bool v = ch_value(a.value, b.value, c.value);
    czk_var x = czk_alloc_bitval(cs, v);
    if (czk_cs_records(cs)) {
        czk_gs_clear(s);
        czk_bool_lc(cs, &s->a, b, &czk_fr_one);
        czk_bool_lc(cs, &s->a, c, &czk_fr_minus_one);
        czk_bool_lc(cs, &s->b, a, &czk_fr_one);
        czk_lc_add_var(cs, &s->c, x);
        czk_bool_lc(cs, &s->c, c, &czk_fr_minus_one);
        enforce_named(cs, s, "ch");
    }
    return make_is(x, v);
}

czk_bool czk_gb_maj(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b, czk_bool c) {
    bool ka = a.kind == CZK_BOOL_CONST, kb = b.kind == CZK_BOOL_CONST,
         kc = c.kind == CZK_BOOL_CONST;
    if (ka && kb && kc) return czk_bool_constant(maj_value(a.value, b.value, c.value));
    if (ka && !a.value) return czk_gb_and(cs, s, b, c);
    if (kb && !b.value) return czk_gb_and(cs, s, a, c);
    if (kc && !c.value) return czk_gb_and(cs, s, a, b);
    if (kc) return czk_bool_not(czk_gb_and(cs, s, czk_bool_not(a), czk_bool_not(b)));
    if (kb) return czk_bool_not(czk_gb_and(cs, s, czk_bool_not(a), czk_bool_not(c)));
    if (ka) return czk_bool_not(czk_gb_and(cs, s, czk_bool_not(b), czk_bool_not(c)));
    /* maj first, then bc = b∧c, then (2bc − b − c)·a = bc − maj */
    bool v = maj_value(a.value, b.value, c.value);
    czk_var x = czk_alloc_bitval(cs, v);
    czk_bool bc = czk_gb_and(cs, s, b, c);
    if (czk_cs_records(cs)) {
        czk_gs_clear(s);
        czk_bool_lc(cs, &s->a, bc, czk_fr_pow2(1));
        czk_bool_lc(cs, &s->a, b, &czk_fr_minus_one);
        czk_bool_lc(cs, &s->a, c, &czk_fr_minus_one);
        czk_bool_lc(cs, &s->b, a, &czk_fr_one);
        czk_bool_lc(cs, &s->c, bc, &czk_fr_one);
        czk_lc_sub_var(cs, &s->c, x);
        enforce_named(cs, s, "maj");
    }
    return make_is(x, v);
}

/* ---- public wrappers: one scratch per call ---- */

czk_bool czk_bit_alloc(czk_cs *cs, bool value) {
    czk_gs s = CZK_GS_INIT;
    czk_bool r = czk_gb_alloc(cs, &s, value);
    czk_gs_free(&s);
    return r;
}

static czk_bool bit_op_is(czk_cs *cs, enum bit_op op, czk_bool a, czk_bool b, const char *name) {
    if (a.kind != CZK_BOOL_IS || b.kind != CZK_BOOL_IS) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                    "AllocatedBit::%s: operands must be allocated and not negated", name);
        return czk_bool_constant(false);
    }
    czk_gs s = CZK_GS_INIT;
    czk_bool r = bit_op(cs, &s, op, a.var, a.value, b.var, b.value);
    czk_gs_free(&s);
    return r;
}

czk_bool czk_bit_and(czk_cs *cs, czk_bool a, czk_bool b) {
    return bit_op_is(cs, BIT_AND, a, b, "and");
}

czk_bool czk_bit_nor(czk_cs *cs, czk_bool a, czk_bool b) {
    return bit_op_is(cs, BIT_NOR, a, b, "nor");
}

czk_bool czk_bool_xor(czk_cs *cs, czk_bool a, czk_bool b) {
    czk_gs s = CZK_GS_INIT;
    czk_bool r = czk_gb_xor(cs, &s, a, b);
    czk_gs_free(&s);
    return r;
}

czk_bool czk_bool_and(czk_cs *cs, czk_bool a, czk_bool b) {
    czk_gs s = CZK_GS_INIT;
    czk_bool r = czk_gb_and(cs, &s, a, b);
    czk_gs_free(&s);
    return r;
}

czk_bool czk_bool_or(czk_cs *cs, czk_bool a, czk_bool b) {
    return czk_bool_not(czk_bool_and(cs, czk_bool_not(a), czk_bool_not(b)));
}

czk_bool czk_bool_sha256_ch(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c) {
    czk_gs s = CZK_GS_INIT;
    czk_bool r = czk_gb_ch(cs, &s, a, b, c);
    czk_gs_free(&s);
    return r;
}

czk_bool czk_bool_sha256_maj(czk_cs *cs, czk_bool a, czk_bool b, czk_bool c) {
    czk_gs s = CZK_GS_INIT;
    czk_bool r = czk_gb_maj(cs, &s, a, b, c);
    czk_gs_free(&s);
    return r;
}

void czk_bits_alloc_u64_le(czk_cs *cs, uint64_t value, unsigned n, czk_bool *out) {
    if (n > 64) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "u64 bits: %u bits requested, at most 64", n);
        for (unsigned i = 0; i < n; i++)
            out[i] = czk_bool_constant(false);
        return;
    }
    czk_gs s = CZK_GS_INIT;
    for (unsigned i = 0; i < n; i++)
        out[i] = czk_gb_alloc(cs, &s, (value >> i) & 1);
    czk_gs_free(&s);
}

void czk_bits_alloc_bytes(czk_cs *cs, const uint8_t *bytes, size_t len, bool msb_first,
                          czk_bool *out) {
    czk_gs s = CZK_GS_INIT;
    for (size_t i = 0; i < len; i++) {
        uint8_t byte = bytes ? bytes[i] : 0;
        for (unsigned j = 0; j < 8; j++) {
            unsigned sh = msb_first ? 7 - j : j;
            out[8 * i + j] = czk_gb_alloc(cs, &s, (byte >> sh) & 1);
        }
    }
    czk_gs_free(&s);
}
