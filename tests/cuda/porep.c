/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1800 */
/*
 * The GPU backend on one 2KiB PoRep partition (2,687,961 constraints, domain
 * 2^22; spec porep-circuit.md §1): the proof of czk_backend_cuda equals the
 * CPU backend's byte for byte for the same shape, witness, keys, r and s —
 * keys resident with device SpMV, through the engine's split path, with the
 * witness in the backend's page-locked memory (ops->host_alloc), and with
 * the keys pinned and streamed — and it verifies against the public inputs
 * the chain derives (czk_porep_chain_inputs). Device SpMV on this shape
 * equals czk_shape_eval. MSMs over the real witness (G1 over all aux, G2
 * over a part) take the compacted path and equal czk_msm_g1/g2. Fixture:
 * tests/support/porep2k_fixture.h (shape cache, TEST keys made once from a seeded setup and cached
 * under ~/.cache/czk, a C1 from czk_seal_generate). Skips without a CUDA device (CI).
 */
#include "support.h"

#include "czk/cuda.h"
#include "czk/msm.h"
#include "cuda/internal.h"
#include "porep2k_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CZK_HAVE_CUDA

static czk_pool *pool;
static czk_p2k fx;
static bool have_gpu;

static int setup(void **state) {
    (void)state;
    if (czk_cuda_device_count() == 0) return 0;
    have_gpu = true;
    czk_err err;
    pool = czk_pool_create(czk_cpu_count(), &err);
    if (!pool) return -1;
    if (czk_p2k_make(&fx, pool, &err)) {
        print_error("2KiB fixture: %s\n", err.msg);
        return -1;
    }
    print_message("2KiB partition: %llu constraints, %u inputs, %u aux; keys %s\n",
                  (unsigned long long)fx.shape->num_constraints, fx.shape->num_inputs,
                  fx.shape->num_aux, fx.keys_made ? "made now" : "from the cache");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    czk_p2k_free(&fx);
    czk_pool_destroy(pool);
    return 0;
}

#define NEED_GPU()                                                                                 \
    do {                                                                                           \
        if (!have_gpu) skip();                                                                     \
    } while (0)

static void test_spmv_2k(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_cuda_ctx *ctx;
    czk_assert_ok(czk_cuda_ctx_create(&ctx, 0, &err), &err);
    const czk_shape *s = fx.shape;
    size_t n = s->num_constraints, N = (size_t)1 << czk_domain_log(n);
    assert_int_equal(N, 1u << 22);
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    czk_fr *ref = malloc(3 * n * sizeof *ref), *got = malloc(3 * N * sizeof *got);
    assert_true(ref && got);
    czk_assert_ok(czk_shape_eval(s, &fx.w, ref, ref + n, ref + 2 * n, pool, &err), &err);
    czk_cuda_shape *ds;
    czk_assert_ok(czk_cuda_shape_upload(ctx, &ds, s, &err), &err);
    czk_fr *dz, *dabc;
    czk_assert_ok(czk_cuda_alloc(ctx, (void **)&dz, nv * sizeof *dz, &err), &err);
    czk_assert_ok(czk_cuda_alloc(ctx, (void **)&dabc, 3 * N * sizeof *dabc, &err), &err);
    czk_assert_ok(czk_cuda_upload(ctx, dz, fx.w.inputs, fx.w.num_inputs * sizeof *dz, &err), &err);
    czk_assert_ok(
        czk_cuda_upload(ctx, dz + fx.w.num_inputs, fx.w.aux, fx.w.num_aux * sizeof *dz, &err),
        &err);
    czk_assert_ok(czk_cuda_fr_random(ctx, dabc, 3 * N, 9, &err), &err);
    czk_assert_ok(czk_cuda_spmv(ctx, ds, dz, dabc, dabc + N, dabc + 2 * N, N, &err), &err);
    czk_assert_ok(czk_cuda_download(ctx, got, dabc, 3 * N * sizeof *got, &err), &err);
    for (int m = 0; m < 3; m++) {
        assert_memory_equal(got + m * N, ref + m * n, n * sizeof *got);
        for (size_t k = n; k < N; k++)
            assert_true(czk_fr_is_zero(&got[m * N + k]));
    }
    czk_cuda_free(ctx, dz);
    czk_cuda_free(ctx, dabc);
    czk_cuda_shape_free(ctx, ds);
    czk_cuda_ctx_destroy(ctx);
    free(ref);
    free(got);
}

/* The MSM over the witness's aux (n points, random bases) on the GPU against the CPU layer. */
static void check_witness_msm(czk_cuda_ctx *ctx, bool g2, size_t n) {
    czk_err err;
    size_t psz = g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine);
    void *bases = malloc(n * psz), *dbases;
    czk_fr *dsc;
    assert_non_null(bases);
    czk_assert_ok(czk_cuda_alloc(ctx, &dbases, n * psz, &err), &err);
    czk_assert_ok(czk_cuda_alloc(ctx, (void **)&dsc, n * sizeof(czk_fr), &err), &err);
    if (g2)
        czk_assert_ok(czk_cuda_g2_random_bases(ctx, dbases, n, 21, &err), &err);
    else
        czk_assert_ok(czk_cuda_g1_random_bases(ctx, dbases, n, 21, &err), &err);
    czk_assert_ok(czk_cuda_download(ctx, bases, dbases, n * psz, &err), &err);
    czk_assert_ok(czk_cuda_upload(ctx, dsc, fx.w.aux, n * sizeof(czk_fr), &err), &err);
    blst_p2 got, want; /* large enough for either */
    if (g2) {
        czk_assert_ok(czk_cuda_msm_g2(ctx, &got, dbases, dsc, n, &err), &err);
        czk_assert_ok(czk_msm_g2(&want, bases, fx.w.aux, n, pool, &err), &err);
    } else {
        czk_assert_ok(czk_cuda_msm_g1(ctx, (blst_p1 *)&got, dbases, dsc, n, &err), &err);
        czk_assert_ok(czk_msm_g1((blst_p1 *)&want, bases, fx.w.aux, n, pool, &err), &err);
    }
    czk_cuda_msm_info info;
    czk_cuda_msm_last(ctx, &info);
    print_message("witness MSM %s over %zu aux: %s, %llu ones, %llu others, %u pieces, c=%u\n",
                  g2 ? "g2" : "g1", n, info.sparse ? "compacted" : "dense",
                  (unsigned long long)info.ones, (unsigned long long)info.others, info.pieces,
                  info.c);
    assert_true(info.sparse);
    bool ok =
        g2 ? blst_p2_is_equal(&got, &want) : blst_p1_is_equal((blst_p1 *)&got, (blst_p1 *)&want);
    if (!ok) fail_msg("witness MSM %s over %zu aux: GPU differs from czk_msm", g2 ? "g2" : "g1", n);
    czk_cuda_free(ctx, dbases);
    czk_cuda_free(ctx, dsc);
    free(bases);
}

static void test_msm_2k(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_cuda_ctx *ctx;
    czk_assert_ok(czk_cuda_ctx_create(&ctx, 0, &err), &err);
    check_witness_msm(ctx, false, fx.w.num_aux);
    check_witness_msm(ctx, true, fx.w.num_aux < (1u << 19) ? fx.w.num_aux : 1u << 19);
    czk_cuda_ctx_destroy(ctx);
}

static void prove_w(const czk_backend *be, const czk_witness *w, const czk_fr *r, const czk_fr *s,
                    uint8_t out[CZK_PROOF_BYTES]) {
    czk_err err;
    czk_proof p;
    czk_prove_timings t = {0};
    czk_assert_ok(czk_prove(be, fx.params, fx.shape, w, 1, r, s, &p, &t, &err), &err);
    print_message("%s: upload %.3f s, spmv %.3f, ntt %.3f, msm h %.3f l %.3f a %.3f b1 %.3f b2 "
                  "%.3f, total %.3f\n",
                  be->ops->name, t.upload, t.spmv, t.ntt, t.msm_h, t.msm_l, t.msm_a, t.msm_b1,
                  t.msm_b2, t.total);
    czk_proof_encode(out, &p);
}

static void prove(const czk_backend *be, const czk_fr *r, const czk_fr *s,
                  uint8_t out[CZK_PROOF_BYTES]) {
    prove_w(be, &fx.w, r, s, out);
}

static void test_prove_2k(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_rng rng;
    czk_rng_seed(&rng, 2048);
    czk_fr r, s;
    czk_assert_ok(czk_fr_random(&r, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(&s, &rng, &err), &err);
    czk_backend cpu, gpu, pin;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    uint8_t want[CZK_PROOF_BYTES], got[CZK_PROOF_BYTES];
    prove(&cpu, &r, &s, want);
    czk_proof p;
    czk_assert_ok(czk_proof_decode(&p, want, &err), &err);
    czk_assert_ok(czk_verify(fx.pvk, &p, fx.inputs, fx.num_inputs, &err), &err);

    /* resident keys and shape */
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
    unsigned drop;
    uint64_t dev;
    czk_assert_ok(gpu.ops->load(gpu.self, fx.params, fx.shape, &drop, &dev, &err), &err);
    czk_cuda_residency res;
    czk_assert_ok(czk_backend_cuda_residency(&gpu, fx.params, &res, &err), &err);
    assert_true(res.params_resident && res.shape_resident);
    print_message("resident: %llu device bytes\n", (unsigned long long)dev);
    prove(&gpu, &r, &s, got);
    assert_memory_equal(got, want, CZK_PROOF_BYTES);
    czk_assert_ok(czk_proof_decode(&p, got, &err), &err);
    czk_assert_ok(czk_verify(fx.pvk, &p, fx.inputs, fx.num_inputs, &err), &err);

    /* the engine's split path */
    czk_msm_sums sums;
    unsigned deferred;
    czk_assert_ok(
        czk_prove_device(&gpu, fx.params, fx.shape, &fx.w, NULL, &sums, &deferred, NULL, &err),
        &err);
    czk_assert_ok(czk_prove_finalize(fx.params, fx.shape, &fx.w, &sums, deferred, &r, &s, &p, pool,
                                     NULL, &err),
                  &err);
    czk_proof_encode(got, &p);
    assert_memory_equal(got, want, CZK_PROOF_BYTES);

    /* another r, s: another proof, still equal to the CPU's */
    czk_fr r2, s2;
    czk_assert_ok(czk_fr_random(&r2, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(&s2, &rng, &err), &err);
    uint8_t want2[CZK_PROOF_BYTES];
    prove(&cpu, &r2, &s2, want2);
    prove(&gpu, &r2, &s2, got);
    assert_memory_equal(got, want2, CZK_PROOF_BYTES);
    assert_memory_not_equal(want, want2, CZK_PROOF_BYTES);

    /* the witness in the backend's page-locked memory */
    czk_witness wp = fx.w;
    wp.inputs = gpu.ops->host_alloc(gpu.self, fx.w.num_inputs * sizeof(czk_fr));
    wp.aux = gpu.ops->host_alloc(gpu.self, fx.w.num_aux * sizeof(czk_fr));
    assert_true(wp.inputs && wp.aux);
    memcpy(wp.inputs, fx.w.inputs, fx.w.num_inputs * sizeof(czk_fr));
    memcpy(wp.aux, fx.w.aux, fx.w.num_aux * sizeof(czk_fr));
    prove_w(&gpu, &wp, &r, &s, got);
    assert_memory_equal(got, want, CZK_PROOF_BYTES);
    gpu.ops->host_free(gpu.self, wp.inputs, fx.w.num_inputs * sizeof(czk_fr));
    gpu.ops->host_free(gpu.self, wp.aux, fx.w.num_aux * sizeof(czk_fr));
    gpu.ops->unload(gpu.self, fx.params);
    czk_backend_release(&gpu);

    /* pinned and streamed (a 64 MiB budget holds neither keys nor shape), host SpMV */
    czk_assert_ok(czk_backend_cuda(&pin, 0, pool, 64ull << 20, &err), &err);
    czk_assert_ok(czk_backend_cuda_set_stream_chunk(&pin, 1u << 20, &err), &err);
    czk_assert_ok(pin.ops->load(pin.self, fx.params, fx.shape, &drop, &dev, &err), &err);
    czk_assert_ok(czk_backend_cuda_residency(&pin, fx.params, &res, &err), &err);
    assert_true(res.pinned && !res.params_resident && !res.shape_resident);
    prove(&pin, &r, &s, got);
    assert_memory_equal(got, want, CZK_PROOF_BYTES);
    pin.ops->unload(pin.self, fx.params);
    czk_backend_release(&pin);
    czk_backend_release(&cpu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spmv_2k),
        cmocka_unit_test(test_msm_2k),
        cmocka_unit_test(test_prove_2k),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else

static void test_no_cuda(void **state) {
    (void)state;
    assert_int_equal(czk_cuda_device_count(), 0);
    skip();
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
