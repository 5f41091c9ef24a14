/*
 * GPU benchmark: MSM G1 (2^20..2^27), MSM G2 (2^20..2^25), NTT (2^20..2^27),
 * H (2^27), plus field and point-addition rates. Prints a table; with
 * --json PATH writes the numbers scripts/gpu-check.sh records.
 *
 * Protocol (bench/GPU.md): inputs already on the device (bases generated
 * there, uniform random full-width scalars, distinct bases), one warm-up,
 * then the median of 3 (MSM) or 5 (NTT, H) runs, CUDA events around the call
 * including any host-side final reduction.
 *
 * Options: --json PATH, --commit ID, --max-g1 K, --max-g2 K, --max-ntt K
 * (largest log2 sizes; for quick runs), --sweep (also time other MSM window
 * sizes and print a per-phase profile of the largest MSMs, on stderr),
 * --no-porep2k (skip the 2KiB proof),
 * --variants (also time each MSM accumulation variant, czk_cuda_set_msm_acc
 * 0..CZK_CUDA_MSM_ACC_VARIANTS − 1 (msm.cuh acc_variants; G1: 0 sqr_eo, 1
 * squaring by multiplication, the kernel before sqr_eo, 2 sqr_eo with cp.async,
 * 3 called forms with cp.async), and target chunk lengths 64 and 128
 * (CZK_CUDA_MSM_CHUNK; defaults G1 128, G2 64), at the largest sizes),
 * --acc-compare (MSM G1 at 2^24 and at the largest size with each accumulation
 * kind: XYZZ (CZK_CUDA_MSM_ACC 0), batch-affine (4) and hybrid (5, what the
 * default auto takes from 2^22 points), median of 3 each, the three results
 * checked equal, the hybrid with one window slot and with its digits two
 * windows at a time too, and one profiled run of each on stderr; MSM G2 at
 * 2^20..2^22 and the largest size the same way, and G2's witness mix with the
 * others in XYZZ and in the hybrid; src/cuda/msm_affine.cuh),
 * --wit-sweep (after the witness-mix rows: the others' Pippenger of G1's mix at
 * the largest G1 size and of G2's at the largest G2 size under window sizes
 * 11..16, XYZZ and hybrid, each result checked equal to the default's),
 * --c-sweep C[:K],... (MSM G1 at the largest size under each window size C,
 * with K the hybrid's bucket size where its levels stop; median of 3, each
 * result checked equal to the default's, profile on stderr),
 * --ntt-variants (also time NTT and H at the largest NTT size under each
 * setting of CZK_CUDA_NTT_TWIST (direct, split) and CZK_CUDA_H_ORDER (paired,
 * natural), each in a fresh context, and H with CZK_CUDA_H_TRANSFORMS=7; a
 * table on stdout).
 *
 * Rows for the 32GiB partition's phases (skippable: --no-spmv, --no-upload,
 * --no-witness-msm):
 *   spmv: czk_cuda_spmv on a synthetic uneven shape of 2^--spmv-rows rows
 *     (default 24; rows of 0–3 terms mostly, some of 4–15 and of 100–400;
 *     columns mostly near the row's, 10 % anywhere; coefficients 1, −1, 2^k,
 *     other), median of 5: ms and GB/s counting 8 + 32 bytes per non-zero
 *     (indices, witness read) and 36 per row and matrix (row pointer, output
 *     write), scaled to the 32GiB shape; the shape upload's rate (staged).
 *   upload: 1 GiB host to device, median of 3 (wall clock): czk_cuda_upload
 *     from pageable memory, from page-locked memory, and czk_cuda_upload_fast
 *     (staging ring) from pageable memory with 1 and 4 host threads.
 *   msm witness mix: G1 2^24..max-g1 and G2 2^24..max-g2 with the 32GiB
 *     witness's mix (51 % zero, 47 % one, 2 % other; compacted path) next to
 *     the uniform rows, median of 3; then estimates of L, A, B_G1, B_G2 of
 *     a 32GiB partition scaled from them.
 *
 * porep2k_gpu_ms: the GPU backend's prove call for one 2KiB PoRep partition
 * (tests/support/porep2k_fixture.h: cached shape and TEST keys, a C1, the
 * witness of partition 0), from the witness in host memory to the 192 proof
 * bytes (czk_prove + czk_proof_encode), keys and shape resident (ops->load
 * first), r and s given; one warm-up, then the median of 5, wall clock.
 */
#include "czk/cuda.h"
#include "cuda/internal.h"
#include "porep2k_fixture.h"
#include "czk/pool.h"
#include "czk/r1cs.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CZK_HAVE_CUDA

static czk_cuda_ctx *ctx;

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_gpu: %s: %s\n", what, err->msg);
    exit(1);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef czk_status (*op_fn)(void *arg, czk_err *err);

/* One warm-up, then the median of `reps` timed runs (ms). */
static double time_op(op_fn op, void *arg, int reps) {
    czk_err err;
    double t[8];
    if (op(arg, &err) != CZK_OK) die("warm-up", &err);
    for (int i = 0; i < reps; i++) {
        if (czk_cuda_timer_start(ctx, &err) != CZK_OK) die("timer", &err);
        if (op(arg, &err) != CZK_OK) die("run", &err);
        if (czk_cuda_timer_stop(ctx, &t[i], &err) != CZK_OK) die("timer", &err);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

struct msm_arg {
    void *bases;
    czk_fr *scalars;
    size_t n;
    bool g2;
};
static czk_status run_msm(void *p, czk_err *err) {
    struct msm_arg *a = p;
    if (a->g2) {
        czk_g2 out;
        return czk_cuda_msm_g2(ctx, &out, a->bases, a->scalars, a->n, err);
    }
    czk_g1 out;
    return czk_cuda_msm_g1(ctx, &out, a->bases, a->scalars, a->n, err);
}

struct ntt_arg {
    czk_fr *a, *b, *c;
    unsigned log_n;
};
static czk_status run_ntt(void *p, czk_err *err) {
    struct ntt_arg *a = p;
    return czk_cuda_ntt(ctx, a->a, a->log_n, CZK_NTT_FORWARD, err);
}
static czk_status run_h(void *p, czk_err *err) {
    struct ntt_arg *a = p;
    return czk_cuda_h(ctx, a->a, a->b, a->c, a->log_n, err);
}
/* H of the Lagrange form (no c: four transforms and the product, src/cuda/ntt.cu) */
static czk_status run_h_lagrange(void *p, czk_err *err) {
    struct ntt_arg *a = p;
    return czk_cuda_h(ctx, a->a, a->b, NULL, a->log_n, err);
}

static void *dalloc(size_t bytes) {
    czk_err err;
    void *p;
    if (czk_cuda_alloc(ctx, &p, bytes, &err) != CZK_OK) die("alloc", &err);
    return p;
}

/* ---- SpMV on a synthetic uneven shape ---- */

static uint64_t xs64(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Terms of a row of matrix m: A uneven (some rows of 100–400), B mostly 1, C 0–15. */
static uint32_t row_terms(int m, uint64_t *rs) {
    uint64_t r = xs64(rs) % 1000;
    if (m == 0)
        return r < 100   ? 0
               : r < 650 ? 1
               : r < 850 ? 2
               : r < 950 ? 3
               : r < 995 ? 4 + (uint32_t)(xs64(rs) % 12)
                         : 100 + (uint32_t)(xs64(rs) % 301);
    if (m == 1) return r < 150 ? 0 : r < 870 ? 1 : 2;
    return r < 120 ? 0 : r < 720 ? 1 : r < 870 ? 2 : r < 950 ? 3 : 4 + (uint32_t)(xs64(rs) % 12);
}

static czk_shape *bench_shape(uint64_t rows, uint32_t nv) {
    czk_shape *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->num_inputs = 1;
    s->num_aux = nv - 1;
    s->num_constraints = rows;
    s->num_coeffs = 3 + 254 + 8;
    s->coeffs = malloc(s->num_coeffs * sizeof *s->coeffs);
    if (!s->coeffs) return czk_shape_free(s), NULL;
    czk_fr_from_u64(&s->coeffs[0], 12345);
    s->coeffs[1] = czk_fr_one;
    czk_fr_neg(&s->coeffs[2], &czk_fr_one);
    for (unsigned e = 1; e < 255; e++)
        s->coeffs[2 + e] = *czk_fr_pow2(e);
    for (unsigned k = 257; k < s->num_coeffs; k++)
        czk_fr_from_u64(&s->coeffs[k], 0x9e3779b97f4a7c15ull * k);
    uint64_t rs = 0x1234567;
    for (int m = 0; m < 3; m++) {
        czk_csr *c = &s->m[m];
        uint64_t cap = rows * 4 + 1024;
        c->row_ptr = malloc((rows + 1) * sizeof *c->row_ptr);
        c->col = malloc(cap * sizeof *c->col);
        c->coeff = malloc(cap * sizeof *c->coeff);
        if (!c->row_ptr || !c->col || !c->coeff) return czk_shape_free(s), NULL;
        uint64_t q = 0;
        for (uint64_t k = 0; k < rows; k++) {
            c->row_ptr[k] = q;
            uint32_t t = row_terms(m, &rs);
            if (q + t > cap) t = 0;
            uint64_t center = k * nv / rows;
            for (uint32_t j = 0; j < t; j++, q++) {
                uint64_t r = xs64(&rs);
                c->col[q] =
                    r % 10 ? (uint32_t)((center + (r >> 8) % 128) % nv) : (uint32_t)((r >> 8) % nv);
                uint64_t u = (r >> 40) % 100;
                c->coeff[q] = u < 60   ? 1
                              : u < 85 ? 2
                              : u < 95 ? 3 + (uint32_t)(r % 254)
                                       : 257 + (uint32_t)(r % 8);
            }
        }
        c->row_ptr[rows] = q;
        c->nnz = q;
    }
    return s;
}

struct spmv_arg {
    czk_cuda_shape *ds;
    czk_fr *z, *abc;
    size_t n;
};
static czk_status run_spmv(void *p, czk_err *err) {
    struct spmv_arg *a = p;
    return czk_cuda_spmv(ctx, a->ds, a->z, a->abc, a->abc + a->n, a->abc + 2 * a->n, a->n, err);
}

/* Prints the spmv rows; returns ms (0 on a failure to build the shape). */
static double bench_spmv(unsigned log_rows, double *gbps) {
    uint64_t rows = (1ull << log_rows) - 1000; /* not a power of two: zero padding too */
    uint32_t nv = (uint32_t)rows;
    double t0 = (1e3 * czk_now());
    czk_shape *s = bench_shape(rows, nv);
    if (!s) {
        fprintf(stderr, "bench_gpu: spmv shape: out of host memory\n");
        return 0;
    }
    uint64_t nnz = s->m[0].nnz + s->m[1].nnz + s->m[2].nnz;
    printf("spmv shape: %llu rows, nnz A/B/C %llu / %llu / %llu (made in %.1f s)\n",
           (unsigned long long)rows, (unsigned long long)s->m[0].nnz,
           (unsigned long long)s->m[1].nnz, (unsigned long long)s->m[2].nnz,
           ((1e3 * czk_now()) - t0) / 1e3);
    czk_err err;
    struct spmv_arg a;
    t0 = (1e3 * czk_now());
    if (czk_cuda_shape_upload(ctx, &a.ds, s, &err) != CZK_OK) die("shape upload", &err);
    double up_ms = (1e3 * czk_now()) - t0;
    uint64_t host_bytes = 3 * (rows + 1) * 8 + 8 * nnz;
    printf("spmv shape upload (staged, u64 -> u32 row pointers): %.1f ms, %.2f GB/s of host "
           "bytes\n",
           up_ms, host_bytes / up_ms / 1e6);
    a.n = (size_t)1 << log_rows;
    a.z = dalloc((size_t)nv * sizeof(czk_fr));
    a.abc = dalloc(3 * a.n * sizeof(czk_fr));
    if (czk_cuda_fr_mix(ctx, a.z, nv, 500000, 470000, 3, &err) != CZK_OK) die("z", &err);
    double ms = time_op(run_spmv, &a, 5);
    double bytes = 40.0 * (double)nnz + 36.0 * 3 * (double)rows;
    double bytes32 = 40.0 * 722388891.0 + 36.0 * 3 * 130278869.0;
    *gbps = bytes / ms / 1e6;
    printf("spmv 2^%u rows: %.3f ms, %.0f GB/s (40 B per non-zero, 36 B per row and matrix); "
           "scaled to the 32GiB shape: %.1f ms\n",
           log_rows, ms, *gbps, ms * bytes32 / bytes);
    fflush(stdout);
    czk_cuda_free(ctx, a.z);
    czk_cuda_free(ctx, a.abc);
    czk_cuda_shape_free(ctx, a.ds);
    czk_shape_free(s);
    return ms;
}

/* ---- host-to-device upload rates ---- */

/* GB/s of 3 uploads of `bytes` (median, wall clock): fast = czk_cuda_upload_fast. */
static double upload_rate(void *dst, const void *src, size_t bytes, bool fast) {
    czk_err err;
    double t[3];
    for (int i = -1; i < 3; i++) {
        double a = (1e3 * czk_now());
        czk_status st = fast ? czk_cuda_upload_fast(ctx, dst, src, bytes, &err)
                             : czk_cuda_upload(ctx, dst, src, bytes, &err);
        if (st != CZK_OK) die("upload", &err);
        if (i >= 0) t[i] = (1e3 * czk_now()) - a;
    }
    qsort(t, 3, sizeof *t, cmp_double);
    return bytes / t[1] / 1e6;
}

static void bench_upload(double out[4]) {
    const size_t bytes = (size_t)1 << 30;
    czk_err err;
    char *page = malloc(bytes), *pin = czk_cuda_host_alloc(bytes);
    void *dst = dalloc(bytes);
    if (!page || !pin) {
        fprintf(stderr, "bench_gpu: upload: host memory\n");
        free(page);
        czk_cuda_host_free(pin);
        czk_cuda_free(ctx, dst);
        return;
    }
    memset(page, 1, bytes);
    memset(pin, 1, bytes);
    czk_pool *pool4 = czk_pool_create(4, &err);
    out[0] = upload_rate(dst, page, bytes, false);
    out[1] = upload_rate(dst, pin, bytes, false);
    czk_cuda_set_copy_pool(ctx, NULL);
    out[2] = upload_rate(dst, page, bytes, true);
    czk_cuda_set_copy_pool(ctx, pool4);
    out[3] = upload_rate(dst, page, bytes, true);
    czk_cuda_set_copy_pool(ctx, NULL);
    printf("upload 1 GiB: pageable %.1f GB/s, page-locked %.1f GB/s, staged from pageable %.1f "
           "GB/s (1 thread) / %.1f GB/s (4 threads)\n",
           out[0], out[1], out[2], out[3]);
    printf("  a 32GiB partition: witness (4.17 GB) %.0f ms page-locked, %.0f ms staged; keys and "
           "shape (56.3 GB) %.1f s staged (4 threads)\n",
           4.17e3 / out[1], 4.17e3 / out[3], 56.3 / out[3]);
    fflush(stdout);
    czk_pool_destroy(pool4);
    free(page);
    czk_cuda_host_free(pin);
    czk_cuda_free(ctx, dst);
}

/* porep2k_gpu_ms (see the top of this file); 0 when skipped. */
static double bench_porep2k(void) {
    czk_err err;
    czk_pool *pool = czk_pool_create(czk_cpu_count(), &err);
    if (!pool) die("pool", &err);
    czk_p2k fx;
    double t0 = (1e3 * czk_now());
    if (czk_p2k_make(&fx, pool, &err)) die("2KiB fixture", &err);
    printf("porep2k fixture (shape, keys %s, C1, witness): %.1f s\n",
           fx.keys_made ? "made" : "cached", ((1e3 * czk_now()) - t0) / 1e3);
    czk_backend be;
    if (czk_backend_cuda(&be, 0, pool, 0, &err)) die("backend", &err);
    unsigned drop;
    uint64_t dev;
    t0 = (1e3 * czk_now());
    if (be.ops->load(be.self, fx.params, fx.shape, &drop, &dev, &err)) die("load", &err);
    czk_cuda_residency res;
    if (czk_backend_cuda_residency(&be, fx.params, &res, &err)) die("residency", &err);
    printf("porep2k load: %.0f ms, %llu device bytes, params %s, shape %s\n",
           (1e3 * czk_now()) - t0, (unsigned long long)dev,
           res.params_resident ? "resident" : "streamed", res.shape_resident ? "resident" : "host");
    czk_fr r, s;
    czk_fr_from_u64(&r, 12345);
    czk_fr_from_u64(&s, 67890);
    double t[5];
    uint8_t bytes[CZK_PROOF_BYTES];
    czk_prove_timings pt = {0};
    for (int i = -1; i < 5; i++) {
        czk_proof p;
        if (i == 0) memset(&pt, 0, sizeof pt);
        double a = (1e3 * czk_now());
        if (czk_prove(&be, fx.params, fx.shape, &fx.w, 1, &r, &s, &p, &pt, &err))
            die("porep2k prove", &err);
        czk_proof_encode(bytes, &p);
        if (i >= 0) t[i] = (1e3 * czk_now()) - a;
        if (i < 0) {
            if (czk_verify(fx.pvk, &p, fx.inputs, fx.num_inputs, &err)) die("porep2k verify", &err);
        }
    }
    qsort(t, 5, sizeof *t, cmp_double);
    /* the same with the five MSMs one after another (for comparison; not recorded) */
    double ts[3];
    if (czk_backend_cuda_set_serial_msm(&be, true, &err)) die("serial MSMs", &err);
    for (int i = 0; i < 3; i++) {
        czk_proof p;
        double a = (1e3 * czk_now());
        if (czk_prove(&be, fx.params, fx.shape, &fx.w, 1, &r, &s, &p, NULL, &err))
            die("porep2k prove (serial MSMs)", &err);
        czk_proof_encode(bytes, &p);
        ts[i] = (1e3 * czk_now()) - a;
    }
    if (czk_backend_cuda_set_serial_msm(&be, false, &err)) die("concurrent MSMs", &err);
    qsort(ts, 3, sizeof *ts, cmp_double);
    printf("porep2k with serial MSMs: %.2f ms (median of 3)\n", ts[1]);
    printf("porep2k phases (mean of 5, ms): upload %.2f, spmv %.2f, ntt/H %.2f, msm h %.2f, l "
           "%.2f, a %.2f, b_g1 %.2f, b_g2 %.2f, assemble %.2f\n",
           pt.upload * 200, pt.spmv * 200, pt.ntt * 200, pt.msm_h * 200, pt.msm_l * 200,
           pt.msm_a * 200, pt.msm_b1 * 200, pt.msm_b2 * 200, pt.assemble * 200);
    printf("porep2k_gpu_ms: %.2f (median of 5; min %.2f, max %.2f)\n", t[2], t[0], t[4]);
    fflush(stdout);
    czk_backend_release(&be);
    czk_p2k_free(&fx);
    czk_pool_destroy(pool);
    return t[2];
}

/* ---- MSM G1 accumulation kinds side by side (--acc-compare) ---- */

#define ACC_KINDS 3
static const int ACC_VALUE[ACC_KINDS] = {0, CZK_CUDA_MSM_ACC_AFFINE, CZK_CUDA_MSM_ACC_HYBRID};
static const char *const ACC_NAME[ACC_KINDS] = {"xyzz", "batch-affine", "hybrid"};

/* G1 at 2^24 and 2^max_k under each kind: out[k][kind] ms; the results must agree. */
static void bench_acc(struct msm_arg *a, unsigned max_k, double out[28][ACC_KINDS]) {
    czk_err err;
    const unsigned ks[2] = {24 < max_k ? 24 : max_k, max_k};
    const int acc_default = czk_cuda_msm_acc(ctx);
    for (int q = 0; q < 2; q++) {
        unsigned k = ks[q];
        if (q && k == ks[0]) break;
        a->n = (size_t)1 << k;
        czk_g1 ref, got;
        for (int v = 0; v < ACC_KINDS; v++) {
            czk_cuda_set_msm_acc(ctx, ACC_VALUE[v]);
            out[k][v] = time_op(run_msm, a, 3);
            if (czk_cuda_msm_g1(ctx, v ? &got : &ref, a->bases, a->scalars, a->n, &err) != CZK_OK)
                die("msm (accumulation kinds)", &err);
            if (v && !blst_p1_is_equal(&got, &ref)) {
                fprintf(stderr, "bench_gpu: msm g1 2^%u: %s result differs from %s\n", k,
                        ACC_NAME[v], ACC_NAME[0]);
                exit(1);
            }
            czk_cuda_set_profile(ctx, 1); /* phases on stderr */
            if (czk_cuda_msm_g1(ctx, &got, a->bases, a->scalars, a->n, &err) != CZK_OK)
                die("msm (profile)", &err);
            czk_cuda_set_profile(ctx, 0);
            printf("acc msm g1 2^%u %-16s %10.2f ms (median of 3)%s\n", k, ACC_NAME[v], out[k][v],
                   v ? "  result equal to xyzz" : "");
            fflush(stdout);
        }
        /* the hybrid with one window at a time (CZK_CUDA_MSM_SLOTS=1) against its default */
        czk_cuda_set_msm_acc(ctx, CZK_CUDA_MSM_ACC_HYBRID);
        czk_cuda_set_msm_slots(ctx, 1);
        const double one = time_op(run_msm, a, 3);
        if (czk_cuda_msm_g1(ctx, &got, a->bases, a->scalars, a->n, &err) != CZK_OK)
            die("msm (one slot)", &err);
        if (!blst_p1_is_equal(&got, &ref)) {
            fprintf(stderr, "bench_gpu: msm g1 2^%u: hybrid with one slot differs from xyzz\n", k);
            exit(1);
        }
        czk_cuda_set_msm_slots(ctx, 0);
        /* the digits two windows at a time (what the default does where all of them would not
         * leave room for the second slot), against all up front */
        czk_cuda_set_msm_digit_group(ctx, 2);
        const double pairs = time_op(run_msm, a, 3);
        if (czk_cuda_msm_g1(ctx, &got, a->bases, a->scalars, a->n, &err) != CZK_OK)
            die("msm (digits in pairs)", &err);
        if (!blst_p1_is_equal(&got, &ref)) {
            fprintf(stderr, "bench_gpu: msm g1 2^%u: digits two windows at a time differ\n", k);
            exit(1);
        }
        czk_cuda_set_msm_digit_group(ctx, 0);
        if (czk_cuda_msm_g1(ctx, &got, a->bases, a->scalars, a->n, &err) != CZK_OK)
            die("msm (slots)", &err);
        czk_cuda_msm_info info;
        czk_cuda_msm_last(ctx, &info);
        czk_cuda_set_msm_acc(ctx, acc_default);
        printf("acc msm g1 2^%u hybrid, one window slot: %.2f ms; default (%u slots, digits %u "
               "windows at a time): %.2f ms (%.3f); digits two windows at a time: %.2f ms\n",
               k, one, info.slots, info.digit_group, out[k][2], out[k][2] / one, pairs);
        printf("acc msm g1 2^%u: batch-affine / xyzz %.3f, hybrid / xyzz %.3f\n", k,
               out[k][1] / out[k][0], out[k][2] / out[k][0]);
    }
}

/*
 * G2 (--acc-compare) at 2^20, 2^21, 2^22 and 2^max_k under XYZZ, the hybrid and pure batch-affine
 * (the levels over Fp2), median of 3, every result equal to XYZZ's; then the 32GiB witness mix at
 * 2^max_k with the others' Pippenger in XYZZ and in the hybrid (CZK_CUDA_MSM_G2_AFFINE_LOG).
 * Scalars: a->scalars (uniform) on entry; the mix overwrites them.
 */
static void bench_acc_g2(struct msm_arg *a, unsigned max_k) {
    czk_err err;
    const int acc_default = czk_cuda_msm_acc(ctx);
    const unsigned ks[4] = {20, 21, 22, max_k};
    for (int q = 0; q < 4; q++) {
        const unsigned k = ks[q];
        if (k > max_k || (q == 3 && max_k <= 22)) break;
        a->n = (size_t)1 << k;
        czk_g2 ref, got;
        double ms[ACC_KINDS];
        for (int v = 0; v < ACC_KINDS; v++) {
            czk_cuda_set_msm_acc(ctx, ACC_VALUE[v]);
            ms[v] = time_op(run_msm, a, 3);
            if (czk_cuda_msm_g2(ctx, v ? &got : &ref, a->bases, a->scalars, a->n, &err) != CZK_OK)
                die("msm g2 (accumulation kinds)", &err);
            if (v && !blst_p2_is_equal(&got, &ref)) {
                fprintf(stderr, "bench_gpu: msm g2 2^%u: %s result differs from xyzz\n", k,
                        ACC_NAME[v]);
                exit(1);
            }
        }
        printf("acc msm g2 2^%u: xyzz %.2f ms, batch-affine %.2f (%.3f), hybrid %.2f (%.3f) "
               "(median of 3, results equal)\n",
               k, ms[0], ms[1], ms[1] / ms[0], ms[2], ms[2] / ms[0]);
        fflush(stdout);
    }
    czk_cuda_set_msm_acc(ctx, acc_default);
    a->n = (size_t)1 << max_k;
    if (czk_cuda_fr_mix(ctx, a->scalars, a->n, 510000, 470000, 13 + max_k, &err) != CZK_OK)
        die("witness mix", &err);
    czk_g2 ref, got;
    double ms[2];
    for (int h = 0; h < 2; h++) {
        czk_cuda_set_msm_g2_affine_log(ctx, h ? 10 : 32);
        ms[h] = time_op(run_msm, a, 3);
        if (czk_cuda_msm_g2(ctx, h ? &got : &ref, a->bases, a->scalars, a->n, &err) != CZK_OK)
            die("msm g2 (witness mix)", &err);
    }
    czk_cuda_msm_info info;
    czk_cuda_msm_last(ctx, &info);
    czk_cuda_set_msm_g2_affine_log(ctx, 32);
    if (!blst_p2_is_equal(&got, &ref)) {
        fprintf(stderr, "bench_gpu: msm g2 2^%u witness mix: hybrid differs from xyzz\n", max_k);
        exit(1);
    }
    printf("acc msm g2 2^%u witness mix (%llu ones, %llu others, c=%u): others in xyzz %.2f ms, "
           "in the hybrid %.2f (%.3f)\n",
           max_k, (unsigned long long)info.ones, (unsigned long long)info.others, info.c, ms[0],
           ms[1], ms[1] / ms[0]);
    fflush(stdout);
}

/*
 * G1 at 2^k under each window size of `list` (comma-separated, 6..22; "c:K" also sets the
 * hybrid's K; --c-sweep), with the context's accumulation: median of 3 and the phase profile on
 * stderr; every result must equal the one of the default window size.
 */
static void bench_c_sweep(struct msm_arg *a, unsigned k, const char *list) {
    czk_err err;
    a->n = (size_t)1 << k;
    czk_g1 ref, got;
    if (czk_cuda_msm_g1(ctx, &ref, a->bases, a->scalars, a->n, &err) != CZK_OK)
        die("msm (c sweep reference)", &err);
    czk_cuda_msm_info info;
    czk_cuda_msm_last(ctx, &info);
    printf("c sweep msm g1 2^%u: default c = %u, K = %u\n", k, info.c, info.affine_k);
    for (const char *p = list; *p;) {
        char *end;
        long c = strtol(p, &end, 10), hk = 0;
        if (end != p && *end == ':') hk = strtol(end + 1, &end, 10); /* c:K, the hybrid's K */
        if (end == p || czk_cuda_set_msm_c(ctx, (int)c, &err) != CZK_OK ||
            (hk && (hk < 2 || hk > 64))) {
            fprintf(stderr, "bench_gpu: --c-sweep: bad window size or K at '%s'\n", p);
            exit(2);
        }
        czk_cuda_set_msm_hybrid_k(ctx, (uint32_t)hk);
        double ms = time_op(run_msm, a, 3);
        if (czk_cuda_msm_g1(ctx, &got, a->bases, a->scalars, a->n, &err) != CZK_OK)
            die("msm (c sweep)", &err);
        if (!blst_p1_is_equal(&got, &ref)) {
            fprintf(stderr, "bench_gpu: msm g1 2^%u c=%ld: result differs from the default c\n", k,
                    c);
            exit(1);
        }
        czk_cuda_msm_last(ctx, &info); /* the K that ran (0 = not the batch-affine path) */
        const unsigned ran_k = info.affine_k;
        czk_cuda_set_profile(ctx, 1);
        fprintf(stderr, "c sweep msm g1 2^%u c=%ld K=%u profile:\n", k, c, ran_k);
        if (czk_cuda_msm_g1(ctx, &got, a->bases, a->scalars, a->n, &err) != CZK_OK)
            die("msm (c sweep profile)", &err);
        czk_cuda_set_profile(ctx, 0);
        czk_cuda_set_msm_hybrid_k(ctx, 0);
        printf("c sweep msm g1 2^%u c=%ld K=%u: %.2f ms (median of 3), result equal\n", k, c, ran_k,
               ms);
        fflush(stdout);
        p = *end == ',' ? end + 1 : end;
    }
    if (czk_cuda_set_msm_c(ctx, 0, &err) != CZK_OK) die("set c", &err);
}

/*
 * The witness mix's others (--wit-sweep): a->scalars hold the 32GiB witness mix at 2^k (a->g2:
 * the group); the others' Pippenger under window sizes 11..16 with XYZZ and with the hybrid
 * (forced: CZK_CUDA_MSM_ACC 0 / 5; the ones' sum depends on neither), median of 3, every result
 * equal to the default's; a table on stdout. The context's c and accumulation restored after.
 */
static void bench_wit_sweep(struct msm_arg *a, unsigned k) {
    czk_err err;
    a->n = (size_t)1 << k;
    czk_g1 r1, g1v;
    czk_g2 r2, g2v;
    czk_status st = a->g2 ? czk_cuda_msm_g2(ctx, &r2, a->bases, a->scalars, a->n, &err)
                          : czk_cuda_msm_g1(ctx, &r1, a->bases, a->scalars, a->n, &err);
    if (st != CZK_OK) die("msm (witness sweep reference)", &err);
    czk_cuda_msm_info info;
    czk_cuda_msm_last(ctx, &info);
    const int acc_default = czk_cuda_msm_acc(ctx);
    const char *gname = a->g2 ? "g2" : "g1";
    printf("\nwitness sweep, msm %s 2^%u (%llu ones, %llu others; default c = %u), median of 3 "
           "(ms)\n%4s %10s %10s\n",
           gname, k, (unsigned long long)info.ones, (unsigned long long)info.others, info.c, "c",
           "xyzz", "hybrid");
    for (int c = 11; c <= 16; c++) {
        double ms[2];
        for (int h = 0; h < 2; h++) {
            czk_cuda_set_msm_acc(ctx, h ? CZK_CUDA_MSM_ACC_HYBRID : 0);
            if (czk_cuda_set_msm_c(ctx, c, &err) != CZK_OK) die("set c", &err);
            ms[h] = time_op(run_msm, a, 3);
            st = a->g2 ? czk_cuda_msm_g2(ctx, &g2v, a->bases, a->scalars, a->n, &err)
                       : czk_cuda_msm_g1(ctx, &g1v, a->bases, a->scalars, a->n, &err);
            if (st != CZK_OK) die("msm (witness sweep)", &err);
            if (a->g2 ? !blst_p2_is_equal(&g2v, &r2) : !blst_p1_is_equal(&g1v, &r1)) {
                fprintf(stderr, "bench_gpu: witness sweep msm %s 2^%u c=%d %s: result differs\n",
                        gname, k, c, h ? "hybrid" : "xyzz");
                exit(1);
            }
        }
        printf("%4d %10.2f %10.2f%s\n", c, ms[0], ms[1],
               (unsigned)c == info.c ? "   (default c)" : "");
        fflush(stdout);
    }
    if (czk_cuda_set_msm_c(ctx, 0, &err) != CZK_OK) die("set c", &err);
    czk_cuda_set_msm_acc(ctx, acc_default);
}

/* The rate named `name` (czk_cuda_rate_names), 0 if there is none. */
static double rate_of(const double *rates, const char *name) {
    for (int i = 0; i < CZK_CUDA_NRATES; i++)
        if (!strcmp(czk_cuda_rate_names[i], name)) return rates[i];
    return 0;
}

int main(int argc, char **argv) {
    const char *json = NULL, *commit = "unknown";
    unsigned max_g1 = 27, max_g2 = 25, max_ntt = 27;
    bool sweep = false, porep2k = true, variants = false, ntt_variants = false, acc_cmp = false;
    bool do_spmv = true, do_upload = true, do_wit = true, wit_sweep = false;
    const char *c_sweep = NULL;
    unsigned spmv_rows = 24;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--commit") && i + 1 < argc)
            commit = argv[++i];
        else if (!strcmp(argv[i], "--max-g1") && i + 1 < argc)
            max_g1 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-g2") && i + 1 < argc)
            max_g2 = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-ntt") && i + 1 < argc)
            max_ntt = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sweep"))
            sweep = true;
        else if (!strcmp(argv[i], "--no-porep2k"))
            porep2k = false;
        else if (!strcmp(argv[i], "--variants"))
            variants = true;
        else if (!strcmp(argv[i], "--ntt-variants"))
            ntt_variants = true;
        else if (!strcmp(argv[i], "--c-sweep") && i + 1 < argc)
            c_sweep = argv[++i];
        else if (!strcmp(argv[i], "--acc-compare"))
            acc_cmp = true;
        else if (!strcmp(argv[i], "--no-spmv"))
            do_spmv = false;
        else if (!strcmp(argv[i], "--no-upload"))
            do_upload = false;
        else if (!strcmp(argv[i], "--no-witness-msm"))
            do_wit = false;
        else if (!strcmp(argv[i], "--wit-sweep"))
            wit_sweep = true;
        else if (!strcmp(argv[i], "--spmv-rows") && i + 1 < argc)
            spmv_rows = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr,
                    "usage: bench_gpu [--json PATH] [--commit ID] [--max-g1 K] [--max-g2 "
                    "K] [--max-ntt K] [--sweep] [--variants] [--acc-compare] [--ntt-variants] "
                    "[--c-sweep C,C,...] [--no-porep2k] [--no-spmv] [--spmv-rows K] [--no-upload] "
                    "[--no-witness-msm] [--wit-sweep]\n");
            return 2;
        }
    }
    if (czk_cuda_device_count() == 0) {
        fprintf(stderr, "bench_gpu: no CUDA device\n");
        return 2;
    }
    czk_err err;
    if (czk_cuda_ctx_create(&ctx, 0, &err) != CZK_OK) die("ctx_create", &err);
    printf("device: %s\n", czk_cuda_ctx_describe(ctx));

    double rates[CZK_CUDA_NRATES];
    if (czk_cuda_rates(ctx, rates, &err) != CZK_OK) die("rates", &err);
    for (int i = 0; i < CZK_CUDA_NRATES; i++)
        printf("rate %-16s %.3g/s\n", czk_cuda_rate_names[i], rates[i]);
    printf("rate fp_sqr_eo / fp_mul_eo %.3f, g1_madd_eo_sqr / g1_madd_eo %.3f\n",
           rate_of(rates, "fp_sqr_eo") / rate_of(rates, "fp_mul_eo"),
           rate_of(rates, "g1_madd_eo_sqr") / rate_of(rates, "g1_madd_eo"));
    printf("rate fp_mul_ka / fp_mul_eo %.3f, g1_madd_ka_sqr / g1_madd_eo_sqr %.3f\n",
           rate_of(rates, "fp_mul_ka") / rate_of(rates, "fp_mul_eo"),
           rate_of(rates, "g1_madd_ka_sqr") / rate_of(rates, "g1_madd_eo_sqr"));

    double g1_ms[28] = {0}, g2_ms[28] = {0}, ntt_ms[29] = {0}, h_ms = 0, hl_ms = 0;
    double g1_wit[28] = {0}, g2_wit[28] = {0}, spmv_ms = 0, spmv_gbps = 0, up[4] = {0};
    double acc_ms[28][ACC_KINDS] = {{0}};
    if (spmv_rows < 12 || spmv_rows > 27) spmv_rows = 24;
    if (do_upload) bench_upload(up);
    if (do_spmv) spmv_ms = bench_spmv(spmv_rows, &spmv_gbps);

    /* NTT and H first (they need the least memory) */
    {
        size_t n = (size_t)1 << max_ntt;
        struct ntt_arg a = {dalloc(n * sizeof(czk_fr)), dalloc(n * sizeof(czk_fr)),
                            dalloc(n * sizeof(czk_fr)), 0};
        if (czk_cuda_fr_random(ctx, a.a, n, 1, &err) != CZK_OK) die("random", &err);
        if (czk_cuda_fr_random(ctx, a.b, n, 2, &err) != CZK_OK) die("random", &err);
        if (czk_cuda_fr_random(ctx, a.c, n, 3, &err) != CZK_OK) die("random", &err);
        for (unsigned k = 20; k <= max_ntt; k++) {
            a.log_n = k;
            ntt_ms[k] = time_op(run_ntt, &a, 5);
            printf("ntt 2^%u: %.3f ms\n", k, ntt_ms[k]);
            fflush(stdout);
        }
        a.log_n = max_ntt;
        h_ms = time_op(run_h, &a, 5);
        hl_ms = time_op(run_h_lagrange, &a, 5);
        if (sweep) { /* per-pass times on stderr */
            czk_cuda_set_profile(ctx, 1);
            if (run_ntt(&a, &err) != CZK_OK || run_h(&a, &err) != CZK_OK ||
                run_h_lagrange(&a, &err) != CZK_OK)
                die("profile", &err);
            czk_cuda_set_profile(ctx, 0);
        }
        printf("h 2^%u: %.3f ms\n", max_ntt, h_ms);
        printf("h 2^%u, Lagrange form: %.3f ms\n", max_ntt, hl_ms);
        if (ntt_variants) { /* each setting in a fresh context (the variables are read there) */
            static const char *twist[2] = {"direct", "split"}, *order[2] = {"paired", "natural"};
            double vn[2][2], vh[2][2];
            czk_cuda_ctx *main_ctx = ctx;
            for (int t = 0; t < 2; t++)
                for (int o = 0; o < 2; o++) {
                    setenv("CZK_CUDA_NTT_TWIST", twist[t], 1);
                    setenv("CZK_CUDA_H_ORDER", order[o], 1);
                    if (czk_cuda_ctx_create(&ctx, 0, &err) != CZK_OK) die("ctx_create", &err);
                    vn[t][o] = time_op(run_ntt, &a, 5);
                    vh[t][o] = time_op(run_h, &a, 5);
                    czk_cuda_ctx_destroy(ctx);
                    ctx = main_ctx;
                }
            unsetenv("CZK_CUDA_NTT_TWIST");
            unsetenv("CZK_CUDA_H_ORDER");
            setenv("CZK_CUDA_H_TRANSFORMS", "7", 1); /* bellperson's sequence, default paths */
            if (czk_cuda_ctx_create(&ctx, 0, &err) != CZK_OK) die("ctx_create", &err);
            const double h7 = time_op(run_h, &a, 5);
            czk_cuda_ctx_destroy(ctx);
            ctx = main_ctx;
            unsetenv("CZK_CUDA_H_TRANSFORMS");
            printf("\nntt variants, 2^%u (median of 5, ms)\n", max_ntt);
            printf("%-22s %-20s %12s %12s\n", "CZK_CUDA_NTT_TWIST", "CZK_CUDA_H_ORDER", "ntt", "h");
            for (int t = 0; t < 2; t++)
                for (int o = 0; o < 2; o++)
                    printf("%-22s %-20s %12.3f %12.2f%s\n", twist[t], order[o], vn[t][o], vh[t][o],
                           t == 0 && o == 0 ? "   (default)"
                           : t && o         ? "   (old paths)"
                                            : "");
            printf("h 2^%u with seven transforms (CZK_CUDA_H_TRANSFORMS=7): %.2f ms, six: %.2f ms "
                   "(%.3f)\n\n",
                   max_ntt, h7, vh[0][0], vh[0][0] / h7);
            fflush(stdout);
        }
        czk_cuda_free(ctx, a.a), czk_cuda_free(ctx, a.b), czk_cuda_free(ctx, a.c);
    }
    for (int g = 0; g < 2; g++) {
        unsigned maxk = g ? max_g2 : max_g1;
        size_t n = (size_t)1 << maxk, psz = g ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
        struct msm_arg a = {dalloc(n * psz), dalloc(n * sizeof(czk_fr)), 0, g == 1};
        double t0 = czk_now();
        czk_status st = g ? czk_cuda_g2_random_bases(ctx, a.bases, n, 11, &err)
                          : czk_cuda_g1_random_bases(ctx, a.bases, n, 11, &err);
        if (st != CZK_OK) die("bases", &err);
        printf("generated 2^%u %s bases in %.2f s\n", maxk, g ? "G2" : "G1", czk_now() - t0);
        if (czk_cuda_fr_random(ctx, a.scalars, n, 12, &err) != CZK_OK) die("random", &err);
        for (unsigned k = 20; k <= maxk; k++) {
            a.n = (size_t)1 << k;
            double ms = time_op(run_msm, &a, 3);
            (g ? g2_ms : g1_ms)[k] = ms;
            printf("msm %s 2^%u: %.2f ms\n", g ? "g2" : "g1", k, ms);
            fflush(stdout);
        }
        if (variants) {
            a.n = n;
            const int acc_default = czk_cuda_msm_acc(ctx);
            for (int v = 0; v < CZK_CUDA_MSM_ACC_VARIANTS; v++) {
                czk_cuda_set_msm_acc(ctx, v);
                printf("variant msm %s 2^%u acc=%d: %.2f ms\n", g ? "g2" : "g1", maxk, v,
                       time_op(run_msm, &a, 1));
                fflush(stdout);
            }
            czk_cuda_set_msm_acc(ctx, acc_default);
            static const uint32_t chunks[] = {64, 128};
            for (int q = 0; q < 2; q++) {
                czk_cuda_set_msm_chunk(ctx, chunks[q]);
                printf("variant msm %s 2^%u chunk=%u: %.2f ms\n", g ? "g2" : "g1", maxk, chunks[q],
                       time_op(run_msm, &a, 1));
                fflush(stdout);
            }
            czk_cuda_set_msm_chunk(ctx, 0);
        }
        if (acc_cmp && !g) bench_acc(&a, max_g1, acc_ms);
        if (acc_cmp && g) {
            bench_acc_g2(&a, max_g2);
            if (czk_cuda_fr_random(ctx, a.scalars, n, 12, &err) != CZK_OK) die("random", &err);
        }
        if (c_sweep && !g) bench_c_sweep(&a, max_g1, c_sweep);
        if (sweep) {
            a.n = n;
            czk_cuda_set_profile(ctx, 1);
            if (run_msm(&a, &err) != CZK_OK) die("profile", &err);
            czk_cuda_set_profile(ctx, 0);
            int cs[2][4] = {{18, 19, 21, 22}, {16, 18, 19, 20}};
            for (int q = 0; q < 4; q++) {
                if (czk_cuda_set_msm_c(ctx, cs[g][q], &err) != CZK_OK) die("set c", &err);
                printf("sweep msm %s 2^%u c=%d: %.2f ms\n", g ? "g2" : "g1", maxk, cs[g][q],
                       time_op(run_msm, &a, 1));
                fflush(stdout);
            }
            if (czk_cuda_set_msm_c(ctx, 0, &err) != CZK_OK) die("set c", &err);
        }
        if (do_wit) { /* the 32GiB witness's mix: 51 % zero, 47 % one, 2 % other */
            for (unsigned k = 24; k <= maxk; k++) {
                a.n = (size_t)1 << k;
                if (czk_cuda_fr_mix(ctx, a.scalars, a.n, 510000, 470000, 13 + k, &err) != CZK_OK)
                    die("witness mix", &err);
                double ms = time_op(run_msm, &a, 3);
                czk_cuda_msm_info info;
                czk_cuda_msm_last(ctx, &info);
                (g ? g2_wit : g1_wit)[k] = ms;
                printf("msm %s 2^%u witness mix: %.2f ms (uniform %.2f; %s, %llu ones, %llu "
                       "others, c=%u)\n",
                       g ? "g2" : "g1", k, ms, (g ? g2_ms : g1_ms)[k],
                       info.sparse ? "compacted" : "dense", (unsigned long long)info.ones,
                       (unsigned long long)info.others, info.c);
                fflush(stdout);
            }
            if (wit_sweep) bench_wit_sweep(&a, maxk); /* the mix at 2^maxk is still there */
        }
        czk_cuda_free(ctx, a.bases), czk_cuda_free(ctx, a.scalars);
    }
    if (do_wit && g1_wit[27] > 0 && g1_wit[25] > 0 && g2_wit[25] > 0) {
        /* 32GiB: l 130.2 M, a 129.8 M, b 33.1 M points */
        double l = g1_wit[27] * 130.17 / 134.22, aa = g1_wit[27] * 129.75 / 134.22;
        double b1 = g1_wit[25] * 33.11 / 33.55, b2 = g2_wit[25] * 33.11 / 33.55;
        printf("witness MSMs of a 32GiB partition (scaled from the witness-mix rows): l %.1f, a "
               "%.1f, b_g1 %.1f, b_g2 %.1f ms, serial sum %.1f ms (bar 200)\n",
               l, aa, b1, b2, l + aa + b1 + b2);
    }

    double porep2k_ms = porep2k ? bench_porep2k() : 0;

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            perror(json);
            return 1;
        }
        time_t now = time(NULL);
        char date[32];
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(f, "{\n  \"gpu\": \"%s\",\n  \"date\": \"%s\",\n  \"commit\": \"%s\"",
                czk_cuda_ctx_describe(ctx), date, commit);
        for (unsigned k = 20; k <= 27; k++)
            if (g1_ms[k] > 0) fprintf(f, ",\n  \"msm_g1_2p%u_ms\": %.3f", k, g1_ms[k]);
        for (unsigned k = 20; k <= 25; k++)
            if (g2_ms[k] > 0) fprintf(f, ",\n  \"msm_g2_2p%u_ms\": %.3f", k, g2_ms[k]);
        for (unsigned k = 20; k <= 27; k++)
            if (ntt_ms[k] > 0) fprintf(f, ",\n  \"ntt_2p%u_ms\": %.4f", k, ntt_ms[k]);
        fprintf(f, ",\n  \"h_2p%u_ms\": %.3f", max_ntt, h_ms);
        fprintf(f, ",\n  \"h_lagrange_2p%u_ms\": %.3f", max_ntt, hl_ms);
        if (porep2k_ms > 0) fprintf(f, ",\n  \"porep2k_gpu_ms\": %.2f", porep2k_ms);
        for (unsigned k = 20; k <= 27; k++)
            if (g1_wit[k] > 0) fprintf(f, ",\n  \"msm_g1_wit_2p%u_ms\": %.3f", k, g1_wit[k]);
        for (unsigned k = 20; k <= 27; k++)
            for (int v = 1; v < ACC_KINDS; v++)
                if (acc_ms[k][v] > 0)
                    fprintf(f, ",\n  \"msm_g1_2p%u_acc%d_ms\": %.3f", k, ACC_VALUE[v],
                            acc_ms[k][v]);
        for (unsigned k = 20; k <= 27; k++)
            if (g2_wit[k] > 0) fprintf(f, ",\n  \"msm_g2_wit_2p%u_ms\": %.3f", k, g2_wit[k]);
        if (spmv_ms > 0)
            fprintf(f, ",\n  \"spmv_2p%u_ms\": %.3f,\n  \"spmv_gbps\": %.1f", spmv_rows, spmv_ms,
                    spmv_gbps);
        if (up[0] > 0)
            fprintf(f,
                    ",\n  \"upload_pageable_gbps\": %.2f,\n  \"upload_pinned_gbps\": %.2f,\n  "
                    "\"upload_staged1_gbps\": %.2f,\n  \"upload_staged4_gbps\": %.2f",
                    up[0], up[1], up[2], up[3]);
        for (int i = 0; i < CZK_CUDA_NRATES; i++)
            fprintf(f, ",\n  \"%s_per_s\": %.4g", czk_cuda_rate_names[i], rates[i]);
        fprintf(f, "\n}\n");
        fclose(f);
    }

    /* the short table, last */
    printf("\n%-12s %12s %12s   bar\n", "kernel", "2^k", "ms");
    for (unsigned k = 20; k <= 27; k++)
        if (g1_ms[k] > 0)
            printf("%-12s %12u %12.2f%s\n", "msm_g1", k, g1_ms[k], k == 27 ? "   <= 1100" : "");
    for (unsigned k = 20; k <= 25; k++)
        if (g2_ms[k] > 0)
            printf("%-12s %12u %12.2f%s\n", "msm_g2", k, g2_ms[k], k == 25 ? "   <= 850" : "");
    for (unsigned k = 20; k <= 27; k++)
        if (ntt_ms[k] > 0)
            printf("%-12s %12u %12.3f%s\n", "ntt", k, ntt_ms[k], k == 27 ? "   <= 45" : "");
    printf("%-12s %12u %12.2f\n", "h", max_ntt, h_ms);
    printf("%-12s %12u %12.2f\n", "h lagrange", max_ntt, hl_ms);
    if (porep2k_ms > 0) printf("%-12s %12u %12.2f   <= 300\n", "porep2k", 22, porep2k_ms);
    for (unsigned k = 20; k <= 27; k++)
        if (g1_wit[k] > 0) printf("%-12s %12u %12.2f\n", "msm_g1_wit", k, g1_wit[k]);
    for (unsigned k = 20; k <= 27; k++)
        for (int v = 0; v < ACC_KINDS; v++)
            if (acc_ms[k][v] > 0)
                printf("%-12s %12u %12.2f   %s\n",
                       v == 1   ? "msm_g1_aff"
                       : v == 2 ? "msm_g1_hyb"
                                : "msm_g1_xyzz",
                       k, acc_ms[k][v], ACC_NAME[v]);
    for (unsigned k = 20; k <= 27; k++)
        if (g2_wit[k] > 0) printf("%-12s %12u %12.2f\n", "msm_g2_wit", k, g2_wit[k]);
    if (spmv_ms > 0)
        printf("%-12s %12u %12.3f   %.0f GB/s\n", "spmv", spmv_rows, spmv_ms, spmv_gbps);
    czk_cuda_ctx_destroy(ctx);
    return 0;
}

#else

int main(void) {
    fprintf(stderr, "bench_gpu: this build has no CUDA backend\n");
    return 2;
}

#endif
