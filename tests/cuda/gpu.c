/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 900 */
/*
 * The CUDA kernels against the CPU layer, on random data of several sizes:
 * NTT (four kinds) and H (six and seven transforms, and the Lagrange form's
 * four: c NULL) against czk_ntt, and for sizes up to 2^10 also
 * against a naive DFT written here (the independent check); the scaled NTT
 * over G1 (czk_cuda_g1_ntt) against czk_g1_ntt_cpu and a naive sum; MSM G1/G2
 * against czk_msm_g1/g2 (blst Pippenger behind the bit-aware front end) and,
 * for n <= 64, against a sum of blst scalar multiplications; the compacted
 * (witness-scalar) MSM path on mixes of 0 / 0.5 / 1.3 / 4 / 30 / 100 % "other"
 * scalars (the rest 0 and 1), all zeros, all ones, a single other, others
 * equal to r − 1, repeated bases, and with a memory cap (Pippenger in
 * pieces), with the path taken and the compaction's counts checked against
 * the scalars. The G1 MSM with batch-affine accumulation (CZK_CUDA_MSM_ACC 4
 * and 5) on sizes 1 to 2^20 with uniform scalars, repeated and equal bases,
 * P and −P, scalars 0, 1, r − 1, one bucket holding every point, wide buckets
 * and forced strip lengths; the same levels emulated on the host with the
 * device code (test_msm_affine_emulated, no GPU needed) against blst sums of
 * each bucket, for buckets of every exceptional kind. SpMV on adversarial shapes (rows of 0–5000
 * terms, runs of empty rows at the start, middle and end, rows ending exactly at thread and tile
 * boundaries, zero padding, coefficients 1, −1, 2^k and random, a random circuit) against
 * czk_shape_eval and a plain CSR walk, on the device and through the host emulation of its kernels
 * (test_spmv_emulated, which needs no GPU), and malformed shapes refused. The packed witness's
 * expansion against the witness it was packed from (test_witness_expand). Also the error paths.
 * Every GPU test skips when the machine has no CUDA device (CI), so a CUDA build passes there;
 * scripts/gpu-check.sh runs them on a GPU.
 */
#include "support.h"

#include "czk/cuda.h"
#include "czk/ec.h"
#include "czk/ff.h"
#include "czk/msm.h"
#include "czk/ntt.h"
#include "czk/pool.h"
#include "czk/r1cs.h"
#include "cuda/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CZK_HAVE_CUDA

#include "gpu_fixture.h"
#include "mixed_witness.h"
#include "../r1cs/rand_circuit.h"

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

static void *dev_alloc(size_t bytes) {
    czk_err err;
    void *p;
    czk_assert_ok(czk_cuda_alloc(ctx, &p, bytes, &err), &err);
    return p;
}

/* ---- naive reference NTT (independent of src/cuda and of the CPU layer's code) ---- */

static czk_fr fr_u64(uint64_t v) {
    czk_fr r;
    czk_fr_from_u64(&r, v);
    return r;
}

static czk_fr root(unsigned log_n, bool inverse) {
    czk_fr w;
    czk_err err;
    czk_assert_ok(czk_fr_root_of_unity(&w, log_n, &err), &err);
    if (inverse) czk_fr_inv(&w, &w);
    return w;
}

/* out[i] = Σ_j in[j]·w^(ij) */
static void dft_naive(czk_fr *out, const czk_fr *in, size_t n, czk_fr w) {
    czk_fr wi = czk_fr_one;
    for (size_t i = 0; i < n; i++) {
        czk_fr acc = czk_fr_zero, p = czk_fr_one;
        for (size_t j = 0; j < n; j++) {
            czk_fr t;
            czk_fr_mul(&t, &in[j], &p);
            czk_fr_add(&acc, &acc, &t);
            czk_fr_mul(&p, &p, &wi);
        }
        out[i] = acc;
        czk_fr_mul(&wi, &wi, &w);
    }
}

static void ref_dft(czk_fr *x, unsigned log_n, bool inverse) {
    size_t n = (size_t)1 << log_n;
    czk_fr w = root(log_n, inverse);
    czk_fr *in = xmalloc(n * sizeof *in);
    memcpy(in, x, n * sizeof *in);
    dft_naive(x, in, n, w);
    free(in);
    if (inverse) {
        czk_fr ninv = fr_u64(n);
        czk_fr_inv(&ninv, &ninv);
        for (size_t i = 0; i < n; i++)
            czk_fr_mul(&x[i], &x[i], &ninv);
    }
}

static void distribute_powers(czk_fr *x, size_t n, czk_fr g) {
    czk_fr p = czk_fr_one;
    for (size_t i = 0; i < n; i++) {
        czk_fr_mul(&x[i], &x[i], &p);
        czk_fr_mul(&p, &p, &g);
    }
}

/* bellperson EvaluationDomain: fft, ifft, coset_fft, icoset_fft (naive, small sizes) */
static void naive_ntt(czk_fr *x, unsigned log_n, czk_ntt_kind kind) {
    size_t n = (size_t)1 << log_n;
    czk_fr g = fr_u64(CZK_FR_GENERATOR), ginv;
    czk_fr_inv(&ginv, &g);
    switch (kind) {
    case CZK_NTT_FORWARD:
        ref_dft(x, log_n, false);
        break;
    case CZK_NTT_INVERSE:
        ref_dft(x, log_n, true);
        break;
    case CZK_NTT_COSET_FORWARD:
        distribute_powers(x, n, g);
        ref_dft(x, log_n, false);
        break;
    case CZK_NTT_COSET_INVERSE:
        ref_dft(x, log_n, true);
        distribute_powers(x, n, ginv);
        break;
    }
}

static void random_frs(czk_fr *x, size_t n, uint64_t seed) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_err err;
    for (size_t i = 0; i < n; i++)
        czk_assert_ok(czk_fr_random(&x[i], &rng, &err), &err);
}

static void assert_frs_equal(const czk_fr *got, const czk_fr *want, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++)
        if (!czk_fr_eq(&got[i], &want[i])) fail_msg("%s: element %zu of %zu differs", what, i, n);
}

/* The CPU layer's NTT on the pool. */
static void cpu_ntt(czk_fr *x, unsigned log_n, czk_ntt_kind kind) {
    czk_err err;
    czk_assert_ok(czk_ntt(x, log_n, kind, pool, &err), &err);
}

/* A context made with the environment variables kv[k][0] = kv[k][1], k < n, set (the caller's
 * values restored after). */
static czk_cuda_ctx *ctx_with(const char *const (*kv)[2], int n) {
    char *saved[4];
    assert_true(n <= 4);
    for (int k = 0; k < n; k++) {
        const char *old = getenv(kv[k][0]);
        saved[k] = old ? strdup(old) : NULL;
        setenv(kv[k][0], kv[k][1], 1);
    }
    czk_cuda_ctx *c = NULL;
    czk_err err;
    czk_assert_ok(czk_cuda_ctx_create(&c, 0, &err), &err);
    for (int k = 0; k < n; k++) {
        if (saved[k])
            setenv(kv[k][0], saved[k], 1);
        else
            unsetenv(kv[k][0]);
        free(saved[k]);
    }
    return c;
}

static void test_ntt(void **state) {
    (void)state;
    NEED_GPU();
    static const unsigned sizes[] = {1, 2, 5, 8, 10, 11, 13, 16, 19, 21};
    czk_err err;
    /* and two stages per round through shared memory (CZK_CUDA_NTT_RADIX=4; the default: one),
     * and the passes' products by the generic reduction (CZK_CUDA_NTT_MUL=eo; the default:
     * mul_eo_low) */
    static const char *const r4[1][2] = {{"CZK_CUDA_NTT_RADIX", "4"}};
    static const char *const eo[1][2] = {{"CZK_CUDA_NTT_MUL", "eo"}};
    czk_cuda_ctx *ctx4 = ctx_with(r4, 1), *ctxeo = ctx_with(eo, 1);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned log_n = sizes[si];
        size_t n = (size_t)1 << log_n;
        czk_fr *x = xmalloc(n * sizeof *x), *want = xmalloc(n * sizeof *x),
               *got = xmalloc(n * sizeof *x);
        czk_fr *d = dev_alloc(n * sizeof *x);
        for (int kind = CZK_NTT_FORWARD; kind <= CZK_NTT_COSET_INVERSE; kind++) {
            random_frs(x, n, 1000 * log_n + kind);
            memcpy(want, x, n * sizeof *x);
            cpu_ntt(want, log_n, kind);
            if (log_n <= 10) { /* the CPU layer itself against the naive DFT */
                czk_fr *naive = xmalloc(n * sizeof *x);
                memcpy(naive, x, n * sizeof *x);
                naive_ntt(naive, log_n, kind);
                assert_frs_equal(want, naive, n, "czk_ntt vs naive DFT");
                free(naive);
            }
            for (int r = 0; r < 3; r++) {
                czk_cuda_ctx *c = r == 2 ? ctxeo : r ? ctx4 : ctx;
                czk_assert_ok(czk_cuda_upload(c, d, x, n * sizeof *x, &err), &err);
                czk_assert_ok(czk_cuda_ntt(c, d, log_n, kind, &err), &err);
                czk_assert_ok(czk_cuda_download(c, got, d, n * sizeof *x, &err), &err);
                char what[64];
                snprintf(what, sizeof what, "ntt 2^%u kind %d %s", log_n, kind,
                         r == 2 ? "mul_eo"
                         : r    ? "radix 4"
                                : "default");
                assert_frs_equal(got, want, n, what);
            }
        }
        czk_cuda_free(ctx, d);
        free(x), free(want), free(got);
    }
    czk_cuda_ctx_destroy(ctx4);
    czk_cuda_ctx_destroy(ctxeo);
    /* the generic reduction has radix-2 kernels only */
    static const char *const both[2][2] = {{"CZK_CUDA_NTT_MUL", "eo"}, {"CZK_CUDA_NTT_RADIX", "4"}};
    for (int k = 0; k < 2; k++)
        setenv(both[k][0], both[k][1], 1);
    czk_cuda_ctx *c = NULL;
    assert_int_equal(czk_cuda_ctx_create(&c, 0, &err), CZK_ERR_INVALID_ARG);
    assert_null(c);
    assert_non_null(strstr(err.msg, "CZK_CUDA_NTT_MUL=eo"));
    for (int k = 0; k < 2; k++)
        unsetenv(both[k][0]);
}

/* The FP64 multiplication form (field_f64.cuh) and Karatsuba's (mul_ka) against the even/odd form
 * on the device, 2^22 random Fp (below p and below 2p) and Fr inputs and the values next to the
 * moduli. The host build of every form is checked against blst by cuda.host. */
static void test_mul_forms(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    uint64_t bad[3] = {1, 1, 1};
    for (uint64_t seed = 1; seed <= 2; seed++) {
        czk_assert_ok(czk_cuda_mul_form_check(ctx, seed, (uint64_t)1 << 22, bad, &err), &err);
        if (bad[0] || bad[1] || bad[2])
            fail_msg("a multiplication form differs from mul_eo on the device: mul_f64 %llu Fp, "
                     "%llu Fr products; mul_ka %llu Fp products (seed %llu)",
                     (unsigned long long)bad[0], (unsigned long long)bad[1],
                     (unsigned long long)bad[2], (unsigned long long)seed);
    }
}

/* Forward then inverse is the identity at a size with three passes. */
static void test_ntt_roundtrip_large(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    unsigned log_n = 24;
    size_t n = (size_t)1 << log_n;
    czk_fr *x = xmalloc(n * sizeof *x), *got = xmalloc(n * sizeof *x);
    czk_fr *d = dev_alloc(n * sizeof *x);
    czk_assert_ok(czk_cuda_fr_random(ctx, d, n, 7, &err), &err);
    czk_assert_ok(czk_cuda_download(ctx, x, d, n * sizeof *x, &err), &err);
    czk_assert_ok(czk_cuda_ntt(ctx, d, log_n, CZK_NTT_COSET_FORWARD, &err), &err);
    czk_assert_ok(czk_cuda_ntt(ctx, d, log_n, CZK_NTT_COSET_INVERSE, &err), &err);
    czk_assert_ok(czk_cuda_download(ctx, got, d, n * sizeof *x, &err), &err);
    assert_frs_equal(got, x, n, "coset ntt then coset intt, 2^24");
    /* and the device random values are canonical, reduced Montgomery values */
    for (size_t i = 0; i < 1000; i++) {
        uint8_t b[32];
        czk_fr y;
        czk_fr_to_bytes(b, &x[i]);
        czk_assert_ok(czk_fr_from_bytes(&y, b, &err), &err);
        assert_true(czk_fr_eq(&y, &x[i]));
    }
    czk_cuda_free(ctx, d);
    free(x), free(got);
}

static void test_h(void **state) {
    (void)state;
    NEED_GPU();
    /* 1, 2 and 3 passes per transform (3 from 2^21: the paired order's DIF runs them in
     * reverse) */
    static const unsigned sizes[] = {1, 4, 10, 12, 17, 21};
    czk_err err;
    /* a second context with bellperson's seven transforms (CZK_CUDA_H_TRANSFORMS=7), the
     * Lagrange form's H with separate passes (CZK_CUDA_H_FUSE=0) and two stages per round
     * through shared memory (CZK_CUDA_NTT_RADIX=4); a third with the last alone (fused passes) */
    static const char *const knobs[3][2] = {
        {"CZK_CUDA_H_TRANSFORMS", "7"}, {"CZK_CUDA_H_FUSE", "0"}, {"CZK_CUDA_NTT_RADIX", "4"}};
    static const char *const eo[1][2] = {{"CZK_CUDA_NTT_MUL", "eo"}};
    czk_cuda_ctx *ctx7 = ctx_with(knobs, 3), *ctx4 = ctx_with(knobs + 2, 1);
    czk_cuda_ctx *ctxeo = ctx_with(eo, 1); /* the fused passes with the generic reduction */
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned log_n = sizes[si];
        size_t n = (size_t)1 << log_n;
        czk_fr *abc[3], *dev[3];
        for (int k = 0; k < 3; k++) {
            abc[k] = xmalloc(n * sizeof(czk_fr));
            random_frs(abc[k], n, 77 * log_n + k);
            dev[k] = dev_alloc(n * sizeof(czk_fr));
            czk_assert_ok(czk_cuda_upload(ctx, dev[k], abc[k], n * sizeof(czk_fr), &err), &err);
            cpu_ntt(abc[k], log_n, CZK_NTT_INVERSE);
            cpu_ntt(abc[k], log_n, CZK_NTT_COSET_FORWARD);
        }
        /* the Lagrange form's H (c NULL): A·B on the coset */
        czk_fr *ab = xmalloc(n * sizeof *ab);
        for (size_t i = 0; i < n; i++)
            czk_fr_mul(&ab[i], &abc[0][i], &abc[1][i]);
        /* z = g^N − 1 */
        czk_fr z = fr_u64(CZK_FR_GENERATOR), zinv;
        czk_fr_pow_u64(&z, &z, n);
        czk_fr_sub(&z, &z, &czk_fr_one);
        czk_fr_inv(&zinv, &z);
        for (size_t i = 0; i < n; i++) {
            czk_fr t;
            czk_fr_mul(&t, &abc[0][i], &abc[1][i]);
            czk_fr_sub(&t, &t, &abc[2][i]);
            czk_fr_mul(&abc[0][i], &t, &zinv);
        }
        cpu_ntt(abc[0], log_n, CZK_NTT_COSET_INVERSE);
        /* the default (six transforms) on ctx, then bellperson's seven on ctx7, same inputs */
        czk_fr *in[3];
        for (int k = 0; k < 3; k++) {
            in[k] = xmalloc(n * sizeof(czk_fr));
            czk_assert_ok(czk_cuda_download(ctx, in[k], dev[k], n * sizeof(czk_fr), &err), &err);
        }
        czk_fr *got = xmalloc(n * sizeof *got);
        for (int form = 0; form < 2; form++) {
            czk_cuda_ctx *c = form ? ctx7 : ctx;
            for (int k = 0; form && k < 3; k++)
                czk_assert_ok(czk_cuda_upload(c, dev[k], in[k], n * sizeof(czk_fr), &err), &err);
            czk_assert_ok(czk_cuda_h(c, dev[0], dev[1], dev[2], log_n, &err), &err);
            czk_assert_ok(czk_cuda_download(c, got, dev[0], n * sizeof *got, &err), &err);
            char what[48];
            snprintf(what, sizeof what, "h 2^%u, %s transforms", log_n, form ? "seven" : "six");
            assert_frs_equal(got, abc[0], n, what);
        }
        /* four transforms without c: fused passes on ctx (the default), ctx4 (radix 4) and
         * ctxeo (mul_eo), separate on ctx7 (CZK_CUDA_H_FUSE=0; the count of transforms does not
         * apply) */
        for (int form = 0; form < 4; form++) {
            czk_cuda_ctx *c = form == 3 ? ctxeo : form == 2 ? ctx4 : form ? ctx7 : ctx;
            for (int k = 0; k < 2; k++)
                czk_assert_ok(czk_cuda_upload(c, dev[k], in[k], n * sizeof(czk_fr), &err), &err);
            czk_assert_ok(czk_cuda_h(c, dev[0], dev[1], NULL, log_n, &err), &err);
            czk_assert_ok(czk_cuda_download(c, got, dev[0], n * sizeof *got, &err), &err);
            char what[48];
            snprintf(what, sizeof what, "h 2^%u, Lagrange form (ctx %d)", log_n, form);
            assert_frs_equal(got, ab, n, what);
        }
        free(ab);
        free(got);
        for (int k = 0; k < 3; k++) {
            free(abc[k]);
            free(in[k]);
            czk_cuda_free(ctx, dev[k]);
        }
    }
    czk_cuda_ctx_destroy(ctx7);
    czk_cuda_ctx_destroy(ctx4);
    czk_cuda_ctx_destroy(ctxeo);
}

/*
 * The scaled NTT over G1 of the Lagrange form's derivation: czk_cuda_g1_ntt against
 * czk_g1_ntt_cpu (blst) on random bases, n_used N, N − 1 and N/2 (the rest infinity), random
 * c and step, ρ an N-th root of unity and its inverse; for N <= 16 also against the naive sum
 * Σ_i ρ^(ij)·c·step^i·P_i.
 */
static void test_g1_ntt(void **state) {
    (void)state;
    NEED_GPU();
    static const unsigned sizes[] = {1, 2, 4, 9};
    czk_err err;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        unsigned log_n = sizes[si];
        size_t n = (size_t)1 << log_n;
        czk_g1_affine *in = xmalloc(n * sizeof *in), *got = xmalloc(n * sizeof *got),
                      *want = xmalloc(n * sizeof *want);
        void *dbases = dev_alloc(n * sizeof *in);
        czk_assert_ok(czk_cuda_g1_random_bases(ctx, dbases, n, 31 + log_n, &err), &err);
        czk_assert_ok(czk_cuda_download(ctx, in, dbases, n * sizeof *in, &err), &err);
        czk_cuda_free(ctx, dbases);
        czk_fr k[2], rho[2];
        random_frs(k, 2, 7 * log_n);
        czk_assert_ok(czk_fr_root_of_unity(&rho[0], log_n, &err), &err);
        czk_fr_inv(&rho[1], &rho[0]);
        const size_t used[3] = {n, n - 1, n / 2};
        for (int u = 0; u < 3; u++)
            for (int r = 0; r < 2; r++) {
                czk_assert_ok(
                    czk_cuda_g1_ntt(ctx, got, in, used[u], log_n, &k[0], &k[1], &rho[r], &err),
                    &err);
                czk_assert_ok(
                    czk_g1_ntt_cpu(pool, want, in, used[u], log_n, &k[0], &k[1], &rho[r], &err),
                    &err);
                for (size_t j = 0; j < n; j++)
                    if (!blst_p1_affine_is_equal(&got[j], &want[j]))
                        fail_msg("g1 ntt 2^%u, %zu used, rho %d: point %zu differs", log_n, used[u],
                                 r, j);
                for (size_t j = 0; n <= 16 && j < n; j++) { /* the naive sum */
                    blst_p1 acc, t;
                    memset(&acc, 0, sizeof acc);
                    czk_fr s = k[0], rj;
                    czk_fr_pow_u64(&rj, &rho[r], j);
                    for (size_t i = 0; i < used[u]; i++) {
                        czk_fr e;
                        czk_fr_pow_u64(&e, &rj, i);
                        czk_fr_mul(&e, &e, &s);
                        blst_p1_from_affine(&t, &in[i]);
                        czk_g1_mul(&t, &t, &e);
                        blst_p1_add_or_double(&acc, &acc, &t);
                        czk_fr_mul(&s, &s, &k[1]);
                    }
                    czk_g1_affine a;
                    blst_p1_to_affine(&a, &acc);
                    if (!blst_p1_affine_is_equal(&got[j], &a))
                        fail_msg("g1 ntt 2^%u: point %zu is not the naive sum", log_n, j);
                }
            }
        assert_int_equal(czk_cuda_g1_ntt(ctx, got, in, n + 1, log_n, &k[0], &k[1], &rho[0], &err),
                         CZK_ERR_INVALID_ARG);
        free(in);
        free(got);
        free(want);
    }
}

/* ---- MSM ---- */

/* Scalar mixes: the bit-heavy witness shape and the corner cases of the recoding. */
enum mix {
    MIX_UNIFORM,
    MIX_WITNESS,
    MIX_ALL_TWO,
    MIX_EXTREMES,
    MIX_BITS,     /* "other" (uniform) with probability ppm / 10^6, the rest 0 or 1 half each */
    MIX_BITS_RM1, /* the same with every other scalar r − 1 */
    MIX_ZEROS,
    MIX_ONES,
    MIX_SINGLE,  /* 0 and 1 except one uniform scalar in the middle */
    MIX_0_1_RM1, /* 0, 1 or r − 1, a third each */
};

static void make_scalars(czk_fr *s, size_t n, enum mix mix, unsigned ppm, uint64_t seed) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_err err;
    czk_fr minus_one;
    czk_fr_neg(&minus_one, &czk_fr_one);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = czk_rng_u64(&rng) % 100;
        switch (mix) {
        case MIX_UNIFORM:
            czk_assert_ok(czk_fr_random(&s[i], &rng, &err), &err);
            break;
        case MIX_WITNESS:
            if (r < 35)
                s[i] = czk_fr_zero;
            else if (r < 70)
                s[i] = czk_fr_one;
            else if (r < 75)
                s[i] = minus_one;
            else if (r < 85)
                czk_fr_from_u64(&s[i], czk_rng_u64(&rng) % 5000);
            else
                czk_assert_ok(czk_fr_random(&s[i], &rng, &err), &err);
            break;
        case MIX_ALL_TWO:
            czk_fr_from_u64(&s[i], 2);
            break;
        case MIX_EXTREMES: {
            /* (r−1)/2 and (r+1)/2 (the negation threshold), r − 1, 2^k, −2^k */
            uint64_t half[4] = {0x7fffffff80000000ull, 0xa9ded2017fff2dffull, 0x199cec0404d0ec02ull,
                                0x39f6d3a994cebea4ull};
            if (r < 20) {
                czk_fr_from_u64s(&s[i], half);
            } else if (r < 40) {
                czk_fr_from_u64s(&s[i], half);
                czk_fr_add(&s[i], &s[i], &czk_fr_one);
            } else if (r < 60) {
                s[i] = minus_one;
            } else {
                uint64_t limbs[4] = {0};
                unsigned k = (unsigned)(czk_rng_u64(&rng) % 254);
                limbs[k / 64] = 1ull << (k % 64);
                czk_fr_from_u64s(&s[i], limbs);
                if (r >= 80) czk_fr_neg(&s[i], &s[i]);
            }
            break;
        }
        case MIX_BITS:
        case MIX_BITS_RM1:
        case MIX_SINGLE: {
            uint64_t q = czk_rng_u64(&rng);
            bool other = mix == MIX_SINGLE ? i == n / 2 : q % 1000000 < ppm;
            if (!other)
                s[i] = (q >> 32) & 1 ? czk_fr_one : czk_fr_zero;
            else if (mix == MIX_BITS_RM1)
                s[i] = minus_one;
            else
                czk_assert_ok(czk_fr_random(&s[i], &rng, &err), &err);
            break;
        }
        case MIX_0_1_RM1:
            s[i] = r < 33 ? czk_fr_zero : r < 66 ? czk_fr_one : minus_one;
            break;
        case MIX_ZEROS:
            s[i] = czk_fr_zero;
            break;
        case MIX_ONES:
            s[i] = czk_fr_one;
            break;
        }
    }
}

/* The CPU layer's MSM (bit-aware front end, blst Pippenger) on the pool. */
static void cpu_msm(void *out, const void *bases, const czk_fr *scalars, size_t n, bool g2) {
    czk_err err;
    if (g2)
        czk_assert_ok(czk_msm_g2(out, bases, scalars, n, pool, &err), &err);
    else
        czk_assert_ok(czk_msm_g1(out, bases, scalars, n, pool, &err), &err);
}

/* Σ s_i·P_i by plain scalar multiplication (small n). */
static void naive_msm(void *out, const void *bases, const czk_fr *scalars, size_t n, bool g2) {
    if (!g2) {
        blst_p1 acc, p, t;
        memset(&acc, 0, sizeof acc);
        for (size_t i = 0; i < n; i++) {
            blst_p1_from_affine(&p, (const blst_p1_affine *)bases + i);
            czk_g1_mul(&t, &p, &scalars[i]);
            blst_p1_add_or_double(&acc, &acc, &t);
        }
        *(blst_p1 *)out = acc;
    } else {
        blst_p2 acc, p, t;
        memset(&acc, 0, sizeof acc);
        for (size_t i = 0; i < n; i++) {
            blst_p2_from_affine(&p, (const blst_p2_affine *)bases + i);
            czk_g2_mul(&t, &p, &scalars[i]);
            blst_p2_add_or_double(&acc, &acc, &t);
        }
        *(blst_p2 *)out = acc;
    }
}

/*
 * GPU MSM of n random bases and scalars of the mix against czk_msm (and, for n <= 64, the naive
 * sum); cap: czk_cuda_set_msm_cap for the call (0: none). dup: 1 pairs (P, P) and (Q, −Q) with
 * equal scalars, 2 every base equal to the first, 3 the first and its negation alternating.
 * Returns what the MSM did.
 */
static czk_cuda_msm_info check_msm_ex(bool g2, size_t n, enum mix mix, unsigned ppm, int dup,
                                      size_t cap, uint64_t seed) {
    czk_err err;
    size_t psz = g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine);
    void *bases = xmalloc(n * psz);
    czk_fr *sc = xmalloc(n * sizeof *sc);
    void *dbases = dev_alloc(n * psz);
    czk_fr *dsc = dev_alloc(n * sizeof *sc);
    if (g2)
        czk_assert_ok(czk_cuda_g2_random_bases(ctx, dbases, n, seed, &err), &err);
    else
        czk_assert_ok(czk_cuda_g1_random_bases(ctx, dbases, n, seed, &err), &err);
    czk_assert_ok(czk_cuda_download(ctx, bases, dbases, n * psz, &err), &err);
    /* generated bases are group elements (a sample) */
    for (size_t i = 0; i < n; i += 1 + n / 64) {
        if (g2)
            assert_true(blst_p2_affine_in_g2((const blst_p2_affine *)bases + i));
        else
            assert_true(blst_p1_affine_in_g1((const blst_p1_affine *)bases + i));
    }
    make_scalars(sc, n, mix, ppm, seed ^ 0x5555);
    if (dup >= 2) { /* all points ±P: equal and opposite points in every bucket */
        for (size_t i = 1; i < n; i++) {
            if (g2) {
                blst_p2_affine *b = bases;
                b[i] = b[0];
                if (dup == 3 && (i & 1)) blst_fp2_cneg(&b[i].y, &b[i].y, true);
            } else {
                blst_p1_affine *b = bases;
                b[i] = b[0];
                if (dup == 3 && (i & 1)) blst_fp_cneg(&b[i].y, &b[i].y, true);
            }
        }
        czk_assert_ok(czk_cuda_upload(ctx, dbases, bases, n * psz, &err), &err);
    } else if (dup) {
        /* pairs (P, P) and (P, −P) with equal scalars: doubling and cancelling in one bucket */
        for (size_t i = 0; i + 1 < n; i += 4) {
            if (g2) {
                blst_p2_affine *b = bases;
                b[i + 1] = b[i];
                if (i + 3 < n) {
                    b[i + 3] = b[i + 2];
                    blst_fp2_cneg(&b[i + 3].y, &b[i + 3].y, true);
                }
            } else {
                blst_p1_affine *b = bases;
                b[i + 1] = b[i];
                if (i + 3 < n) {
                    b[i + 3] = b[i + 2];
                    blst_fp_cneg(&b[i + 3].y, &b[i + 3].y, true);
                }
            }
            sc[i + 1] = sc[i];
            if (i + 3 < n) sc[i + 3] = sc[i + 2];
        }
        czk_assert_ok(czk_cuda_upload(ctx, dbases, bases, n * psz, &err), &err);
    }
    czk_assert_ok(czk_cuda_upload(ctx, dsc, sc, n * sizeof *sc, &err), &err);
    blst_p2 got, want; /* blst_p2 is large enough for either */
    czk_cuda_set_msm_cap(ctx, cap);
    if (g2)
        czk_assert_ok(czk_cuda_msm_g2(ctx, &got, dbases, dsc, n, &err), &err);
    else
        czk_assert_ok(czk_cuda_msm_g1(ctx, (blst_p1 *)&got, dbases, dsc, n, &err), &err);
    czk_cuda_set_msm_cap(ctx, 0);
    czk_cuda_msm_info info;
    czk_cuda_msm_last(ctx, &info);
    cpu_msm(&want, bases, sc, n, g2);
    bool ok =
        g2 ? blst_p2_is_equal(&got, &want) : blst_p1_is_equal((blst_p1 *)&got, (blst_p1 *)&want);
    if (!ok)
        fail_msg("msm %s n=%zu mix=%d ppm=%u dup=%d cap=%zu: GPU result differs from czk_msm "
                 "(path: %s, %llu ones, %llu others, %u pieces, c=%u)",
                 g2 ? "g2" : "g1", n, mix, ppm, dup, cap, info.sparse ? "compacted" : "dense",
                 (unsigned long long)info.ones, (unsigned long long)info.others, info.pieces,
                 info.c);
    if (info.sparse) { /* the compaction's counts are the scalars' */
        uint64_t ones = 0, others = 0;
        for (size_t i = 0; i < n; i++) {
            ones += czk_fr_is_one(&sc[i]);
            others += !czk_fr_is_one(&sc[i]) && !czk_fr_is_zero(&sc[i]);
        }
        if (info.ones != ones || info.others != others)
            fail_msg("msm %s n=%zu mix=%d: compaction counted %llu ones and %llu others, the "
                     "scalars hold %llu and %llu",
                     g2 ? "g2" : "g1", n, mix, (unsigned long long)info.ones,
                     (unsigned long long)info.others, (unsigned long long)ones,
                     (unsigned long long)others);
        size_t piece = cap ? cap : others;
        unsigned pieces = others ? (unsigned)((others + piece - 1) / piece) : 0;
        if (info.pieces != pieces)
            fail_msg("msm %s n=%zu cap=%zu: %u Pippenger pieces, expected %u", g2 ? "g2" : "g1", n,
                     cap, info.pieces, pieces);
    }
    if (n <= 64) { /* and both from the plain sum of scalar multiplications */
        naive_msm(&want, bases, sc, n, g2);
        ok = g2 ? blst_p2_is_equal(&got, &want)
                : blst_p1_is_equal((blst_p1 *)&got, (blst_p1 *)&want);
        if (!ok)
            fail_msg("msm %s n=%zu mix=%d: GPU result differs from Σ s_i·P_i", g2 ? "g2" : "g1", n,
                     mix);
    }
    czk_cuda_free(ctx, dbases);
    czk_cuda_free(ctx, dsc);
    free(bases), free(sc);
    return info;
}

static void check_msm(bool g2, size_t n, enum mix mix, int dup, uint64_t seed) {
    (void)check_msm_ex(g2, n, mix, 0, dup, 0, seed);
}

/* "Other" fractions of the sparse-MSM tests (parts per million): the 32GiB witness has 1.3 %
 * over aux, 1 % over the A-dense and 3.7 % over the B-dense positions. */
static const unsigned OTHER_PPM[] = {0, 5000, 13000, 40000, 300000, 1000000};

/* Witness-like mixes: compacted (or dense for 100 %) and equal to the CPU's. */
static void check_sparse(bool g2, size_t n, uint64_t seed) {
    for (size_t k = 0; k < sizeof OTHER_PPM / sizeof OTHER_PPM[0]; k++) {
        czk_cuda_msm_info info = check_msm_ex(g2, n, MIX_BITS, OTHER_PPM[k], k == 2, 0, seed + k);
        if (n >= 1000 && info.sparse != (OTHER_PPM[k] < 1000000))
            fail_msg("msm %s n=%zu, %u ppm others: %s path, expected %s", g2 ? "g2" : "g1", n,
                     OTHER_PPM[k], info.sparse ? "compacted" : "dense",
                     OTHER_PPM[k] < 1000000 ? "compacted" : "dense");
    }
    static const enum mix special[] = {MIX_ZEROS, MIX_ONES, MIX_SINGLE};
    for (size_t k = 0; k < 3; k++) {
        czk_cuda_msm_info info = check_msm_ex(g2, n, special[k], 0, 0, 0, seed + 10 + k);
        /* a single scalar that is neither 0 nor 1 is a dense MSM of one point */
        if (!info.sparse && !(special[k] == MIX_SINGLE && n == 1))
            fail_msg("msm %s n=%zu, special mix %zu: dense path, expected compacted",
                     g2 ? "g2" : "g1", n, k);
    }
    (void)check_msm_ex(g2, n, MIX_BITS_RM1, 13000, 1, 0, seed + 20);
}

/* The sparse path's ones by the batch-affine levels (CZK_CUDA_MSM_ONES=affine) on both groups:
 * the witness mixes, repeated points ((P, P) and (P, −P) pairs in the runs), all ones, pieces
 * (of the memory cap, here 50000 points: 12 runs of 4096 and a shorter one each) with a
 * remainder; below 2^16 ones the XYZZ batch addition stays. */
static void check_ones_affine(void) {
    czk_cuda_set_msm_ones_affine(ctx, true);
    static const struct {
        bool g2;
        size_t n;
        enum mix mix;
        unsigned ppm;
        int dup;
        size_t cap;
        bool affine;
    } cases[] = {
        {false, 1u << 20, MIX_BITS, 13000, 0, 0, true},
        {false, (1u << 18) + 5, MIX_BITS, 40000, 1, 0, true},
        {false, (1u << 17) + 3, MIX_ONES, 0, 0, 0, true},
        {false, 1000, MIX_BITS, 13000, 0, 0, false},
        {false, (1u << 18) + 77, MIX_ONES, 0, 0, 50000, true},
        {true, 1u << 18, MIX_BITS, 37000, 0, 0, true},
        {true, (1u << 17) + 9, MIX_ONES, 0, 1, 50000, true},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        czk_cuda_msm_info info = check_msm_ex(cases[k].g2, cases[k].n, cases[k].mix, cases[k].ppm,
                                              cases[k].dup, cases[k].cap, 430 + k);
        if (!info.sparse || info.ones_affine != cases[k].affine)
            fail_msg("msm %s n=%zu ones by the batch-affine levels: sparse %d, ones_affine %d, "
                     "expected 1, %d",
                     cases[k].g2 ? "g2" : "g1", cases[k].n, (int)info.sparse, (int)info.ones_affine,
                     (int)cases[k].affine);
    }
    czk_cuda_set_msm_ones_affine(ctx, false);
}

static void test_msm_sparse_g1(void **state) {
    (void)state;
    NEED_GPU();
    static const size_t sizes[] = {1, 2, 33, 1000, 4103, 1u << 16};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_sparse(false, sizes[i], 100 + 50 * i);
    /* 2^20 at the witness mixes, and 30 % */
    for (size_t k = 1; k <= 4; k++)
        assert_true(check_msm_ex(false, 1u << 20, MIX_BITS, OTHER_PPM[k], 0, 0, 400 + k).sparse);
    /* a memory cap: the others in pieces (also forced compaction of uniform scalars) */
    czk_cuda_msm_info info = check_msm_ex(false, 1u << 16, MIX_BITS, 300000, 1, 5000, 410);
    assert_int_equal(info.pieces, 4);
    info = check_msm_ex(false, 1u << 20, MIX_BITS, 13000, 0, 4096, 411);
    assert_true(info.pieces >= 3);
    info = check_msm_ex(false, 4103, MIX_UNIFORM, 0, 0, 1000, 412);
    assert_true(info.sparse && info.pieces == 5);
    /* the others under the sparse path's own accumulation and window size, on both groups; the
     * context's own settings untouched */
    const int acc = czk_cuda_msm_acc(ctx);
    czk_cuda_set_msm_sparse(ctx, CZK_CUDA_MSM_ACC_HYBRID, 12);
    for (int g = 0; g < 2; g++) {
        info = check_msm_ex(g == 1, g ? 1u << 17 : 1u << 20, MIX_BITS, 30000, 0, 0, 420 + g);
        if (!info.sparse || info.c != 12 || info.affine_k != 8)
            fail_msg("msm %s sparse override: sparse %d, c %u, affine_k %u; expected 1, 12, 8",
                     g ? "g2" : "g1", (int)info.sparse, info.c, info.affine_k);
    }
    czk_cuda_set_msm_sparse(ctx, -1, 0);
    assert_int_equal(czk_cuda_msm_acc(ctx), acc);
    info = check_msm_ex(false, 1000, MIX_UNIFORM, 0, 0, 0, 423); /* dense: the context's c */
    assert_false(info.sparse);
    assert_int_not_equal(info.c, 12);
    check_ones_affine();
}

static void test_msm_sparse_g2(void **state) {
    (void)state;
    NEED_GPU();
    static const size_t sizes[] = {1, 33, 1000, 4103, 1u << 14};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_sparse(true, sizes[i], 500 + 50 * i);
    for (size_t k = 2; k <= 3; k++)
        assert_true(check_msm_ex(true, 1u << 17, MIX_BITS, OTHER_PPM[k], 0, 0, 800 + k).sparse);
    czk_cuda_msm_info info = check_msm_ex(true, 1u << 14, MIX_BITS, 300000, 1, 2000, 810);
    assert_true(info.pieces >= 2);
}

static void test_msm_g1(void **state) {
    (void)state;
    NEED_GPU();
    static const size_t sizes[] = {1, 2, 3, 31, 100, 1000, 4103, 1u << 16, 1u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        check_msm(false, sizes[i], MIX_UNIFORM, 0, 10 + i);
        check_msm(false, sizes[i], MIX_WITNESS, 0, 20 + i);
        if (sizes[i] <= (1u << 16)) check_msm(false, sizes[i], MIX_EXTREMES, 1, 30 + i);
    }
    check_msm(false, 1u << 16, MIX_ALL_TWO, 0, 40);
    check_msm(false, 1u << 18, MIX_WITNESS, 1, 41);
}

static void test_msm_g2(void **state) {
    (void)state;
    NEED_GPU();
    static const size_t sizes[] = {1, 2, 31, 1000, 4103, 1u << 14, 1u << 17};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        check_msm(true, sizes[i], MIX_UNIFORM, 0, 50 + i);
        check_msm(true, sizes[i], MIX_WITNESS, 0, 60 + i);
        if (sizes[i] <= 4103) check_msm(true, sizes[i], MIX_EXTREMES, 1, 70 + i);
    }
    check_msm(true, 1u << 14, MIX_ALL_TWO, 0, 80);
}

/* ---- MSM G1 with batch-affine accumulation (src/cuda/msm_affine.cuh) ---- */

/* The G1 MSM with CZK_CUDA_MSM_ACC 4 (affine), 5 (hybrid; the default 6, auto, takes it from
 * 2^22 points) and 0 (XYZZ chunks) against czk_msm; the context's variant restored after. */
static void test_msm_g1_affine(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    const int saved = czk_cuda_msm_acc(ctx);
    const char *env = getenv("CZK_CUDA_MSM_ACC");
    if ((!env || !*env) && saved != CZK_CUDA_MSM_ACC_AUTO)
        fail_msg("default MSM accumulation %d, expected auto (%d)", saved, CZK_CUDA_MSM_ACC_AUTO);
    /* auto: XYZZ below 2^22 points, the hybrid (K = 8) from there */
    czk_cuda_set_msm_acc(ctx, CZK_CUDA_MSM_ACC_AUTO);
    static const size_t auto_n[2] = {(1u << 22) - 1, 1u << 22};
    for (int i = 0; i < 2; i++) {
        czk_cuda_msm_info info = check_msm_ex(false, auto_n[i], MIX_UNIFORM, 0, 0, 0, 880 + i);
        if (info.affine_k != (i ? 8u : 0u))
            fail_msg("msm g1 n=%zu auto: affine_k %u, expected %u", auto_n[i], info.affine_k,
                     i ? 8u : 0u);
    }
    static const int acc[3] = {CZK_CUDA_MSM_ACC_AFFINE, CZK_CUDA_MSM_ACC_HYBRID, 0};
    static const unsigned K[3] = {1, 8, 0};
    static const size_t sizes[] = {1, 2, 3, 7, 1u << 10, (1u << 16) + 3, 1u << 20};
    for (int v = 0; v < 3; v++) {
        czk_cuda_set_msm_acc(ctx, acc[v]);
        uint64_t seed = 900 + 100 * (uint64_t)v;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            size_t n = sizes[i];
            czk_cuda_msm_info info = check_msm_ex(false, n, MIX_UNIFORM, 0, 0, 0, seed++);
            if (info.affine_k != K[v])
                fail_msg("msm g1 n=%zu acc=%d: Pippenger ran with affine_k %u, expected %u", n,
                         acc[v], info.affine_k, K[v]);
            if (n > (1u << 16) + 3) continue;
            check_msm(false, n, MIX_UNIFORM, 1, seed++); /* (P, P), (Q, −Q) with equal scalars */
            check_msm(false, n, MIX_0_1_RM1, 0, seed++); /* r − 1: one bucket (compacted path) */
            check_msm(false, n, MIX_EXTREMES, 1, seed++);
            check_msm(false, n, MIX_UNIFORM, 2, seed++); /* every point equal */
            check_msm(false, n, MIX_UNIFORM, 3, seed++); /* P, −P, P, ... */
        }
        check_msm(false, 1u << 16, MIX_ALL_TWO, 2, seed++); /* 2^16 equal points in one bucket */
        check_msm(false, 1u << 16, MIX_0_1_RM1, 3, seed++);
        check_msm(false, 1u << 20, MIX_WITNESS, 1, seed++);
        /* wide buckets (c = 8: ≈ 512 points each, 10 levels) and strips across many buckets */
        czk_assert_ok(czk_cuda_set_msm_c(ctx, 8, &err), &err);
        czk_cuda_set_msm_strip(ctx, 5);
        check_msm(false, (1u << 16) + 3, MIX_UNIFORM, 0, seed++);
        check_msm(false, (1u << 16) + 3, MIX_UNIFORM, 3, seed++);
        czk_cuda_set_msm_strip(ctx, 1);
        check_msm(false, 4103, MIX_UNIFORM, 1, seed++);
        /* the other strip layout (CZK_CUDA_MSM_STRIPS: interleaved where the default is
         * contiguous, and the reverse): wide buckets with strips of 1 and 5, then the sizes' own
         * window and strips */
        const uint32_t layout = czk_cuda_msm_strip_group(ctx);
        if (v < 2) {
            czk_cuda_set_msm_strip_group(ctx, layout == 1 ? 32 : 1);
            check_msm(false, 4103, MIX_UNIFORM, 1, seed++);
            czk_cuda_set_msm_strip(ctx, 5);
            check_msm(false, (1u << 16) + 3, MIX_UNIFORM, 3, seed++);
            czk_cuda_set_msm_strip(ctx, 0);
            czk_assert_ok(czk_cuda_set_msm_c(ctx, 0, &err), &err);
            check_msm(false, 1u << 20, MIX_UNIFORM, 0, seed++);
            check_msm(false, 1u << 16, MIX_ALL_TWO, 2, seed++);
            czk_cuda_set_msm_strip_group(ctx, layout);
        }
        czk_cuda_set_msm_strip(ctx, 0);
        czk_assert_ok(czk_cuda_set_msm_c(ctx, 0, &err), &err);
        /* two windows in flight (the default from 2^22 points), forced at small sizes */
        czk_cuda_set_msm_slots(ctx, 2);
        static const size_t two_sizes[] = {2, 1000, (1u << 16) + 3, 1u << 20};
        for (size_t i = 0; v < 2 && i < sizeof two_sizes / sizeof *two_sizes; i++) {
            czk_cuda_msm_info info =
                check_msm_ex(false, two_sizes[i], MIX_UNIFORM, 0, 0, 0, seed++);
            if (info.slots != 2)
                fail_msg("msm g1 n=%zu acc=%d: %u window slots, expected 2", two_sizes[i], acc[v],
                         info.slots);
            check_msm(false, two_sizes[i], MIX_UNIFORM, 3, seed++); /* P, −P, P, ... */
        }
        if (v < 2) {
            check_msm(false, 1u << 16, MIX_ALL_TWO, 2, seed++);
            check_msm(false, 1u << 20, MIX_WITNESS, 1, seed++);
        }
        /* the digits made two windows (and one window) at a time, as where the digits of all
         * windows would not leave room for slot 1: with two slots (the events between the
         * streams) and with one; MIX_EXTREMES is dense with some ones (flagged in the first group
         * only, zero digits in every group) */
        static const unsigned groups[] = {2, 1};
        for (int slots = 2; v < 2 && slots >= 1; slots--) {
            czk_cuda_set_msm_slots(ctx, slots);
            for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
                czk_cuda_set_msm_digit_group(ctx, groups[g]);
                czk_cuda_msm_info info =
                    check_msm_ex(false, (1u << 16) + 3, MIX_UNIFORM, 0, 0, 0, seed++);
                if (info.digit_group != groups[g] || info.slots != (unsigned)slots)
                    fail_msg("msm g1 acc=%d: digits %u windows at a time in %u slots, expected "
                             "%u in %d",
                             acc[v], info.digit_group, info.slots, groups[g], slots);
                check_msm(false, 4103, MIX_EXTREMES, 1, seed++);
                check_msm(false, 1u << 20, MIX_WITNESS, 0, seed++);
            }
            czk_cuda_set_msm_digit_group(ctx, 0);
        }
        /* the digits in the caller's scratch memory (MSM H: H's dead b and c), filled with a
         * pattern first; one too small for them is left alone */
        if (v < 2) {
            czk_cuda_set_msm_slots(ctx, 2);
            const size_t sbytes = (size_t)64 << 20;
            void *scratch = dev_alloc(sbytes);
            static const size_t want[2] = {(size_t)64 << 20, 16};
            for (int q = 0; q < 2; q++) {
                czk_assert_ok(czk_cuda_fr_random(ctx, scratch, sbytes / sizeof(czk_fr), 7, &err),
                              &err);
                czk_cuda_set_msm_scratch(ctx, scratch, want[q]);
                czk_cuda_msm_info info =
                    check_msm_ex(false, (1u << 16) + 3, MIX_UNIFORM, 0, 0, 0, seed++);
                if (info.digits_in_scratch != (q == 0))
                    fail_msg("msm g1 acc=%d: digits in scratch %d with %zu bytes of it", acc[v],
                             (int)info.digits_in_scratch, want[q]);
                check_msm(false, 1u << 20, MIX_WITNESS, 0, seed++);
            }
            czk_cuda_set_msm_scratch(ctx, NULL, 0);
            czk_cuda_free(ctx, scratch);
        }
        czk_cuda_set_msm_slots(ctx, 0);
    }
    czk_cuda_set_msm_acc(ctx, saved);
}

/* The window sums by levels (CZK_CUDA_MSM_WSUM=levels; auto takes them above 2^26 points on the
 * hybrid only) on G1 and G2 against czk_msm / czk_msm_g2: the size's own c, c = 8 (a top window
 * cut to 2^6 buckets), and the wide layouts of 11 (9 × 23 + 2 × 24 bits, MSM H's), 12, 20 and 42
 * windows; one and two slots; the context's settings restored after. */
static void test_msm_window_sums(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    const int saved = czk_cuda_msm_acc(ctx);
    /* auto below 2^26 points: the running sums */
    czk_cuda_set_msm_acc(ctx, CZK_CUDA_MSM_ACC_HYBRID);
    czk_cuda_msm_info info = check_msm_ex(false, 1000, MIX_UNIFORM, 0, 0, 0, 1500);
    if (info.window_sums_by_levels || info.affine_k != 8)
        fail_msg("msm g1 n=1000 hybrid, auto window sums: by levels %d, K %u; expected 0, 8",
                 (int)info.window_sums_by_levels, info.affine_k);
    czk_cuda_set_msm_wsum(ctx, CZK_CUDA_MSM_WSUM_LEVELS);
    uint64_t seed = 1510;
    static const int acc[2] = {CZK_CUDA_MSM_ACC_HYBRID, CZK_CUDA_MSM_ACC_AFFINE};
    for (int g = 0; g < 2; g++) {
        const bool g2 = g == 1;
        for (int v = 0; v < 2; v++) {
            czk_cuda_set_msm_acc(ctx, acc[v]);
            static const size_t sizes[] = {1, 2, 7, 1000, (1u << 14) + 3, 1u << 18};
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                const size_t n = sizes[i];
                if (g2 && n > (1u << 14) + 3) continue;
                info = check_msm_ex(g2, n, MIX_UNIFORM, 0, 0, 0, seed++);
                if (!info.window_sums_by_levels || info.affine_k != 1)
                    fail_msg("msm %s n=%zu acc=%d, window sums by levels: by levels %d, K %u",
                             g2 ? "g2" : "g1", n, acc[v], (int)info.window_sums_by_levels,
                             info.affine_k);
                if (n > 1000) continue;
                check_msm(g2, n, MIX_UNIFORM, 1, seed++);  /* (P, P), (Q, −Q) */
                check_msm(g2, n, MIX_0_1_RM1, 0, seed++);  /* r − 1: one bucket */
                check_msm(g2, n, MIX_EXTREMES, 1, seed++); /* the top window's largest digits */
                check_msm(g2, n, MIX_UNIFORM, 2, seed++);  /* every point equal */
                check_msm(g2, n, MIX_UNIFORM, 3, seed++);  /* P, −P, P, ... */
            }
            check_msm(g2, 4103, MIX_ALL_TWO, 2, seed++); /* one bucket of equal points */
            /* c = 8: 32 windows, the top one's digits at most 2^6 */
            czk_assert_ok(czk_cuda_set_msm_c(ctx, 8, &err), &err);
            info = check_msm_ex(g2, 4103, MIX_EXTREMES, 0, 1, 0, seed++);
            if (info.c != 8 || info.windows != 32)
                fail_msg("msm %s c = 8 by levels: c %u, %u windows", g2 ? "g2" : "g1", info.c,
                         info.windows);
            check_msm(g2, (1u << 14) + 3, MIX_UNIFORM, 3, seed++);
            czk_assert_ok(czk_cuda_set_msm_c(ctx, 0, &err), &err);
            /* the wide layouts: W windows, c = ⌊255/W⌋, the last 255 − W·c of c + 1 bits */
            static const unsigned W[] = {11, 12, 20, 42};
            static const unsigned Wc[] = {23, 21, 12, 6};
            for (size_t k = 0; k < 4; k++) {
                if (g2 && W[k] < 20) continue; /* 2^23 G2 buckets: level buffers of 3 GB */
                czk_cuda_set_msm_windows(ctx, W[k]);
                for (int slots = 1; slots <= 2; slots++) {
                    czk_cuda_set_msm_slots(ctx, slots);
                    info = check_msm_ex(g2, (1u << 14) + 3, MIX_UNIFORM, 0, 0, 0, seed++);
                    if (info.windows != W[k] || info.c != Wc[k] || info.slots != (unsigned)slots)
                        fail_msg("msm %s with %u windows: %u windows, c %u, %u slots; expected "
                                 "c %u, %d slots",
                                 g2 ? "g2" : "g1", W[k], info.windows, info.c, info.slots, Wc[k],
                                 slots);
                    check_msm(g2, 4103, MIX_EXTREMES, 1, seed++);
                    check_msm(g2, 1000, MIX_0_1_RM1, 0, seed++);
                }
                if (!g2 && W[k] == 11) check_msm(false, 1u << 20, MIX_WITNESS, 1, seed++);
            }
            czk_cuda_set_msm_windows(ctx, 0);
            czk_cuda_set_msm_slots(ctx, 0);
        }
    }
    /* running sums forced: the same hybrid as before the split */
    czk_cuda_set_msm_wsum(ctx, CZK_CUDA_MSM_WSUM_RUNNING);
    czk_cuda_set_msm_acc(ctx, CZK_CUDA_MSM_ACC_HYBRID);
    info = check_msm_ex(false, 1u << 16, MIX_UNIFORM, 0, 0, 0, seed++);
    if (info.window_sums_by_levels || info.affine_k != 8)
        fail_msg("msm g1 running sums forced: by levels %d, K %u", (int)info.window_sums_by_levels,
                 info.affine_k);
    czk_cuda_set_msm_wsum(ctx, CZK_CUDA_MSM_WSUM_AUTO);
    czk_cuda_set_msm_acc(ctx, saved);
}

/* G1's batch-affine backward passes by Karatsuba's product (CZK_CUDA_MSM_MUL = ka, ka4: in the
 * two products of each addition, and in all four held to two blocks an SM) against czk_msm: the
 * affine and hybrid paths, the window sums by levels in 12 windows with two slots, and the
 * exceptional pairs (equal points, P and −P, one bucket of every point). */
static void test_msm_mul_ka(void **state) {
    (void)state;
    NEED_GPU();
    const int saved = czk_cuda_msm_acc(ctx);
    uint64_t seed = 2900;
    for (int mul = 1; mul <= 2; mul++) {
        czk_cuda_set_msm_mul(ctx, mul);
        static const int acc[2] = {CZK_CUDA_MSM_ACC_AFFINE, CZK_CUDA_MSM_ACC_HYBRID};
        for (int v = 0; v < 2; v++) {
            czk_cuda_set_msm_acc(ctx, acc[v]);
            check_msm(false, 4103, MIX_UNIFORM, 1, seed++); /* (P, P), (Q, −Q) */
            check_msm(false, 4103, MIX_UNIFORM, 3, seed++); /* P, −P, P, ... */
            check_msm(false, (1u << 16) + 3, MIX_EXTREMES, 1, seed++);
            check_msm(false, 1u << 16, MIX_ALL_TWO, 2, seed++); /* one bucket of equal points */
            check_msm(false, 1u << 20, MIX_UNIFORM, 0, seed++);
        }
        czk_cuda_set_msm_acc(ctx, CZK_CUDA_MSM_ACC_HYBRID);
        czk_cuda_set_msm_wsum(ctx, CZK_CUDA_MSM_WSUM_LEVELS);
        czk_cuda_set_msm_windows(ctx, 12);
        czk_cuda_set_msm_slots(ctx, 2);
        czk_cuda_msm_info info = check_msm_ex(false, 1u << 18, MIX_UNIFORM, 0, 0, 0, seed++);
        if (!info.window_sums_by_levels || info.windows != 12 || info.slots != 2)
            fail_msg("msm g1 mul %d by levels: by levels %d, %u windows, %u slots", mul,
                     (int)info.window_sums_by_levels, info.windows, info.slots);
        check_msm(false, 4103, MIX_EXTREMES, 1, seed++);
        check_msm(false, 1000, MIX_0_1_RM1, 0, seed++);
        czk_cuda_set_msm_windows(ctx, 0);
        czk_cuda_set_msm_slots(ctx, 0);
        czk_cuda_set_msm_wsum(ctx, CZK_CUDA_MSM_WSUM_AUTO);
    }
    czk_cuda_set_msm_mul(ctx, 0);
    czk_cuda_set_msm_acc(ctx, saved);
}

/* The G2 MSM with the batch-affine levels over Fp2 (variants 4 and 5, and auto from
 * 2^msm_g2_affine_log points) against czk_msm_g2; the context's settings restored after. */
static void test_msm_g2_affine(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    const int saved = czk_cuda_msm_acc(ctx);
    /* auto: XYZZ by default; with the threshold at 2^12, XYZZ below it and the hybrid from it */
    czk_cuda_set_msm_acc(ctx, CZK_CUDA_MSM_ACC_AUTO);
    if (!getenv("CZK_CUDA_MSM_G2_AFFINE_LOG")) {
        czk_cuda_msm_info info = check_msm_ex(true, 4096, MIX_UNIFORM, 0, 0, 0, 1700);
        if (info.affine_k != 0)
            fail_msg("msm g2 n=4096 auto, default threshold: affine_k %u, expected 0",
                     info.affine_k);
    }
    czk_cuda_set_msm_g2_affine_log(ctx, 12);
    for (int i = 0; i < 2; i++) {
        size_t n = 4095 + (size_t)i;
        czk_cuda_msm_info info = check_msm_ex(true, n, MIX_UNIFORM, 0, 0, 0, 1701 + (uint64_t)i);
        if (info.affine_k != (i ? 8u : 0u))
            fail_msg("msm g2 n=%zu auto from 2^12: affine_k %u, expected %u", n, info.affine_k,
                     i ? 8u : 0u);
    }
    czk_cuda_set_msm_g2_affine_log(ctx, 32);
    static const int acc[2] = {CZK_CUDA_MSM_ACC_AFFINE, CZK_CUDA_MSM_ACC_HYBRID};
    static const unsigned K[2] = {1, 8};
    static const size_t sizes[] = {1, 2, 7, 1000, (1u << 14) + 3};
    for (int v = 0; v < 2; v++) {
        czk_cuda_set_msm_acc(ctx, acc[v]);
        uint64_t seed = 1710 + 100 * (uint64_t)v;
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            size_t n = sizes[i];
            czk_cuda_msm_info info = check_msm_ex(true, n, MIX_UNIFORM, 0, 0, 0, seed++);
            if (info.affine_k != K[v])
                fail_msg("msm g2 n=%zu acc=%d: affine_k %u, expected %u", n, acc[v], info.affine_k,
                         K[v]);
            check_msm(true, n, MIX_UNIFORM, 1, seed++); /* (P, P), (Q, −Q) with equal scalars */
            check_msm(true, n, MIX_EXTREMES, 1, seed++);
            check_msm(true, n, MIX_UNIFORM, 2, seed++); /* every point equal */
            check_msm(true, n, MIX_UNIFORM, 3, seed++); /* P, −P, P, ... */
        }
        check_msm(true, 1u << 14, MIX_ALL_TWO, 2, seed++); /* 2^14 equal points in one bucket */
        check_msm(true, 1u << 16, MIX_WITNESS, 1, seed++);
        /* wide buckets (c = 8) and strips across many buckets */
        czk_assert_ok(czk_cuda_set_msm_c(ctx, 8, &err), &err);
        czk_cuda_set_msm_strip(ctx, 5);
        check_msm(true, (1u << 14) + 3, MIX_UNIFORM, 3, seed++);
        const uint32_t layout = czk_cuda_msm_strip_group(ctx); /* and the other strip layout */
        czk_cuda_set_msm_strip_group(ctx, layout == 1 ? 32 : 1);
        check_msm(true, (1u << 14) + 3, MIX_UNIFORM, 3, seed++);
        czk_cuda_set_msm_strip_group(ctx, layout);
        czk_cuda_set_msm_strip(ctx, 0);
        czk_assert_ok(czk_cuda_set_msm_c(ctx, 0, &err), &err);
        /* two windows in flight, and their digits two windows at a time */
        czk_cuda_set_msm_slots(ctx, 2);
        for (unsigned g = 0; g <= 2; g += 2) {
            czk_cuda_set_msm_digit_group(ctx, g);
            czk_cuda_msm_info info =
                check_msm_ex(true, (1u << 14) + 3, MIX_UNIFORM, 0, 0, 0, seed++);
            if (info.slots != 2)
                fail_msg("msm g2 acc=%d: %u window slots, expected 2", acc[v], info.slots);
            check_msm(true, 4103, MIX_UNIFORM, 3, seed++);
        }
        czk_cuda_set_msm_digit_group(ctx, 0);
        czk_cuda_set_msm_slots(ctx, 0);
    }
    czk_cuda_set_msm_acc(ctx, saved);
}

/* Streams made again at the highest and then the default priority (backend.cu does so for MSM
 * H's context with CZK_CUDA_MSM_H_PRIORITY=1): MSMs on them still equal the host's, two window
 * slots included. */
static void test_ctx_priority(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    const int acc = czk_cuda_msm_acc(ctx);
    for (int high = 1; high >= 0; high--) {
        czk_assert_ok(czk_cuda_ctx_set_priority(ctx, high, &err), &err);
        check_msm(false, 1000, MIX_UNIFORM, 0, 1500 + (uint64_t)high);
        check_msm(true, 1000, MIX_UNIFORM, 0, 1510 + (uint64_t)high);
        czk_cuda_set_msm_acc(ctx, CZK_CUDA_MSM_ACC_HYBRID);
        czk_cuda_set_msm_slots(ctx, 2); /* stream2 too */
        check_msm(false, (1u << 16) + 3, MIX_UNIFORM, 0, 1520 + (uint64_t)high);
        czk_cuda_set_msm_slots(ctx, 0);
        czk_cuda_set_msm_acc(ctx, acc);
    }
}

/* n points k·G, k = seed, seed + 1, ... (host, blst). */
static blst_p1_affine *host_g1_points(size_t n, uint64_t seed) {
    blst_p1_affine *out = xmalloc(n * sizeof *out);
    blst_p1 p, g = *blst_p1_generator();
    czk_fr k = fr_u64(seed);
    czk_g1_mul(&p, &g, &k);
    for (size_t i = 0; i < n; i++) {
        blst_p1_to_affine(&out[i], &p);
        blst_p1_add_or_double(&p, &p, &g);
    }
    return out;
}

/* The same on G2. */
static blst_p2_affine *host_g2_points(size_t n, uint64_t seed) {
    blst_p2_affine *out = xmalloc(n * sizeof *out);
    blst_p2 p, g = *blst_p2_generator();
    czk_fr k = fr_u64(seed);
    czk_g2_mul(&p, &g, &k);
    for (size_t i = 0; i < n; i++) {
        blst_p2_to_affine(&out[i], &p);
        blst_p2_add_or_double(&p, &p, &g);
    }
    return out;
}

typedef struct ba_entry {
    uint32_t key, idx;
} ba_entry;
static int cmp_ba_entry(const void *a, const void *b) {
    const ba_entry *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Bucket layouts of the emulation cases. */
enum ba_kind { BA_UNIFORM, BA_HEAVY, BA_REPEATED, BA_EQUAL, BA_EQUAL_SIGNED, BA_INFINITY };
static const char *const BA_KIND[] = {"uniform",      "one bucket",      "3 distinct points",
                                      "equal points", "equal points, ±", "30 % infinity"};

/* One window's inputs for the emulations: sorted keys and indices over n bases of the kind, and
 * the blst sum of each bucket's signed points (want, B points). */
typedef struct ba_window {
    uint8_t *bases, *want;
    uint32_t *skeys, *sidx;
} ba_window;

static ba_window ba_make_window(bool g2, enum ba_kind kind, uint32_t n, uint32_t B, uint64_t seed) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    const uint32_t npool = 64;
    const size_t asz = g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine);
    const size_t psz = g2 ? sizeof(blst_p2) : sizeof(blst_p1);
    uint8_t *pool = g2 ? (uint8_t *)host_g2_points(npool, seed * 1000 + 1)
                       : (uint8_t *)host_g1_points(npool, seed * 1000 + 1);
    ba_window win;
    win.bases = xmalloc(n * asz);
    ba_entry *e = xmalloc(n * sizeof *e);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t r = czk_rng_u64(&rng);
        uint32_t sign = (r >> 40) & 1, bucket = (uint32_t)(r % B),
                 from = (uint32_t)((r >> 20) % npool);
        bool none = false, inf = false;
        switch (kind) {
        case BA_UNIFORM:
            none = (r >> 50) % 11 == 0; /* a zero digit */
            break;
        case BA_HEAVY:
            bucket = B / 2;
            break;
        case BA_REPEATED:
            from = (uint32_t)((r >> 20) % 3);
            bucket %= 3;
            break;
        case BA_EQUAL:
            from = 0;
            bucket %= 2, sign = 0;
            break;
        case BA_EQUAL_SIGNED:
            from = 0;
            bucket %= 2;
            break;
        case BA_INFINITY:
            inf = (r >> 20) % 10 < 3;
            break;
        }
        if (inf)
            memset(win.bases + i * asz, 0, asz);
        else
            memcpy(win.bases + i * asz, pool + from * asz, asz);
        e[i].key = none ? 0 : 2 * (bucket + 1) + sign;
        e[i].idx = i;
    }
    qsort(e, n, sizeof *e, cmp_ba_entry);
    win.skeys = xmalloc(n * sizeof *win.skeys);
    win.sidx = xmalloc(n * sizeof *win.sidx);
    win.want = xmalloc(B * psz);
    memset(win.want, 0, B * psz);
    for (uint32_t i = 0; i < n; i++) {
        win.skeys[i] = e[i].key;
        win.sidx[i] = e[i].idx;
        if (!e[i].key) continue;
        const uint8_t *src = win.bases + e[i].idx * asz;
        void *w = win.want + (e[i].key / 2 - 1) * psz;
        if (g2) {
            blst_p2 p;
            blst_p2_from_affine(&p, (const blst_p2_affine *)src);
            if (e[i].key & 1) blst_p2_cneg(&p, true);
            blst_p2_add_or_double(w, w, &p);
        } else {
            blst_p1 p;
            blst_p1_from_affine(&p, (const blst_p1_affine *)src);
            if (e[i].key & 1) blst_p1_cneg(&p, true);
            blst_p1_add_or_double(w, w, &p);
        }
    }
    free(pool), free(e);
    return win;
}

static void ba_free_window(ba_window *w) {
    free(w->bases), free(w->want), free(w->skeys), free(w->sidx);
}

/*
 * One window's buckets by czk_cuda_msm_affine_emulate (the device code on the host; _g2 with g2)
 * against blst sums of each bucket's signed points, for several K (1: affine to one point, 8:
 * hybrid), strip lengths and inversion blocks.
 */
static void check_affine_emulated_in(bool g2, enum ba_kind kind, uint32_t n, uint32_t B,
                                     uint64_t seed) {
    czk_err err;
    const size_t psz = g2 ? sizeof(blst_p2) : sizeof(blst_p1);
    ba_window win = ba_make_window(g2, kind, n, B, seed);
    uint8_t *got = xmalloc(B * psz);
    /* K, strip, group (1: consecutive outputs a strip; 32: a warp's strips interleaved; 3 and 4:
     * groups that end inside a level and strips that cross several buckets a step), blocks */
    static const uint32_t cfg[][4] = {{1, 1, 1, 1},   {1, 3, 1, 3},  {2, 16, 1, 1}, {8, 3, 1, 2},
                                      {1, 32, 1, 5},  {1, 1, 32, 1}, {2, 5, 32, 3}, {8, 3, 4, 2},
                                      {1, 32, 32, 5}, {2, 7, 3, 1}};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        memset(got, 0x77, B * psz);
        czk_assert_ok(g2 ? czk_cuda_msm_affine_emulate_g2(
                               (const blst_p2_affine *)win.bases, win.skeys, win.sidx, n, B,
                               cfg[c][0], cfg[c][1], cfg[c][2], cfg[c][3], (blst_p2 *)got, &err)
                         : czk_cuda_msm_affine_emulate((const blst_p1_affine *)win.bases, win.skeys,
                                                       win.sidx, n, B, cfg[c][0], cfg[c][1],
                                                       cfg[c][2], cfg[c][3], (blst_p1 *)got, &err),
                      &err);
        for (uint32_t b = 0; b < B; b++) {
            const void *x = got + b * psz, *y = win.want + b * psz;
            if (g2 ? !blst_p2_is_equal(x, y) : !blst_p1_is_equal(x, y))
                fail_msg("emulated batch-affine buckets, %s, %s, n=%u B=%u K=%u strip=%u "
                         "group=%u blocks=%u: bucket %u differs from the blst sum",
                         g2 ? "G2" : "G1", BA_KIND[kind], n, B, cfg[c][0], cfg[c][1], cfg[c][2],
                         cfg[c][3], b);
        }
    }
    ba_free_window(&win);
    free(got);
}

/*
 * One window's sum by levels (czk_cuda_msm_window_sum_emulate: buckets to one point, the split
 * T_h, U_l by the same levels, its running sums) against Σ_b (b + 1)·want_b by blst's scalar
 * multiplication, for several strip lengths, strip groups and inversion blocks.
 */
static void check_window_sum_emulated(bool g2, enum ba_kind kind, uint32_t n, uint32_t e,
                                      uint64_t seed) {
    czk_err err;
    const uint32_t B = 1u << e;
    ba_window win = ba_make_window(g2, kind, n, B, seed);
    blst_p1 want1, got1;
    blst_p2 want2, got2;
    memset(&want1, 0, sizeof want1);
    memset(&want2, 0, sizeof want2);
    for (uint32_t b = 0; b < B; b++) {
        uint8_t k[4] = {(uint8_t)(b + 1), (uint8_t)((b + 1) >> 8), (uint8_t)((b + 1) >> 16),
                        (uint8_t)((b + 1) >> 24)};
        if (g2) {
            blst_p2 t;
            blst_p2_mult(&t, (const blst_p2 *)win.want + b, k, 32);
            blst_p2_add_or_double(&want2, &want2, &t);
        } else {
            blst_p1 t;
            blst_p1_mult(&t, (const blst_p1 *)win.want + b, k, 32);
            blst_p1_add_or_double(&want1, &want1, &t);
        }
    }
    static const uint32_t cfg[][3] = {{1, 1, 1}, {3, 1, 3}, {32, 1, 5}, {5, 32, 3}, {7, 3, 1}};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        bool ok;
        if (g2) {
            czk_assert_ok(czk_cuda_msm_window_sum_emulate_g2((const blst_p2_affine *)win.bases,
                                                             win.skeys, win.sidx, n, e, cfg[c][0],
                                                             cfg[c][1], cfg[c][2], &got2, &err),
                          &err);
            ok = blst_p2_is_equal(&got2, &want2);
        } else {
            czk_assert_ok(czk_cuda_msm_window_sum_emulate((const blst_p1_affine *)win.bases,
                                                          win.skeys, win.sidx, n, e, cfg[c][0],
                                                          cfg[c][1], cfg[c][2], &got1, &err),
                          &err);
            ok = blst_p1_is_equal(&got1, &want1);
        }
        if (!ok)
            fail_msg("emulated window sum by levels, %s, %s, n=%u B=2^%u strip=%u group=%u "
                     "blocks=%u: differs from Σ (b + 1)·bucket_b",
                     g2 ? "G2" : "G1", BA_KIND[kind], n, e, cfg[c][0], cfg[c][1], cfg[c][2]);
    }
    ba_free_window(&win);
}

static void check_affine_emulated(enum ba_kind kind, uint32_t n, uint32_t B, uint64_t seed) {
    check_affine_emulated_in(false, kind, n, B, seed);
}

/* The batch-affine levels on the host (no GPU needed): every exceptional case of a pair. */
static void test_msm_affine_emulated(void **state) {
    (void)state;
    czk_err err;
    static const uint32_t tiny[] = {1, 2, 3, 7};
    for (size_t i = 0; i < 4; i++) {
        check_affine_emulated(BA_UNIFORM, tiny[i], 4, 10 + i);
        check_affine_emulated(BA_EQUAL_SIGNED, tiny[i], 4, 20 + i);
    }
    check_affine_emulated(BA_UNIFORM, 1000, 16, 30); /* ≈ 57 points per bucket, odd sizes */
    check_affine_emulated(BA_UNIFORM, 100, 64, 31);  /* empty buckets, buckets of 1 and 2 */
    check_affine_emulated(BA_HEAVY, 1500, 32, 32);   /* every point in one bucket */
    check_affine_emulated(BA_REPEATED, 900, 8, 33);  /* P + P and P + (−P) at every level */
    check_affine_emulated(BA_EQUAL, 777, 4, 34);     /* doublings all the way */
    check_affine_emulated(BA_EQUAL_SIGNED, 800, 4, 35);
    check_affine_emulated(BA_INFINITY, 600, 8, 36); /* O inputs (the bases' (0, 0)) */
    /* G2: the same levels over Fp2 (every case, smaller sizes) */
    for (size_t i = 0; i < 4; i++)
        check_affine_emulated_in(true, BA_EQUAL_SIGNED, tiny[i], 4, 40 + i);
    check_affine_emulated_in(true, BA_UNIFORM, 300, 8, 50);
    check_affine_emulated_in(true, BA_HEAVY, 200, 16, 51);
    check_affine_emulated_in(true, BA_REPEATED, 200, 8, 52);
    check_affine_emulated_in(true, BA_EQUAL, 150, 4, 53);
    check_affine_emulated_in(true, BA_INFINITY, 200, 8, 54);
    /* the window sums by levels: B = 2^0 .. 2^12 (groups of the split summed from their inputs
     * up to 2^6 buckets, by the split's levels from 2^7; T and U of unequal sizes at odd e), every
     * bucket kind */
    for (uint32_t e = 0; e <= 3; e++)
        check_window_sum_emulated(false, BA_UNIFORM, 40, e, 60 + e);
    check_window_sum_emulated(false, BA_UNIFORM, 1000, 5, 64); /* ≈ 30 points a bucket */
    check_window_sum_emulated(false, BA_UNIFORM, 300, 10, 65); /* most buckets 0 or 1 point */
    check_window_sum_emulated(false, BA_UNIFORM, 3000, 8, 66);
    check_window_sum_emulated(false, BA_HEAVY, 500, 6, 67);
    check_window_sum_emulated(false, BA_REPEATED, 600, 4, 68); /* equal T / U sums: doublings */
    check_window_sum_emulated(false, BA_EQUAL, 300, 2, 69);
    check_window_sum_emulated(false, BA_EQUAL_SIGNED, 300, 3, 70);
    check_window_sum_emulated(false, BA_INFINITY, 700, 7, 71);
    check_window_sum_emulated(false, BA_UNIFORM, 5000, 12, 75); /* groups of 64: three levels */
    check_window_sum_emulated(true, BA_UNIFORM, 300, 5, 72);
    check_window_sum_emulated(true, BA_REPEATED, 200, 3, 73);
    check_window_sum_emulated(true, BA_INFINITY, 200, 4, 74);
    /* bad arguments are refused */
    uint32_t key = 2 * 5 + 2, idx = 0;
    blst_p1_affine p;
    blst_p1 out[4];
    memset(&p, 0, sizeof p);
    assert_int_equal(czk_cuda_msm_affine_emulate(&p, &key, &idx, 1, 4, 1, 1, 1, 1, out, &err),
                     CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "entry 0"));
    assert_int_equal(czk_cuda_msm_affine_emulate(&p, &key, &idx, 1, 8, 0, 1, 1, 1, out, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_cuda_msm_affine_emulate(&p, &key, &idx, 1, 8, 1, 1, 0, 1, out, &err),
                     CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "group = 0"));
    blst_p1 sum;
    assert_int_equal(czk_cuda_msm_window_sum_emulate(&p, &key, &idx, 1, 2, 1, 1, 1, &sum, &err),
                     CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "entry 0"));
    assert_int_equal(czk_cuda_msm_window_sum_emulate(&p, &key, &idx, 1, 25, 1, 1, 1, &sum, &err),
                     CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "2^25"));
}

/* ---- SpMV: adversarial shapes (the device kernels and their host emulation) ---- */

/* Row lengths of one matrix: each entry a length, or an alignment request resolved against the
 * position in the merge list (rows ended + non-zeros so far): END_TILE makes the row's end the
 * last item of a 1024-item tile, START_TILE the first item of one, END_THREAD the last item of
 * an 8-item thread range (src/cuda/spmv.cu: SPMV_TILE, SPMV_ITEMS). */
enum { END_TILE = -1, START_TILE = -2, END_THREAD = -3, EMPTY_RUN = -4 };

static const int ROW_SPEC[] = {
    0,          0, 0,          1,         2,    31,       32,         33,         0,
    500,        1, 0,          0,         5000, END_TILE, 1,          1,          3,
    START_TILE, 2, END_THREAD, 7,         8,    9,        0,          END_TILE,   EMPTY_RUN,
    1,          2, 1000,       1023,      1024, 1025,     END_TILE,   0,          END_TILE,
    1,          2, 3,          EMPTY_RUN, 4097, 1,        START_TILE, START_TILE, 3,
    0,          0, 0,          1,
};

/* Lengths for matrix m: 100 empty rows, ROW_SPEC rotated by m·7 entries (EMPTY_RUN: 2500 empty
 * rows), 100 empty rows. */
static uint32_t *spec_lengths(int m, uint64_t *rows_out) {
    size_t ns = sizeof ROW_SPEC / sizeof ROW_SPEC[0];
    uint64_t rows = 200;
    for (size_t k = 0; k < ns; k++)
        rows += ROW_SPEC[k] == EMPTY_RUN ? 2500 : 1;
    uint32_t *len = xmalloc(rows * sizeof *len);
    uint64_t pos = 0, r = 0; /* merge-list position: rows ended + non-zeros */
    for (int e = 0; e < 100; e++)
        len[r++] = 0, pos++;
    for (size_t q = 0; q < ns; q++) {
        int sp = ROW_SPEC[(q + 7 * (size_t)m) % ns];
        if (sp == EMPTY_RUN) {
            for (int e = 0; e < 2500; e++)
                len[r++] = 0, pos++;
            continue;
        }
        uint32_t l;
        if (sp == END_TILE) /* end item at pos + l: pos + l ≡ 1023 (mod 1024) */
            l = (uint32_t)((1023 + 1024 - pos % 1024) % 1024);
        else if (sp == START_TILE)
            l = (uint32_t)((1024 - pos % 1024) % 1024);
        else if (sp == END_THREAD)
            l = (uint32_t)((7 + 8 - pos % 8) % 8);
        else
            l = (uint32_t)sp;
        len[r++] = l;
        pos += l + 1;
    }
    for (int e = 0; e < 100; e++)
        len[r++] = 0;
    *rows_out = rows;
    return len;
}

/* A coefficient table with 1 and −1 not first, powers of two and random values. */
static czk_fr *coeff_table(uint32_t *count, czk_rng *rng) {
    const uint32_t n = 2 + 1 + 254 + 40;
    czk_fr *t = xmalloc(n * sizeof *t);
    czk_err err;
    uint32_t k = 0;
    czk_fr_from_u64(&t[k++], 3);
    t[k++] = czk_fr_one;
    czk_fr_neg(&t[k++], &czk_fr_one);
    for (unsigned e = 1; e < 255; e++)
        t[k++] = *czk_fr_pow2(e);
    while (k < n)
        czk_assert_ok(czk_fr_random(&t[k++], rng, &err), &err);
    *count = n;
    return t;
}

/* A coefficient index: mostly 1 and −1, then powers of two, then random. */
static uint32_t pick_coeff(czk_rng *rng, uint32_t count) {
    uint64_t r = czk_rng_u64(rng) % 100;
    if (r < 45) return 1;
    if (r < 75) return 2;
    if (r < 90) return 3 + (uint32_t)(czk_rng_u64(rng) % 254);
    return (uint32_t)(czk_rng_u64(rng) % count);
}

/* A shape whose matrices have the given row lengths (len[m][k]), columns near a moving center. */
static czk_shape *shape_from_lengths(uint32_t *const len[3], uint64_t rows, uint32_t ni,
                                     uint32_t naux, uint64_t seed) {
    czk_shape *s = calloc(1, sizeof *s);
    assert_non_null(s);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    s->num_inputs = ni;
    s->num_aux = naux;
    s->num_constraints = rows;
    s->coeffs = coeff_table(&s->num_coeffs, &rng);
    uint32_t nv = ni + naux;
    for (int m = 0; m < 3; m++) {
        czk_csr *c = &s->m[m];
        c->row_ptr = xmalloc((rows + 1) * sizeof *c->row_ptr);
        uint64_t nnz = 0;
        for (uint64_t k = 0; k < rows; k++)
            nnz += len[m][k];
        c->nnz = nnz;
        c->col = xmalloc(nnz * sizeof *c->col);
        c->coeff = xmalloc(nnz * sizeof *c->coeff);
        uint64_t q = 0;
        for (uint64_t k = 0; k < rows; k++) {
            c->row_ptr[k] = q;
            uint32_t center = (uint32_t)((k * nv) / (rows ? rows : 1));
            for (uint32_t t = 0; t < len[m][k]; t++, q++) {
                uint64_t r = czk_rng_u64(&rng);
                c->col[q] = r % 4 ? (uint32_t)((center + r % 64) % nv) : (uint32_t)(r % nv);
                c->coeff[q] = pick_coeff(&rng, s->num_coeffs);
            }
        }
        c->row_ptr[rows] = q;
    }
    return s;
}

static czk_shape *spec_shape(uint32_t ni, uint32_t naux, uint64_t seed) {
    uint32_t *len[3];
    uint64_t rows = 0;
    for (int m = 0; m < 3; m++)
        len[m] = spec_lengths(m, &rows);
    czk_shape *s = shape_from_lengths(len, rows, ni, naux, seed);
    for (int m = 0; m < 3; m++)
        free(len[m]);
    return s;
}

/* rows rows: 60 % of 1–3 terms, 15 % empty, the rest 4–40 terms, 0.5 % 100–700 terms. */
static czk_shape *uneven_shape(uint64_t rows, uint32_t ni, uint32_t naux, uint64_t seed) {
    czk_rng rng;
    czk_rng_seed(&rng, seed ^ 0x77);
    uint32_t *len[3];
    for (int m = 0; m < 3; m++) {
        len[m] = xmalloc(rows * sizeof *len[m]);
        for (uint64_t k = 0; k < rows; k++) {
            uint64_t r = czk_rng_u64(&rng) % 1000;
            len[m][k] = r < 600   ? 1 + (uint32_t)(r % 3)
                        : r < 750 ? 0
                        : r < 995 ? 4 + (uint32_t)(czk_rng_u64(&rng) % 37)
                                  : 100 + (uint32_t)(czk_rng_u64(&rng) % 601);
        }
    }
    czk_shape *s = shape_from_lengths(len, rows, ni, naux, seed);
    for (int m = 0; m < 3; m++)
        free(len[m]);
    return s;
}

/* z = inputs ‖ aux: ONE, then zeros, ones and random values. */
static czk_fr *random_z(uint32_t nv, uint64_t seed) {
    czk_fr *z = xmalloc(nv * sizeof *z);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_err err;
    for (uint32_t i = 0; i < nv; i++) {
        uint64_t r = czk_rng_u64(&rng) % 4;
        if (i == 0 || r == 1)
            z[i] = czk_fr_one;
        else if (r == 0)
            z[i] = czk_fr_zero;
        else
            czk_assert_ok(czk_fr_random(&z[i], &rng, &err), &err);
    }
    return z;
}

/* out[k] = <M_k, z> by walking the CSR with plain field operations (no fast paths). */
static void csr_walk(const czk_shape *s, int m, const czk_fr *z, czk_fr *out) {
    for (uint64_t k = 0; k < s->num_constraints; k++) {
        czk_fr acc = czk_fr_zero, t;
        for (uint64_t q = s->m[m].row_ptr[k]; q < s->m[m].row_ptr[k + 1]; q++) {
            czk_fr_mul(&t, &s->coeffs[s->m[m].coeff[q]], &z[s->m[m].col[q]]);
            czk_fr_add(&acc, &acc, &t);
        }
        out[k] = acc;
    }
}

/*
 * got (3 × n, the device's or the emulation's a, b, c) against czk_shape_eval and the CSR walk
 * for rows < num_constraints and zero beyond; the first difference is named.
 */
static void check_abc(const czk_shape *s, const czk_fr *z, const czk_fr *got, size_t n,
                      const char *what) {
    czk_err err;
    size_t R = s->num_constraints;
    czk_witness w = {.inputs = (czk_fr *)z,
                     .aux = (czk_fr *)z + s->num_inputs,
                     .num_inputs = s->num_inputs,
                     .num_aux = s->num_aux};
    czk_fr *ref = xmalloc(3 * (R + 1) * sizeof *ref), *walk = xmalloc((R + 1) * sizeof *walk);
    czk_assert_ok(czk_shape_eval(s, &w, ref, ref + R, ref + 2 * R, pool, &err), &err);
    for (int m = 0; m < 3; m++) {
        csr_walk(s, m, z, walk);
        for (size_t k = 0; k < R; k++) {
            if (!czk_fr_eq(&ref[m * R + k], &walk[k]))
                fail_msg("%s: czk_shape_eval and the CSR walk differ at %c[%zu]", what, "abc"[m],
                         k);
            if (!czk_fr_eq(&got[m * n + k], &walk[k]))
                fail_msg("%s: %c[%zu] differs (row of %llu terms, %zu rows)", what, "abc"[m], k,
                         (unsigned long long)(s->m[m].row_ptr[k + 1] - s->m[m].row_ptr[k]), R);
        }
        for (size_t k = R; k < n; k++)
            if (!czk_fr_is_zero(&got[m * n + k]))
                fail_msg("%s: %c[%zu] (padding beyond %zu rows) is not zero", what, "abc"[m], k, R);
    }
    free(ref);
    free(walk);
}

/* The shapes of the SpMV tests: k = 0 spec, 1 uneven (~2^17 rows), 2 random circuit, 3 empty. */
static czk_shape *spmv_case(int k, czk_fr **z_out) {
    czk_shape *s;
    if (k == 0) {
        s = spec_shape(5, 3000, 11);
    } else if (k == 1) {
        s = uneven_shape(140000, 7, 90000, 12);
    } else if (k == 2) {
        rc c;
        rc_init(&c, 1234, 3000);
        czk_err err;
        czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
        assert_non_null(cs);
        czk_assert_ok(czk_cs_run(cs, rc_circuit, &c, &err), &err);
        czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
        czk_cs_free(cs);
        assert_int_equal(c.num_in, s->num_inputs);
        assert_int_equal(c.num_aux, s->num_aux);
        czk_fr *z = xmalloc(((size_t)c.num_in + c.num_aux) * sizeof *z);
        memcpy(z, c.in_vals, c.num_in * sizeof *z);
        memcpy(z + c.num_in, c.aux_vals, c.num_aux * sizeof *z);
        rc_free(&c);
        *z_out = z;
        return s;
    } else {
        uint32_t *len[3];
        for (int m = 0; m < 3; m++)
            len[m] = calloc(3000, sizeof *len[m]);
        s = shape_from_lengths(len, 3000, 2, 10, 13); /* every row empty */
        for (int m = 0; m < 3; m++)
            free(len[m]);
    }
    *z_out = random_z(s->num_inputs + s->num_aux, 100 + (uint64_t)k);
    return s;
}

static const char *const SPMV_CASE[] = {"adversarial rows", "uneven rows", "random circuit",
                                        "empty rows"};

/* The merge-path algorithm itself, on the host (runs without a GPU too). */
static void test_spmv_emulated(void **state) {
    (void)state;
    czk_err err;
    for (int k = 0; k < 4; k++) {
        czk_fr *z;
        czk_shape *s = spmv_case(k, &z);
        size_t n = s->num_constraints + 777; /* zero padding */
        czk_fr *got = xmalloc(3 * n * sizeof *got);
        memset(got, 0x33, 3 * n * sizeof *got);
        czk_assert_ok(czk_cuda_spmv_emulate(s, z, got, got + n, got + 2 * n, n, &err), &err);
        char what[64];
        snprintf(what, sizeof what, "emulated spmv, %s", SPMV_CASE[k]);
        check_abc(s, z, got, n, what);
        print_message("%s: %llu rows, nnz %llu / %llu / %llu: equal\n", what,
                      (unsigned long long)s->num_constraints, (unsigned long long)s->m[0].nnz,
                      (unsigned long long)s->m[1].nnz, (unsigned long long)s->m[2].nnz);
        /* without c (the Lagrange form's prover): a and b the same, c's memory untouched */
        czk_fr *ab = xmalloc(3 * n * sizeof *ab);
        memset(ab, 0x33, 3 * n * sizeof *ab);
        czk_assert_ok(czk_cuda_spmv_emulate(s, z, ab, ab + n, NULL, n, &err), &err);
        assert_memory_equal(ab, got, 2 * n * sizeof *ab);
        for (size_t i = 2 * n * sizeof *ab; i < 3 * n * sizeof *ab; i++)
            assert_int_equal(((const uint8_t *)ab)[i], 0x33);
        free(ab);
        free(got);
        free(z);
        czk_shape_free(s);
    }
    /* a malformed shape is refused */
    czk_fr *z;
    czk_shape *s = spmv_case(0, &z);
    size_t n = s->num_constraints;
    czk_fr *got = xmalloc(3 * n * sizeof *got);
    s->m[1].col[5] = s->num_inputs + s->num_aux;
    assert_int_equal(czk_cuda_spmv_emulate(s, z, got, got + n, got + 2 * n, n, &err),
                     CZK_ERR_INVALID_ARG);
    free(got);
    free(z);
    czk_shape_free(s);
}

/* The device SpMV on the same shapes (and malformed ones refused at upload). */
static void test_spmv_device(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    for (int k = 0; k < 4; k++) {
        czk_fr *z;
        czk_shape *s = spmv_case(k, &z);
        size_t nv = (size_t)s->num_inputs + s->num_aux;
        size_t n = k == 1 ? (size_t)1 << czk_domain_log(s->num_constraints)
                          : s->num_constraints + (k == 2 ? 0 : 1000);
        czk_cuda_shape *ds;
        czk_assert_ok(czk_cuda_shape_upload(ctx, &ds, s, &err), &err);
        assert_true(czk_cuda_shape_device_bytes(s) >=
                    (s->num_constraints + 1) * 12 + 8 * (s->m[0].nnz + s->m[1].nnz + s->m[2].nnz));
        czk_fr *dz = dev_alloc(nv * sizeof *dz), *dabc = dev_alloc(3 * n * sizeof *dabc);
        czk_assert_ok(czk_cuda_upload(ctx, dz, z, nv * sizeof *dz, &err), &err);
        /* garbage first, so that every row and the zero padding are really written */
        czk_assert_ok(czk_cuda_fr_random(ctx, dabc, 3 * n, 5, &err), &err);
        czk_assert_ok(czk_cuda_spmv(ctx, ds, dz, dabc, dabc + n, dabc + 2 * n, n, &err), &err);
        czk_fr *got = xmalloc(3 * n * sizeof *got);
        czk_assert_ok(czk_cuda_download(ctx, got, dabc, 3 * n * sizeof *got, &err), &err);
        char what[64];
        snprintf(what, sizeof what, "device spmv, %s", SPMV_CASE[k]);
        check_abc(s, z, got, n, what);
        /* without c: a and b the same, c's memory as it was (garbage of seed 6) */
        czk_assert_ok(czk_cuda_fr_random(ctx, dabc, 3 * n, 6, &err), &err);
        czk_fr *before = xmalloc(3 * n * sizeof *before), *ab = xmalloc(3 * n * sizeof *ab);
        czk_assert_ok(czk_cuda_download(ctx, before, dabc, 3 * n * sizeof *before, &err), &err);
        czk_assert_ok(czk_cuda_spmv(ctx, ds, dz, dabc, dabc + n, NULL, n, &err), &err);
        czk_assert_ok(czk_cuda_download(ctx, ab, dabc, 3 * n * sizeof *ab, &err), &err);
        assert_memory_equal(ab, got, 2 * n * sizeof *ab);
        assert_memory_equal(ab + 2 * n, before + 2 * n, n * sizeof *ab);
        free(before);
        free(ab);
        if (s->num_constraints)
            assert_int_equal(czk_cuda_spmv(ctx, ds, dz, dabc, dabc + n, dabc + 2 * n,
                                           s->num_constraints - 1, &err),
                             CZK_ERR_INVALID_ARG);
        czk_cuda_free(ctx, dz);
        czk_cuda_free(ctx, dabc);
        czk_cuda_shape_free(ctx, ds);
        free(got);
        free(z);
        czk_shape_free(s);
    }
    /* malformed shapes: a column beyond z, a coefficient beyond the table, row pointers
     * decreasing; each refused with a message, nothing left allocated */
    for (int bad = 0; bad < 3; bad++) {
        czk_fr *z;
        czk_shape *s = spmv_case(0, &z);
        if (bad == 0) s->m[2].col[s->m[2].nnz - 1] = s->num_inputs + s->num_aux + 5;
        if (bad == 1) s->m[0].coeff[17] = s->num_coeffs;
        if (bad == 2) s->m[1].row_ptr[100] = s->m[1].row_ptr[101] + 1;
        czk_cuda_shape *ds = (czk_cuda_shape *)&ds;
        assert_int_equal(czk_cuda_shape_upload(ctx, &ds, s, &err), CZK_ERR_INVALID_ARG);
        assert_null(ds);
        assert_non_null(strstr(err.msg, "malformed"));
        free(z);
        czk_shape_free(s);
    }
}

/*
 * The packed witness's device expansion (czk_cuda_witness_expand: codes and others copied,
 * counts, CUB scan, one thread a value) gives back the witness czk_witness_pack packed, byte
 * for byte: sizes around the 32-value words and the 256-thread blocks up to 2^20 + 7 and
 * 2^24 + 3 values, 1 to 40 inputs, no others, the PoRep mix and 3 % others; from pageable and
 * from page-locked host memory (czk_cuda_host_alloc, as the engine's buffers are). Nothing
 * packed is refused.
 */
static void test_witness_expand(void **state) {
    (void)state;
    NEED_GPU();
    const uint32_t sizes[][2] = {{1, 0},
                                 {2, 30},
                                 {1, 31},
                                 {3, 62},
                                 {40, 984},
                                 {1, 8191},
                                 {2, (1u << 20) + 5},
                                 {1, (1u << 24) + 2}};
    const uint32_t mix[][2] = {{500000, 0}, {510000, 20000}, {400000, 30000}}; /* zero, other */
    uint64_t rng = 21;
    czk_err err;
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
        for (size_t m = 0; m < sizeof mix / sizeof mix[0]; m++) {
            uint64_t n = (uint64_t)sizes[a][0] + sizes[a][1];
            bool pinned = (a + m) % 2;
            size_t pbytes = czk_witness_packed_bytes(n);
            void *block = pinned ? czk_cuda_host_alloc(pbytes) : xmalloc(pbytes);
            assert_non_null(block);
            czk_fr *z = xmalloc(n * sizeof *z), *got = xmalloc(n * sizeof *got);
            czk_witness w = mw_witness(z, sizes[a][0], sizes[a][1], mix[m][0], mix[m][1], &rng);
            czk_witness_packed p;
            czk_witness_packed_place(&p, block, n);
            if (czk_witness_pack(&p, &w, pool)) { /* a few small ones have too many others */
                czk_fr *d = dev_alloc(n * sizeof *d);
                memset(got, 0xa5, n * sizeof *got); /* z's old contents: not zeros */
                czk_assert_ok(czk_cuda_upload(ctx, d, got, n * sizeof *got, &err), &err);
                czk_assert_ok(czk_cuda_witness_expand(ctx, d, &p, &err), &err);
                czk_assert_ok(czk_cuda_download(ctx, got, d, n * sizeof *got, &err), &err);
                if (memcmp(got, z, n * sizeof *z))
                    fail_msg("expansion of %llu values (%u inputs, %llu others) differs",
                             (unsigned long long)n, sizes[a][0], (unsigned long long)p.num_others);
                czk_cuda_free(ctx, d);
            } else {
                assert_true(n < 1000);
            }
            if (pinned)
                czk_cuda_host_free(block);
            else
                free(block);
            free(z);
            free(got);
        }
    czk_witness_packed none;
    memset(&none, 0, sizeof none);
    czk_fr *d = dev_alloc(64);
    assert_int_equal(czk_cuda_witness_expand(ctx, d, &none, &err), CZK_ERR_INVALID_ARG);
    czk_cuda_free(ctx, d);
}

static void test_errors(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_fr *d = dev_alloc(1024 * sizeof(czk_fr));
    assert_int_equal(czk_cuda_ntt(ctx, d, 0, CZK_NTT_FORWARD, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_cuda_ntt(ctx, d, 29, CZK_NTT_FORWARD, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_cuda_ntt(ctx, d, 10, (czk_ntt_kind)9, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_cuda_h(ctx, d, d, d, 40, &err), CZK_ERR_INVALID_ARG);
    blst_p1 out;
    assert_int_equal(czk_cuda_msm_g1(ctx, &out, NULL, d, (size_t)1 << 31, &err),
                     CZK_ERR_INVALID_ARG);
    /* n = 0 is infinity */
    czk_assert_ok(czk_cuda_msm_g1(ctx, &out, NULL, d, 0, &err), &err);
    assert_true(blst_p1_is_inf(&out));
    /* out of device memory is reported, naming the step */
    void *huge;
    assert_int_equal(czk_cuda_alloc(ctx, &huge, (size_t)1 << 50, &err), CZK_ERR_NOMEM);
    assert_non_null(strstr(err.msg, "alloc"));
    /* the context still works afterwards */
    czk_assert_ok(czk_cuda_fr_random(ctx, d, 1024, 1, &err), &err);
    czk_assert_ok(czk_cuda_ntt(ctx, d, 10, CZK_NTT_FORWARD, &err), &err);
    czk_cuda_free(ctx, d);
    assert_int_equal(czk_cuda_ctx_create(&(czk_cuda_ctx *){NULL}, 1000, &err), CZK_ERR_INVALID_ARG);
    /* a tunable with a value outside its set (the caller's value restored after) */
    static const char *vars[][2] = {
        {"CZK_CUDA_NTT_TWIST", "bogus"},    {"CZK_CUDA_H_ORDER", "bogus"},
        {"CZK_CUDA_MSM_ACC", "bogus"},      {"CZK_CUDA_H_TRANSFORMS", "bogus"},
        {"CZK_CUDA_MSM_DIGITS", "bogus"},   {"CZK_CUDA_MSM_SPARSE_ACC", "bogus"},
        {"CZK_CUDA_MSM_SPARSE_C", "bogus"}, {"CZK_CUDA_MSM_G2_AFFINE_LOG", "bogus"},
        {"CZK_CUDA_MSM_ONES", "bogus"},     {"CZK_CUDA_H_FUSE", "bogus"},
        {"CZK_CUDA_NTT_RADIX", "bogus"},    {"CZK_CUDA_MSM_STRIPS", "bogus"},
        {"CZK_CUDA_NTT_MUL", "bogus"},      {"CZK_CUDA_MSM_WSUM", "bogus"},
        {"CZK_CUDA_MSM_WINDOWS", "bogus"},  {"CZK_CUDA_MSM_WINDOWS", "10"},
        {"CZK_CUDA_MSM_MUL", "bogus"}};
    for (size_t v = 0; v < sizeof vars / sizeof *vars; v++) {
        const char *old = getenv(vars[v][0]);
        char *saved = old ? strdup(old) : NULL;
        setenv(vars[v][0], vars[v][1], 1);
        czk_cuda_ctx *c = NULL;
        assert_int_equal(czk_cuda_ctx_create(&c, 0, &err), CZK_ERR_INVALID_ARG);
        assert_null(c);
        if (!strstr(err.msg, vars[v][0]))
            fail_msg("%s=%s refused without naming it: %s", vars[v][0], vars[v][1], err.msg);
        if (saved)
            setenv(vars[v][0], saved, 1);
        else
            unsetenv(vars[v][0]);
        free(saved);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mul_forms),
        cmocka_unit_test(test_msm_mul_ka),
        cmocka_unit_test(test_ntt),
        cmocka_unit_test(test_ntt_roundtrip_large),
        cmocka_unit_test(test_h),
        cmocka_unit_test(test_g1_ntt),
        cmocka_unit_test(test_msm_g1),
        cmocka_unit_test(test_msm_g2),
        cmocka_unit_test(test_msm_g2_affine),
        cmocka_unit_test(test_msm_sparse_g1),
        cmocka_unit_test(test_msm_sparse_g2),
        cmocka_unit_test(test_msm_g1_affine),
        cmocka_unit_test(test_msm_window_sums),
        cmocka_unit_test(test_ctx_priority),
        cmocka_unit_test(test_msm_affine_emulated),
        cmocka_unit_test(test_spmv_emulated),
        cmocka_unit_test(test_spmv_device),
        cmocka_unit_test(test_witness_expand),
    };
    /* CZK_TEST_NTT_ONLY set: only the NTT and H tests (scripts/gpu-check.sh reruns them with
     * the old NTT paths selected) */
    const char *only = getenv("CZK_TEST_NTT_ONLY");
    const struct CMUnitTest ntt_tests[] = {
        cmocka_unit_test(test_ntt),
        cmocka_unit_test(test_ntt_roundtrip_large),
        cmocka_unit_test(test_h),
    };
    if (only && *only) return cmocka_run_group_tests(ntt_tests, setup, teardown);
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else /* no CUDA in this build */

static void test_no_cuda(void **state) {
    (void)state;
    czk_err err;
    czk_cuda_ctx *c;
    assert_int_equal(czk_cuda_device_count(), 0);
    assert_false(czk_cuda_built());
    assert_int_equal(czk_cuda_ctx_create(&c, 0, &err), CZK_ERR_UNSUPPORTED);
    assert_null(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
