/*
 * AllocatedNum (bellpepper-core gadgets/num.rs) and storage-proofs'
 * constraint::{equal, add} (storage-proofs-core gadgets/constraint.rs);
 * spec §4.2.
 *
 * to_bits_le is the non-strict decomposition that Filecoin uses everywhere:
 * 255 AllocatedBits (Fr::NUM_BITS) of the canonical value, least significant
 * first, each followed by its boolean constraint, then one constraint
 * 0·0 = Σ 2^i·bit_i − x with everything in C.
 */
#include "boolean_internal.h"

czk_num czk_num_alloc(czk_cs *cs, const czk_fr *value) {
    czk_num r;
    r.value = value ? *value : czk_fr_zero;
    r.var = czk_cs_alloc(cs, &r.value);
    return r;
}

czk_num czk_num_alloc_input(czk_cs *cs, const czk_fr *value) {
    czk_num r;
    r.value = value ? *value : czk_fr_zero;
    r.var = czk_cs_alloc_input(cs, &r.value);
    return r;
}

/* (Σ_{i<na} a_i)·ONE = c. */
static void enforce_times_one(czk_cs *cs, const czk_var *av, unsigned na, czk_var c,
                              const char *ns) {
    if (!czk_cs_records(cs)) return;
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, cc = CZK_LC_INIT;
    for (unsigned i = 0; i < na; i++)
        czk_lc_add_var(cs, &a, av[i]);
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add_var(cs, &cc, c);
    czk_cs_push_ns(cs, "%s", ns);
    czk_cs_enforce(cs, &a, &b, &cc);
    czk_cs_pop_ns(cs);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&cc);
}

czk_var czk_num_inputize(czk_cs *cs, const czk_num *x) {
    czk_var j = czk_cs_alloc_input(cs, &x->value);
    enforce_times_one(cs, &j, 1, x->var, "inputize");
    return j;
}

czk_status czk_num_to_bits_le(czk_cs *cs, const czk_num *x, czk_bool out[CZK_FR_NUM_BITS]) {
    uint64_t limbs[4];
    czk_fr_to_u64s(limbs, &x->value);
    czk_gs s = CZK_GS_INIT;
    for (unsigned i = 0; i < CZK_FR_NUM_BITS; i++)
        out[i] = czk_gb_alloc(cs, &s, (limbs[i / 64] >> (i % 64)) & 1);
    if (czk_cs_records(cs)) {
        czk_gs_clear(&s);
        for (unsigned i = 0; i < CZK_FR_NUM_BITS; i++)
            czk_lc_add(cs, &s.c, out[i].var, czk_fr_pow2(i));
        czk_lc_sub_var(cs, &s.c, x->var);
        czk_cs_push_ns(cs, "unpacking");
        czk_cs_enforce(cs, &s.a, &s.b, &s.c);
        czk_cs_pop_ns(cs);
    }
    czk_gs_free(&s);
    return czk_cs_status(cs);
}

void czk_num_equal(czk_cs *cs, const czk_num *a, const czk_num *b) {
    enforce_times_one(cs, &a->var, 1, b->var, "equal");
}

czk_num czk_num_add(czk_cs *cs, const czk_num *a, const czk_num *b) {
    czk_num r;
    czk_fr_add(&r.value, &a->value, &b->value);
    r.var = czk_cs_alloc(cs, &r.value);
    czk_var ab[2] = {a->var, b->var};
    enforce_times_one(cs, ab, 2, r.var, "add");
    return r;
}

czk_num czk_num_mul(czk_cs *cs, const czk_num *a, const czk_num *b) {
    czk_num r;
    czk_fr_mul(&r.value, &a->value, &b->value);
    r.var = czk_cs_alloc(cs, &r.value);
    if (!czk_cs_records(cs)) return r;
    czk_gs g = CZK_GS_INIT;
    czk_lc_add_var(cs, &g.a, a->var);
    czk_lc_add_var(cs, &g.b, b->var);
    czk_lc_add_var(cs, &g.c, r.var);
    czk_cs_push_ns(cs, "mul");
    czk_cs_enforce(cs, &g.a, &g.b, &g.c);
    czk_cs_pop_ns(cs);
    czk_gs_free(&g);
    return r;
}

#define SUM_MAX 16u

czk_num czk_num_sum(czk_cs *cs, const czk_num *terms, unsigned n) {
    czk_num r = {CZK_VAR_ONE, czk_fr_zero};
    if (n > SUM_MAX) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "sum: %u terms, at most %u", n, SUM_MAX);
        return r;
    }
    czk_var v[SUM_MAX];
    for (unsigned i = 0; i < n; i++) {
        czk_fr_add(&r.value, &r.value, &terms[i].value);
        v[i] = terms[i].var;
    }
    r.var = czk_cs_alloc(cs, &r.value);
    enforce_times_one(cs, v, n, r.var, "sum");
    return r;
}

void czk_lc_equal(czk_cs *cs, const czk_lc *lc, const czk_num *x, const char *ns) {
    if (!czk_cs_records(cs)) return;
    czk_lc b = CZK_LC_INIT, c = CZK_LC_INIT;
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add_var(cs, &c, x->var);
    czk_cs_push_ns(cs, "%s", ns);
    czk_cs_enforce(cs, lc, &b, &c);
    czk_cs_pop_ns(cs);
    czk_lc_free(&b);
    czk_lc_free(&c);
}
