/*
 * bench_witness: partition witnesses per second with N threads, in fresh
 * buffers (czk_porep_witness_generate: malloc'ed arrays grown as the
 * circuit allocates, freed after each witness) against reused ones
 * (czk_porep_witness_generate_into: one buffer per thread, allocated and
 * touched before the clock by czk_hostmem_alloc, as the engine's pool and
 * czk prove do without a GPU backend's host_alloc).
 *
 *   bench_witness SIZE [THREADS[,THREADS...] [PER_THREAD [C1_FILE]]]
 *       SIZE        2KiB, 8MiB, 512MiB, 32GiB or 64GiB
 *       THREADS     thread counts to run, e.g. 1,4,8,12,16 (default 1,2)
 *       PER_THREAD  witnesses each thread makes per run (default 2)
 *       C1_FILE     a raw C1 JSON of that size (`czk gen-vanilla --sparse`);
 *                   default: a sparse C1 made here (czk_seal_generate, seconds)
 *
 * Thread t makes partitions t, t + N, ... (mod the C1's partitions). One
 * untimed witness first learns the counts and warms the C1. Rows: threads,
 * buffers, witnesses, wall seconds, witnesses per second, mean seconds per
 * witness, and for reused buffers the time spent allocating and touching
 * them before the clock (not in the wall). Expected on the H200 host at 32GiB (spec/perf-anchors.md
 * §9): fresh 0.34/s at 1 thread, 2.43/s at 16; reused should be near-linear until memory bandwidth
 * binds (a witness writes 4.2 GB: 16 of them in 3 s are ~22 GB/s of stores), so ≥ 1/s with a few
 * threads.
 */
#include "czk/porep_c1.h"
#include "czk/porep_circuit.h"
#include "czk/porep_prove.h"
#include "czk/seal.h"
#include "sector.h"
#include "util/hostmem.h"
#include "util/proc.h"
#include "util/time.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_witness: %s: %s\n", what, err->msg);
    exit(1);
}

typedef struct run {
    const czk_c1 *c1;
    unsigned threads, per_thread;
    bool reuse;
    uint32_t ni, na;
    pthread_barrier_t go;
} run;

typedef struct worker {
    run *r;
    unsigned t;
    czk_fr *buf; /* reused: inputs, then aux */
    double secs; /* sum over its witnesses */
    pthread_t th;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    run *r = w->r;
    pthread_barrier_wait(&r->go);
    for (unsigned i = 0; i < r->per_thread; i++) {
        uint32_t k = (w->t + i * r->threads) % r->c1->num_partitions;
        czk_err err;
        czk_porep_witness *pw = NULL;
        double t0 = czk_now();
        if (czk_porep_witness_from_c1(&pw, r->c1, k, &err)) die("witness_from_c1", &err);
        if (r->reuse) {
            czk_witness b = {w->buf, w->buf + r->ni, r->ni, r->na, NULL};
            if (czk_porep_witness_generate_into(&b, &pw->config, pw, NULL, &err))
                die("witness_generate_into", &err);
        } else {
            czk_witness x;
            if (czk_porep_witness_generate(&x, &pw->config, pw, NULL, &err))
                die("witness_generate", &err);
            czk_witness_free(&x);
        }
        w->secs += czk_now() - t0;
        czk_porep_witness_free(pw);
    }
    return NULL;
}

static void one(run *r) {
    worker *ws = calloc(r->threads, sizeof *ws);
    if (!ws) exit(1);
    size_t bytes = ((size_t)r->ni + r->na) * sizeof(czk_fr);
    double t_alloc = czk_now();
    for (unsigned t = 0; t < r->threads; t++) {
        ws[t] = (worker){.r = r, .t = t};
        if (r->reuse && !(ws[t].buf = czk_hostmem_alloc(bytes))) {
            fprintf(stderr, "bench_witness: cannot allocate %zu bytes\n", bytes);
            exit(1);
        }
    }
    t_alloc = czk_now() - t_alloc;
    pthread_barrier_init(&r->go, NULL, r->threads + 1);
    for (unsigned t = 0; t < r->threads; t++)
        if (pthread_create(&ws[t].th, NULL, work, &ws[t])) exit(1);
    pthread_barrier_wait(&r->go);
    double t0 = czk_now();
    double sum = 0;
    for (unsigned t = 0; t < r->threads; t++) {
        pthread_join(ws[t].th, NULL);
        sum += ws[t].secs;
    }
    double w = czk_now() - t0;
    pthread_barrier_destroy(&r->go);
    unsigned n = r->threads * r->per_thread;
    if (r->reuse)
        printf("| %u | reused | %u | %.3f | %.3f | %.3f | %.3f |\n", r->threads, n, w, n / w,
               sum / n, t_alloc);
    else
        printf("| %u | fresh | %u | %.3f | %.3f | %.3f | – |\n", r->threads, n, w, n / w, sum / n);
    fflush(stdout);
    for (unsigned t = 0; t < r->threads; t++)
        czk_hostmem_free(ws[t].buf, bytes);
    free(ws);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr,
                "usage: bench_witness SIZE [THREADS[,THREADS...] [PER_THREAD [C1_FILE]]]\n");
        return 2;
    }
    const czk_porep_shape *shape = NULL;
    for (unsigned i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (!strcmp(argv[1], czk_porep_shapes[i].name)) shape = &czk_porep_shapes[i];
    if (!shape) {
        fprintf(stderr, "bench_witness: sector size %s: one of 2KiB, 8MiB, 512MiB, 32GiB, 64GiB\n",
                argv[1]);
        return 2;
    }
    const char *tlist = argc > 2 ? argv[2] : "1,2";
    unsigned per = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
    if (per < 1) per = 1;
    czk_err err;
    czk_c1 *c1 = NULL;
    double t0 = czk_now();
    if (argc > 4) {
        FILE *f = fopen(argv[4], "rb");
        if (!f) {
            perror(argv[4]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *b = malloc((size_t)len + 1);
        if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) return 1;
        fclose(f);
        if (czk_c1_parse(&c1, b, (size_t)len, &err)) die(argv[4], &err);
        free(b);
    } else {
        czk_test_sector ts = {.registered_proof = shape->proof_ids[1] /* V1_1 */,
                              .seed = 2,
                              .data_seed = 3,
                              .sparse = true};
        if (czk_test_seal(&c1, &ts, NULL, &err)) die("sparse C1", &err);
    }
    double t_c1 = czk_now() - t0;
    /* one witness untimed: the counts, and the C1 in memory */
    czk_porep_witness *pw = NULL;
    czk_witness x;
    t0 = czk_now();
    if (czk_porep_witness_from_c1(&pw, c1, 0, &err) ||
        czk_porep_witness_generate(&x, &pw->config, pw, NULL, &err))
        die("first witness", &err);
    double t_first = czk_now() - t0;
    run r = {.c1 = c1, .per_thread = per, .ni = x.num_inputs, .na = x.num_aux};
    czk_witness_free(&x);
    czk_porep_witness_free(pw);
    printf("%s: %u partitions, %u inputs, %u aux (%.2f GiB per witness); C1 %.2f s, first "
           "witness %.3f s\n\n",
           shape->name, c1->num_partitions, r.ni, r.na,
           ((double)r.ni + r.na) * 32 / (double)(1ull << 30), t_c1, t_first);
    printf(
        "| threads | buffers | witnesses | wall s | witnesses/s | s per witness | buffer setup s "
        "|\n");
    printf("|---:|---|---:|---:|---:|---:|---:|\n");
    char *list = strdup(tlist);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        unsigned n = (unsigned)atoi(tok);
        if (n < 1 || n > 256) continue;
        r.threads = n;
        r.reuse = false;
        one(&r);
        r.reuse = true;
        one(&r);
    }
    free(list);
    printf("\npeak RSS %.2f GiB\n", (double)czk_proc_status_bytes(0, "VmHWM") / (1ull << 30));
    czk_c1_free(c1);
    return 0;
}
