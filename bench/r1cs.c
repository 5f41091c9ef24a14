/*
 * R1CS benchmark: a synthetic circuit of about 2^k constraints (default
 * k = 20) made of the patterns that dominate Filecoin's PoRep circuit:
 * booleans, products, to_bits-style packing (0·0 = Σ 2^i·b_i − v, a long C
 * row) and linear combinations with assorted coefficients. Prints the time to
 * synthesize in RECORD, WITNESS and CHECK mode, the SpMV a,b,c = (A,B,C)·z on
 * 1 and all threads, the shape's bytes per non-zero, and the shape file's
 * write / read times.
 *
 *   bench_r1cs [log2_constraints] [dir for the shape file] [threads]
 *
 * And the shape cache's reader on existing shape files (e.g. those of
 * ~/.cache/czk/shapes): each file is read once to warm the page cache, then
 * with each thread count (best of 3, every result compared with the
 * one-thread read); the last column scales the time by bytes to the 32GiB
 * partition's shape file (8.94e9 bytes = 8.32 GiB: 130,278,869 constraints,
 * 722,388,891 non-zeros).
 *
 *   bench_r1cs --read THREADS[,THREADS...] FILE...
 */
#include "czk/r1cs.h"
#include "r1cs/r1cs_internal.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

typedef struct bench_ctx {
    uint64_t target; /* constraints */
} bench_ctx;

typedef struct timing {
    double wall, cpu;
} timing;

static czk_status circuit(czk_cs *cs, void *arg) {
    bench_ctx *c = arg;
    bool rec = czk_cs_records(cs);
    czk_rng rng;
    czk_rng_seed(&rng, 1);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, d = CZK_LC_INIT;
    czk_fr vals[32];
    czk_var vars[32];
    czk_fr r;
    if (czk_fr_random(&r, &rng, NULL)) return CZK_ERR_INTERNAL;
    czk_var x = czk_cs_alloc(cs, &r);
    czk_fr xv = r;
    czk_cs_push_ns(cs, "bench");
    for (uint64_t blk = 0; czk_cs_num_constraints(cs) < c->target; blk++) {
        czk_cs_push_ns(cs, "block %llu", (unsigned long long)blk);
        /* 32 booleans, then 0·0 = Σ 2^i b_i − v */
        uint64_t w = czk_rng_u64(&rng) & 0xffffffffu;
        czk_fr v;
        czk_fr_from_u64(&v, w);
        czk_var vv = czk_cs_alloc(cs, &v);
        for (unsigned i = 0; i < 32; i++) {
            czk_fr_from_u64(&vals[i], (w >> i) & 1);
            vars[i] = czk_cs_alloc(cs, &vals[i]);
            if (rec) {
                czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&d);
                czk_lc_add_var(cs, &a, CZK_VAR_ONE);
                czk_lc_sub_var(cs, &a, vars[i]);
                czk_lc_add_var(cs, &b, vars[i]);
                czk_cs_enforce(cs, &a, &b, &d);
            }
        }
        if (rec) {
            czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&d);
            for (unsigned i = 0; i < 32; i++)
                czk_lc_add(cs, &d, vars[i], czk_fr_pow2(i));
            czk_lc_sub_var(cs, &d, vv);
            czk_cs_enforce(cs, &a, &b, &d);
        }
        /* 16 products chained from x */
        for (unsigned i = 0; i < 16; i++) {
            czk_fr z;
            czk_fr_mul(&z, &xv, &vals[i]);
            czk_var zv = czk_cs_alloc(cs, &z);
            if (rec) {
                czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&d);
                czk_lc_add_var(cs, &a, x);
                czk_lc_add_var(cs, &b, vars[i]);
                czk_lc_add_var(cs, &d, zv);
                czk_cs_enforce(cs, &a, &b, &d);
            }
        }
        /* (Σ 8 terms with coefficients 3, −1, 2^k)·ONE = s */
        czk_fr s = czk_fr_zero, t, three;
        czk_fr_from_u64(&three, 3);
        if (rec) czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&d);
        for (unsigned i = 0; i < 8; i++) {
            const czk_fr *co = i % 3 == 0   ? &three
                               : i % 3 == 1 ? &czk_fr_minus_one
                                            : czk_fr_pow2(i * 29);
            czk_fr_mul(&t, &vals[i * 4], co);
            czk_fr_add(&s, &s, &t);
            if (rec) czk_lc_add(cs, &a, vars[i * 4], co);
        }
        czk_var sv = czk_cs_alloc(cs, &s);
        if (rec) {
            czk_lc_add_var(cs, &b, CZK_VAR_ONE);
            czk_lc_add_var(cs, &d, sv);
            czk_cs_enforce(cs, &a, &b, &d);
        }
        /* an input now and then: inputize the block's value */
        if (blk % 4096 == 0) {
            czk_var in = czk_cs_alloc_input(cs, &v);
            if (rec) {
                czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&d);
                czk_lc_add_var(cs, &a, in);
                czk_lc_add_var(cs, &b, CZK_VAR_ONE);
                czk_lc_add_var(cs, &d, vv);
                czk_cs_enforce(cs, &a, &b, &d);
            }
        }
        czk_cs_pop_ns(cs);
        if (!rec && czk_cs_num_aux(cs) >= c->target)
            break; /* WITNESS: stop at the same aux count */
    }
    czk_cs_pop_ns(cs);
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&d);
    return CZK_OK;
}

static void row(const char *what, timing t, size_t n) {
    printf("| %s | %.1f | %.1f | %.1f |\n", what, 1e3 * t.wall, 1e3 * t.cpu,
           1e9 * t.wall / (double)n);
}

/* Runs the circuit in `mode`; returns the best wall and CPU seconds of `reps`. */
static timing run(czk_cs_mode mode, bench_ctx *c, int reps, czk_shape **shape, czk_witness *wit) {
    timing best = {1e30, 1e30};
    for (int i = 0; i < reps; i++) {
        czk_err err;
        czk_cs *cs = czk_cs_create(mode, NULL, &err);
        if (!cs) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        double t0 = czk_now(), c0 = czk_cpu_now();
        czk_status st = czk_cs_run(cs, circuit, c, &err);
        double t = czk_now() - t0, ct = czk_cpu_now() - c0;
        if (st) {
            fprintf(stderr, "run: %s\n", err.msg);
            exit(1);
        }
        if (t < best.wall) best.wall = t;
        if (ct < best.cpu) best.cpu = ct;
        if (i == reps - 1) {
            if (shape && czk_cs_take_shape(cs, shape, &err)) exit(1);
            if (wit && czk_cs_take_witness(cs, wit, &err)) exit(1);
        }
        czk_cs_free(cs);
    }
    return best;
}

/* bench_r1cs --read: the parallel shape file reader. */
static int bench_read(const char *list, int nfiles, char **files) {
    unsigned th[16];
    int nth = 0;
    for (const char *p = list; *p && nth < 16;) {
        th[nth++] = (unsigned)strtoul(p, (char **)&p, 10);
        if (*p == ',')
            p++;
        else if (*p) {
            fprintf(stderr, "threads: a comma-separated list, got '%s'\n", list);
            return 2;
        }
    }
    const double shape32g = 8.9384e9; /* 192 + 3 × 8 (n + 1) + 8 nnz + densities + table */
    struct utsname u;
    uname(&u);
    printf("shape file read (czk_shape_read_ex: pieces of 32 MiB, checksums and checks included), "
           "page cache warm; %s %s, %u CPUs\n\n",
           u.machine, u.release, czk_cpu_count());
    printf(
        "| file | MiB | threads | wall s (best of 3) | CPU s | GB/s | 32GiB shape, scaled (s) |\n"
        "|---|---:|---:|---:|---:|---:|---:|\n");
    for (int f = 0; f < nfiles; f++) {
        czk_err err;
        czk_shape *ref;
        czk_shape_read_opts one = {1, 0, 0, 0};
        if (czk_shape_read_ex(&ref, files[f], &one, &err)) { /* warms the cache */
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        FILE *fp = fopen(files[f], "rb");
        if (!fp) return 1;
        fseek(fp, 0, SEEK_END);
        double bytes = (double)ftell(fp);
        fclose(fp);
        const char *base = strrchr(files[f], '/');
        for (int i = 0; i < nth; i++) {
            timing best = {1e30, 1e30};
            for (int rep = 0; rep < 3; rep++) {
                czk_shape *s;
                double t0 = czk_now(), c0 = czk_cpu_now();
                czk_shape_read_opts o = {th[i], 0, 0, 0};
                if (czk_shape_read_ex(&s, files[f], &o, &err)) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                double t = czk_now() - t0, ct = czk_cpu_now() - c0;
                if (!czk_shape_equal(s, ref)) {
                    fprintf(stderr, "%s: %u threads read another shape than 1 thread\n", files[f],
                            th[i]);
                    return 1;
                }
                czk_shape_free(s);
                if (t < best.wall) best = (timing){t, ct};
            }
            printf("| %s | %.0f | %u | %.3f | %.3f | %.2f | %.2f |\n", base ? base + 1 : files[f],
                   bytes / 1048576.0, th[i] ? th[i] : czk_cpu_count(), best.wall, best.cpu,
                   bytes / best.wall / 1e9, best.wall * shape32g / bytes);
        }
        czk_shape_free(ref);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--read")) {
        if (argc < 4) {
            fprintf(stderr, "usage: bench_r1cs --read THREADS[,THREADS...] FILE...\n");
            return 2;
        }
        return bench_read(argv[2], argc - 3, argv + 3);
    }
    unsigned k = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    if (k < 10 || k > 28) {
        fprintf(stderr, "log2_constraints must be in [10, 28]\n");
        return 2;
    }
    bench_ctx c = {.target = 1ull << k};
    czk_err err;
    czk_pool *pool = czk_pool_create(threads, &err);
    if (!pool) return 1;

    czk_shape *s;
    czk_witness w;
    timing t_rec = run(CZK_CS_RECORD, &c, 3, &s, NULL);
    struct rusage ru; /* peak RSS so far: the RECORD runs and the shape they left */
    getrusage(RUSAGE_SELF, &ru);
    double peak_rec = (double)ru.ru_maxrss * 1024.0;
    c.target = s->num_aux; /* WITNESS builds no constraints: stop at the same aux count */
    timing t_wit = run(CZK_CS_WITNESS, &c, 3, NULL, &w);
    c.target = 1ull << k;
    czk_shape *s2;
    czk_witness w2;
    timing t_chk = run(CZK_CS_CHECK, &c, 1, &s2, &w2);
    if (!czk_shape_equal(s, s2) || w.num_aux != s->num_aux ||
        memcmp(w.aux, w2.aux, (size_t)w.num_aux * sizeof(czk_fr)) != 0) {
        fprintf(stderr, "modes disagree\n");
        return 1;
    }
    czk_shape_free(s2);
    czk_witness_free(&w2);

    size_t n = (size_t)s->num_constraints;
    czk_fr *abc = malloc(3 * n * sizeof(czk_fr));
    if (!abc) return 1;
    timing t_spmv1 = {1e30, 1e30}, t_spmvn = {1e30, 1e30};
    for (int i = 0; i < 3; i++) {
        double t0 = czk_now(), c0 = czk_cpu_now();
        if (czk_shape_eval(s, &w, abc, abc + n, abc + 2 * n, NULL, &err)) return 1;
        double t = czk_now() - t0, ct = czk_cpu_now() - c0;
        if (t < t_spmv1.wall) t_spmv1.wall = t;
        if (ct < t_spmv1.cpu) t_spmv1.cpu = ct;
        t0 = czk_now(), c0 = czk_cpu_now();
        if (czk_shape_eval(s, &w, abc, abc + n, abc + 2 * n, pool, &err)) return 1;
        t = czk_now() - t0, ct = czk_cpu_now() - c0;
        if (t < t_spmvn.wall) t_spmvn.wall = t;
        if (ct < t_spmvn.cpu) t_spmvn.cpu = ct;
    }
    for (size_t i = 0; i < n; i++) { /* the circuit is satisfied */
        czk_fr ab;
        czk_fr_mul(&ab, &abc[i], &abc[n + i]);
        if (!czk_fr_eq(&ab, &abc[2 * n + i])) {
            fprintf(stderr, "constraint %zu not satisfied\n", i);
            return 1;
        }
    }
    free(abc);

    uint64_t nnz = s->m[0].nnz + s->m[1].nnz + s->m[2].nnz;
    uint64_t bytes = czk_shape_bytes(s);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_r1cs_%d.shape", dir, (int)getpid());
    timing t_write, t_read;
    double t0 = czk_now(), c0 = czk_cpu_now();
    if (czk_shape_write(s, path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    t_write = (timing){czk_now() - t0, czk_cpu_now() - c0};
    czk_shape *s3;
    t0 = czk_now(), c0 = czk_cpu_now();
    if (czk_shape_read(&s3, path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    t_read = (timing){czk_now() - t0, czk_cpu_now() - c0};
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long fsize = ftell(f);
    fclose(f);
    unlink(path);
    if (!czk_shape_equal(s, s3)) return 1;
    czk_shape_free(s3);

    struct utsname u;
    uname(&u);
    printf("R1CS benchmark: %llu constraints, %u inputs, %u aux, nnz A %llu B %llu C %llu (%llu), "
           "%u distinct coefficients; %s %s, %u threads\n\n",
           (unsigned long long)n, s->num_inputs, s->num_aux, (unsigned long long)s->m[0].nnz,
           (unsigned long long)s->m[1].nnz, (unsigned long long)s->m[2].nnz,
           (unsigned long long)nnz, s->num_coeffs, u.machine, u.release, czk_pool_threads(pool));
    printf("| step | wall (ms) | CPU (ms) | wall per constraint (ns) |\n|---|---:|---:|---:|\n");
    row("synthesize, RECORD (shape)", t_rec, n);
    row("synthesize, WITNESS (values only)", t_wit, n);
    row("synthesize, CHECK (shape + values + evaluation)", t_chk, n);
    row("SpMV a,b,c = (A,B,C)·z, 1 thread", t_spmv1, n);
    char label[128];
    snprintf(label, sizeof label, "SpMV a,b,c = (A,B,C)·z, %u threads", czk_pool_threads(pool));
    row(label, t_spmvn, n);
    snprintf(label, sizeof label, "shape write (%.1f MiB, with fdatasync)",
             (double)fsize / 1048576.0);
    row(label, t_write, n);
    row("shape read + validate", t_read, n);
    printf("\nshape in memory: %llu bytes = %.2f bytes per non-zero (8 for column + coefficient "
           "index, the rest row pointers, table, densities)\n",
           (unsigned long long)bytes, (double)bytes / (double)nnz);
    printf("peak RSS after the RECORD runs: %.1f MiB = %.2f x the shape (growth by realloc, no "
           "doubling of the peak)\n",
           peak_rec / 1048576.0, peak_rec / (double)bytes);
    czk_shape_free(s);
    czk_witness_free(&w);
    czk_pool_destroy(pool);
    return 0;
}
