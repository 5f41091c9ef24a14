/*
 * A random circuit for the r1cs tests, built from a seeded rng: boolean,
 * multiplication, linear-combination (with repeated and cancelling terms),
 * inputize, to_bits-like (empty A and B) and B-with-inputs constraints, in
 * nested namespaces. Independently of the cs, it keeps every variable's value
 * and a log of the terms of each constraint exactly as the gadget wrote them
 * (unmerged), so the tests can evaluate and scan the constraints naively.
 */
#ifndef CZK_TEST_RAND_CIRCUIT_H
#define CZK_TEST_RAND_CIRCUIT_H

#include "support.h"
#include "czk/r1cs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rc_term {
    czk_var var;
    czk_fr coeff;
} rc_term;

typedef struct rc {
    /* parameters */
    uint64_t seed;
    uint32_t steps;
    uint32_t corrupt_step; /* this step's product value is off by one; UINT32_MAX: none */
    atomic_int *cancel;    /* set at cancel_step, if non-NULL */
    uint32_t cancel_step;
    /* the values of every variable, as the circuit computed them */
    czk_fr *in_vals, *aux_vals;
    uint32_t num_in, num_aux, cap_in, cap_aux;
    /* the log: terms, and per constraint the start of A, B, C and the end */
    rc_term *terms;
    size_t nterms, cap_terms;
    size_t (*cons)[4];
    size_t ncons, cap_cons;
    /* where the corrupted constraint went */
    uint64_t corrupt_index;
    char corrupt_path[256];
    char path[256];
} rc;

static void rc_init(rc *c, uint64_t seed, uint32_t steps) {
    memset(c, 0, sizeof *c);
    c->seed = seed;
    c->steps = steps;
    c->corrupt_step = UINT32_MAX;
    c->cancel_step = UINT32_MAX;
    c->corrupt_index = UINT64_MAX;
}

static void rc_free(rc *c) {
    free(c->in_vals);
    free(c->aux_vals);
    free(c->terms);
    free(c->cons);
    memset(c, 0, sizeof *c);
}

static void *rc_grow(void *p, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap) return p;
    uint32_t c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    p = realloc(p, (size_t)c * size);
    assert_non_null(p);
    *cap = c;
    return p;
}

static czk_var rc_alloc(rc *c, czk_cs *cs, const czk_fr *v) {
    czk_var x = czk_cs_alloc(cs, v);
    c->aux_vals = rc_grow(c->aux_vals, &c->cap_aux, c->num_aux + 1, sizeof(czk_fr));
    c->aux_vals[c->num_aux] = *v;
    if (czk_cs_status(cs) == CZK_OK) assert_int_equal(x, czk_var_aux(c->num_aux));
    c->num_aux++;
    return x;
}

static czk_var rc_alloc_input(rc *c, czk_cs *cs, const czk_fr *v) {
    czk_var x = czk_cs_alloc_input(cs, v);
    c->in_vals = rc_grow(c->in_vals, &c->cap_in, c->num_in + 1, sizeof(czk_fr));
    c->in_vals[c->num_in] = *v;
    if (czk_cs_status(cs) == CZK_OK) assert_int_equal(x, czk_var_input(c->num_in));
    c->num_in++;
    return x;
}

static const czk_fr *rc_val(const rc *c, czk_var v) {
    return czk_var_is_input(v) ? &c->in_vals[czk_var_index(v)] : &c->aux_vals[czk_var_index(v)];
}

static void rc_push_ns(rc *c, czk_cs *cs, const char *name) {
    czk_cs_push_ns(cs, "%s", name);
    size_t l = strlen(c->path);
    snprintf(c->path + l, sizeof c->path - l, "%s%s", l ? "/" : "", name);
}

static void rc_pop_ns(rc *c, czk_cs *cs) {
    czk_cs_pop_ns(cs);
    char *s = strrchr(c->path, '/');
    if (s)
        *s = 0;
    else
        c->path[0] = 0;
}

static void rc_log_term(rc *c, const rc_term *t) {
    if (c->nterms == c->cap_terms) {
        c->cap_terms = c->cap_terms ? c->cap_terms * 2 : 1024;
        c->terms = realloc(c->terms, c->cap_terms * sizeof *c->terms);
        assert_non_null(c->terms);
    }
    c->terms[c->nterms++] = *t;
}

/* Enforces (A)·(B) = (C) given as raw term lists, logging them. */
static void rc_enforce(rc *c, czk_cs *cs, const rc_term *a, size_t na, const rc_term *b, size_t nb,
                       const rc_term *cc, size_t nc) {
    if (!czk_cs_records(cs)) return; /* gadgets build no lcs in WITNESS mode */
    if (c->ncons == c->cap_cons) {
        c->cap_cons = c->cap_cons ? c->cap_cons * 2 : 1024;
        c->cons = realloc(c->cons, c->cap_cons * sizeof *c->cons);
        assert_non_null(c->cons);
    }
    czk_lc lc[3] = {CZK_LC_INIT, CZK_LC_INIT, CZK_LC_INIT};
    const rc_term *in[3] = {a, b, cc};
    size_t n[3] = {na, nb, nc};
    for (int m = 0; m < 3; m++) {
        c->cons[c->ncons][m] = c->nterms;
        for (size_t i = 0; i < n[m]; i++) {
            czk_lc_add(cs, &lc[m], in[m][i].var, &in[m][i].coeff);
            rc_log_term(c, &in[m][i]);
        }
    }
    c->cons[c->ncons][3] = c->nterms;
    c->ncons++;
    czk_cs_enforce(cs, &lc[0], &lc[1], &lc[2]);
    for (int m = 0; m < 3; m++)
        czk_lc_free(&lc[m]);
}

static czk_fr rc_small(uint64_t x) {
    czk_fr f;
    czk_fr_from_u64(&f, x);
    return f;
}

/* A random coefficient: 1, −1, 2^k, a small integer, its negation, or uniform. */
static czk_fr rc_coeff(czk_rng *rng) {
    czk_fr f;
    switch (czk_rng_u64(rng) % 6) {
    case 0:
        return czk_fr_one;
    case 1:
        return czk_fr_minus_one;
    case 2:
        return *czk_fr_pow2((unsigned)(czk_rng_u64(rng) % 256));
    case 3:
        return rc_small(2 + czk_rng_u64(rng) % 5);
    case 4:
        f = rc_small(2 + czk_rng_u64(rng) % 5);
        czk_fr_neg(&f, &f);
        return f;
    default:
        assert_int_equal(czk_fr_random(&f, rng, NULL), CZK_OK);
        return f;
    }
}

static czk_var rc_pick(rc *c, czk_rng *rng) {
    uint64_t r = czk_rng_u64(rng);
    if (c->num_aux == 0 || r % 8 == 0) return czk_var_input((uint32_t)((r >> 8) % c->num_in));
    return czk_var_aux((uint32_t)((r >> 8) % c->num_aux));
}

static czk_fr rc_lc_val(const rc *c, const rc_term *t, size_t n) {
    czk_fr acc = czk_fr_zero, p;
    for (size_t i = 0; i < n; i++) {
        czk_fr_mul(&p, &t[i].coeff, rc_val(c, t[i].var));
        czk_fr_add(&acc, &acc, &p);
    }
    return acc;
}

static czk_status rc_circuit(czk_cs *cs, void *ctx) {
    rc *c = ctx;
    czk_rng rng;
    czk_rng_seed(&rng, c->seed);
    c->in_vals = rc_grow(c->in_vals, &c->cap_in, 1, sizeof(czk_fr));
    c->in_vals[0] = czk_fr_one; /* ONE, allocated by czk_cs_run */
    c->num_in = 1;
    const czk_var ONE = CZK_VAR_ONE;
    rc_term a[64], b[64], cc[64];
    for (uint32_t step = 0; step < c->steps; step++) {
        if (c->cancel && step == c->cancel_step) atomic_store(c->cancel, 1);
        char name[32];
        snprintf(name, sizeof name, "step %u", step);
        rc_push_ns(c, cs, name);
        bool nested = czk_rng_u64(&rng) % 3 == 0;
        if (nested) rc_push_ns(c, cs, "inner");
        unsigned kind = step == c->corrupt_step ? 1 : (unsigned)(czk_rng_u64(&rng) % 7);
        switch (kind) {
        case 0: { /* boolean: (ONE − v)·v = 0 */
            czk_fr v = rc_small(czk_rng_u64(&rng) & 1);
            czk_var x = rc_alloc(c, cs, &v);
            a[0] = (rc_term){ONE, czk_fr_one};
            a[1] = (rc_term){x, czk_fr_minus_one};
            b[0] = (rc_term){x, czk_fr_one};
            rc_enforce(c, cs, a, 2, b, 1, cc, 0);
            break;
        }
        case 1: { /* x·y = z */
            czk_var x = rc_pick(c, &rng), y = rc_pick(c, &rng);
            czk_fr z;
            czk_fr_mul(&z, rc_val(c, x), rc_val(c, y));
            if (step == c->corrupt_step) czk_fr_add(&z, &z, &czk_fr_one);
            czk_var zv = rc_alloc(c, cs, &z);
            a[0] = (rc_term){x, czk_fr_one};
            b[0] = (rc_term){y, czk_fr_one};
            cc[0] = (rc_term){zv, czk_fr_one};
            if (step == c->corrupt_step) {
                c->corrupt_index = czk_cs_num_constraints(cs);
                snprintf(c->corrupt_path, sizeof c->corrupt_path, "%s", c->path);
            }
            rc_enforce(c, cs, a, 1, b, 1, cc, 1);
            break;
        }
        case 2: { /* (Σ c_i x_i)·ONE = s, with repeated and cancelling terms */
            size_t n = 1 + czk_rng_u64(&rng) % 30, k = 0; /* k <= 60 */
            for (size_t i = 0; i < n; i++) {
                a[k++] = (rc_term){rc_pick(c, &rng), rc_coeff(&rng)};
                uint64_t r = czk_rng_u64(&rng) % 8;
                if (r == 0) { /* the same variable again */
                    a[k] = a[k - 1];
                    a[k].coeff = rc_coeff(&rng);
                    k++;
                } else if (r == 1) { /* added, then subtracted */
                    a[k] = a[k - 1];
                    czk_fr_neg(&a[k].coeff, &a[k - 1].coeff);
                    k++;
                }
            }
            czk_fr s = rc_lc_val(c, a, k);
            czk_var sv = rc_alloc(c, cs, &s);
            b[0] = (rc_term){ONE, czk_fr_one};
            cc[0] = (rc_term){sv, czk_fr_one};
            rc_enforce(c, cs, a, k, b, 1, cc, 1);
            break;
        }
        case 3: { /* inputize: aux x, input j, j·ONE = x */
            czk_fr v;
            assert_int_equal(czk_fr_random(&v, &rng, NULL), CZK_OK);
            czk_var x = rc_alloc(c, cs, &v);
            czk_var j = rc_alloc_input(c, cs, &v);
            a[0] = (rc_term){j, czk_fr_one};
            b[0] = (rc_term){ONE, czk_fr_one};
            cc[0] = (rc_term){x, czk_fr_one};
            rc_enforce(c, cs, a, 1, b, 1, cc, 1);
            break;
        }
        case 4: { /* to_bits: v, bits with boolean constraints, 0·0 = Σ 2^i b_i − v */
            unsigned nb = 1 + (unsigned)(czk_rng_u64(&rng) % 16);
            uint64_t x = czk_rng_u64(&rng) & ((1ull << nb) - 1);
            czk_fr xv = rc_small(x);
            czk_var v = rc_alloc(c, cs, &xv);
            for (unsigned i = 0; i < nb; i++) {
                czk_fr bit = rc_small((x >> i) & 1);
                czk_var bv = rc_alloc(c, cs, &bit);
                rc_term ta[2] = {{ONE, czk_fr_one}, {bv, czk_fr_minus_one}},
                        tb[1] = {{bv, czk_fr_one}};
                rc_enforce(c, cs, ta, 2, tb, 1, cc, 0);
                cc[i] = (rc_term){bv, *czk_fr_pow2(i)};
            }
            cc[nb] = (rc_term){v, czk_fr_minus_one};
            rc_enforce(c, cs, a, 0, b, 0, cc, nb + 1);
            break;
        }
        case 5: { /* (x + 3y)·(z − ONE + 2·input) = w */
            czk_var x = rc_pick(c, &rng), y = rc_pick(c, &rng), z = rc_pick(c, &rng);
            czk_var in = czk_var_input((uint32_t)(czk_rng_u64(&rng) % c->num_in));
            a[0] = (rc_term){x, czk_fr_one};
            a[1] = (rc_term){y, rc_small(3)};
            b[0] = (rc_term){z, czk_fr_one};
            b[1] = (rc_term){ONE, czk_fr_minus_one};
            b[2] = (rc_term){in, rc_small(2)};
            czk_fr av = rc_lc_val(c, a, 2), bv = rc_lc_val(c, b, 3), w;
            czk_fr_mul(&w, &av, &bv);
            czk_var wv = rc_alloc(c, cs, &w);
            cc[0] = (rc_term){wv, czk_fr_one};
            rc_enforce(c, cs, a, 2, b, 3, cc, 1);
            break;
        }
        default: { /* (x − x)·y = 0: A merges to nothing */
            czk_var x = rc_pick(c, &rng), y = rc_pick(c, &rng);
            a[0] = (rc_term){x, czk_fr_one};
            a[1] = (rc_term){x, czk_fr_minus_one};
            b[0] = (rc_term){y, czk_fr_one};
            rc_enforce(c, cs, a, 2, b, 1, cc, 0);
            break;
        }
        }
        if (nested) rc_pop_ns(c, cs);
        rc_pop_ns(c, cs);
    }
    return CZK_OK;
}

#endif
