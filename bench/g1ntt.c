/*
 * bench_g1ntt: the scaled NTT over G1 of the Lagrange form's derivation
 * (groth16.h czk_g1_ntt_fn) on random points, three ways: czk_g1_ntt_cpu
 * (blst, one thread), the CUDA kernels' per-thread code run on the host
 * (czk_cuda_g1_ntt_emulate, one thread: its Fp arithmetic is the device's,
 * so the ratio between two versions of the kernels' code shows here
 * without a GPU), and czk_cuda_g1_ntt on device 0 where there is one. The
 * three outputs are compared point by point.
 *
 *   bench_g1ntt [LOG_MIN [LOG_MAX]]     sizes 2^LOG_MIN .. 2^LOG_MAX (default 6 .. 9)
 *
 * Rows: log n, ms of each (—: not in this build or no device), equal.
 */
#include "czk/cuda.h"
#include "czk/ec.h"
#include "czk/groth16.h"
#include "util/time.h"
#ifdef CZK_HAVE_CUDA
#include "cuda/internal.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_g1ntt: %s: %s\n", what, err ? err->msg : "out of memory");
    exit(1);
}

static bool same(const czk_g1_affine *a, const czk_g1_affine *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!blst_p1_affine_is_equal(&a[i], &b[i])) return false;
    return true;
}

int main(int argc, char **argv) {
    unsigned lo = argc > 1 ? (unsigned)atoi(argv[1]) : 6, hi = argc > 2 ? (unsigned)atoi(argv[2]) : 9;
    if (lo < 1 || hi > 20 || lo > hi) {
        fprintf(stderr, "usage: bench_g1ntt [LOG_MIN [LOG_MAX]]  (1 <= LOG_MIN <= LOG_MAX <= 20)\n");
        return 2;
    }
    czk_err err;
    czk_cuda_ctx *ctx = NULL;
    if (czk_cuda_device_count() > 0 && czk_cuda_ctx_create(&ctx, 0, &err)) die("device 0", &err);
    printf("G1 NTT of 2^k random points (c, step random, rho a root of unity), one host thread\n\n");
    printf("| log n | czk_g1_ntt_cpu ms | kernels' code on the host ms | czk_cuda_g1_ntt ms | equal |\n");
    printf("|------:|------------------:|-----------------------------:|-------------------:|-------|\n");
    czk_rng rng;
    czk_rng_seed(&rng, 11);
    for (unsigned lg = lo; lg <= hi; lg++) {
        size_t n = (size_t)1 << lg;
        czk_g1_affine *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want),
                      *got = malloc(n * sizeof *got);
        if (!in || !want || !got) die("host memory", NULL);
        for (size_t i = 0; i < n; i++) {
            czk_fr k;
            if (czk_fr_random(&k, &rng, &err)) die("random", &err);
            blst_p1 p;
            czk_g1_mul(&p, blst_p1_generator(), &k);
            blst_p1_to_affine(&in[i], &p);
        }
        czk_fr c, step, rho;
        if (czk_fr_random(&c, &rng, &err) || czk_fr_random(&step, &rng, &err) ||
            czk_fr_root_of_unity(&rho, lg, &err))
            die("scalars", &err);
        double t = czk_now();
        if (czk_g1_ntt_cpu(NULL, want, in, n, lg, &c, &step, &rho, &err)) die("cpu", &err);
        double t_cpu = czk_now() - t;
        char emu[32] = "—", gpu[32] = "—";
        bool eq = true;
#ifdef CZK_HAVE_CUDA
        t = czk_now();
        if (czk_cuda_g1_ntt_emulate(got, in, n, lg, &c, &step, &rho, &err)) die("emulate", &err);
        snprintf(emu, sizeof emu, "%.1f", 1e3 * (czk_now() - t));
        eq &= same(got, want, n);
#endif
        if (ctx) {
            memset(got, 0, n * sizeof *got);
            t = czk_now();
            if (czk_cuda_g1_ntt(ctx, got, in, n, lg, &c, &step, &rho, &err)) die("gpu", &err);
            snprintf(gpu, sizeof gpu, "%.1f", 1e3 * (czk_now() - t));
            eq &= same(got, want, n);
        }
        printf("| %5u | %17.1f | %28s | %18s | %-5s |\n", lg, 1e3 * t_cpu, emu, gpu,
               eq ? "yes" : "NO");
        free(in);
        free(want);
        free(got);
        if (!eq) return 1;
    }
    if (ctx) czk_cuda_ctx_destroy(ctx);
    return 0;
}
