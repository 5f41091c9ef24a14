/*
 * The Poseidon R1CS gadget, neptune's legacy `circuit::poseidon_hash`
 * (src/circuit.rs; spec/porep-circuit.md §4.9), which storage-proofs uses for
 * every Poseidon hash in the PoRep circuit. The trusted setup fixes its exact
 * constraints, so this follows it allocation for allocation:
 *
 *   - The state is a list of elements, each either an allocated variable or
 *     a "Num": a value plus a linear combination (neptune's Elt). Matrix
 *     products only rewrite linear combinations; they add no constraint.
 *   - An S-box turns a Num into a variable first ("ensure_allocated":
 *     alloc v, lc·ONE = v), then allocates l2, l4, l5 with three
 *     multiplications. In the first round the inputs are already variables
 *     and the pre-key is folded into the constraints instead; the tag is a
 *     constant, so its first S-box is computed here and costs nothing.
 *
 * Every element's linear combination is kept normalized: the matrix products
 * merge the t sorted term lists (czk_lc_merge) instead of appending them and
 * sorting, so the cs takes each as it is. In a partial round the new first
 * element sums t lists over the same t + r variables, 9 × 66 terms at the
 * end of arity 8's 57 rounds: a sort of those was half of a 32GiB WindowPoSt
 * recording; the merges leave the coefficient products, which are needed.
 *
 * Values are computed natively alongside (they are the optimized native
 * hash's intermediate values). In WITNESS mode no linear combination is
 * built at all; constraints are still announced to the cs, empty, so that
 * its counters agree with the recorded shape.
 */
#include "czk/poseidon.h"

#include <stdlib.h>

typedef struct elt {
    czk_fr val;
    czk_lc lc;   /* the Num's lc, or 1·var when allocated (records only) */
    czk_var var; /* valid when allocated */
    bool allocated;
} elt;

typedef struct gadget {
    czk_cs *cs;
    bool rec;
    unsigned t;
    elt *e, *next; /* t each */
    czk_lc a, b, c, tmp;
} gadget;

static void set_allocated(gadget *g, elt *x, czk_var v, const czk_fr *val) {
    x->val = *val;
    x->var = v;
    x->allocated = true;
    if (g->rec) {
        czk_lc_clear(&x->lc);
        czk_lc_add_var(g->cs, &x->lc, v);
    }
}

static void set_constant(gadget *g, elt *x, const czk_fr *val) {
    x->val = *val;
    x->allocated = false;
    if (g->rec) {
        czk_lc_clear(&x->lc);
        czk_lc_add(g->cs, &x->lc, CZK_VAR_ONE, val);
    }
}

/* lc := v + k·ONE (k NULL: just v). */
static void lc_var(gadget *g, czk_lc *lc, czk_var v, const czk_fr *k) {
    czk_lc_clear(lc);
    czk_lc_add_var(g->cs, lc, v);
    if (k) czk_lc_add(g->cs, lc, CZK_VAR_ONE, k);
}

/* Enforces a·b = c with the gadget's scratch lcs (left empty in WITNESS mode). */
static void enforce(gadget *g, const char *name) {
    if (g->rec) czk_cs_push_ns(g->cs, "%s", name);
    czk_cs_enforce(g->cs, &g->a, &g->b, &g->c);
    if (g->rec) czk_cs_pop_ns(g->cs);
}

/* neptune Elt::ensure_allocated(enforce = true): alloc v, lc·ONE = v. */
static czk_var ensure_allocated(gadget *g, elt *x) {
    if (x->allocated) return x->var;
    czk_var v = czk_cs_alloc(g->cs, &x->val);
    if (g->rec) {
        czk_lc_copy(g->cs, &g->a, &x->lc);
        lc_var(g, &g->b, CZK_VAR_ONE, NULL);
        lc_var(g, &g->c, v, NULL);
    }
    enforce(g, "enforce num allocation preserves lc");
    set_allocated(g, x, v, &x->val);
    return v;
}

/*
 * l5 = l^5 (+ post): [ensure_allocated], l·l = l2, l2·l2 = l4,
 * l·l4 = l5 − post·ONE. With pre (first round only, l allocated):
 * (l + pre)² = l2, l2·l2 = l4, (l + pre)·l4 = l5 − post·ONE.
 */
static void sbox(gadget *g, elt *x, const czk_fr *pre, const czk_fr *post) {
    czk_cs *cs = g->cs;
    if (g->rec) czk_cs_push_ns(cs, "S-box input");
    czk_var l = ensure_allocated(g, x);
    if (g->rec) czk_cs_pop_ns(cs);

    czk_fr base = x->val, v2, v4, v5, neg_post;
    if (pre) czk_fr_add(&base, &base, pre);
    czk_fr_sqr(&v2, &base);
    czk_var l2 = czk_cs_alloc(cs, &v2);
    if (g->rec) {
        lc_var(g, &g->a, l, pre);
        lc_var(g, &g->b, l, pre);
        lc_var(g, &g->c, l2, NULL);
    }
    enforce(g, pre ? "(l+rk)^2" : "l^2");

    czk_fr_sqr(&v4, &v2);
    czk_var l4 = czk_cs_alloc(cs, &v4);
    if (g->rec) {
        lc_var(g, &g->a, l2, NULL);
        lc_var(g, &g->b, l2, NULL);
        lc_var(g, &g->c, l4, NULL);
    }
    enforce(g, "l^4");

    czk_fr_mul(&v5, &base, &v4);
    if (post) czk_fr_add(&v5, &v5, post);
    czk_var l5 = czk_cs_alloc(cs, &v5);
    if (g->rec) {
        lc_var(g, &g->a, l, pre);
        lc_var(g, &g->b, l4, NULL);
        if (post) czk_fr_neg(&neg_post, post);
        lc_var(g, &g->c, l5, post ? &neg_post : NULL);
    }
    enforce(g, pre ? "l4 * (l + rk)" : post ? "(l4 * l) + rk" : "l4 * l");
    set_allocated(g, x, l5, &v5);
}

/* e := e·mat (row vector times t×t row-major matrix). */
static void product(gadget *g, const czk_fr *mat) {
    const unsigned t = g->t;
    for (unsigned j = 0; j < t; j++) {
        elt *n = &g->next[j];
        czk_fr p;
        n->allocated = false;
        czk_fr_mul(&n->val, &g->e[0].val, &mat[j]);
        for (unsigned i = 1; i < t; i++) {
            czk_fr_mul(&p, &g->e[i].val, &mat[i * t + j]);
            czk_fr_add(&n->val, &n->val, &p);
        }
        if (g->rec) {
            czk_lc_clear(&n->lc);
            for (unsigned i = 0; i < t; i++)
                czk_lc_merge(g->cs, &n->lc, &g->e[i].lc, &mat[i * t + j]);
        }
    }
    elt *swap = g->e;
    g->e = g->next;
    g->next = swap;
}

/* new_0 = Σ e_i·w_hat[i]; new_j = e_j + e_0·v_rest[j − 1]. */
static void sparse_product(gadget *g, const czk_fr *s) {
    const unsigned t = g->t;
    const czk_fr *w_hat = s, *v_rest = s + t;
    elt *e = g->e;
    czk_fr v0, p;
    czk_fr_mul(&v0, &e[0].val, &w_hat[0]);
    for (unsigned i = 1; i < t; i++) {
        czk_fr_mul(&p, &e[i].val, &w_hat[i]);
        czk_fr_add(&v0, &v0, &p);
    }
    if (g->rec) {
        czk_lc_clear(&g->tmp);
        for (unsigned i = 0; i < t; i++)
            czk_lc_merge(g->cs, &g->tmp, &e[i].lc, &w_hat[i]);
    }
    for (unsigned j = 1; j < t; j++) {
        czk_fr_mul(&p, &e[0].val, &v_rest[j - 1]);
        czk_fr_add(&e[j].val, &e[j].val, &p);
        e[j].allocated = false;
        if (g->rec) czk_lc_merge(g->cs, &e[j].lc, &e[0].lc, &v_rest[j - 1]);
    }
    e[0].val = v0;
    e[0].allocated = false;
    if (g->rec) {
        czk_lc swap = e[0].lc;
        e[0].lc = g->tmp;
        g->tmp = swap;
    }
}

static void full_round(gadget *g, const czk_fr *keys) {
    for (unsigned i = 0; i < g->t; i++) {
        if (g->rec) czk_cs_push_ns(g->cs, "quintic s-box %u", i);
        sbox(g, &g->e[i], NULL, keys ? &keys[i] : NULL);
        if (g->rec) czk_cs_pop_ns(g->cs);
    }
}

static void run(gadget *g, const czk_poseidon_constants *pc, const czk_var *inputs,
                const czk_fr *input_values, czk_var *out, czk_fr *out_value) {
    czk_cs *cs = g->cs;
    const unsigned t = g->t, half = pc->full_rounds / 2;
    const czk_fr *k = pc->crc;

    /* First full round: pre-keys crc[0..t], post-keys crc[t..2t]. */
    if (g->rec) czk_cs_push_ns(cs, "first round");
    czk_fr tag = pc->domain_tag, x2, x4;
    czk_fr_add(&tag, &tag, &k[0]);
    czk_fr_sqr(&x2, &tag);
    czk_fr_sqr(&x4, &x2);
    czk_fr_mul(&tag, &tag, &x4);
    czk_fr_add(&tag, &tag, &k[t]);
    set_constant(g, &g->e[0], &tag);
    for (unsigned i = 1; i < t; i++) {
        set_allocated(g, &g->e[i], inputs[i - 1],
                      input_values ? &input_values[i - 1] : &czk_fr_zero);
        if (g->rec) czk_cs_push_ns(cs, "quintic s-box %u", i);
        sbox(g, &g->e[i], &k[i], &k[t + i]);
        if (g->rec) czk_cs_pop_ns(cs);
    }
    if (g->rec) czk_cs_pop_ns(cs);
    k += 2 * t;
    product(g, half == 1 ? pc->pre_sparse : pc->mds);

    for (unsigned r = 1; r < half; r++, k += t) {
        if (g->rec) czk_cs_push_ns(cs, "initial full round %u", r);
        full_round(g, k);
        if (g->rec) czk_cs_pop_ns(cs);
        product(g, r + 1 == half ? pc->pre_sparse : pc->mds);
    }
    for (unsigned r = 0; r < pc->partial_rounds; r++, k++) {
        if (g->rec) czk_cs_push_ns(cs, "partial round %u", r);
        if (g->rec) czk_cs_push_ns(cs, "solitary quintic s-box");
        sbox(g, &g->e[0], NULL, k);
        if (g->rec) czk_cs_pop_ns(cs);
        if (g->rec) czk_cs_pop_ns(cs);
        sparse_product(g, pc->sparse + (size_t)r * (2 * t - 1));
    }
    for (unsigned r = 0; r + 1 < half; r++, k += t) {
        if (g->rec) czk_cs_push_ns(cs, "final full round %u", r);
        full_round(g, k);
        if (g->rec) czk_cs_pop_ns(cs);
        product(g, pc->mds);
    }
    if (g->rec) czk_cs_push_ns(cs, "terminal full round");
    full_round(g, NULL);
    if (g->rec) czk_cs_pop_ns(cs);
    product(g, pc->mds);

    if (g->rec) czk_cs_push_ns(cs, "hash result");
    czk_var v = ensure_allocated(g, &g->e[1]);
    if (g->rec) czk_cs_pop_ns(cs);
    if (out) *out = v;
    if (out_value) *out_value = g->e[1].val;
}

czk_status czk_poseidon_circuit(czk_cs *cs, const czk_var *inputs, const czk_fr *input_values,
                                unsigned arity, czk_var *out, czk_fr *out_value) {
    czk_status st = czk_cs_status(cs);
    if (st != CZK_OK) return st;
    czk_err err;
    const czk_poseidon_constants *pc = czk_poseidon_constants_get(arity, &err);
    if (!pc) return czk_cs_fail(cs, err.code, "%s", err.msg);
    return czk_poseidon_circuit_with(cs, pc, inputs, input_values, out, out_value);
}

czk_status czk_poseidon_circuit_with(czk_cs *cs, const czk_poseidon_constants *pc,
                                     const czk_var *inputs, const czk_fr *input_values,
                                     czk_var *out, czk_fr *out_value) {
    czk_status st = czk_cs_status(cs);
    if (st != CZK_OK) return st;
    if (!input_values && czk_cs_has_values(cs))
        return czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                           "poseidon circuit: input values are required when the cs holds values");

    elt state[2 * CZK_POSEIDON_MAX_WIDTH];
    gadget g = {.cs = cs,
                .rec = czk_cs_records(cs),
                .t = pc->width,
                .e = state,
                .next = state + CZK_POSEIDON_MAX_WIDTH,
                .a = CZK_LC_INIT,
                .b = CZK_LC_INIT,
                .c = CZK_LC_INIT,
                .tmp = CZK_LC_INIT};
    for (unsigned i = 0; i < 2 * CZK_POSEIDON_MAX_WIDTH; i++)
        state[i].lc = (czk_lc)CZK_LC_INIT;

    run(&g, pc, inputs, input_values, out, out_value);

    for (unsigned i = 0; i < 2 * CZK_POSEIDON_MAX_WIDTH; i++)
        czk_lc_free(&state[i].lc);
    czk_lc_free(&g.a);
    czk_lc_free(&g.b);
    czk_lc_free(&g.c);
    czk_lc_free(&g.tmp);
    return czk_cs_status(cs);
}
