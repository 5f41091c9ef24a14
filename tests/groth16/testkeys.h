/*


 * structs of given lengths, files in a temporary directory.
 */
#ifndef CZK_TEST_GROTH16_TESTKEYS_H
#define CZK_TEST_GROTH16_TESTKEYS_H

#include "support.h"

#include "czk/groth16.h"
#include "groth16/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void tk_g1(czk_g1_affine *out, const czk_fr *k) {
    czk_g1 p;
    czk_g1_mul(&p, blst_p1_generator(), k);
    blst_p1_to_affine(out, &p);
}

static inline void tk_g2(czk_g2_affine *out, const czk_fr *k) {
    czk_g2 p;
    czk_g2_mul(&p, blst_p2_generator(), k);
    blst_p2_to_affine(out, &p);
}

static inline void tk_rand_fr(czk_fr *out, czk_rng *rng) {
    czk_err err;
    do {
        czk_assert_ok(czk_fr_random(out, rng, &err), &err);
    } while (czk_fr_is_zero(out));
}

static inline void tk_rand_g1(czk_g1_affine *out, czk_rng *rng) {
    czk_fr k;
    tk_rand_fr(&k, rng);
    tk_g1(out, &k);
}

static inline void tk_rand_g2(czk_g2_affine *out, czk_rng *rng) {
    czk_fr k;
    tk_rand_fr(&k, rng);
    tk_g2(out, &k);
}

/* Parameters of the given lengths with random points (not a working key). */
static inline czk_params *tk_random_params(uint64_t seed, uint32_t ic, uint32_t h, uint32_t l,
                                           uint32_t a, uint32_t b) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_params *p = calloc(1, sizeof *p);
    assert_non_null(p);
    tk_rand_g1(&p->vk.alpha_g1, &rng);
    tk_rand_g1(&p->vk.beta_g1, &rng);
    tk_rand_g2(&p->vk.beta_g2, &rng);
    tk_rand_g2(&p->vk.gamma_g2, &rng);
    tk_rand_g1(&p->vk.delta_g1, &rng);
    tk_rand_g2(&p->vk.delta_g2, &rng);
    p->vk.ic_len = ic;
    p->h_len = h;
    p->l_len = l;
    p->a_len = a;
    p->b_g1_len = p->b_g2_len = b;
    p->vk.ic = czk_g16_alloc(ic * sizeof(czk_g1_affine));
    p->h = czk_g16_alloc(h * sizeof(czk_g1_affine));
    p->l = czk_g16_alloc(l * sizeof(czk_g1_affine));
    p->a = czk_g16_alloc(a * sizeof(czk_g1_affine));
    p->b_g1 = czk_g16_alloc(b * sizeof(czk_g1_affine));
    p->b_g2 = czk_g16_alloc(b * sizeof(czk_g2_affine));
    for (uint32_t i = 0; i < ic; i++)
        tk_rand_g1(&p->vk.ic[i], &rng);
    for (uint32_t i = 0; i < h; i++)
        tk_rand_g1(&p->h[i], &rng);
    for (uint32_t i = 0; i < l; i++)
        tk_rand_g1(&p->l[i], &rng);
    for (uint32_t i = 0; i < a; i++)
        tk_rand_g1(&p->a[i], &rng);
    for (uint32_t i = 0; i < b; i++)
        tk_rand_g1(&p->b_g1[i], &rng);
    for (uint32_t i = 0; i < b; i++)
        tk_rand_g2(&p->b_g2[i], &rng);
    return p;
}

/*
 * A random satisfied circuit. Its structure (which variables, which
 * coefficients) comes from `structure_seed`, its values from `value_seed`:
 *   - ni − 1 public inputs, each tied to an aux copy: in · ONE = copy;
 *   - nbits booleans: b · (ONE − b) = 0 (values 0 or 1);
 *   - nmul products: (random lc) · (random lc) = z, each lc 1–3 distinct
 *     earlier variables with random non-zero coefficients, sometimes an
 *     input, sometimes ONE.
 * While recording, the circuit notes which variables appear in an A or B
 * lc: the naive density counts the tests compare the parameters with.
 */
typedef struct tk_circuit {
    uint64_t structure_seed, value_seed;
    uint32_t ni, nbits, nmul;
    czk_fr in[16];                 /* values of inputs 1 .. ni − 1 (out, for the verifier) */
    uint8_t *a_aux, *b_aux, *b_in; /* naive density, filled by any run (num_aux / ni entries) */
    uint32_t naux;
} tk_circuit;

#define TK_MAXVARS 4096

static inline czk_status tk_circuit_fn(czk_cs *cs, void *ctx) {
    tk_circuit *c = ctx;
    czk_rng srng, vrng;
    czk_rng_seed(&srng, c->structure_seed);
    czk_rng_seed(&vrng, c->value_seed);
    static __thread czk_var vars[TK_MAXVARS];
    static __thread czk_fr vals[TK_MAXVARS];
    uint32_t nv = 0;
    czk_lc la = CZK_LC_INIT, lb = CZK_LC_INIT, lcc = CZK_LC_INIT;
    free(c->a_aux);
    free(c->b_aux);
    free(c->b_in);
    c->a_aux = calloc(TK_MAXVARS, 1);
    c->b_aux = calloc(TK_MAXVARS, 1);
    c->b_in = calloc(c->ni, 1);
    c->b_in[0] = 0;
    vars[nv] = CZK_VAR_ONE;
    vals[nv++] = czk_fr_one;
    for (uint32_t i = 1; i < c->ni; i++) {
        if (czk_fr_random(&c->in[i - 1], &vrng, NULL)) return CZK_ERR_INTERNAL;
        czk_var x = czk_cs_alloc_input(cs, &c->in[i - 1]);
        czk_var y = czk_cs_alloc(cs, &c->in[i - 1]);
        czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lcc);
        czk_lc_add_var(cs, &la, x);
        czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
        czk_lc_add_var(cs, &lcc, y);
        czk_cs_enforce(cs, &la, &lb, &lcc);
        c->b_in[0] = 1;
        vars[nv] = x;
        vals[nv++] = c->in[i - 1];
        vars[nv] = y;
        vals[nv++] = c->in[i - 1];
    }
    for (uint32_t j = 0; j < c->nbits; j++) {
        czk_fr v = czk_rng_u64(&vrng) & 1 ? czk_fr_one : czk_fr_zero;
        czk_var b = czk_cs_alloc(cs, &v);
        czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lcc);
        czk_lc_add_var(cs, &la, b);
        czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
        czk_lc_sub_var(cs, &lb, b);
        czk_cs_enforce(cs, &la, &lb, &lcc);
        c->a_aux[czk_var_index(b)] = c->b_aux[czk_var_index(b)] = 1;
        c->b_in[0] = 1;
        vars[nv] = b;
        vals[nv++] = v;
    }
    for (uint32_t m = 0; m < c->nmul && nv < TK_MAXVARS; m++) {
        czk_fr av = czk_fr_zero, bv = czk_fr_zero;
        for (int side = 0; side < 2; side++) {
            czk_lc *l = side ? &lb : &la;
            czk_lc_clear(l);
            uint32_t terms = 1 + (uint32_t)(czk_rng_u64(&srng) % 3), picked[3];
            for (uint32_t t = 0; t < terms; t++) {
                uint32_t k;
                bool dup;
                do {
                    k = (uint32_t)(czk_rng_u64(&srng) % nv);
                    dup = false;
                    for (uint32_t q = 0; q < t; q++)
                        dup |= picked[q] == k;
                } while (dup);
                picked[t] = k;
                czk_fr co, tv;
                do {
                    if (czk_fr_random(&co, &srng, NULL)) return CZK_ERR_INTERNAL;
                } while (czk_fr_is_zero(&co));
                czk_lc_add(cs, l, vars[k], &co);
                czk_fr_mul(&tv, &co, &vals[k]);
                czk_fr_add(side ? &bv : &av, side ? &bv : &av, &tv);
                czk_var x = vars[k];
                if (czk_var_is_input(x)) {
                    if (side) c->b_in[czk_var_index(x)] = 1;
                } else {
                    (side ? c->b_aux : c->a_aux)[czk_var_index(x)] = 1;
                }
            }
        }
        czk_fr zv;
        czk_fr_mul(&zv, &av, &bv);
        czk_var z = czk_cs_alloc(cs, &zv);
        czk_lc_clear(&lcc);
        czk_lc_add_var(cs, &lcc, z);
        czk_cs_enforce(cs, &la, &lb, &lcc);
        vars[nv] = z;
        vals[nv++] = zv;
    }
    c->naux = czk_cs_num_aux(cs);
    czk_lc_free(&la);
    czk_lc_free(&lb);
    czk_lc_free(&lcc);
    return CZK_OK;
}

static inline void tk_circuit_free(tk_circuit *c) {
    free(c->a_aux);
    free(c->b_aux);
    free(c->b_in);
    c->a_aux = c->b_aux = c->b_in = NULL;
}

/* The shape of circuit fn (ctx), recorded in CHECK mode (its values satisfy it). */
static inline czk_shape *tk_shape_of(czk_circuit_fn fn, void *ctx) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, fn, ctx, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    return s;
}

/* The witness of circuit fn (ctx). */
static inline void tk_witness_of(czk_circuit_fn fn, void *ctx, czk_witness *w) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_WITNESS, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, fn, ctx, &err), &err);
    czk_assert_ok(czk_cs_take_witness(cs, w, &err), &err);
    czk_cs_free(cs);
}

/* Records the shape of c. */
static inline czk_shape *tk_record(tk_circuit *c) {
    return tk_shape_of(tk_circuit_fn, c);
}

/* The witness of c (values from c->value_seed). */
static inline void tk_witness(tk_circuit *c, czk_witness *w) {
    tk_witness_of(tk_circuit_fn, c, w);
}

#endif
