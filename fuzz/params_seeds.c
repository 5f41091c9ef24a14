/*
 * Writes a seed corpus for fuzz_params into the directory given: small
 * valid .params files of a few shapes, their .vk, and a 192-byte proof
 * encoding. Usage: fuzz_params_seeds DIR
 */
#include "czk/groth16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rand_g1(czk_g1_affine *out, czk_rng *rng) {
    czk_fr k;
    if (czk_fr_random(&k, rng, NULL)) exit(1);
    czk_g1 p;
    czk_g1_mul(&p, blst_p1_generator(), &k);
    blst_p1_to_affine(out, &p);
}

static void rand_g2(czk_g2_affine *out, czk_rng *rng) {
    czk_fr k;
    if (czk_fr_random(&k, rng, NULL)) exit(1);
    czk_g2 p;
    czk_g2_mul(&p, blst_p2_generator(), &k);
    blst_p2_to_affine(out, &p);
}

static czk_g1_affine *g1s(uint32_t n, czk_rng *rng) {
    czk_g1_affine *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) exit(1);
    for (uint32_t i = 0; i < n; i++)
        rand_g1(&v[i], rng);
    return v;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    static const uint32_t shapes[][5] = {/* ic, h, l, a, b */
                                         {1, 0, 0, 1, 0},
                                         {1, 1, 1, 1, 1},
                                         {2, 3, 2, 3, 1},
                                         {3, 7, 4, 5, 3}};
    czk_rng rng;
    czk_rng_seed(&rng, 1);
    czk_err err;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        czk_params *p = calloc(1, sizeof *p);
        if (!p) return 1;
        rand_g1(&p->vk.alpha_g1, &rng);
        rand_g1(&p->vk.beta_g1, &rng);
        rand_g2(&p->vk.beta_g2, &rng);
        rand_g2(&p->vk.gamma_g2, &rng);
        rand_g1(&p->vk.delta_g1, &rng);
        rand_g2(&p->vk.delta_g2, &rng);
        p->vk.ic_len = shapes[s][0];
        p->vk.ic = g1s(shapes[s][0], &rng);
        p->h_len = shapes[s][1];
        p->h = g1s(p->h_len, &rng);
        p->l_len = shapes[s][2];
        p->l = g1s(p->l_len, &rng);
        p->a_len = shapes[s][3];
        p->a = g1s(p->a_len, &rng);
        p->b_g1_len = p->b_g2_len = shapes[s][4];
        p->b_g1 = g1s(p->b_g1_len, &rng);
        p->b_g2 = malloc((p->b_g2_len ? p->b_g2_len : 1) * sizeof *p->b_g2);
        if (!p->b_g2) return 1;
        for (uint32_t i = 0; i < p->b_g2_len; i++)
            rand_g2(&p->b_g2[i], &rng);
        char path[4096];
        snprintf(path, sizeof path, "%s/seed%zu.params", argv[1], s);
        if (czk_params_write(p, path, NULL, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        snprintf(path, sizeof path, "%s/seed%zu.vk", argv[1], s);
        if (czk_vk_write(&p->vk, path, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        czk_params_free(p);
    }
    czk_proof pr;
    rand_g1(&pr.a, &rng);
    rand_g2(&pr.b, &rng);
    rand_g1(&pr.c, &rng);
    uint8_t enc[CZK_PROOF_BYTES];
    czk_proof_encode(enc, &pr);
    char path[4096];
    snprintf(path, sizeof path, "%s/proof", argv[1]);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(enc, 1, sizeof enc, f) != sizeof enc || fclose(f)) return 1;
    return 0;
}
