/*
 * bench_ntt [threads [min_log max_log]]: CPU NTT (czk_ntt) times.
 *
 * For each N = 2^min_log .. 2^max_log (default 2^16 .. 2^22) it times the
 * forward NTT and the coset inverse NTT on random data, in place, and prints
 * the best of several runs (after one warm-up run) in milliseconds of wall
 * time, with the CPU time of the whole process during that run (on a shared
 * machine, CPU time / threads is what the run would take with the cores to
 * itself). threads defaults to all online CPUs.
 */
#include "czk/ntt.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_ms(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int parse_u(const char *s, unsigned *out) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == 0 || *end != 0 || v > 4096) return -1;
    *out = (unsigned)v;
    return 0;
}

int main(int argc, char **argv) {
    unsigned threads = 0, lo = 16, hi = 22;
    if (argc > 4 || argc == 3 || (argc > 1 && parse_u(argv[1], &threads)) ||
        (argc == 4 &&
         (parse_u(argv[2], &lo) || parse_u(argv[3], &hi) || lo < 1 || hi > 28 || lo > hi))) {
        fprintf(stderr, "usage: bench_ntt [threads [min_log max_log]]  (1 <= min_log <= max_log "
                        "<= 28; threads 0 = all CPUs)\n");
        return 2;
    }
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) {
        fprintf(stderr, "bench_ntt: %s\n", err.msg);
        return 2;
    }
    threads = czk_pool_threads(pool);
    size_t nmax = (size_t)1 << hi;
    czk_fr *x = malloc(nmax * sizeof *x);
    if (!x) {
        fprintf(stderr, "bench_ntt: out of memory for 2^%u elements\n", hi);
        return 2;
    }
    czk_rng rng;
    czk_rng_seed(&rng, 1);
    for (size_t i = 0; i < nmax; i++) {
        if (czk_fr_random(&x[i], &rng, &err)) {
            fprintf(stderr, "bench_ntt: %s\n", err.msg);
            return 2;
        }
    }

    static const struct {
        czk_ntt_kind kind;
        const char *name;
    } KINDS[] = {{CZK_NTT_FORWARD, "forward"}, {CZK_NTT_COSET_INVERSE, "coset-inverse"}};
    printf(
        "| log_n | N | kind | threads | runs | best wall ms | its CPU ms | CPU ns/butterfly |\n");
    printf("|---:|---:|---|---:|---:|---:|---:|---:|\n");
    for (unsigned log_n = lo; log_n <= hi; log_n++) {
        size_t n = (size_t)1 << log_n;
        unsigned runs = log_n <= 18 ? 10 : log_n <= 21 ? 5 : 3;
        for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++) {
            double best = 1e300, best_cpu = 0;
            for (unsigned r = 0; r <= runs; r++) { /* run 0 warms up */
                double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
                if (czk_ntt(x, log_n, KINDS[k].kind, pool, &err)) {
                    fprintf(stderr, "bench_ntt: %s\n", err.msg);
                    return 2;
                }
                double t = clock_ms(CLOCK_MONOTONIC) - t0;
                double c = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
                if (r && t < best) {
                    best = t;
                    best_cpu = c;
                }
            }
            double butterflies = (double)n / 2 * log_n;
            printf("| %u | %zu | %s | %u | %u | %.2f | %.2f | %.1f |\n", log_n, n, KINDS[k].name,
                   threads, runs, best, best_cpu, best_cpu * 1e6 / butterflies);
            fflush(stdout);
        }
    }
    free(x);
    czk_pool_destroy(pool);
    return 0;
}
