/*
 * GPU benchmark: MSM G1 (2^20..2^27), MSM G2 (2^20..2^25), NTT (2^20..2^27),
 * H (2^27), plus field and point-addition rates. Prints a table; with
 * --json PATH writes the numbers scripts/gpu-check.sh records.
 *
 * Protocol (bench/GPU.md): inputs already on the device (bases generated
 * there, uniform random full-width scalars, distinct bases), one warm-up,
 * then the median of 3 (MSM) or 5 (NTT, H) runs, CUDA events around the call
 * including any host-side final reduction.
 *
 * Options: --json PATH, --commit ID, --max-g1 K, --max-g2 K, --max-ntt K
 * (largest log2 sizes; for quick runs), --sweep (also time other MSM window
 * sizes and print a per-phase profile of the largest MSMs, on stderr),
 * --no-porep2k (skip the 2KiB proof),
 * --variants (also time each MSM accumulation variant, czk_cuda_set_msm_acc
 * 0..2, and target chunk lengths 64 and 128 (CZK_CUDA_MSM_CHUNK; defaults
 * G1 128, G2 64), at the largest sizes),
 * --ntt-variants (also time NTT and H at the largest NTT size under each
 * setting of CZK_CUDA_NTT_TWIST (direct, split) and CZK_CUDA_H_ORDER (paired,
 * natural), each in a fresh context; a table on stdout).
 *
 * porep2k_gpu_ms: the GPU backend's prove call for one 2KiB PoRep partition
 * (src/cuda/porep2k_fixture.h: cached shape and TEST keys, a C1, the
 * witness of partition 0), from the witness in host memory to the 192 proof
 * bytes (czk_prove + czk_proof_encode), keys and shape resident (ops->load
 * first), r and s given; one warm-up, then the median of 5, wall clock.
 */
#include "czk/cuda.h"
#include "cuda/internal.h"
#include "cuda/porep2k_fixture.h"
#include "czk/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CZK_HAVE_CUDA

static czk_cuda_ctx *ctx;

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_gpu: %s: %s\n", what, err->msg);
    exit(1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef czk_status (*op_fn)(void *arg, czk_err *err);

/* One warm-up, then the median of `reps` timed runs (ms). */
static double time_op(op_fn op, void *arg, int reps) {
    czk_err err;
    double t[8];
    if (op(arg, &err) != CZK_OK) die("warm-up", &err);
    for (int i = 0; i < reps; i++) {
        if (czk_cuda_timer_start(ctx, &err) != CZK_OK) die("timer", &err);
        if (op(arg, &err) != CZK_OK) die("run", &err);
        if (czk_cuda_timer_stop(ctx, &t[i], &err) != CZK_OK) die("timer", &err);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

struct msm_arg {
    void *bases;
    czk_fr *scalars;
    size_t n;
    bool g2;
};
static czk_status run_msm(void *p, czk_err *err) {
    struct msm_arg *a = p;
    if (a->g2) {
        czk_g2 out;
        return czk_cuda_msm_g2(ctx, &out, a->bases, a->scalars, a->n, err);
    }
    czk_g1 out;
    return czk_cuda_msm_g1(ctx, &out, a->bases, a->scalars, a->n, err);
}

struct ntt_arg {
    czk_fr *a, *b, *c;
    unsigned log_n;
};
static czk_status run_ntt(void *p, czk_err *err) {
    struct ntt_arg *a = p;
    return czk_cuda_ntt(ctx, a->a, a->log_n, CZK_NTT_FORWARD, err);
}
static czk_status run_h(void *p, czk_err *err) {
    struct ntt_arg *a = p;
    return czk_cuda_h(ctx, a->a, a->b, a->c, a->log_n, err);
}

static void *dalloc(size_t bytes) {
    czk_err err;
    void *p;
    if (czk_cuda_alloc(ctx, &p, bytes, &err) != CZK_OK) die("alloc", &err);
    return p;
}

static double wall_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* porep2k_gpu_ms (see the top of this file); 0 when skipped. */
static double bench_porep2k(void) {
    czk_err err;
    czk_pool *pool = czk_pool_create(czk_cpu_count(), &err);
    if (!pool) die("pool", &err);
    czk_p2k fx;
    double t0 = wall_ms();
    if (czk_p2k_make(&fx, pool, &err)) die("2KiB fixture", &err);
    printf("porep2k fixture (shape, keys %s, C1, witness): %.1f s\n",
           fx.keys_made ? "made" : "cached", (wall_ms() - t0) / 1e3);
    czk_backend be;
    if (czk_backend_cuda(&be, 0, pool, 0, &err)) die("backend", &err);
    unsigned drop;
    uint64_t dev;
    t0 = wall_ms();
    if (be.ops->load(be.self, fx.params, fx.shape, &drop, &dev, &err)) die("load", &err);
    czk_cuda_residency res;
    if (czk_backend_cuda_residency(&be, fx.params, &res, &err)) die("residency", &err);
    printf("porep2k load: %.0f ms, %llu device bytes, params %s, shape %s\n", wall_ms() - t0,
           (unsigned long long)dev, res.params_resident ? "resident" : "streamed",
           res.shape_resident ? "resident" : "host");
    czk_fr r, s;
    czk_fr_from_u64(&r, 12345);
    czk_fr_from_u64(&s, 67890);
    double t[5];
    uint8_t bytes[CZK_PROOF_BYTES];
    czk_prove_timings pt = {0};
    for (int i = -1; i < 5; i++) {
        czk_proof p;
        if (i == 0) memset(&pt, 0, sizeof pt);
        double a = wall_ms();
        if (czk_prove(&be, fx.params, fx.shape, &fx.w, 1, &r, &s, &p, &pt, &err))
            die("porep2k prove", &err);
        czk_proof_encode(bytes, &p);
        if (i >= 0) t[i] = wall_ms() - a;
        if (i < 0) {
            if (czk_verify(fx.pvk, &p, fx.inputs, fx.num_inputs, &err)) die("porep2k verify", &err);
        }
    }
    qsort(t, 5, sizeof *t, cmp_double);
    /* the same with the five MSMs one after another (for comparison; not recorded) */
    double ts[3];
    setenv("CZK_CUDA_SERIAL_MSM", "1", 1);
    for (int i = 0; i < 3; i++) {
        czk_proof p;
        double a = wall_ms();
        if (czk_prove(&be, fx.params, fx.shape, &fx.w, 1, &r, &s, &p, NULL, &err))
            die("porep2k prove (serial MSMs)", &err);
        czk_proof_encode(bytes, &p);
        ts[i] = wall_ms() - a;
    }
    unsetenv("CZK_CUDA_SERIAL_MSM");
    qsort(ts, 3, sizeof *ts, cmp_double);
    printf("porep2k with serial MSMs: %.2f ms (median of 3)\n", ts[1]);
    printf("porep2k phases (mean of 5, ms): spmv %.2f, ntt/H %.2f, msm h %.2f, l %.2f, a %.2f, "
           "b_g1 %.2f, b_g2 %.2f, assemble %.2f\n",
           pt.spmv * 200, pt.ntt * 200, pt.msm_h * 200, pt.msm_l * 200, pt.msm_a * 200,
           pt.msm_b1 * 200, pt.msm_b2 * 200, pt.assemble * 200);
    printf("porep2k_gpu_ms: %.2f (median of 5; min %.2f, max %.2f)\n", t[2], t[0], t[4]);
    fflush(stdout);
    czk_backend_release(&be);
    czk_p2k_free(&fx);
    czk_pool_destroy(pool);
    return t[2];
}

int main(int argc, char **argv) {
    const char *json = NULL, *commit = "unknown";
    unsigned max_g1 = 27, max_g2 = 25, max_ntt = 27;
    bool sweep = false, porep2k = true, variants = false, ntt_variants = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--commit") && i + 1 < argc)
            commit = argv[++i];
        else if (!strcmp(argv[i], "--max-g1") && i + 1 < argc)
            max_g1 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-g2") && i + 1 < argc)
            max_g2 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-ntt") && i + 1 < argc)
            max_ntt = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sweep"))
            sweep = true;
        else if (!strcmp(argv[i], "--no-porep2k"))
            porep2k = false;
        else if (!strcmp(argv[i], "--variants"))
            variants = true;
        else if (!strcmp(argv[i], "--ntt-variants"))
            ntt_variants = true;
        else {
            fprintf(stderr, "usage: bench_gpu [--json PATH] [--commit ID] [--max-g1 K] [--max-g2 "
                            "K] [--max-ntt K] [--sweep] [--variants] [--ntt-variants] "
                            "[--no-porep2k]\n");
            return 2;
        }
    }
    if (czk_cuda_device_count() == 0) {
        fprintf(stderr, "bench_gpu: no CUDA device\n");
        return 2;
    }
    czk_err err;
    if (czk_cuda_ctx_create(&ctx, 0, &err) != CZK_OK) die("ctx_create", &err);
    printf("device: %s\n", czk_cuda_ctx_describe(ctx));

    double rates[CZK_CUDA_NRATES];
    if (czk_cuda_rates(ctx, rates, &err) != CZK_OK) die("rates", &err);
    for (int i = 0; i < CZK_CUDA_NRATES; i++)
        printf("rate %-16s %.3g/s\n", czk_cuda_rate_names[i], rates[i]);

    double g1_ms[28] = {0}, g2_ms[28] = {0}, ntt_ms[29] = {0}, h_ms = 0;

    /* NTT and H first (they need the least memory) */
    {
        size_t n = (size_t)1 << max_ntt;
        struct ntt_arg a = {dalloc(n * sizeof(czk_fr)), dalloc(n * sizeof(czk_fr)),
                            dalloc(n * sizeof(czk_fr)), 0};
        if (czk_cuda_fr_random(ctx, a.a, n, 1, &err) != CZK_OK) die("random", &err);
        if (czk_cuda_fr_random(ctx, a.b, n, 2, &err) != CZK_OK) die("random", &err);
        if (czk_cuda_fr_random(ctx, a.c, n, 3, &err) != CZK_OK) die("random", &err);
        for (unsigned k = 20; k <= max_ntt; k++) {
            a.log_n = k;
            ntt_ms[k] = time_op(run_ntt, &a, 5);
            printf("ntt 2^%u: %.3f ms\n", k, ntt_ms[k]);
            fflush(stdout);
        }
        a.log_n = max_ntt;
        h_ms = time_op(run_h, &a, 5);
        if (sweep) { /* per-pass times on stderr */
            czk_cuda_set_profile(ctx, 1);
            if (run_ntt(&a, &err) != CZK_OK || run_h(&a, &err) != CZK_OK) die("profile", &err);
            czk_cuda_set_profile(ctx, 0);
        }
        printf("h 2^%u: %.3f ms\n", max_ntt, h_ms);
        if (ntt_variants) { /* each setting in a fresh context (the variables are read there) */
            static const char *twist[2] = {"direct", "split"}, *order[2] = {"paired", "natural"};
            double vn[2][2], vh[2][2];
            czk_cuda_ctx *main_ctx = ctx;
            for (int t = 0; t < 2; t++)
                for (int o = 0; o < 2; o++) {
                    setenv("CZK_CUDA_NTT_TWIST", twist[t], 1);
                    setenv("CZK_CUDA_H_ORDER", order[o], 1);
                    if (czk_cuda_ctx_create(&ctx, 0, &err) != CZK_OK) die("ctx_create", &err);
                    vn[t][o] = time_op(run_ntt, &a, 5);
                    vh[t][o] = time_op(run_h, &a, 5);
                    czk_cuda_ctx_destroy(ctx);
                    ctx = main_ctx;
                }
            unsetenv("CZK_CUDA_NTT_TWIST");
            unsetenv("CZK_CUDA_H_ORDER");
            printf("\nntt variants, 2^%u (median of 5, ms)\n", max_ntt);
            printf("%-22s %-20s %12s %12s\n", "CZK_CUDA_NTT_TWIST", "CZK_CUDA_H_ORDER", "ntt", "h");
            for (int t = 0; t < 2; t++)
                for (int o = 0; o < 2; o++)
                    printf("%-22s %-20s %12.3f %12.2f%s\n", twist[t], order[o], vn[t][o], vh[t][o],
                           t == 0 && o == 0 ? "   (default)"
                           : t && o         ? "   (old paths)"
                                            : "");
            printf("\n");
            fflush(stdout);
        }
        czk_cuda_free(ctx, a.a), czk_cuda_free(ctx, a.b), czk_cuda_free(ctx, a.c);
    }
    for (int g = 0; g < 2; g++) {
        unsigned maxk = g ? max_g2 : max_g1;
        size_t n = (size_t)1 << maxk, psz = g ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
        struct msm_arg a = {dalloc(n * psz), dalloc(n * sizeof(czk_fr)), 0, g == 1};
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        czk_status st = g ? czk_cuda_g2_random_bases(ctx, a.bases, n, 11, &err)
                          : czk_cuda_g1_random_bases(ctx, a.bases, n, 11, &err);
        if (st != CZK_OK) die("bases", &err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("generated 2^%u %s bases in %.2f s\n", maxk, g ? "G2" : "G1",
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        if (czk_cuda_fr_random(ctx, a.scalars, n, 12, &err) != CZK_OK) die("random", &err);
        for (unsigned k = 20; k <= maxk; k++) {
            a.n = (size_t)1 << k;
            double ms = time_op(run_msm, &a, 3);
            (g ? g2_ms : g1_ms)[k] = ms;
            printf("msm %s 2^%u: %.2f ms\n", g ? "g2" : "g1", k, ms);
            fflush(stdout);
        }
        if (variants) {
            a.n = n;
            for (int v = 0; v < 3; v++) {
                czk_cuda_set_msm_acc(ctx, v);
                printf("variant msm %s 2^%u acc=%d: %.2f ms\n", g ? "g2" : "g1", maxk, v,
                       time_op(run_msm, &a, 1));
                fflush(stdout);
            }
            czk_cuda_set_msm_acc(ctx, 0);
            static const char *chunks[] = {"64", "128"};
            for (int q = 0; q < 2; q++) {
                setenv("CZK_CUDA_MSM_CHUNK", chunks[q], 1);
                printf("variant msm %s 2^%u chunk=%s: %.2f ms\n", g ? "g2" : "g1", maxk, chunks[q],
                       time_op(run_msm, &a, 1));
                fflush(stdout);
            }
            unsetenv("CZK_CUDA_MSM_CHUNK");
        }
        if (sweep) {
            a.n = n;
            czk_cuda_set_profile(ctx, 1);
            if (run_msm(&a, &err) != CZK_OK) die("profile", &err);
            czk_cuda_set_profile(ctx, 0);
            int cs[2][4] = {{18, 19, 21, 22}, {16, 18, 19, 20}};
            for (int q = 0; q < 4; q++) {
                if (czk_cuda_set_msm_c(ctx, cs[g][q], &err) != CZK_OK) die("set c", &err);
                printf("sweep msm %s 2^%u c=%d: %.2f ms\n", g ? "g2" : "g1", maxk, cs[g][q],
                       time_op(run_msm, &a, 1));
                fflush(stdout);
            }
            if (czk_cuda_set_msm_c(ctx, 0, &err) != CZK_OK) die("set c", &err);
        }
        czk_cuda_free(ctx, a.bases), czk_cuda_free(ctx, a.scalars);
    }

    double porep2k_ms = porep2k ? bench_porep2k() : 0;

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        time_t now = time(NULL);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(f, "{\n  \"gpu\": \"%s\",\n  \"date\": \"%s\",\n  \"commit\": \"%s\"",
                czk_cuda_ctx_describe(ctx), date, commit);
        for (unsigned k = 20; k <= 27; k++)
            if (g1_ms[k] > 0) fprintf(f, ",\n  \"msm_g1_2p%u_ms\": %.3f", k, g1_ms[k]);
        for (unsigned k = 20; k <= 25; k++)
            if (g2_ms[k] > 0) fprintf(f, ",\n  \"msm_g2_2p%u_ms\": %.3f", k, g2_ms[k]);
        for (unsigned k = 20; k <= 27; k++)
            if (ntt_ms[k] > 0) fprintf(f, ",\n  \"ntt_2p%u_ms\": %.4f", k, ntt_ms[k]);
        fprintf(f, ",\n  \"h_2p%u_ms\": %.3f", max_ntt, h_ms);
        if (porep2k_ms > 0) fprintf(f, ",\n  \"porep2k_gpu_ms\": %.2f", porep2k_ms);
        for (int i = 0; i < CZK_CUDA_NRATES; i++)
            fprintf(f, ",\n  \"%s_per_s\": %.4g", czk_cuda_rate_names[i], rates[i]);
        fprintf(f, "\n}\n");
        fclose(f);
    }

    /* the short table, last */
    printf("\n%-12s %12s %12s   bar\n", "kernel", "2^k", "ms");
    for (unsigned k = 20; k <= 27; k++)
        if (g1_ms[k] > 0)
            printf("%-12s %12u %12.2f%s\n", "msm_g1", k, g1_ms[k], k == 27 ? "   <= 1100" : "");
    for (unsigned k = 20; k <= 25; k++)
        if (g2_ms[k] > 0)
            printf("%-12s %12u %12.2f%s\n", "msm_g2", k, g2_ms[k], k == 25 ? "   <= 850" : "");
    for (unsigned k = 20; k <= 27; k++)
        if (ntt_ms[k] > 0)
            printf("%-12s %12u %12.3f%s\n", "ntt", k, ntt_ms[k], k == 27 ? "   <= 45" : "");
    printf("%-12s %12u %12.2f\n", "h", max_ntt, h_ms);
    if (porep2k_ms > 0) printf("%-12s %12u %12.2f   <= 300\n", "porep2k", 22, porep2k_ms);
    czk_cuda_ctx_destroy(ctx);
    return 0;
}

#else

int main(void) {
    fprintf(stderr, "bench_gpu: this build has no CUDA backend\n");
    return 2;
}

#endif
