/*
 * bench_poseidon [hashes]: single-thread Poseidon times per hash, in ns of
 * thread CPU time.
 *
 * For arities 2, 8 and 11 it times (best of 5 runs after a warm-up, each run
 * `hashes` hashes, default 2000; RECORD runs hashes/20):
 *   native   czk_poseidon_hash_with on random preimages (chained: each
 *            output feeds the next preimage);
 *   witness  czk_poseidon_circuit in a WITNESS-mode cs: one cs per run with
 *            `hashes` gadget calls on the same preimage variables, the aux
 *            assignment growing by constraints-per-hash each call;
 *   record   the same in RECORD mode (building the shape), for scale: it is
 *            dominated by the partial rounds' linear combinations, which
 *            grow by one term per round (as in bellperson).
 * Constant generation happens before timing. A first line gives the time of
 * one Fr multiplication (a dependent chain of 2^20, best of 5), and the
 * "native/mul" column the native hash in multiplication units, which stays
 * comparable across machines and under load.
 */
#include "czk/poseidon.h"
#include "czk/r1cs.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CPU time of this thread: all work here is single-threaded, and CPU time
 * stays meaningful on a machine shared with other jobs, where wall time
 * measures the share of a core the process got. */
static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

typedef struct job {
    unsigned arity, hashes;
    const czk_fr *values;
} job;

static czk_status circuit(czk_cs *cs, void *arg) {
    job *j = arg;
    czk_var in[CZK_POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < j->arity; i++)
        in[i] = czk_cs_alloc(cs, &j->values[i]);
    for (unsigned h = 0; h < j->hashes; h++) {
        czk_status st = czk_poseidon_circuit(cs, in, j->values, j->arity, NULL, NULL);
        if (st) return st;
    }
    return CZK_OK;
}

/* ns per hash of one cs run in `mode`, or a negative value on error. */
static double time_cs(czk_cs_mode mode, job *j, uint32_t per_hash) {
    czk_err err;
    czk_cs *cs = czk_cs_create(mode, NULL, &err);
    if (!cs) {
        fprintf(stderr, "bench_poseidon: %s\n", err.msg);
        return -1;
    }
    czk_cs_reserve(cs, 1, j->arity + per_hash * j->hashes, per_hash * j->hashes + 1);
    double t0 = now_ns();
    czk_status st = czk_cs_run(cs, circuit, j, &err);
    double t = now_ns() - t0;
    czk_cs_free(cs);
    if (st) {
        fprintf(stderr, "bench_poseidon: %s\n", err.msg);
        return -1;
    }
    return t / j->hashes;
}

int main(int argc, char **argv) {
    unsigned hashes = 2000;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 || (argc == 2 && (sscanf(argv[1], "%u", &hashes) != 1 || hashes == 0))) {
        fprintf(stderr, "usage: bench_poseidon [hashes]  (hashes per timed run, default 2000)\n");
        return 2;
    }
    static const unsigned ARITIES[] = {2, 8, 11};
    double mul_ns = 1e300;
    czk_fr x = czk_fr_one, y;
    czk_fr_from_u64(&y, 0x1234567);
    for (int run = 0; run <= 5; run++) {
        double t0 = now_ns();
        for (int i = 0; i < (1 << 20); i++)
            czk_fr_mul(&x, &x, &y);
        double t = (now_ns() - t0) / (1 << 20);
        if (run && t < mul_ns) mul_ns = t;
    }
    printf("Fr mul: %.1f ns (chain result %s)\n\n", mul_ns,
           czk_fr_is_zero(&x) ? "zero" : "non-zero");
    printf("| arity | constraints/hash | native ns | native/mul | witness ns | record ns |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (size_t k = 0; k < sizeof ARITIES / sizeof ARITIES[0]; k++) {
        const unsigned a = ARITIES[k];
        czk_err err;
        const czk_poseidon_constants *pc = czk_poseidon_constants_get(a, &err);
        if (!pc) {
            fprintf(stderr, "bench_poseidon: %s\n", err.msg);
            return 2;
        }
        czk_rng rng;
        czk_rng_seed(&rng, a);
        czk_fr pre[CZK_POSEIDON_MAX_ARITY];
        for (unsigned i = 0; i < a; i++)
            if (czk_fr_random(&pre[i], &rng, &err)) return 2;
        const uint32_t per_hash = 3 * a + 4 * (7 * pc->width + pc->partial_rounds) + 1;

        double best[3] = {1e300, 1e300, 1e300};
        for (int run = 0; run <= 5; run++) { /* run 0 warms up */
            double t0 = now_ns();
            for (unsigned h = 0; h < hashes; h++)
                czk_poseidon_hash_with(pc, &pre[h % a], pre);
            double native = (now_ns() - t0) / hashes;
            job j = {a, hashes, pre}, jr = {a, hashes / 20 ? hashes / 20 : 1, pre};
            double wit = time_cs(CZK_CS_WITNESS, &j, per_hash);
            double rec = time_cs(CZK_CS_RECORD, &jr, per_hash);
            if (wit < 0 || rec < 0) return 2;
            if (run) {
                if (native < best[0]) best[0] = native;
                if (wit < best[1]) best[1] = wit;
                if (rec < best[2]) best[2] = rec;
            }
        }
        printf("| %u | %u | %.0f | %.0f | %.0f | %.0f |\n", a, per_hash, best[0], best[0] / mul_ns,
               best[1], best[2]);
    }
    return 0;
}
