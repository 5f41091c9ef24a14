/*
 * bench_setup [--threads T] [--log-gpu K] [--read-mib M] [--dir DIR]: the
 * pieces of test-key setup and of reading its files, as a table.
 *
 *   fixed-base G1 / G2 on the GPU (czk_cuda_fb_g1/_g2, 2^K points, default
 *     K = 24; scalars uniform, made on the device; affine and encoded; one
 *     warm-up, then the median of 3, CUDA events): points/s, and what the
 *     32GiB PoRep keys' 427 M G1 + 33 M G2 products take at that rate;
 *   fixed-base G1 / G2 on the CPU (the CPU setup backend on the pool):
 *     points/s in all and per thread;
 *   BLAKE2b-512 of 1 GiB in memory on one thread (the plain digest) and the
 *     tree digest (czk_tree_digest) on the pool: GB/s;
 *   a .params file of M MiB (default 2048; points repeated from a few random
 *     ones, so making it is cheap) written (czk_params_write_stamped: the
 *     piece writer, fdatasync included), then read with its stamp
 *     (czk_params_read: read(2), tree digest, range and on-curve checks of
 *     every point, no subgroup pass) on 1 thread and on T threads: MB/s,
 *     MB/s per thread, and the projection for the 44.1 GiB (47.37 GB) 32GiB
 *     PoRep file at the T-thread rate (and at 16 × the 1-thread rate).
 * The file goes to DIR (default $TMPDIR or /tmp) and is removed. The 1-thread
 * read is close to the decoding cost per core: the tree digest runs on its
 * own threads beside it (half the CPUs, at most 8).
 */
#include "czk/cuda.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "util/time.h"

#include <blake2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define G1_32G 427253000.0 /* h + l + a + b_g1 of the 32GiB PoRep keys */
#define G2_32G 33112282.0  /* b_g2 */
#define BYTES_32G 47.37e9

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_setup: %s: %s\n", what, err->msg);
    exit(2);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void gpu_rows(unsigned lg) {
    if (czk_cuda_device_count() == 0) {
        printf("| fixed-base on the GPU | (no CUDA device%s) |\n",
               czk_cuda_built() ? "" : ": this czk has no CUDA");
        return;
    }
    czk_err err;
    czk_cuda_ctx *ctx;
    czk_cuda_fb *fb;
    if (czk_cuda_ctx_create(&ctx, 0, &err)) die("context", &err);
    if (czk_cuda_fb_create(&fb, ctx, &err)) die("tables", &err);
    size_t n = (size_t)1 << lg;
    void *k, *out;
    if (czk_cuda_alloc(ctx, &k, n * sizeof(czk_fr), &err) ||
        czk_cuda_alloc(ctx, &out, n * sizeof(czk_g2_affine), &err))
        die("device memory", &err);
    if (czk_cuda_fr_random(ctx, k, n, 7, &err)) die("scalars", &err);
    printf("| GPU: %s | |\n", czk_cuda_ctx_describe(ctx));
    for (int g = 1; g <= 2; g++)
        for (int form = 0; form < 2; form++) {
            czk_cuda_fb_form f = form ? CZK_CUDA_FB_ENCODED : CZK_CUDA_FB_AFFINE;
            double t[4];
            for (int r = 0; r < 4; r++) {
                if (czk_cuda_timer_start(ctx, &err)) die("timer", &err);
                czk_status st = g == 1 ? czk_cuda_fb_g1(fb, out, k, n, f, &err)
                                       : czk_cuda_fb_g2(fb, out, k, n, f, &err);
                if (st) die("fixed-base", &err);
                if (czk_cuda_timer_stop(ctx, &t[r], &err)) die("timer", &err);
            }
            qsort(t + 1, 3, sizeof t[0], cmp_double); /* t[0]: warm-up */
            double ms = t[2], rate = (double)n / (ms / 1e3);
            printf("| fixed-base G%d on the GPU, 2^%u points, %s | %.1f ms, %.1f M points/s; "
                   "32GiB keys' %.0f M: %.2f s |\n",
                   g, lg, form ? "encoded" : "affine", ms, rate / 1e6,
                   (g == 1 ? G1_32G : G2_32G) / 1e6, (g == 1 ? G1_32G : G2_32G) / rate);
        }
    czk_cuda_free(ctx, k);
    czk_cuda_free(ctx, out);
    czk_cuda_fb_destroy(fb);
    czk_cuda_ctx_destroy(ctx);
}

static void cpu_rows(czk_pool *pool) {
    czk_err err;
    czk_setup_backend be;
    if (czk_setup_backend_cpu(&be, pool, &err)) die("cpu backend", &err);
    size_t n = (size_t)1 << 17;
    czk_fr *k = malloc(n * sizeof *k);
    czk_g2_affine *out = malloc(n * sizeof *out);
    czk_rng rng;
    czk_rng_seed(&rng, 3);
    for (size_t i = 0; i < n; i++)
        if (czk_fr_random(&k[i], &rng, &err)) die("scalars", &err);
    unsigned T = czk_pool_threads(pool);
    for (int g = 1; g <= 2; g++) {
        size_t m = g == 1 ? n : n / 4;
        /* warm-up: the tables are built on first use */
        if ((g == 1 ? be.ops->g1(be.self, (czk_g1_affine *)out, k, 64, &err)
                    : be.ops->g2(be.self, out, k, 64, &err)))
            die("fixed-base", &err);
        double t0 = czk_now();
        if ((g == 1 ? be.ops->g1(be.self, (czk_g1_affine *)out, k, m, &err)
                    : be.ops->g2(be.self, out, k, m, &err)))
            die("fixed-base", &err);
        double s = czk_now() - t0, rate = (double)m / s;
        printf("| fixed-base G%d on the CPU, %zu points, %u threads | %.3f s, %.0f points/s, %.0f "
               "per thread |\n",
               g, m, T, s, rate, rate / T);
    }
    free(k);
    free(out);
    czk_setup_backend_release(&be);
}

static void digest_rows(czk_pool *pool) {
    size_t n = (size_t)1 << 30;
    uint8_t *b = malloc(n), d[64];
    if (!b) return;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 2654435761u >> 13);
    double t0 = czk_now();
    blake2b(d, b, NULL, 64, n, 0);
    double s1 = czk_now() - t0;
    czk_err err;
    t0 = czk_now();
    if (czk_tree_digest(d, b, n, pool, &err)) die("tree digest", &err);
    double s2 = czk_now() - t0;
    printf("| BLAKE2b-512, 1 GiB, 1 thread (plain digest) | %.2f GB/s; 44.1 GiB: %.0f s |\n",
           n / s1 / 1e9, BYTES_32G / (n / s1));
    printf("| tree digest, 1 GiB, %u threads | %.2f GB/s; 44.1 GiB: %.1f s |\n",
           czk_pool_threads(pool), n / s2 / 1e9, BYTES_32G / (n / s2));
    free(b);
}

/* Parameters of about `mib` MiB: random points repeated. */
static czk_params *file_params(size_t mib) {
    czk_rng rng;
    czk_rng_seed(&rng, 5);
    czk_err err;
    czk_params *p = calloc(1, sizeof *p);
    czk_g1_affine base1[16];
    czk_g2_affine base2[16];
    for (int i = 0; i < 16; i++) {
        czk_fr k;
        if (czk_fr_random(&k, &rng, &err)) die("random", &err);
        czk_g1 a;
        czk_g2 b;
        czk_g1_mul(&a, blst_p1_generator(), &k);
        czk_g2_mul(&b, blst_p2_generator(), &k);
        blst_p1_to_affine(&base1[i], &a);
        blst_p2_to_affine(&base2[i], &b);
    }
    p->vk.alpha_g1 = p->vk.beta_g1 = p->vk.delta_g1 = base1[0];
    p->vk.beta_g2 = p->vk.gamma_g2 = p->vk.delta_g2 = base2[0];
    /* in the 32GiB proportions: h 28 %, l 27 %, a 27 %, b_g1 7 %, b_g2 14 % of the bytes */
    uint64_t pts = (uint64_t)mib << 20;
    uint32_t h = (uint32_t)(pts * 28 / 100 / 96), l = (uint32_t)(pts * 27 / 100 / 96),
             b = (uint32_t)(pts * 7 / 100 / 96);
    uint32_t pw = 1; /* h = 2^k − 1 <= the share, as a domain gives */
    while (pw <= (h + 1) / 2)
        pw *= 2;
    h = pw - 1;
    p->vk.ic_len = 4;
    p->h_len = h;
    p->l_len = l;
    p->a_len = l;
    p->b_g1_len = p->b_g2_len = b;
    p->vk.ic = malloc(4 * sizeof *p->vk.ic);
    p->h = malloc((size_t)h * sizeof *p->h);
    p->l = malloc((size_t)l * sizeof *p->l);
    p->a = malloc((size_t)l * sizeof *p->a);
    p->b_g1 = malloc((size_t)b * sizeof *p->b_g1);
    p->b_g2 = malloc((size_t)b * sizeof *p->b_g2);
    if (!p->vk.ic || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2) {
        fprintf(stderr, "bench_setup: out of memory for a %zu MiB file\n", mib);
        exit(2);
    }
    for (int i = 0; i < 4; i++)
        p->vk.ic[i] = base1[i];
    for (uint32_t i = 0; i < h; i++)
        p->h[i] = base1[i % 16];
    for (uint32_t i = 0; i < l; i++)
        p->l[i] = p->a[i] = base1[(i * 7) % 16];
    for (uint32_t i = 0; i < b; i++) {
        p->b_g1[i] = base1[(i * 5) % 16];
        p->b_g2[i] = base2[(i * 3) % 16];
    }
    return p;
}

static void read_rows(czk_pool *pool, size_t mib, const char *dir) {
    char path[700], stamps[700];
    snprintf(path, sizeof path, "%s/bench-setup-%d.params", dir, (int)getpid());
    snprintf(stamps, sizeof stamps, "%s/bench-setup-%d.stamps", dir, (int)getpid());
    czk_params *p = file_params(mib);
    uint64_t bytes = czk_params_encoded_size(p);
    czk_err err;
    bool stamped = false;
    double t0 = czk_now();
    if (czk_params_write_stamped(p, path, stamps, &stamped, pool, &err)) die("write", &err);
    double sw = czk_now() - t0;
    printf("| write .params, %.2f GB, %u threads encoding (czk_params_write_stamped, fdatasync "
           "included) | %.2f s, %.2f GB/s |\n",
           bytes / 1e9, czk_pool_threads(pool), sw, bytes / sw / 1e9);
    czk_params_free(p);
    double rate1 = 0;
    for (int pass = 0; pass < 2; pass++) {
        czk_pool *rp = pass == 0 ? czk_pool_create(1, &err) : pool;
        if (!rp) die("pool", &err);
        czk_params_read_opts o = {.stamp_dir = stamps, .pool = rp};
        czk_params_read_info info;
        t0 = czk_now();
        if (czk_params_read(&p, path, &o, &info, &err)) die("read", &err);
        double s = czk_now() - t0, rate = bytes / s;
        if (pass == 0) rate1 = rate;
        unsigned th = czk_pool_threads(rp);
        printf("| read .params with its stamp, %u thread%s (trust: %s) | %.2f s, %.0f MB/s, %.0f "
               "MB/s per thread; 44.1 GiB: %.0f s",
               th, th > 1 ? "s" : "", info.trust == CZK_TRUST_STAMP ? "stamp" : "other", s,
               rate / 1e6, rate / th / 1e6, BYTES_32G / rate);
        if (pass == 1) printf(" (at 16 × the 1-thread rate: %.0f s)", BYTES_32G / (16 * rate1));
        printf(" |\n");
        czk_params_free(p);
        if (pass == 0) czk_pool_destroy(rp);
    }
    unlink(path);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", stamps);
    if (system(cmd)) fprintf(stderr, "bench_setup: could not remove %s\n", stamps);
}

int main(int argc, char **argv) {
    unsigned threads = 0, lg = 24;
    size_t mib = 2048;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--log-gpu") && i + 1 < argc)
            lg = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--read-mib") && i + 1 < argc)
            mib = (size_t)atoll(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: bench_setup [--threads T] [--log-gpu K] [--read-mib M] "
                            "[--dir DIR]\n");
            return 2;
        }
    }
    if (lg < 10 || lg > 26 || mib < 1) {
        fprintf(stderr, "bench_setup: --log-gpu takes 10..26, --read-mib at least 1\n");
        return 2;
    }
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) die("pool", &err);
    printf("| setup and parameter files (bench_setup) | |\n|---|---|\n");
    gpu_rows(lg);
    cpu_rows(pool);
    digest_rows(pool);
    read_rows(pool, mib, dir);
    czk_pool_destroy(pool);
    return 0;
}
