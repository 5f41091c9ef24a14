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

/* A fresh temporary directory (mkdtemp) and paths in it. */
static inline void tk_tmpdir(char *out, size_t cap) {
    const char *base = getenv("TMPDIR");
    snprintf(out, cap, "%s/czk-groth16-XXXXXX", base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(out));
}

static inline void tk_rm_rf(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static inline uint8_t *tk_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static inline void tk_write_file(const char *path, const uint8_t *b, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

#endif
