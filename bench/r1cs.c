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
 */
#include "czk/r1cs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

typedef struct bench_ctx {
    uint64_t target; /* constraints */
} bench_ctx;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

/* Runs the circuit in `mode`; returns seconds (best of `reps`). */
static double run(czk_cs_mode mode, bench_ctx *c, int reps, czk_shape **shape, czk_witness *wit) {
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        czk_err err;
        czk_cs *cs = czk_cs_create(mode, NULL, &err);
        if (!cs) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        double t0 = now();
        czk_status st = czk_cs_run(cs, circuit, c, &err);
        double t = now() - t0;
        if (st) {
            fprintf(stderr, "run: %s\n", err.msg);
            exit(1);
        }
        if (t < best) best = t;
        if (i == reps - 1) {
            if (shape && czk_cs_take_shape(cs, shape, &err)) exit(1);
            if (wit && czk_cs_take_witness(cs, wit, &err)) exit(1);
        }
        czk_cs_free(cs);
    }
    return best;
}

int main(int argc, char **argv) {
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
    double t_rec = run(CZK_CS_RECORD, &c, 3, &s, NULL);
    c.target = s->num_aux; /* WITNESS builds no constraints: stop at the same aux count */
    double t_wit = run(CZK_CS_WITNESS, &c, 3, NULL, &w);
    c.target = 1ull << k;
    czk_shape *s2;
    czk_witness w2;
    double t_chk = run(CZK_CS_CHECK, &c, 1, &s2, &w2);
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
    double t_spmv1 = 1e30, t_spmvn = 1e30;
    for (int i = 0; i < 3; i++) {
        double t0 = now();
        if (czk_shape_eval(s, &w, abc, abc + n, abc + 2 * n, NULL, &err)) return 1;
        double t = now() - t0;
        if (t < t_spmv1) t_spmv1 = t;
        t0 = now();
        if (czk_shape_eval(s, &w, abc, abc + n, abc + 2 * n, pool, &err)) return 1;
        t = now() - t0;
        if (t < t_spmvn) t_spmvn = t;
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
    double t0 = now();
    if (czk_shape_write(s, path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double t_write = now() - t0;
    czk_shape *s3;
    t0 = now();
    if (czk_shape_read(&s3, path, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double t_read = now() - t0;
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
    printf("| step | time (ms) | per constraint (ns) |\n|---|---:|---:|\n");
    printf("| synthesize, RECORD (shape) | %.1f | %.1f |\n", 1e3 * t_rec, 1e9 * t_rec / (double)n);
    printf("| synthesize, WITNESS (values only) | %.1f | %.1f |\n", 1e3 * t_wit,
           1e9 * t_wit / (double)n);
    printf("| synthesize, CHECK (shape + values + evaluation) | %.1f | %.1f |\n", 1e3 * t_chk,
           1e9 * t_chk / (double)n);
    printf("| SpMV a,b,c, 1 thread | %.1f | %.1f |\n", 1e3 * t_spmv1, 1e9 * t_spmv1 / (double)n);
    printf("| SpMV a,b,c, %u threads | %.1f | %.1f |\n", czk_pool_threads(pool), 1e3 * t_spmvn,
           1e9 * t_spmvn / (double)n);
    printf("| shape write (%.1f MiB, fdatasync) | %.1f | %.1f |\n", (double)fsize / 1048576.0,
           1e3 * t_write, 1e9 * t_write / (double)n);
    printf("| shape read + validate | %.1f | %.1f |\n", 1e3 * t_read, 1e9 * t_read / (double)n);
    printf("\nshape in memory: %llu bytes = %.2f bytes per non-zero (8 for column + coefficient "
           "index, the rest row pointers, table, densities)\n",
           (unsigned long long)bytes, (double)bytes / (double)nnz);
    czk_shape_free(s);
    czk_witness_free(&w);
    czk_pool_destroy(pool);
    return 0;
}
