/*
 * bench_witness_pack: czk_witness_pack, the engine's packing of a witness
 * for the GPU upload (2 bits a value and the values neither 0 nor 1), on a
 * synthetic witness of the 32GiB PoRep mix, with N threads.
 *
 *   bench_witness_pack [LOG2_VALUES [THREADS[,THREADS...] [REPEATS]]]
 *       LOG2_VALUES  z holds 2^LOG2_VALUES values (default 27: a 32GiB
 *                    partition has 130.3 M ≈ 2^26.96)
 *       THREADS      pool sizes to run (default 1,2,4 and the online CPUs)
 *       REPEATS      runs per row, the best kept (default 3)
 *
 * The witness: 51 % zeros, 47 % ones (czk_fr_one), 2 % others (the mix
 * bench/GPU.md measured on 32GiB partitions), made and touched before the
 * clock, as is the packed block (in the engine both live in the witness
 * buffer, page-locked once). Rows: threads, wall ms (best of the repeats),
 * the witness's GB read per second, others, packed MB (codes + others) and
 * its ratio to the witness's bytes; then a dense witness (every value an
 * other, as WindowPoSt's), which does not fit the room and stops early.
 * Each packed result is checked against the first row's (codes and others
 * byte for byte).
 */
#include "czk/pool.h"
#include "czk/r1cs.h"
#include "mixed_witness.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double best_pack(czk_witness_packed *p, const czk_witness *w, czk_pool *pool,
                        unsigned repeats, bool *packed) {
    double best = 1e30;
    for (unsigned r = 0; r < repeats; r++) {
        double t0 = czk_now();
        *packed = czk_witness_pack(p, w, pool);
        double t = czk_now() - t0;
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv) {
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 27;
    if (lg < 5 || lg > 31) {
        fprintf(stderr, "bench_witness_pack: LOG2_VALUES %u: 5..31\n", lg);
        return 2;
    }
    char deflist[64];
    snprintf(deflist, sizeof deflist, "1,2,4,%u", czk_cpu_count());
    const char *tlist = argc > 2 ? argv[2] : deflist;
    unsigned repeats = argc > 3 ? (unsigned)atoi(argv[3]) : 3;
    if (repeats < 1) repeats = 1;
    uint64_t n = 1ull << lg;
    size_t zbytes = n * sizeof(czk_fr), pbytes = czk_witness_packed_bytes(n);
    czk_fr *z = malloc(zbytes);
    void *block = malloc(pbytes), *first = malloc(pbytes);
    if (!z || !block || !first) {
        fprintf(stderr, "bench_witness_pack: cannot allocate %zu + 2 × %zu bytes\n", zbytes,
                pbytes);
        return 1;
    }
    double t0 = czk_now();
    uint64_t rng = 1;
    mw_fill(z, n, 510000, 20000, &rng);
    memset(block, 0, pbytes);
    czk_witness w = {.inputs = z, .aux = z + 1, .num_inputs = 1, .num_aux = (uint32_t)(n - 1)};
    czk_witness_packed p;
    czk_witness_packed_place(&p, block, n);
    printf("witness: 2^%u values (%.2f GiB), 51 %% zero, 47 %% one, 2 %% other; room for %llu "
           "others (%.1f MB); made in %.1f s\n\n",
           lg, (double)zbytes / (1ull << 30), (unsigned long long)p.others_cap,
           (double)pbytes / 1e6, czk_now() - t0);
    printf("| threads | pack ms | GB/s read | others | packed MB | packed / witness |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    char *list = strdup(tlist);
    bool have_first = false;
    unsigned last = 1;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        unsigned nt = (unsigned)atoi(tok);
        if (nt < 1 || nt > 256) continue;
        czk_err err;
        czk_pool *pool = nt > 1 ? czk_pool_create(nt, &err) : NULL;
        if (nt > 1 && !pool) {
            fprintf(stderr, "bench_witness_pack: pool of %u: %s\n", nt, err.msg);
            return 1;
        }
        bool ok;
        double t = best_pack(&p, &w, pool, repeats, &ok);
        if (!ok) {
            fprintf(stderr, "bench_witness_pack: the witness did not pack\n");
            return 1;
        }
        size_t used = (size_t)((n + 31) / 32 * 8 + p.num_others * sizeof(czk_fr));
        if (!have_first) {
            memcpy(first, block, pbytes);
            have_first = true;
        } else if (memcmp(first, p.codes, (n + 31) / 32 * 8) ||
                   memcmp((const char *)first + ((const char *)p.others - (const char *)block),
                          p.others, p.num_others * sizeof(czk_fr))) {
            fprintf(stderr, "bench_witness_pack: %u threads packed differently\n", nt);
            return 1;
        }
        printf("| %u | %.1f | %.1f | %llu | %.1f | %.4f |\n", nt, t * 1e3, (double)zbytes / t / 1e9,
               (unsigned long long)p.num_others, (double)used / 1e6, (double)used / zbytes);
        fflush(stdout);
        czk_pool_destroy(pool);
        last = nt;
    }
    free(list);
    /* dense: every value an other; the room overflows after about a chunk per thread */
    mw_fill(z, n, 0, 1000000, &rng);
    czk_err err;
    czk_pool *pool = last > 1 ? czk_pool_create(last, &err) : NULL;
    bool ok;
    double t = best_pack(&p, &w, pool, repeats, &ok);
    printf("\ndense witness (every value an other), %u thread%s: %s in %.2f ms\n", last,
           last == 1 ? "" : "s", ok ? "packed (unexpected)" : "not packed", t * 1e3);
    czk_pool_destroy(pool);
    free(z);
    free(block);
    free(first);
    return ok ? 1 : 0;
}
