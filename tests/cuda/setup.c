/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 900 */
/*
 * Groth16 setup on the GPU (src/cuda/setup.cu) against the CPU:
 *   - host check (any machine, CUDA build): the kernels' per-point code run
 *     on the host equals blst's k·G and its serialization, for edge and
 *     random scalars, G1 and G2;
 *   - czk_cuda_fb_g1/_g2 on the device, affine and encoded, equal the CPU
 *     fixed-base backend (src/groth16/fixed_base.h) for edge scalars (0, 1,
 *     2, r − 1, (r − 1)/2, (r + 1)/2, powers of two, every digit −half or
 *     half − 1, all ones) and random ones, n from 1 to 2^20 (G2 to 2^17);
 *   - the setup backend: products across its 2^22-point transfer chunks
 *     (sampled against blst), the inverse NTT against czk_ntt;
 *   - whole files: czk_setup_write with the GPU backend equals the CPU
 *     backend's file byte for byte, on random circuits and on the 2KiB
 *     PoRep partition circuit (czk_porep_shape_load; ~1.1 GB each).
 * The device tests skip without a GPU. On a mismatch they print the index,
 * the scalar and how many points differ.
 */
#include "support.h"

#include "czk/cuda.h"
#include "czk/groth16.h"
#include "czk/ntt.h"
#include "czk/pool.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CZK_HAVE_CUDA

#include "../r1cs/rand_circuit.h"
#include "gpu_fixture.h"
#include "util/time.h"

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

/* r − 1 and (r − 1)/2, big-endian hex (r the BLS12-381 scalar field order). */
static const char *R_MINUS_1 = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000";
static const char *R_HALF = "39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000000";

static czk_fr fr_le(const uint8_t le[32]) {
    czk_fr f;
    czk_err err;
    czk_assert_ok(czk_fr_from_bytes(&f, le, &err), &err);
    return f;
}

/* A canonical integer with 13-bit windows w0, then w1 in windows 1 .. 18 (bits below 247). */
static czk_fr windows(uint32_t w0, uint32_t w1) {
    uint8_t le[32] = {0};
    for (unsigned j = 0; j < 19; j++) {
        uint32_t v = j ? w1 : w0;
        for (unsigned b = 0; b < 13; b++)
            if ((v >> b) & 1) le[(13 * j + b) / 8] |= (uint8_t)(1u << ((13 * j + b) % 8));
    }
    return fr_le(le);
}

/* Edge scalars first (as many as fit), then random ones from seed. */
static void scalars(czk_fr *k, size_t n, uint64_t seed) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_err err;
    for (size_t i = 0; i < n; i++)
        czk_assert_ok(czk_fr_random(&k[i], &rng, &err), &err);
    czk_fr e[64];
    size_t m = 0;
    czk_fr_from_u64(&e[m++], 1);
    czk_fr_from_u64(&e[m++], 2);
    czk_test_fr_from_hex_be(&e[m++], R_MINUS_1);
    czk_test_fr_from_hex_be(&e[m++], R_HALF);
    czk_fr_add(&e[m], &e[m - 1], &czk_fr_one); /* (r + 1)/2 */
    m++;
    e[m++] = czk_fr_zero; /* infinity */
    czk_fr_from_u64(&e[m++], 3);
    czk_fr_sub(&e[m], &czk_fr_zero, &e[m - 1]); /* r − 3 */
    m++;
    const unsigned pw[] = {12, 13, 25, 26, 64, 128, 200, 246, 252, 253, 254};
    for (unsigned i = 0; i < sizeof pw / sizeof pw[0]; i++)
        e[m++] = *czk_fr_pow2(pw[i]);
    e[m++] = windows(0x1000, 0x0fff); /* every digit −half (carries all the way) */
    e[m++] = windows(0x0fff, 0x0fff); /* every digit half − 1 */
    e[m++] = windows(0x1000, 0x1000); /* −half, then −(half − 1) */
    e[m++] = windows(0x1fff, 0x1fff); /* −1, then zero digits with a carry */
    uint8_t le[32];
    memset(le, 0xff, 32);
    le[31] = 0x0f; /* 2^252 − 1 */
    e[m++] = fr_le(le);
    for (unsigned i = 0; i < 8; i++)
        czk_fr_from_u64(&e[m++], (uint64_t)(i + 1) * 1000003u); /* small: windows mostly zero */
    for (size_t i = 0; i < m && i < n; i++)
        k[i] = e[i];
}

static void test_host_check(void **state) {
    (void)state;
    czk_fr k[96];
    scalars(k, 96, 1);
    czk_err err;
    czk_assert_ok(czk_cuda_fb_host_check(1, k, 96, &err), &err);
    czk_assert_ok(czk_cuda_fb_host_check(2, k, 40, &err), &err);
}

/* Compares n device results with the CPU's, printing the first differences. */
static void compare(const char *what, const uint8_t *got, const uint8_t *want, size_t size,
                    size_t n, const czk_fr *k) {
    size_t bad = 0, first = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * size, want + i * size, size)) {
            if (first == SIZE_MAX) first = i;
            bad++;
        }
    if (!bad) return;
    uint8_t le[32];
    czk_fr_to_bytes(le, &k[first]);
    char hx[65];
    for (int b = 0; b < 32; b++)
        snprintf(hx + 2 * b, 3, "%02x", le[31 - b]);
    fail_msg("%s: %zu of %zu points differ, the first at %zu (scalar 0x%s)", what, bad, n, first,
             hx);
}

/* Device fixed-base (both forms) against the CPU backend for n scalars, group 1 or 2. */
static void check_fb(czk_cuda_fb *fb, const czk_setup_backend *cpu, unsigned group, size_t n,
                     uint64_t seed) {
    size_t aff = group == 1 ? sizeof(czk_g1_affine) : sizeof(czk_g2_affine);
    size_t enc = group == 1 ? 96 : 192;
    czk_fr *k = xmalloc(n * sizeof *k);
    scalars(k, n, seed);
    uint8_t *want_a = xmalloc(n * aff), *want_e = xmalloc(n * enc), *got = xmalloc(n * aff);
    czk_err err;
    if (group == 1) {
        czk_assert_ok(cpu->ops->g1(cpu->self, (czk_g1_affine *)want_a, k, n, &err), &err);
        for (size_t i = 0; i < n; i++)
            czk_g1_serialize(want_e + i * enc, (const czk_g1_affine *)(want_a + i * aff));
    } else {
        czk_assert_ok(cpu->ops->g2(cpu->self, (czk_g2_affine *)want_a, k, n, &err), &err);
        for (size_t i = 0; i < n; i++)
            czk_g2_serialize(want_e + i * enc, (const czk_g2_affine *)(want_a + i * aff));
    }
    void *dk, *dout;
    czk_assert_ok(czk_cuda_alloc(ctx, &dk, n * sizeof *k, &err), &err);
    czk_assert_ok(czk_cuda_alloc(ctx, &dout, n * aff, &err), &err);
    czk_assert_ok(czk_cuda_upload(ctx, dk, k, n * sizeof *k, &err), &err);
    char what[80];
    for (int form = 0; form < 2; form++) {
        czk_cuda_fb_form f = form ? CZK_CUDA_FB_ENCODED : CZK_CUDA_FB_AFFINE;
        size_t sz = form ? enc : aff;
        memset(got, 0xa5, n * sz);
        czk_assert_ok(czk_cuda_upload(ctx, dout, got, n * sz, &err), &err); /* no stale output */
        czk_status st = group == 1 ? czk_cuda_fb_g1(fb, dout, dk, n, f, &err)
                                   : czk_cuda_fb_g2(fb, dout, dk, n, f, &err);
        czk_assert_ok(st, &err);
        czk_assert_ok(czk_cuda_download(ctx, got, dout, n * sz, &err), &err);
        snprintf(what, sizeof what, "G%u %s, n = %zu", group, form ? "encoded" : "affine", n);
        compare(what, got, form ? want_e : want_a, sz, n, k);
    }
    czk_cuda_free(ctx, dk);
    czk_cuda_free(ctx, dout);
    free(k);
    free(want_a);
    free(want_e);
    free(got);
}

static void test_fixed_base(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_cuda_fb *fb;
    czk_assert_ok(czk_cuda_fb_create(&fb, ctx, &err), &err);
    czk_setup_backend cpu;
    czk_assert_ok(czk_setup_backend_cpu(&cpu, pool, &err), &err);
    /* sizes around the kernels' blocks (384 / 256·8 points for G1, 128 / 128·4 for G2) */
    const size_t n1[] = {1, 2, 37, 383, 384, 385, 2047, 2048, 2049, 65537, (size_t)1 << 20};
    const size_t n2[] = {1, 3, 127, 128, 511, 512, 513, 4099, (size_t)1 << 17};
    double t0 = czk_now();
    for (size_t i = 0; i < sizeof n1 / sizeof n1[0]; i++)
        check_fb(fb, &cpu, 1, n1[i], 10 + i);
    for (size_t i = 0; i < sizeof n2 / sizeof n2[0]; i++)
        check_fb(fb, &cpu, 2, n2[i], 30 + i);
    print_message("fixed-base G1 to 2^20, G2 to 2^17, device against CPU: %.1f s\n",
                  czk_now() - t0);
    /* errors */
    assert_int_equal(czk_cuda_fb_g1(fb, NULL, NULL, (size_t)1 << 31, CZK_CUDA_FB_AFFINE, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_cuda_fb_g2(fb, NULL, NULL, 1, (czk_cuda_fb_form)7, &err),
                     CZK_ERR_INVALID_ARG);
    czk_assert_ok(czk_cuda_fb_g1(fb, NULL, NULL, 0, CZK_CUDA_FB_AFFINE, &err), &err);
    czk_setup_backend_release(&cpu);
    czk_cuda_fb_destroy(fb);
}

/* blst's k·G1 encoded. */
static void g1_ref(uint8_t out[96], const czk_fr *k) {
    blst_scalar s;
    blst_scalar_from_fr(&s, k);
    blst_p1 p;
    blst_p1_mult(&p, blst_p1_generator(), s.b, 255);
    blst_p1_affine a;
    blst_p1_to_affine(&a, &p);
    czk_g1_serialize(out, &a);
}

static void test_backend(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_setup_backend be;
    czk_assert_ok(czk_setup_backend_cuda(&be, 0, &err), &err);
    assert_string_equal(be.ops->name, "cuda");
    /* products across the 2^22-point transfer chunks, into page-locked memory */
    const size_t n = ((size_t)1 << 22) + 1000;
    czk_fr *k = xmalloc(n * sizeof *k);
    scalars(k, n, 5);
    uint8_t *out = be.ops->host_alloc(be.self, n * 96);
    assert_non_null(out);
    double t0 = czk_now();
    czk_assert_ok(be.ops->g1_enc(be.self, out, k, n, &err), &err);
    double dt = czk_now() - t0;
    print_message("backend g1_enc: %zu points in %.3f s (%.1f M/s, with the transfers)\n", n, dt,
                  (double)n / dt / 1e6);
    size_t idx[64], m = 0;
    for (size_t i = 0; i < 24; i++)
        idx[m++] = i; /* the edge scalars */
    for (size_t i = 0; i < 20; i++)
        idx[m++] = ((size_t)1 << 22) - 10 + i; /* around the chunk boundary */
    czk_rng rng;
    czk_rng_seed(&rng, 8);
    while (m < 64)
        idx[m++] = czk_rng_u64(&rng) % n;
    for (size_t q = 0; q < m; q++) {
        uint8_t want[96];
        g1_ref(want, &k[idx[q]]);
        if (memcmp(want, out + idx[q] * 96, 96)) fail_msg("backend g1_enc: point %zu", idx[q]);
    }
    be.ops->host_free(be.self, out, n * 96);
    free(k);
    /* affine G2 against the CPU */
    czk_fr k2[300];
    scalars(k2, 300, 6);
    czk_g2_affine g[300], w[300];
    czk_setup_backend cpu;
    czk_assert_ok(czk_setup_backend_cpu(&cpu, pool, &err), &err);
    czk_assert_ok(be.ops->g2(be.self, g, k2, 300, &err), &err);
    czk_assert_ok(cpu.ops->g2(cpu.self, w, k2, 300, &err), &err);
    compare("backend g2", (const uint8_t *)g, (const uint8_t *)w, sizeof g[0], 300, k2);
    czk_setup_backend_release(&cpu);
    /* the inverse NTT against czk_ntt */
    for (unsigned lg = 1; lg <= 16; lg += 5) {
        size_t N = (size_t)1 << lg;
        czk_fr *a = xmalloc(N * sizeof *a), *b = xmalloc(N * sizeof *b);
        scalars(a, N, 40 + lg);
        memcpy(b, a, N * sizeof *a);
        czk_assert_ok(be.ops->intt(be.self, a, lg, &err), &err);
        czk_assert_ok(czk_ntt(b, lg, CZK_NTT_INVERSE, pool, &err), &err);
        compare("backend intt", (const uint8_t *)a, (const uint8_t *)b, sizeof *a, N, a);
        free(a);
        free(b);
    }
    czk_setup_backend_release(&be);
}

/* Compares two files byte for byte (in pieces); returns the first differing offset or -1. */
static long long files_differ(const char *p, const char *q) {
    FILE *a = fopen(p, "rb"), *b = fopen(q, "rb");
    assert_true(a && b);
    size_t cap = (size_t)64 << 20;
    uint8_t *x = xmalloc(cap), *y = xmalloc(cap);
    long long at = 0, diff = -1;
    for (;;) {
        size_t na = fread(x, 1, cap, a), nb = fread(y, 1, cap, b);
        size_t n = na < nb ? na : nb;
        for (size_t i = 0; i < n && diff < 0; i++)
            if (x[i] != y[i]) diff = at + (long long)i;
        if (diff >= 0 || na != nb) {
            if (diff < 0) diff = at + (long long)n;
            break;
        }
        if (na == 0) break;
        at += (long long)na;
    }
    fclose(a);
    fclose(b);
    free(x);
    free(y);
    return diff;
}

static void setup_both(const czk_shape *s, uint64_t seed, const char *dir, const char *name) {
    char pg[600], pc[600];
    snprintf(pg, sizeof pg, "%s/%s-gpu.params", dir, name);
    snprintf(pc, sizeof pc, "%s/%s-cpu.params", dir, name);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic t;
    czk_err err;
    czk_assert_ok(czk_toxic_random(&t, &rng, &err), &err);
    czk_setup_backend gpu, cpu;
    czk_assert_ok(czk_setup_backend_cuda(&gpu, 0, &err), &err);
    czk_assert_ok(czk_setup_backend_cpu(&cpu, pool, &err), &err);
    czk_setup_timings tg, tc;
    czk_setup_opts og = {.no_stamp = true, .timings = &tg}, oc = {.no_stamp = true, .timings = &tc};
    czk_vk vg, vc;
    czk_assert_ok(czk_setup_write(pg, &vg, NULL, s, &t, &gpu, pool, &og, &err), &err);
    czk_assert_ok(czk_setup_write(pc, &vc, NULL, s, &t, &cpu, pool, &oc, &err), &err);
    print_message("%s: setup %.2f s on the GPU (products h %.2f, l %.2f, a %.2f, b_g1 %.2f, b_g2 "
                  "%.2f; lagrange %.2f, qap %.2f, write %.2f), %.2f s on the CPU\n",
                  name, tg.total, tg.h, tg.l, tg.a, tg.b_g1, tg.b_g2, tg.lagrange, tg.qap, tg.write,
                  tc.total);
    long long d = files_differ(pg, pc);
    if (d >= 0) fail_msg("%s: the GPU and CPU files differ at byte %lld", name, d);
    assert_int_equal(vg.ic_len, vc.ic_len);
    assert_memory_equal(vg.ic, vc.ic, vg.ic_len * sizeof *vg.ic);
    czk_vk_free(&vg);
    czk_vk_free(&vc);
    czk_setup_backend_release(&gpu);
    czk_setup_backend_release(&cpu);
    unlink(pg);
    unlink(pc);
}

static void tmpdir(char *out, size_t cap) {
    const char *base = getenv("TMPDIR");
    snprintf(out, cap, "%s/czk-cuda-setup-XXXXXX", base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(out));
}

static void test_files_random(void **state) {
    (void)state;
    NEED_GPU();
    char dir[300];
    tmpdir(dir, sizeof dir);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        rc c;
        rc_init(&c, seed, 400 * (uint32_t)seed);
        czk_err err;
        czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
        assert_non_null(cs);
        czk_assert_ok(czk_cs_run(cs, rc_circuit, &c, &err), &err);
        czk_shape *s;
        czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
        czk_cs_free(cs);
        rc_free(&c);
        char name[32];
        snprintf(name, sizeof name, "random-%llu", (unsigned long long)seed);
        setup_both(s, seed, dir, name);
        czk_shape_free(s);
    }
    rmdir(dir);
}

static void test_files_porep_2k(void **state) {
    (void)state;
    NEED_GPU();
    const char *skip_it = getenv("CZK_TEST_SKIP_2K");
    if (skip_it && *skip_it) skip();
    czk_err err;
    czk_shape *s;
    czk_assert_ok(czk_porep_shape_load(&s, NULL, czk_porep_shape_for_size(2048), true, &err), &err);
    char dir[300];
    tmpdir(dir, sizeof dir);
    setup_both(s, 1, dir, "porep-2KiB");
    czk_shape_free(s);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_check),     cmocka_unit_test(test_fixed_base),
        cmocka_unit_test(test_backend),        cmocka_unit_test(test_files_random),
        cmocka_unit_test(test_files_porep_2k),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else /* no CUDA in this build */

static void test_no_cuda(void **state) {
    (void)state;
    czk_err err;
    czk_setup_backend be;
    assert_int_equal(czk_setup_backend_cuda(&be, 0, &err), CZK_ERR_UNSUPPORTED);
    assert_null(be.ops);
    czk_fr k = czk_fr_one;
    assert_int_equal(czk_cuda_fb_host_check(1, &k, 1, &err), CZK_ERR_UNSUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
