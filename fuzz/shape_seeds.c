/*
 * Writes a seed corpus for fuzz_shape: the encoded shapes of a few small
 * circuits (booleans, products, linear combinations, inputs). Usage:
 *   shape_seeds <dir>
 */
#include "r1cs/r1cs_internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct seed_ctx {
    unsigned steps, seed;
} seed_ctx;

static czk_status circuit(czk_cs *cs, void *arg) {
    seed_ctx *c = arg;
    czk_rng rng;
    czk_rng_seed(&rng, c->seed);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, d = CZK_LC_INIT;
    czk_var prev = CZK_VAR_ONE;
    for (unsigned i = 0; i < c->steps; i++) {
        czk_fr v;
        czk_fr_from_u64(&v, czk_rng_u64(&rng) & 1);
        czk_var x =
            (czk_rng_u64(&rng) % 5 == 0) ? czk_cs_alloc_input(cs, &v) : czk_cs_alloc(cs, &v);
        czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&d);
        switch (czk_rng_u64(&rng) % 3) {
        case 0: /* (ONE − x)·x = 0 */
            czk_lc_add_var(cs, &a, CZK_VAR_ONE);
            czk_lc_sub_var(cs, &a, x);
            czk_lc_add_var(cs, &b, x);
            break;
        case 1: /* prev·x = 3·prev + x (not satisfied; the shape does not care) */
            czk_lc_add_var(cs, &a, prev);
            czk_lc_add_var(cs, &b, x);
            czk_lc_add(cs, &d, prev, czk_fr_pow2(1 + i % 200));
            czk_lc_add_var(cs, &d, x);
            break;
        default: /* 0·0 = x − 2^i·prev */
            czk_lc_add_var(cs, &d, x);
            czk_lc_add(cs, &d, prev, &czk_fr_minus_one);
            break;
        }
        czk_cs_enforce(cs, &a, &b, &d);
        prev = x;
    }
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&d);
    return CZK_OK;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dir>\n", argv[0]);
        return 2;
    }
    unsigned steps[] = {0, 1, 3, 8, 20, 60};
    for (unsigned i = 0; i < sizeof steps / sizeof *steps; i++) {
        czk_err err;
        seed_ctx c = {steps[i], i + 1};
        czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
        czk_shape *s;
        if (!cs || czk_cs_run(cs, circuit, &c, &err) || czk_cs_take_shape(cs, &s, &err)) {
            fprintf(stderr, "seed %u: %s\n", i, err.msg);
            return 1;
        }
        czk_cs_free(cs);
        char path[4096];
        snprintf(path, sizeof path, "%s/seed-%u.shape", argv[1], i);
        if (czk_shape_write(s, path, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        czk_shape_free(s);
    }
    return 0;
}
