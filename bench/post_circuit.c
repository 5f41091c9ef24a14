/*
 * PoSt circuit benchmark: one FallbackPoSt partition recorded (RECORD: the
 * CSR shape and densities, czk_post_record) and its blank witness generated
 * (WITNESS with all-zero values, czk_post_witness_generate: zeros take every
 * gadget's value path), on pools of 1, 2, 4, ... threads, and optionally the
 * serial run of the whole circuit that both must equal (czk_cs_record /
 * czk_cs_witness of czk_post_circuit_fn: every sector synthesized, one
 * thread). One row per thread count: wall and CPU seconds of each (the
 * system part, mostly first touches of fresh pages, in parentheses); then a
 * digest of the shape's arrays and of the assignment, which must be the same
 * in every row ("same" / "DIFFERS"), and the peak resident set.
 *
 *   bench_post_circuit [--kind window|winning] [--sector-size 2KiB|...|64GiB]
 *                      [--sectors N] [--threads 1,2,4] [--serial] [--reps R]
 *
 * --sectors overrides the shape's sector count (e.g. 100 of the 32GiB
 * WindowPoSt's 2349, where the serial recording takes minutes); a whole
 * 32GiB WindowPoSt shape takes ~12 GB and its assignment ~4 GB.
 */
#include "czk/post.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_post_circuit: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

/* A digest of n bytes (not cryptographic: a change anywhere changes it, almost surely). */
static uint64_t digest(uint64_t h, const void *p, size_t n) {
    const uint8_t *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h ^ n;
}

static uint64_t shape_digest(const czk_shape *s) {
    uint64_t h = digest(0xcbf29ce484222325ull, &s->num_inputs, sizeof s->num_inputs);
    h = digest(h, &s->num_aux, sizeof s->num_aux);
    h = digest(h, &s->num_constraints, sizeof s->num_constraints);
    for (int i = 0; i < 3; i++) {
        h = digest(h, s->m[i].row_ptr, (s->num_constraints + 1) * sizeof(uint64_t));
        h = digest(h, s->m[i].col, s->m[i].nnz * sizeof(uint32_t));
        h = digest(h, s->m[i].coeff, s->m[i].nnz * sizeof(uint32_t));
    }
    h = digest(h, s->coeffs, s->num_coeffs * sizeof(czk_fr));
    const czk_bitmap *bm[3] = {&s->a_aux, &s->b_input, &s->b_aux};
    for (int i = 0; i < 3; i++)
        h = digest(h, bm[i]->words, (bm[i]->len + 63) / 64 * sizeof(uint64_t));
    return h;
}

static uint64_t witness_digest(const czk_witness *w) {
    uint64_t h = digest(0xcbf29ce484222325ull, w->inputs, w->num_inputs * sizeof(czk_fr));
    return digest(h, w->aux, (size_t)w->num_aux * sizeof(czk_fr));
}

typedef struct timing {
    double wall, cpu, sys; /* cpu: user + system; sys: the system part (page faults) */
    uint64_t digest;
} timing;

static double sys_now(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* threads 0: the serial run of czk_post_circuit_fn. Best of reps. */
static void run(const czk_post_config *cfg, unsigned threads, int reps, timing *rec, timing *wit,
                uint64_t *n, uint64_t *nnz) {
    czk_err err;
    czk_pool *pool = NULL;
    if (threads && !(pool = czk_pool_create(threads, &err))) die("pool", &err);
    czk_post_circuit c = {cfg, NULL};
    rec->wall = rec->cpu = wit->wall = wit->cpu = 1e30;
    for (int r = 0; r < reps; r++) {
        czk_shape *sh = NULL;
        double w0 = czk_now(), c0 = czk_cpu_now(), s0 = sys_now();
        czk_status st = threads ? czk_post_record(&sh, cfg, pool, NULL, &err)
                                : czk_cs_record(&sh, czk_post_circuit_fn, &c, NULL, &err);
        if (st) die("record", &err);
        double w1 = czk_now(), c1 = czk_cpu_now(), s1 = sys_now();
        if (w1 - w0 < rec->wall) rec->wall = w1 - w0;
        if (c1 - c0 < rec->cpu) {
            rec->cpu = c1 - c0;
            rec->sys = s1 - s0;
        }
        if (r == 0) {
            rec->digest = shape_digest(sh);
            *n = sh->num_constraints;
            *nnz = sh->m[0].nnz + sh->m[1].nnz + sh->m[2].nnz;
        }
        czk_shape_free(sh);
    }
    for (int r = 0; r < reps; r++) {
        czk_witness w;
        double w0 = czk_now(), c0 = czk_cpu_now(), s0 = sys_now();
        czk_status st = threads ? czk_post_witness_generate(&w, cfg, NULL, pool, NULL, &err)
                                : czk_cs_witness(&w, czk_post_circuit_fn, &c, NULL, &err);
        if (st) die("witness", &err);
        double w1 = czk_now(), c1 = czk_cpu_now(), s1 = sys_now();
        if (w1 - w0 < wit->wall) wit->wall = w1 - w0;
        if (c1 - c0 < wit->cpu) {
            wit->cpu = c1 - c0;
            wit->sys = s1 - s0;
        }
        if (r == 0) wit->digest = witness_digest(&w);
        czk_witness_free(&w);
    }
    czk_pool_destroy(pool);
}

int main(int argc, char **argv) {
    const char *kind_arg = "window", *size_arg = "32GiB", *threads_arg = NULL;
    unsigned sectors = 0;
    int reps = 1;
    bool serial = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--serial")) {
            serial = true;
            continue;
        }
        if (!v) die(a, NULL);
        i++;
        if (!strcmp(a, "--kind"))
            kind_arg = v;
        else if (!strcmp(a, "--sector-size"))
            size_arg = v;
        else if (!strcmp(a, "--sectors"))
            sectors = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--threads"))
            threads_arg = v;
        else if (!strcmp(a, "--reps"))
            reps = atoi(v) < 1 ? 1 : atoi(v);
        else
            die(a, NULL);
    }
    const czk_post_shape *shape = NULL;
    for (int i = 0; i < CZK_POST_SHAPE_COUNT; i++)
        if (!strcmp(czk_post_shapes[i].name, size_arg)) shape = &czk_post_shapes[i];
    if (!shape || (strcmp(kind_arg, "window") && strcmp(kind_arg, "winning")))
        die("--kind window|winning, --sector-size 2KiB|8MiB|512MiB|32GiB|64GiB", NULL);
    czk_post_config cfg;
    czk_post_config_for(&cfg, strcmp(kind_arg, "window") ? CZK_POST_WINNING : CZK_POST_WINDOW,
                        shape);
    if (sectors) cfg.sectors = sectors;

    unsigned list[32], nt = 0, ncpu = czk_cpu_count();
    if (threads_arg) {
        for (const char *p = threads_arg; *p && nt < 32;) {
            list[nt++] = (unsigned)strtoul(p, NULL, 10);
            p = strchr(p, ',');
            if (!p) break;
            p++;
        }
    } else {
        for (unsigned t = 1; t < ncpu && nt < 31; t *= 2)
            list[nt++] = t;
        list[nt++] = ncpu;
    }

    struct utsname u;
    uname(&u);
    printf("bench_post_circuit: %s PoSt %s, %u sectors x %u challenges, best of %d, %s %s, "
           "%u CPUs\n\n",
           kind_arg, shape->name, cfg.sectors, cfg.challenges, reps, u.sysname, u.machine, ncpu);
    printf("| threads | record wall s | record cpu s (sys) | witness wall s | witness cpu s (sys) "
           "| shape | witness |\n");
    printf("|---------|---------------|--------------------|----------------|--------------------"
           "-|-------|---------|\n");
    uint64_t n = 0, nnz = 0, shape_ref = 0, wit_ref = 0;
    bool have_ref = false;
    for (unsigned k = serial ? 0 : 1; k <= nt; k++) {
        unsigned t = k ? list[k - 1] : 0;
        if (k && t == 0) continue;
        timing rec = {0, 0, 0, 0}, wit = {0, 0, 0, 0};
        run(&cfg, t, reps, &rec, &wit, &n, &nnz);
        if (!have_ref) {
            shape_ref = rec.digest;
            wit_ref = wit.digest;
            have_ref = true;
        }
        char name[16];
        snprintf(name, sizeof name, "%u", t);
        printf("| %-7s | %13.3f | %9.3f (%6.3f) | %14.3f | %10.3f (%6.3f) | %-5s | %-7s |\n",
               t ? name : "serial", rec.wall, rec.cpu, rec.sys, wit.wall, wit.cpu, wit.sys,
               rec.digest == shape_ref ? "same" : "DIFFERS",
               wit.digest == wit_ref ? "same" : "DIFFERS");
        fflush(stdout);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("\nconstraints %llu, non-zeros %llu, shape digest %016llx, witness digest %016llx\n"
           "peak RSS: %.2f GiB\n",
           (unsigned long long)n, (unsigned long long)nnz, (unsigned long long)shape_ref,
           (unsigned long long)wit_ref, (double)ru.ru_maxrss / (1024.0 * 1024.0));
    return 0;
}
