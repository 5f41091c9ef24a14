/*
 * bench_groth16 [threads [log_n]]: Groth16 on the CPU for a test circuit of
 * n = 2^log_n constraints (default 2^20; inputs' closing constraints
 * included, so the domain is exactly n).
 *
 * The circuit is half booleans (b·(1 − b) = 0) and half products
 * z_k = (z_{k−2} + b_{k−1})·(y + 3), so half of the aux values are 0 or 1,
 * as in Filecoin's circuits. It prints, in seconds: recording the shape,
 * setup (czk_setup), writing the .params file, reading it the first time
 * (full validation, stamp written) and again (stamp valid: no subgroup
 * pass; MB/s in all and per thread), then one proof split by phase
 * (witness, SpMV, NTT, each MSM, assembly) and its verification. Setup's
 * pieces (GPU and CPU fixed-base rates, digests, read throughput at a
 * larger size) are bench/setup.c's.
 */
#include "czk/groth16.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct bench_circuit {
    uint64_t synth; /* constraints before the inputs' closing ones */
} bench_circuit;

static czk_status bench_fn(czk_cs *cs, void *ctx) {
    bench_circuit *c = ctx;
    czk_fr x, three, yv, t;
    czk_fr_from_u64(&x, 0x1234567);
    czk_fr_from_u64(&three, 3);
    czk_var xi = czk_cs_alloc_input(cs, &x);
    czk_var y = czk_cs_alloc(cs, &x);
    czk_lc la = CZK_LC_INIT, lb = CZK_LC_INIT, lc = CZK_LC_INIT;
    bool rec = czk_cs_records(cs);
    if (rec) {
        czk_lc_add_var(cs, &la, xi);
        czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
        czk_lc_add_var(cs, &lc, y);
        czk_cs_enforce(cs, &la, &lb, &lc);
    }
    czk_fr_add(&yv, &x, &three); /* y + 3 */
    czk_var zprev = y, b = y;
    czk_fr zpv = x, bv = x;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (uint64_t k = 1; k < c->synth; k++) {
        if (k % 2) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            bv = (seed >> 33) & 1 ? czk_fr_one : czk_fr_zero;
            b = czk_cs_alloc(cs, &bv);
            if (rec) {
                czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lc);
                czk_lc_add_var(cs, &la, b);
                czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
                czk_lc_sub_var(cs, &lb, b);
                czk_cs_enforce(cs, &la, &lb, &lc);
            }
        } else {
            czk_fr zv;
            czk_fr_add(&t, &zpv, &bv);
            czk_fr_mul(&zv, &t, &yv);
            czk_var z = czk_cs_alloc(cs, &zv);
            if (rec) {
                czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lc);
                czk_lc_add_var(cs, &la, zprev);
                czk_lc_add_var(cs, &la, b);
                czk_lc_add_var(cs, &lb, y);
                czk_lc_add(cs, &lb, CZK_VAR_ONE, &three);
                czk_lc_add_var(cs, &lc, z);
                czk_cs_enforce(cs, &la, &lb, &lc);
            }
            zprev = z;
            zpv = zv;
        }
    }
    czk_lc_free(&la);
    czk_lc_free(&lb);
    czk_lc_free(&lc);
    return CZK_OK;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        czk_status st_ = (call);                                                                   \
        if (st_) {                                                                                 \
            fprintf(stderr, "bench_groth16: %s: %s\n", czk_status_name(st_), err.msg);             \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    unsigned lg = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    if (argc > 3 || lg < 4 || lg > 26) {
        fprintf(stderr, "usage: bench_groth16 [threads [log_n]]  (4 <= log_n <= 26)\n");
        return 2;
    }
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) {
        fprintf(stderr, "bench_groth16: %s\n", err.msg);
        return 2;
    }
    const char *base = getenv("TMPDIR");
    char dir[512], path[600], stamps[600];
    snprintf(dir, sizeof dir, "%s/czk-bench-groth16-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(path, sizeof path, "%s/bench.params", dir);
    snprintf(stamps, sizeof stamps, "%s/stamps", dir);

    bench_circuit c = {.synth = ((uint64_t)1 << lg) - 2}; /* + 2 inputs = 2^lg */
    double t0 = czk_now();
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    if (!cs) return 2;
    CHECK(czk_cs_run(cs, bench_fn, &c, &err));
    czk_shape *shape;
    CHECK(czk_cs_take_shape(cs, &shape, &err));
    czk_cs_free(cs);
    double t_record = czk_now() - t0;

    czk_rng rng;
    czk_rng_seed(&rng, 1);
    czk_toxic toxic;
    CHECK(czk_toxic_random(&toxic, &rng, &err));
    t0 = czk_now();
    czk_params *params;
    CHECK(czk_setup(&params, shape, &toxic, pool, &err));
    double t_setup = czk_now() - t0;
    t0 = czk_now();
    CHECK(czk_params_write(params, path, pool, &err));
    double t_write = czk_now() - t0;
    uint64_t bytes = czk_params_encoded_size(params);
    czk_params_free(params);

    czk_params_read_opts o = {.stamp_dir = stamps, .pool = pool};
    czk_params_read_info i1, i2;
    t0 = czk_now();
    CHECK(czk_params_read(&params, path, &o, &i1, &err));
    double t_read1 = czk_now() - t0;
    czk_params_free(params);
    t0 = czk_now();
    CHECK(czk_params_read(&params, path, &o, &i2, &err));
    double t_read2 = czk_now() - t0;

    czk_backend be;
    CHECK(czk_backend_cpu(&be, pool, &err));
    void *ctx[1] = {&c};
    czk_proof proof;
    czk_prove_timings t = {0};
    CHECK(czk_prove_circuits(&be, params, shape, bench_fn, ctx, 1, NULL, NULL, &proof, &t, pool,
                             &err));
    czk_pvk *pvk = malloc(sizeof *pvk);
    CHECK(czk_pvk_prepare(pvk, &params->vk, &err));
    czk_fr x;
    czk_fr_from_u64(&x, 0x1234567);
    t0 = czk_now();
    CHECK(czk_verify(pvk, &proof, &x, 1, &err));
    double t_verify = czk_now() - t0;

    static const char *trust[] = {"full check", "stamp", "known digest"};
    printf("Groth16 CPU, n = 2^%u constraints (%u inputs, %u aux; A-dense %u, B-dense %u), %u "
           "threads\n",
           lg, shape->num_inputs, shape->num_aux, params->a_len, params->b_g1_len,
           czk_pool_threads(pool));
    printf("| phase | seconds |\n|---|---|\n");
    printf("| record shape | %.3f |\n", t_record);
    printf("| setup (czk_setup) | %.3f |\n", t_setup);
    printf("| write .params (%.1f MB) | %.3f |\n", bytes / 1e6, t_write);
    printf("| read .params, first (%s; subgroup pass %.3f s; %.0f MB/s) | %.3f |\n",
           trust[i1.trust], i1.seconds_subgroup, bytes / t_read1 / 1e6, t_read1);
    printf("| read .params, again (%s; %.0f MB/s, %.0f MB/s per thread) | %.3f |\n",
           trust[i2.trust], bytes / t_read2 / 1e6, bytes / t_read2 / 1e6 / czk_pool_threads(pool),
           t_read2);
    printf("| prove: witness | %.3f |\n", t.witness);
    printf("| prove: SpMV (a, b, c) | %.3f |\n", t.spmv);
    printf("| prove: NTT (H) | %.3f |\n", t.ntt);
    printf("| prove: MSM h (G1, %u) | %.3f |\n", params->h_len, t.msm_h);
    printf("| prove: MSM l (G1, %u) | %.3f |\n", params->l_len, t.msm_l);
    printf("| prove: MSM a (G1, %u) | %.3f |\n", params->a_len, t.msm_a);
    printf("| prove: MSM b_g1 (G1, %u) | %.3f |\n", params->b_g1_len, t.msm_b1);
    printf("| prove: MSM b_g2 (G2, %u) | %.3f |\n", params->b_g2_len, t.msm_b2);
    printf("| prove: assemble | %.3f |\n", t.assemble);
    printf("| prove: total | %.3f |\n", t.total);
    printf("| verify | %.4f |\n", t_verify);

    czk_pvk_free(pvk);
    free(pvk);
    czk_backend_release(&be);
    czk_params_free(params);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) fprintf(stderr, "bench_groth16: could not remove %s\n", dir);
    return 0;
}
