/*
 * bench_msm: CPU MSM throughput, G1 and G2, 2^min ... 2^max points.
 *
 *   bench_msm [max_log [min_log [threads [g2_max_log [groups]]]]]
 *     max_log     largest size, 2^max_log points (default 20)
 *     min_log     smallest size (default 12)
 *     threads     pool threads (default: online CPUs)
 *     g2_max_log  largest G2 size (default max_log)
 *     groups      g1, g2 or g1,g2 (default g1,g2)
 *
 * For each group, size and scalar kind it prints the time of czk_msm_*
 * (bit-aware front end) and of czk_msm_*_plain (blst's Pippenger on every
 * scalar): wall time in ms, points per second, and process CPU time in ms
 * (all threads; unlike wall time, not inflated when other programs share
 * the CPUs). The last column is plain's CPU time over czk's. Scalar kinds: "uniform"
 * (uniform in Fr) and "bits" (45 % 0, 45 % 1, 10 % uniform: a witness-like mix). Each time is the
 * best of as many runs as fit in about 0.5 s (at least one). Bases are P_{i+1} = P_i + Q_{i mod 16}
 * from random multiples of the generator, batch-normalized: cheap to make and as good as random
 * here.
 */
#include "czk/msm.h"
#include "czk/pool.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_msm: %s: %s\n", what, err ? err->msg : "out of memory");
    exit(1);
}

static void random_fr(czk_fr *out, czk_rng *rng) {
    czk_err err;
    if (czk_fr_random(out, rng, &err)) die("random", &err);
}

static czk_fr *make_scalars(size_t n, bool bits, czk_rng *rng) {
    czk_fr *s = malloc(n * sizeof *s);
    if (!s) die("scalars", NULL);
    for (size_t i = 0; i < n; i++) {
        unsigned pick = (unsigned)(czk_rng_u64(rng) % 100);
        if (bits && pick < 45)
            s[i] = czk_fr_zero;
        else if (bits && pick < 90)
            s[i] = czk_fr_one;
        else
            random_fr(&s[i], rng);
    }
    return s;
}

typedef czk_status (*msm_fn)(void *out, const void *bases, const czk_fr *s, size_t n,
                             czk_pool *pool, czk_err *err);

/*
 * Runs an MSM repeatedly for ~MIN_S seconds (at least once). Returns the
 * best wall time in seconds; *cpu gets the best process CPU time (all
 * threads), which other programs sharing the CPUs do not inflate.
 */
#define MIN_S 0.5
static double time_msm(msm_fn fn, void *out, const void *bases, const czk_fr *s, size_t n,
                       czk_pool *pool, double *cpu) {
    double best = 1e30, start = czk_now();
    *cpu = 1e30;
    do {
        czk_err err;
        double c0 = czk_cpu_now(), t0 = czk_now();
        if (fn(out, bases, s, n, pool, &err)) die("msm", &err);
        double t = czk_now() - t0, c = czk_cpu_now() - c0;
        if (t < best) best = t;
        if (c < *cpu) *cpu = c;
    } while (czk_now() - start < MIN_S);
    return best;
}

#define BENCH_GROUP(g, point, affine, NAME)                                                        \
    static czk_status g##_front(void *out, const void *bases, const czk_fr *s, size_t n,           \
                                czk_pool *pool, czk_err *err) {                                    \
        return czk_msm_##g(out, bases, s, n, pool, err);                                           \
    }                                                                                              \
    static czk_status g##_plain(void *out, const void *bases, const czk_fr *s, size_t n,           \
                                czk_pool *pool, czk_err *err) {                                    \
        return czk_msm_##g##_plain(out, bases, s, n, pool, err);                                   \
    }                                                                                              \
    static affine *g##_bases(size_t n, czk_rng *rng) {                                             \
        point q[16], *jac = malloc(n * sizeof *jac);                                               \
        affine *out = malloc(n * sizeof *out);                                                     \
        if (!jac || !out) die("bases", NULL);                                                      \
        for (int i = 0; i <= 16; i++) {                                                            \
            czk_fr k;                                                                              \
            blst_scalar b;                                                                         \
            random_fr(&k, rng);                                                                    \
            blst_scalar_from_fr(&b, &k);                                                           \
            point##_mult(i < 16 ? &q[i] : &jac[0], point##_generator(), b.b, 255);                 \
        }                                                                                          \
        for (size_t i = 1; i < n; i++)                                                             \
            point##_add(&jac[i], &jac[i - 1], &q[i % 16]);                                         \
        const point *ptrs[2] = {jac, NULL};                                                        \
        point##s_to_affine(out, ptrs, n);                                                          \
        free(jac);                                                                                 \
        return out;                                                                                \
    }                                                                                              \
                                                                                                   \
    static void g##_bench(unsigned min_log, unsigned max_log, czk_pool *pool, czk_rng *rng) {      \
        size_t nmax = (size_t)1 << max_log;                                                        \
        affine *bases = g##_bases(nmax, rng);                                                      \
        for (int bits = 0; bits <= 1; bits++) {                                                    \
            czk_fr *s = make_scalars(nmax, bits, rng);                                             \
            for (unsigned lg = min_log; lg <= max_log; lg++) {                                     \
                size_t n = (size_t)1 << lg;                                                        \
                point a, b;                                                                        \
                double cf = 0, cp = 0;                                                             \
                double tf = time_msm(g##_front, &a, bases, s, n, pool, &cf);                       \
                double tp = time_msm(g##_plain, &b, bases, s, n, pool, &cp);                       \
                if (!point##_is_equal(&a, &b)) {                                                   \
                    fprintf(stderr, "bench_msm: %s 2^%u: front end and plain differ\n", NAME, lg); \
                    exit(1);                                                                       \
                }                                                                                  \
                printf(                                                                            \
                    "| %s | 2^%u | %s | %u | %.1f | %.3g | %.1f | %.1f | %.3g | %.1f | %.2fx |\n", \
                    NAME, lg, bits ? "bits" : "uniform", czk_pool_threads(pool), tf * 1e3,         \
                    (double)n / tf, cf * 1e3, tp * 1e3, (double)n / tp, cp * 1e3, cp / cf);        \
                fflush(stdout);                                                                    \
            }                                                                                      \
            free(s);                                                                               \
        }                                                                                          \
        free(bases);                                                                               \
    }

BENCH_GROUP(g1, blst_p1, blst_p1_affine, "G1")
BENCH_GROUP(g2, blst_p2, blst_p2_affine, "G2")

int main(int argc, char **argv) {
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    unsigned min_log = argc > 2 ? (unsigned)atoi(argv[2]) : 12;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    unsigned g2_max = argc > 4 ? (unsigned)atoi(argv[4]) : max_log;
    const char *groups = argc > 5 ? argv[5] : "g1,g2";
    bool g1 = strstr(groups, "g1") != NULL, g2 = strstr(groups, "g2") != NULL;
    if (max_log < 1 || max_log > 30 || min_log > max_log || g2_max > max_log || (!g1 && !g2)) {
        fprintf(stderr, "usage: bench_msm [max_log [min_log [threads [g2_max_log [groups]]]]]\n");
        return 2;
    }
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) die("pool", &err);
    czk_rng rng;
    czk_rng_seed(&rng, 1);
    printf("| group | n | scalars | threads | czk ms | czk points/s | czk CPU ms | plain ms | "
           "plain points/s | plain CPU ms | plain/czk CPU |\n");
    printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    fflush(stdout);
    if (g1) g1_bench(min_log, max_log, pool, &rng);
    if (g2 && g2_max >= min_log) g2_bench(min_log, g2_max, pool, &rng);
    czk_pool_destroy(pool);
    return 0;
}
