/*
 * bench_graph [threads...]: time to build the SDR parent cache.
 *
 * For 2KiB, 8MiB and 512MiB (V1_1 graphs, porep_id 5/6/7) and each thread
 * count given (default: 1 and all online CPUs) it times
 *   - graph creation (SHA-256 seeds and the 3 Feistel round-function tables),
 *   - filling the whole cache in memory (14 u32 per node, 896 MiB for 512MiB),
 * and prints the best of several runs (one for 512MiB) in milliseconds, with
 * the fill rate in million nodes per second and the CPU time of the fill
 * (all threads) per node, which stays meaningful on a shared machine. The cache digest (SHA-256) is
 * not timed: it is a verification path, not part of building the cache.
 */
#include "czk/porep_graph.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* User + system CPU time of the whole process (all threads), ms. */
static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv) {
    unsigned counts[16], nc = 0;
    for (int i = 1; i < argc; i++) {
        char *end;
        unsigned long v = strtoul(argv[i], &end, 10);
        if (*argv[i] == 0 || *end != 0 || v > 4096 || nc == 16) {
            fprintf(stderr, "usage: bench_graph [threads...]  (up to 16 counts; 0 = all CPUs)\n");
            return 2;
        }
        counts[nc++] = (unsigned)v;
    }
    if (nc == 0) {
        counts[nc++] = 1;
        if (czk_cpu_count() > 1) counts[nc++] = 0;
    }
    static const struct {
        const char *name;
        uint64_t nodes, proof;
    } SIZES[] = {{"2KiB", 64, 5}, {"8MiB", 1ULL << 18, 6}, {"512MiB", 1ULL << 24, 7}};

    uint32_t *buf = malloc((1ULL << 24) * CZK_POREP_DEGREE * sizeof *buf);
    if (!buf) {
        fprintf(stderr, "bench_graph: out of memory for the 512MiB cache (896 MiB)\n");
        return 2;
    }
    printf(
        "| size | nodes | threads | runs | create ms | fill ms | Mnodes/s | fill CPU ns/node |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (unsigned c = 0; c < nc; c++) {
        czk_err err;
        czk_pool *pool = czk_pool_create(counts[c], &err);
        if (!pool) {
            fprintf(stderr, "bench_graph: %s\n", err.msg);
            return 2;
        }
        unsigned threads = czk_pool_threads(pool);
        for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
            uint8_t pid[32] = {0};
            czk_porep_id(pid, SIZES[s].proof);
            unsigned runs = SIZES[s].nodes >= (1ULL << 24) ? 1 : SIZES[s].nodes > 64 ? 5 : 50;
            double best_create = 1e300, best_fill = 1e300, best_cpu = 1e300;
            for (unsigned r = 0; r <= runs; r++) { /* run 0 warms up */
                czk_porep_graph *g;
                double t0 = (1e3 * czk_now());
                if (czk_porep_graph_create(&g, SIZES[s].nodes, pid, CZK_POREP_API_1_1, pool,
                                           &err)) {
                    fprintf(stderr, "bench_graph: %s\n", err.msg);
                    return 2;
                }
                double t1 = (1e3 * czk_now()), c1 = cpu_ms();
                if (czk_porep_graph_fill_cache(g, 0, SIZES[s].nodes, buf, pool, &err)) {
                    fprintf(stderr, "bench_graph: %s\n", err.msg);
                    return 2;
                }
                double t2 = (1e3 * czk_now()), c2 = cpu_ms();
                czk_porep_graph_destroy(g);
                if (r && c2 - c1 < best_cpu) best_cpu = c2 - c1;
                if (r && t1 - t0 < best_create) best_create = t1 - t0;
                if (r && t2 - t1 < best_fill) best_fill = t2 - t1;
            }
            printf("| %s | %llu | %u | %u | %.3f | %.3f | %.2f | %.0f |\n", SIZES[s].name,
                   (unsigned long long)SIZES[s].nodes, threads, runs, best_create, best_fill,
                   SIZES[s].nodes / best_fill / 1e3, best_cpu * 1e6 / SIZES[s].nodes);
            fflush(stdout);
        }
        czk_pool_destroy(pool);
    }
    free(buf);
    return 0;
}
