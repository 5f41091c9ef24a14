/*
 * bench_lagrange: the CPU prover with and without the Lagrange form of the
 * H and L queries (groth16.h, czk_params_lagrange), by phase, on the 2KiB
 * PoRep partition 0 (tests/support/porep2k_fixture.h: the cached shape,
 * TEST keys of seed 1, the witness of a 2KiB C1).
 *
 *   bench_lagrange [THREADS [REPEATS]]
 *       THREADS  pool size (default: the online CPUs)
 *       REPEATS  proofs per setting, the best kept per phase (default 3)
 *
 * First the form is made from the keys' toxic waste (czk_setup_lagrange on
 * the CPU setup backend; its wall time is a row), then both settings prove
 * with the same r, s, the proofs are compared byte for byte and verified.
 * Rows: phase, standard ms, Lagrange form ms, ratio. SpMV: a, b, c against
 * a, b; H: six transforms and two pointwise passes against four and one;
 * MSM h: N − 1 against N points plus the inputs' W; MSM l: the same length.
 */
#include "czk/groth16.h"
#include "porep2k_fixture.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_lagrange: %s: %s\n", what, err->msg);
    exit(1);
}

#define NPH 8
static const char *const PH[NPH] = {
    "SpMV", "H (NTTs, pointwise)", "MSM h", "MSM l", "MSM a", "MSM b1", "MSM b2", "total"};

static void phases(double out[NPH], const czk_prove_timings *t) {
    double v[NPH] = {t->spmv, t->ntt, t->msm_h, t->msm_l, t->msm_a, t->msm_b1, t->msm_b2, t->total};
    memcpy(out, v, sizeof v);
}

int main(int argc, char **argv) {
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    int repeats = argc > 2 ? atoi(argv[2]) : 3;
    if (repeats < 1) repeats = 1;
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) die("pool", &err);
    czk_p2k f;
    if (czk_p2k_make(&f, pool, &err)) die("fixture", &err);
    czk_rng rng;
    czk_rng_seed(&rng, 1); /* czk_p2k's keys: czk_test_keys seed 1 */
    czk_toxic toxic;
    if (czk_toxic_random(&toxic, &rng, &err)) die("toxic", &err);
    czk_setup_backend sb;
    if (czk_setup_backend_cpu(&sb, pool, &err)) die("setup backend", &err);
    double t0 = czk_now();
    czk_params_lagrange *lf;
    if (czk_setup_lagrange(&lf, f.shape, &toxic, &sb, pool, &err)) die("form", &err);
    double t_form = czk_now() - t0;
    czk_setup_backend_release(&sb);
    czk_backend be;
    if (czk_backend_cpu(&be, pool, &err)) die("backend", &err);
    czk_fr r, s;
    czk_fr_from_u64(&r, 1234567);
    czk_fr_from_u64(&s, 7654321);
    double best[2][NPH];
    uint8_t bytes[2][CZK_PROOF_BYTES];
    for (int v = 0; v < 2; v++) {
        for (int k = 0; k < NPH; k++)
            best[v][k] = 1e30;
        f.params->lagrange = v ? lf : NULL;
        for (int rep = 0; rep < repeats; rep++) {
            czk_prove_timings t = {0};
            czk_proof p;
            if (czk_prove(&be, f.params, f.shape, &f.w, 1, &r, &s, &p, &t, &err))
                die(v ? "prove (form)" : "prove", &err);
            double ph[NPH];
            phases(ph, &t);
            for (int k = 0; k < NPH; k++)
                if (ph[k] < best[v][k]) best[v][k] = ph[k];
            czk_proof_encode(bytes[v], &p);
            if (czk_verify(f.pvk, &p, f.inputs, f.num_inputs, &err)) die("verify", &err);
        }
        f.params->lagrange = NULL;
    }
    if (memcmp(bytes[0], bytes[1], CZK_PROOF_BYTES)) {
        fprintf(stderr, "bench_lagrange: the two proofs differ\n");
        return 1;
    }
    printf("2KiB PoRep partition 0: %llu constraints (domain 2^%u), %u aux; %u threads, best of "
           "%d; proofs byte-equal and verified\n",
           (unsigned long long)f.shape->num_constraints, lf->log_n, f.shape->num_aux,
           czk_pool_threads(pool), repeats);
    printf("form made from the toxic waste (czk_setup_lagrange, CPU): %.1f s\n\n", t_form);
    printf("| phase | standard ms | Lagrange form ms | ratio |\n|---|---|---|---|\n");
    for (int k = 0; k < NPH; k++)
        printf("| %s | %.1f | %.1f | %.3f |\n", PH[k], 1e3 * best[0][k], 1e3 * best[1][k],
               best[0][k] > 0 ? best[1][k] / best[0][k] : 0);
    czk_params_lagrange_free(lf);
    czk_backend_release(&be);
    czk_p2k_free(&f);
    czk_pool_destroy(pool);
    return 0;
}
