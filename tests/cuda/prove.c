/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 900 */
/*
 * The GPU Groth16 backend against the CPU backend: for random satisfied test
 * circuits of 4,090, 20,000 and 65,000 constraints (domains 2^12, 2^15,
 * 2^16; A and B densities well below 100 %; coefficients 1, −1 and random;
 * witnesses with zeros, ones and full-width values) the proofs of
 * czk_backend_cuda are byte for byte those of czk_backend_cpu for the same
 * shape, witness, keys, r and s — with the parameters streamed from host
 * memory in small chunks (never loaded), resident on the device with the
 * shape (device SpMV), pinned (budget too small), pinned with the shape
 * and index lists on the device (a budget for those alone: device SpMV
 * with streamed params), through the split path
 * (czk_prove_device + czk_prove_finalize), in a batch of two, and with the
 * five MSMs on concurrent streams as well as one after another, and with
 * the witness in the backend's page-locked memory (ops->host_alloc) — the
 * upload time is then recorded under timings.upload — and with the G1 MSMs'
 * accumulations forced (CZK_CUDA_MSM_ACC affine, hybrid, xyzz); and with
 * the witness's packed form (czk_witness.packed, mostly-boolean circuits so
 * that it packs), uploaded and expanded on the device, the same bytes as
 * without it (czk_backend_cuda_set_packed false), resident, streamed and
 * split, from page-locked and pageable memory — and the backend reads the
 * packed form when it is on (a witness whose full arrays were changed after
 * packing proves as the packed values say); and with the Lagrange form of
 * the H and L queries attached (test_prove_lagrange). The GPU
 * proofs also verify (pairing check, czk_verify). SpMV on the device is
 * checked against czk_shape_eval and against a naive evaluation of the CSR
 * written here. Every GPU test skips without a CUDA device (CI).
 */
#include "support.h"

#include "czk/cuda.h"
#include "czk/groth16.h"
#include "czk/pool.h"
#include "czk/r1cs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a random satisfied test circuit ---- */

typedef struct gc {
    uint64_t structure_seed, value_seed;
    uint32_t ni;          /* inputs, ONE included */
    uint32_t n;           /* constraints before finalization */
    czk_fr in[8];         /* values of inputs 1 .. ni − 1 */
    uint32_t bools_in_64; /* booleans per 64 rows; 0: a quarter of them */
} gc;

static czk_fr gc_coeff(czk_rng *srng) {
    czk_fr co;
    switch (czk_rng_u64(srng) % 3) {
    case 0:
        return czk_fr_one;
    case 1:
        return czk_fr_minus_one;
    default:
        do {
            if (czk_fr_random(&co, srng, NULL)) return czk_fr_one;
        } while (czk_fr_is_zero(&co));
        return co;
    }
}

/*
 * Inputs tied to aux copies (in · ONE = copy), then a mix of booleans
 * b · (ONE − b) = 0 and products (lc) · (lc) = z whose lcs take 1–3 of the
 * last 64 variables (so many variables are never in A or B), half of the B
 * sides being ONE alone.
 */
static czk_status gc_fn(czk_cs *cs, void *ctx) {
    gc *c = ctx;
    czk_rng srng, vrng;
    czk_rng_seed(&srng, c->structure_seed);
    czk_rng_seed(&vrng, c->value_seed);
    size_t cap = (size_t)c->n + 2 * c->ni + 2;
    czk_var *vars = malloc(cap * sizeof *vars);
    czk_fr *vals = malloc(cap * sizeof *vals);
    if (!vars || !vals) {
        free(vars);
        free(vals);
        return CZK_ERR_NOMEM;
    }
    uint32_t nv = 0, made = 0;
    czk_lc la = CZK_LC_INIT, lb = CZK_LC_INIT, lc = CZK_LC_INIT;
    vars[nv] = CZK_VAR_ONE;
    vals[nv++] = czk_fr_one;
    for (uint32_t i = 1; i < c->ni; i++, made++) {
        if (czk_fr_random(&c->in[i - 1], &vrng, NULL)) return CZK_ERR_INTERNAL;
        czk_var x = czk_cs_alloc_input(cs, &c->in[i - 1]);
        czk_var y = czk_cs_alloc(cs, &c->in[i - 1]);
        czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lc);
        czk_lc_add_var(cs, &la, x);
        czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
        czk_lc_add_var(cs, &lc, y);
        czk_cs_enforce(cs, &la, &lb, &lc);
        vars[nv] = x, vals[nv++] = c->in[i - 1];
        vars[nv] = y, vals[nv++] = c->in[i - 1];
    }
    for (; made < c->n; made++) {
        czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lc);
        uint64_t pick = czk_rng_u64(&srng);
        if (c->bools_in_64 ? pick % 64 < c->bools_in_64 : pick % 4 == 0) {
            czk_fr v = czk_rng_u64(&vrng) & 1 ? czk_fr_one : czk_fr_zero;
            czk_var b = czk_cs_alloc(cs, &v);
            czk_lc_add_var(cs, &la, b);
            czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
            czk_lc_sub_var(cs, &lb, b);
            czk_cs_enforce(cs, &la, &lb, &lc);
            vars[nv] = b, vals[nv++] = v;
            continue;
        }
        czk_fr av = czk_fr_zero, bv = czk_fr_zero, t;
        for (int side = 0; side < 2; side++) {
            czk_lc *l = side ? &lb : &la;
            czk_fr *acc = side ? &bv : &av;
            if (side && czk_rng_u64(&srng) % 2) {
                czk_lc_add_var(cs, l, CZK_VAR_ONE);
                *acc = czk_fr_one;
                continue;
            }
            uint32_t terms = 1 + (uint32_t)(czk_rng_u64(&srng) % 3);
            uint32_t window = nv < 64 ? nv : 64;
            for (uint32_t q = 0; q < terms; q++) {
                uint32_t k = nv - 1 - (uint32_t)(czk_rng_u64(&srng) % window);
                czk_fr co = gc_coeff(&srng);
                czk_lc_add(cs, l, vars[k], &co);
                czk_fr_mul(&t, &co, &vals[k]);
                czk_fr_add(acc, acc, &t);
            }
        }
        czk_fr zv;
        czk_fr_mul(&zv, &av, &bv);
        czk_var z = czk_cs_alloc(cs, &zv);
        czk_lc_add_var(cs, &lc, z);
        czk_cs_enforce(cs, &la, &lb, &lc);
        vars[nv] = z, vals[nv++] = zv;
    }
    czk_lc_free(&la);
    czk_lc_free(&lb);
    czk_lc_free(&lc);
    free(vars);
    free(vals);
    return CZK_OK;
}

static czk_shape *gc_record(gc *c) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, gc_fn, c, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    return s;
}

static void gc_witness(gc *c, czk_witness *w) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, gc_fn, c, &err), &err); /* CHECK: satisfied */
    czk_assert_ok(czk_cs_take_witness(cs, w, &err), &err);
    czk_cs_free(cs);
}

static const uint32_t SIZES[] = {4090, 20000, 65000}; /* + 6 finalization rows */

/* The test circuits have the documented counts and nontrivial densities. */
static void check_counts(const czk_shape *s, uint32_t n, uint32_t ni) {
    print_message("circuit: %llu constraints, %u inputs, %u aux, A-dense aux %llu, "
                  "B-dense aux %llu, B-dense inputs %llu\n",
                  (unsigned long long)s->num_constraints, s->num_inputs, s->num_aux,
                  (unsigned long long)s->a_aux.popcount, (unsigned long long)s->b_aux.popcount,
                  (unsigned long long)s->b_input.popcount);
    assert_int_equal(s->num_constraints, (uint64_t)n + ni);
    assert_int_equal(s->num_inputs, ni);
    assert_true(s->a_aux.popcount < s->num_aux * 9ull / 10);
    assert_true(s->a_aux.popcount > s->num_aux / 4);
    assert_true(s->b_aux.popcount < s->num_aux * 7ull / 10);
    assert_true(s->b_aux.popcount > s->num_aux / 10);
}

#ifdef CZK_HAVE_CUDA

#include "gpu_fixture.h"

/* a, b, c = A·z, B·z, C·z by walking the CSR with the field operations (no fast paths). */
static void naive_eval(const czk_shape *s, const czk_witness *w, int m, czk_fr *out) {
    for (uint64_t k = 0; k < s->num_constraints; k++) {
        czk_fr acc = czk_fr_zero, t;
        for (uint64_t q = s->m[m].row_ptr[k]; q < s->m[m].row_ptr[k + 1]; q++) {
            uint32_t col = s->m[m].col[q];
            const czk_fr *z = col < w->num_inputs ? &w->inputs[col] : &w->aux[col - w->num_inputs];
            czk_fr_mul(&t, &s->coeffs[s->m[m].coeff[q]], z);
            czk_fr_add(&acc, &acc, &t);
        }
        out[k] = acc;
    }
}

static void test_spmv(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        gc c = {.structure_seed = 40 + si, .value_seed = 7, .ni = 6, .n = SIZES[si]};
        czk_shape *s = gc_record(&c);
        czk_witness w;
        gc_witness(&c, &w);
        size_t n = s->num_constraints, N = (size_t)1 << czk_domain_log(n);
        size_t nv = (size_t)s->num_inputs + s->num_aux;
        czk_fr *ref = malloc(3 * n * sizeof *ref), *nai = malloc(n * sizeof *nai);
        czk_fr *got = malloc(3 * N * sizeof *got);
        assert_true(ref && nai && got);
        czk_assert_ok(czk_shape_eval(s, &w, ref, ref + n, ref + 2 * n, pool, &err), &err);
        czk_cuda_shape *ds;
        czk_assert_ok(czk_cuda_shape_upload(ctx, &ds, s, &err), &err);
        czk_fr *dz, *dabc;
        czk_assert_ok(czk_cuda_alloc(ctx, (void **)&dz, nv * sizeof *dz, &err), &err);
        czk_assert_ok(czk_cuda_alloc(ctx, (void **)&dabc, 3 * N * sizeof *dabc, &err), &err);
        czk_assert_ok(czk_cuda_upload(ctx, dz, w.inputs, w.num_inputs * sizeof *dz, &err), &err);
        czk_assert_ok(czk_cuda_upload(ctx, dz + w.num_inputs, w.aux, w.num_aux * sizeof *dz, &err),
                      &err);
        /* garbage first, so that the zero padding is really written */
        czk_assert_ok(czk_cuda_fr_random(ctx, dabc, 3 * N, 5, &err), &err);
        czk_assert_ok(czk_cuda_spmv(ctx, ds, dz, dabc, dabc + N, dabc + 2 * N, N, &err), &err);
        czk_assert_ok(czk_cuda_download(ctx, got, dabc, 3 * N * sizeof *got, &err), &err);
        size_t ones = 0, zeros = 0;
        for (int m = 0; m < 3; m++) {
            naive_eval(s, &w, m, nai);
            for (size_t k = 0; k < n; k++) {
                assert_true(czk_fr_eq(&got[m * N + k], &ref[m * n + k]));
                assert_true(czk_fr_eq(&got[m * N + k], &nai[k]));
                ones += czk_fr_is_one(&nai[k]);
                zeros += czk_fr_is_zero(&nai[k]);
            }
            for (size_t k = n; k < N; k++)
                assert_true(czk_fr_is_zero(&got[m * N + k]));
        }
        assert_true(ones > n / 8 && zeros > n / 8); /* the evaluations are not all of one kind */
        /* too short an output */
        assert_int_equal(czk_cuda_spmv(ctx, ds, dz, dabc, dabc + N, dabc + 2 * N, n - 1, &err),
                         CZK_ERR_INVALID_ARG);
        czk_cuda_free(ctx, dz);
        czk_cuda_free(ctx, dabc);
        czk_cuda_shape_free(ctx, ds);
        free(ref), free(nai), free(got);
        czk_witness_free(&w);
        czk_shape_free(s);
    }
}

static void encode(uint8_t out[CZK_PROOF_BYTES], const czk_proof *p) {
    czk_proof_encode(out, p);
}

static void prove_bytes(const czk_backend *be, const czk_params *p, const czk_shape *s,
                        const czk_witness *w, size_t count, const czk_fr *r, const czk_fr *sv,
                        uint8_t *out) {
    czk_err err;
    czk_proof pr[2];
    assert_true(count <= 2);
    czk_assert_ok(czk_prove(be, p, s, w, count, r, sv, pr, NULL, &err), &err);
    for (size_t k = 0; k < count; k++)
        encode(out + k * CZK_PROOF_BYTES, &pr[k]);
}

/* A copy of w in the backend's page-locked memory (ops->host_alloc); free with pinned_free. */
static czk_witness pinned_copy(const czk_backend *be, const czk_witness *w) {
    czk_witness p = *w;
    assert_non_null(be->ops->host_alloc);
    assert_non_null(be->ops->host_free);
    p.inputs = be->ops->host_alloc(be->self, w->num_inputs * sizeof(czk_fr));
    p.aux = be->ops->host_alloc(be->self, w->num_aux * sizeof(czk_fr));
    assert_non_null(p.inputs);
    assert_non_null(p.aux);
    memcpy(p.inputs, w->inputs, w->num_inputs * sizeof(czk_fr));
    memcpy(p.aux, w->aux, w->num_aux * sizeof(czk_fr));
    return p;
}

static void pinned_free(const czk_backend *be, czk_witness *p) {
    be->ops->host_free(be->self, p->inputs, p->num_inputs * sizeof(czk_fr));
    be->ops->host_free(be->self, p->aux, p->num_aux * sizeof(czk_fr));
}

/*
 * Keys for the circuit (toxic waste from czk_rng seed `seed`), two witnesses (the second with
 * value_seed + 1000; in0: the first one's input values) and r, s for each from the same rng.
 */
static czk_params *prove_case(gc *c, const czk_shape *s, uint64_t seed, czk_witness w[2],
                              czk_fr r[2], czk_fr sv[2], czk_fr in0[8]) {
    czk_err err;
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic tox;
    czk_assert_ok(czk_toxic_random(&tox, &rng, &err), &err);
    czk_params *p;
    czk_assert_ok(czk_setup(&p, s, &tox, pool, &err), &err);
    gc_witness(c, &w[0]);
    memcpy(in0, c->in, 8 * sizeof *in0);
    c->value_seed += 1000;
    gc_witness(c, &w[1]);
    for (int k = 0; k < 2; k++) {
        czk_assert_ok(czk_fr_random(&r[k], &rng, &err), &err);
        czk_assert_ok(czk_fr_random(&sv[k], &rng, &err), &err);
    }
    return p;
}

static void test_prove_equal(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_backend cpu, gpu, gpu_res, gpu_pin;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        gc c = {.structure_seed = 40 + si, .value_seed = 100 + si, .ni = 6, .n = SIZES[si]};
        czk_shape *s = gc_record(&c);
        check_counts(s, SIZES[si], c.ni);
        czk_witness w[2];
        czk_fr r[2], sv[2], in0[8];
        czk_params *p = prove_case(&c, s, 77 + si, w, r, sv, in0);
        czk_pvk pvk;
        czk_assert_ok(czk_pvk_prepare(&pvk, &p->vk, &err), &err);
        uint8_t want[2 * CZK_PROOF_BYTES], got[2 * CZK_PROOF_BYTES];
        prove_bytes(&cpu, p, s, w, 2, r, sv, want);
        assert_memory_not_equal(want, want + CZK_PROOF_BYTES, CZK_PROOF_BYTES);

        /* 1. never loaded: streamed from pageable memory in chunks of 1000 points, host SpMV */
        czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
        czk_assert_ok(czk_backend_cuda_set_stream_chunk(&gpu, 1000, &err), &err);
        prove_bytes(&gpu, p, s, w, 1, r, sv, got);
        assert_memory_equal(got, want, CZK_PROOF_BYTES);
        czk_cuda_residency res;
        czk_assert_ok(czk_backend_cuda_residency(&gpu, p, &res, &err), &err);
        assert_false(res.loaded);

        /* 2. resident (params and shape), device SpMV; a batch of two */
        czk_assert_ok(czk_backend_cuda(&gpu_res, 0, pool, 0, &err), &err);
        unsigned drop = 0;
        uint64_t dev = 0;
        czk_assert_ok(gpu_res.ops->load(gpu_res.self, p, s, &drop, &dev, &err), &err);
        czk_assert_ok(czk_backend_cuda_residency(&gpu_res, p, &res, &err), &err);
        assert_true(res.loaded && res.params_resident && res.shape_resident && !res.pinned);
        assert_int_equal(drop, CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1 | CZK_SRS_B_G2);
        assert_int_equal(dev, res.device_bytes);
        assert_true(dev >=
                    96ull * (p->h_len + p->l_len + p->a_len + p->b_g1_len) + 192ull * p->b_g2_len);
        prove_bytes(&gpu_res, p, s, w, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        czk_proof pr;
        czk_assert_ok(czk_proof_decode(&pr, got, &err), &err);
        czk_assert_ok(czk_verify(&pvk, &pr, in0, c.ni - 1, &err), &err);
        /* bellperson's non-randomized proof (r = s = 0) */
        czk_fr zero[1] = {czk_fr_zero};
        uint8_t want0[CZK_PROOF_BYTES];
        prove_bytes(&cpu, p, s, w, 1, zero, zero, want0);
        prove_bytes(&gpu_res, p, s, w, 1, zero, zero, got);
        assert_memory_equal(got, want0, CZK_PROOF_BYTES);

        /* 2b. the witness in page-locked memory of the backend (host_alloc) */
        czk_witness wp = pinned_copy(&gpu_res, &w[0]);
        czk_prove_timings tp = {0};
        czk_assert_ok(czk_prove(&gpu_res, p, s, &wp, 1, r, sv, &pr, &tp, &err), &err);
        encode(got, &pr);
        assert_memory_equal(got, want, CZK_PROOF_BYTES);
        assert_true(tp.upload > 0 && tp.spmv > 0);
        pinned_free(&gpu_res, &wp);

        /* 3. the split path: device part (nothing deferred), then finalize */
        czk_msm_sums sums;
        unsigned deferred = 99;
        czk_assert_ok(czk_prove_device(&gpu_res, p, s, &w[1], NULL, &sums, &deferred, NULL, &err),
                      &err);
        assert_int_equal(deferred, 0);
        czk_assert_ok(
            czk_prove_finalize(p, s, &w[1], &sums, deferred, &r[1], &sv[1], &pr, pool, NULL, &err),
            &err);
        encode(got, &pr);
        assert_memory_equal(got, want + CZK_PROOF_BYTES, CZK_PROOF_BYTES);

        /* 4. a budget too small for the params: pinned host memory, streamed */
        czk_assert_ok(czk_backend_cuda(&gpu_pin, 0, pool, 1, &err), &err);
        czk_assert_ok(gpu_pin.ops->load(gpu_pin.self, p, s, &drop, &dev, &err), &err);
        czk_assert_ok(czk_backend_cuda_residency(&gpu_pin, p, &res, &err), &err);
        assert_true(res.loaded && !res.params_resident && !res.shape_resident && res.pinned);
        assert_int_equal(drop, 0);
        assert_int_equal(dev, 0);
        prove_bytes(&gpu_pin, p, s, w, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        gpu_pin.ops->unload(gpu_pin.self, p);
        czk_assert_ok(czk_backend_cuda_residency(&gpu_pin, p, &res, &err), &err);
        assert_false(res.loaded);

        /* 4b. a budget for the shape and the index lists but not the params: params pinned and
         * streamed, SpMV and the gathers on the device */
        uint64_t sib = czk_cuda_shape_device_bytes(s) + 4ull * (p->a_len + p->b_g1_len);
        /* the params' device bytes as load() counts them (vectors and index lists) exceed it */
        assert_true(sib < 96ull * (p->h_len + p->l_len + p->a_len + p->b_g1_len) +
                              192ull * p->b_g2_len + 4ull * (p->a_len + p->b_g1_len));
        czk_backend gpu_shp;
        czk_assert_ok(czk_backend_cuda(&gpu_shp, 0, pool, sib, &err), &err);
        czk_assert_ok(gpu_shp.ops->load(gpu_shp.self, p, s, &drop, &dev, &err), &err);
        czk_assert_ok(czk_backend_cuda_residency(&gpu_shp, p, &res, &err), &err);
        assert_true(res.loaded && !res.params_resident && res.shape_resident && res.pinned);
        assert_int_equal(drop, 0);
        assert_int_equal(dev, sib);
        prove_bytes(&gpu_shp, p, s, w, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        gpu_shp.ops->unload(gpu_shp.self, p);
        czk_backend_release(&gpu_shp);

        /* unloaded: streams again, same proof */
        gpu_res.ops->unload(gpu_res.self, p);
        prove_bytes(&gpu_res, p, s, w, 1, r, sv, got);
        assert_memory_equal(got, want, CZK_PROOF_BYTES);

        czk_backend_release(&gpu);
        czk_backend_release(&gpu_res);
        czk_backend_release(&gpu_pin);
        czk_witness_free(&w[0]);
        czk_witness_free(&w[1]);
        czk_pvk_free(&pvk);
        czk_params_free(p);
        czk_shape_free(s);
    }
    czk_backend_release(&cpu);
}

/*
 * The same proofs with the G1 MSMs' accumulations forced (CZK_CUDA_MSM_ACC = affine, hybrid and
 * xyzz; the default, auto, takes XYZZ at these sizes, below 2^22 points; read when the backend
 * makes its contexts): resident (H dense, L/A/B compacted) and
 * streamed in chunks of 1000 points, byte for byte the CPU backend's; the variable restored after.
 */
static void test_prove_equal_affine(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    const char *old = getenv("CZK_CUDA_MSM_ACC");
    char *saved = old ? strdup(old) : NULL;
    czk_backend cpu, gpu, gpu_str;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    static const char *const acc[3] = {"affine", "hybrid", "xyzz"};
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        gc c = {.structure_seed = 60 + si, .value_seed = 300 + si, .ni = 5, .n = SIZES[si]};
        czk_shape *s = gc_record(&c);
        czk_witness w[2];
        czk_fr r[2], sv[2], in0[8];
        czk_params *p = prove_case(&c, s, 177 + si, w, r, sv, in0);
        uint8_t want[2 * CZK_PROOF_BYTES], got[2 * CZK_PROOF_BYTES];
        prove_bytes(&cpu, p, s, w, 2, r, sv, want);
        for (int v = 0; v < 3; v++) {
            setenv("CZK_CUDA_MSM_ACC", acc[v], 1);
            czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
            czk_assert_ok(czk_backend_cuda(&gpu_str, 0, pool, 0, &err), &err);
            unsigned drop = 0;
            uint64_t dev = 0;
            czk_assert_ok(gpu.ops->load(gpu.self, p, s, &drop, &dev, &err), &err);
            prove_bytes(&gpu, p, s, w, 2, r, sv, got);
            if (memcmp(got, want, sizeof want))
                fail_msg("%u constraints, CZK_CUDA_MSM_ACC=%s, resident: proofs differ from the "
                         "CPU backend's",
                         SIZES[si], acc[v]);
            czk_assert_ok(czk_backend_cuda_set_stream_chunk(&gpu_str, 1000, &err), &err);
            prove_bytes(&gpu_str, p, s, w, 1, r, sv, got);
            if (memcmp(got, want, CZK_PROOF_BYTES))
                fail_msg("%u constraints, CZK_CUDA_MSM_ACC=%s, streamed: proof differs from the "
                         "CPU backend's",
                         SIZES[si], acc[v]);
            czk_backend_release(&gpu);
            czk_backend_release(&gpu_str);
        }
        czk_witness_free(&w[0]);
        czk_witness_free(&w[1]);
        czk_params_free(p);
        czk_shape_free(s);
    }
    if (saved)
        setenv("CZK_CUDA_MSM_ACC", saved, 1);
    else
        unsetenv("CZK_CUDA_MSM_ACC");
    free(saved);
    czk_backend_release(&cpu);
}

/*
 * MSM H's window size and K on its own context (CZK_CUDA_MSM_H_C, CZK_CUDA_MSM_H_K, read when the
 * backend is made): proofs byte for byte the CPU backend's; a value out of range refuses the
 * backend, naming the variable.
 */
static void test_msm_h_knobs(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    static const char *const vars[3] = {"CZK_CUDA_MSM_H_C", "CZK_CUDA_MSM_H_K", "CZK_CUDA_MSM_ACC"};
    char *saved[3];
    for (int k = 0; k < 3; k++) {
        const char *o = getenv(vars[k]);
        saved[k] = o ? strdup(o) : NULL;
    }
    czk_backend cpu, gpu;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    gc c = {.structure_seed = 64, .value_seed = 310, .ni = 5, .n = 3000};
    czk_shape *s = gc_record(&c);
    czk_witness w[2];
    czk_fr r[2], sv[2], in0[8];
    czk_params *p = prove_case(&c, s, 190, w, r, sv, in0);
    uint8_t want[2 * CZK_PROOF_BYTES], got[2 * CZK_PROOF_BYTES];
    prove_bytes(&cpu, p, s, w, 2, r, sv, want);
    setenv(vars[2], "hybrid", 1); /* K matters only there */
    setenv(vars[0], "9", 1);
    setenv(vars[1], "4", 1);
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
    unsigned drop = 0;
    uint64_t dev = 0;
    czk_assert_ok(gpu.ops->load(gpu.self, p, s, &drop, &dev, &err), &err);
    prove_bytes(&gpu, p, s, w, 2, r, sv, got);
    assert_memory_equal(got, want, sizeof want);
    czk_backend_release(&gpu);
    static const char *const bad[2][2] = {{"23", "9x"}, {"1", "65"}};
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 2; b++) {
            setenv(vars[k], bad[k][b], 1);
            czk_backend x;
            assert_int_equal(czk_backend_cuda(&x, 0, pool, 0, &err), CZK_ERR_INVALID_ARG);
            assert_null(x.ops);
            assert_non_null(strstr(err.msg, vars[k]));
            setenv(vars[k], k ? "4" : "9", 1);
        }
    for (int k = 0; k < 3; k++) {
        if (saved[k])
            setenv(vars[k], saved[k], 1);
        else
            unsetenv(vars[k]);
        free(saved[k]);
    }
    czk_witness_free(&w[0]);
    czk_witness_free(&w[1]);
    czk_params_free(p);
    czk_shape_free(s);
    czk_backend_release(&cpu);
}

/* Host vectors dropped after a resident load (what the engine does): proofs still equal. */
static void test_dropped_host_vectors(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    gc c = {.structure_seed = 90, .value_seed = 3, .ni = 4, .n = 3000};
    czk_shape *s = gc_record(&c);
    czk_rng rng;
    czk_rng_seed(&rng, 5);
    czk_toxic tox;
    czk_assert_ok(czk_toxic_random(&tox, &rng, &err), &err);
    czk_params *p;
    czk_assert_ok(czk_setup(&p, s, &tox, pool, &err), &err);
    czk_witness w;
    gc_witness(&c, &w);
    czk_fr r, sv;
    czk_assert_ok(czk_fr_random(&r, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(&sv, &rng, &err), &err);
    czk_backend cpu, gpu;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    uint8_t want[CZK_PROOF_BYTES], got[CZK_PROOF_BYTES];
    prove_bytes(&cpu, p, s, &w, 1, &r, &sv, want);
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
    unsigned drop;
    uint64_t dev;
    czk_assert_ok(gpu.ops->load(gpu.self, p, s, &drop, &dev, &err), &err);
    assert_int_equal(drop, CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1 | CZK_SRS_B_G2);
    czk_params held = *p;
    p->h = p->l = p->a = p->b_g1 = NULL;
    p->b_g2 = NULL;
    prove_bytes(&gpu, p, s, &w, 1, &r, &sv, got); /* the five MSMs at once */
    assert_memory_equal(got, want, CZK_PROOF_BYTES);
    czk_assert_ok(czk_backend_cuda_set_serial_msm(&gpu, true, &err), &err); /* one after another */
    prove_bytes(&gpu, p, s, &w, 1, &r, &sv, got);
    czk_assert_ok(czk_backend_cuda_set_serial_msm(&gpu, false, &err), &err);
    assert_memory_equal(got, want, CZK_PROOF_BYTES);
    /* unloaded with the host vectors gone: an error naming the vector, no crash */
    gpu.ops->unload(gpu.self, p);
    czk_proof pr;
    assert_int_equal(czk_prove(&gpu, p, s, &w, 1, &r, &sv, &pr, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "MSM h"));
    *p = held;
    czk_backend_release(&gpu);
    czk_backend_release(&cpu);
    czk_witness_free(&w);
    czk_params_free(p);
    czk_shape_free(s);
}

/*
 * The Lagrange form (groth16.h, czk_params_lagrange) attached to the parameters: SpMV without c,
 * four transforms, h over the N coset values with the form's bases, l with the form's L, the
 * inputs' W on the host. The proofs are the CPU backend's without the form, byte for byte:
 * streamed, resident (the form's vectors on the device), split, serial, and after the host
 * vectors were dropped; the form made from the toxic waste equals the G1-NTT derivation (its
 * NTTs on the CPU and on the GPU: czk_cuda_g1_ntt).
 */
static void test_prove_lagrange(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_backend cpu, gpu, gpu_res;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    for (size_t si = 0; si < 2; si++) {
        gc c = {.structure_seed = 140 + si, .value_seed = 200 + si, .ni = 6, .n = SIZES[si]};
        czk_shape *s = gc_record(&c);
        czk_witness w[2];
        czk_fr r[2], sv[2], in0[8];
        czk_params *p = prove_case(&c, s, 177 + si, w, r, sv, in0);
        czk_params_lagrange *lf; /* prove_case's toxic waste: its rng's first draws */
        czk_assert_ok(czk_test_lagrange(&lf, s, 177 + si, pool, &err), &err);
        for (int dev = 0; dev < 2 && si == 0; dev++) {
            /* the derivation from the points (G1 NTTs on the CPU, then on the GPU) gives the
             * same form */
            czk_params_lagrange *ld;
            czk_assert_ok(
                dev ? czk_params_lagrange_derive_with(&ld, p, s, czk_cuda_g1_ntt, ctx, pool, &err)
                    : czk_params_lagrange_derive(&ld, p, s, pool, &err),
                &err);
            size_t N = (size_t)1 << lf->log_n;
            assert_memory_equal(ld->h, lf->h, N * sizeof *lf->h);
            assert_memory_equal(ld->l, lf->l, lf->num_aux * sizeof *lf->l);
            assert_memory_equal(ld->w_in, lf->w_in, lf->num_inputs * sizeof *lf->w_in);
            czk_params_lagrange_free(ld);
        }
        czk_pvk pvk;
        czk_assert_ok(czk_pvk_prepare(&pvk, &p->vk, &err), &err);
        uint8_t want[2 * CZK_PROOF_BYTES], got[2 * CZK_PROOF_BYTES];
        prove_bytes(&cpu, p, s, w, 2, r, sv, want); /* without the form */
        p->lagrange = lf;                           /* p owns it now */
        prove_bytes(&cpu, p, s, w, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);

        /* streamed from the host in chunks of 1000 points, host SpMV */
        czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
        czk_assert_ok(czk_backend_cuda_set_stream_chunk(&gpu, 1000, &err), &err);
        prove_bytes(&gpu, p, s, w, 1, r, sv, got);
        assert_memory_equal(got, want, CZK_PROOF_BYTES);
        czk_backend_release(&gpu);

        /* resident: the form's h (N points) and l on the device, device SpMV without c */
        czk_assert_ok(czk_backend_cuda(&gpu_res, 0, pool, 0, &err), &err);
        unsigned drop = 0;
        uint64_t dev = 0;
        czk_assert_ok(gpu_res.ops->load(gpu_res.self, p, s, &drop, &dev, &err), &err);
        assert_int_equal(drop, CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1 | CZK_SRS_B_G2);
        assert_true(dev >=
                    96ull * (((uint64_t)1 << lf->log_n) + lf->num_aux + p->a_len + p->b_g1_len) +
                        192ull * p->b_g2_len);
        prove_bytes(&gpu_res, p, s, w, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        czk_proof pr;
        czk_assert_ok(czk_proof_decode(&pr, got, &err), &err);
        czk_assert_ok(czk_verify(&pvk, &pr, in0, c.ni - 1, &err), &err);
        /* the split path */
        czk_msm_sums sums;
        unsigned deferred = 99;
        czk_assert_ok(czk_prove_device(&gpu_res, p, s, &w[1], NULL, &sums, &deferred, NULL, &err),
                      &err);
        czk_assert_ok(
            czk_prove_finalize(p, s, &w[1], &sums, deferred, &r[1], &sv[1], &pr, pool, NULL, &err),
            &err);
        encode(got, &pr);
        assert_memory_equal(got, want + CZK_PROOF_BYTES, CZK_PROOF_BYTES);
        /* the five MSMs one after another, then with the host vectors dropped (the form's too) */
        czk_assert_ok(czk_backend_cuda_set_serial_msm(&gpu_res, true, &err), &err);
        prove_bytes(&gpu_res, p, s, w, 1, r, sv, got);
        czk_assert_ok(czk_backend_cuda_set_serial_msm(&gpu_res, false, &err), &err);
        assert_memory_equal(got, want, CZK_PROOF_BYTES);
        uint64_t freed = 0;
        assert_int_equal(czk_params_drop_host(p, drop, &freed), drop);
        assert_null(lf->h);
        assert_null(lf->l);
        prove_bytes(&gpu_res, p, s, w, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        czk_backend_release(&gpu_res);
        czk_witness_free(&w[0]);
        czk_witness_free(&w[1]);
        czk_pvk_free(&pvk);
        czk_params_free(p); /* and the form */
        czk_shape_free(s);
    }
    czk_backend_release(&cpu);
}

/* w's packed form in a block of czk_witness_packed_bytes (from be's host_alloc where be is not
 * NULL, else malloc); *block to free with packed_free. */
static czk_witness_packed packed_of(const czk_backend *be, const czk_witness *w, void **block) {
    uint64_t n = (uint64_t)w->num_inputs + w->num_aux;
    size_t bytes = czk_witness_packed_bytes(n);
    *block = be ? be->ops->host_alloc(be->self, bytes) : malloc(bytes);
    assert_non_null(*block);
    czk_witness_packed pk;
    czk_witness_packed_place(&pk, *block, n);
    assert_true(czk_witness_pack(&pk, w, pool));
    assert_true(pk.num_others > 0);
    return pk;
}

static void packed_free(const czk_backend *be, const czk_witness *w, void *block) {
    size_t bytes = czk_witness_packed_bytes((uint64_t)w->num_inputs + w->num_aux);
    if (be)
        be->ops->host_free(be->self, block, bytes);
    else
        free(block);
}

static void test_prove_packed(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_backend cpu, gpu, gpu_res;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        gc c = {.structure_seed = 90 + si,
                .value_seed = 500 + si,
                .ni = 6,
                .n = SIZES[si],
                .bools_in_64 = 63};
        czk_shape *s = gc_record(&c);
        czk_witness w[2];
        czk_fr r[2], sv[2], in0[8];
        czk_params *p = prove_case(&c, s, 277 + si, w, r, sv, in0);
        uint8_t want[2 * CZK_PROOF_BYTES], got[2 * CZK_PROOF_BYTES];
        prove_bytes(&cpu, p, s, w, 2, r, sv, want);
        czk_assert_ok(czk_backend_cuda(&gpu_res, 0, pool, 0, &err), &err);
        unsigned drop = 0;
        uint64_t dev = 0;
        czk_assert_ok(gpu_res.ops->load(gpu_res.self, p, s, &drop, &dev, &err), &err);

        /* 1. resident, the witness and its packed form in page-locked memory; a batch of two,
         * the second packed from pageable memory */
        czk_witness wp[2] = {pinned_copy(&gpu_res, &w[0]), w[1]};
        void *blk[2];
        czk_witness_packed pk[2] = {packed_of(&gpu_res, &wp[0], &blk[0]),
                                    packed_of(NULL, &w[1], &blk[1])};
        print_message("%u constraints: %llu of %llu values packed as others\n", SIZES[si],
                      (unsigned long long)pk[0].num_others, (unsigned long long)pk[0].n);
        wp[0].packed = &pk[0];
        wp[1].packed = &pk[1];
        czk_prove_timings tp = {0};
        czk_proof pr[2];
        czk_assert_ok(czk_prove(&gpu_res, p, s, wp, 2, r, sv, pr, &tp, &err), &err);
        encode(got, &pr[0]);
        encode(got + CZK_PROOF_BYTES, &pr[1]);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        assert_true(tp.upload > 0);
        /* the same without the packed path */
        czk_assert_ok(czk_backend_cuda_set_packed(&gpu_res, false, &err), &err);
        prove_bytes(&gpu_res, p, s, wp, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        czk_assert_ok(czk_backend_cuda_set_packed(&gpu_res, true, &err), &err);

        /* 2. the split path */
        czk_msm_sums sums;
        unsigned deferred = 99;
        czk_assert_ok(czk_prove_device(&gpu_res, p, s, &wp[1], NULL, &sums, &deferred, NULL, &err),
                      &err);
        assert_int_equal(deferred, 0);
        czk_assert_ok(czk_prove_finalize(p, s, &wp[1], &sums, deferred, &r[1], &sv[1], &pr[0], pool,
                                         NULL, &err),
                      &err);
        encode(got, &pr[0]);
        assert_memory_equal(got, want + CZK_PROOF_BYTES, CZK_PROOF_BYTES);

        /* 3. the packed form is what the device reads: a full witness changed after packing
         * proves as the packed values say when packed, and differently when not */
        czk_witness wx = pinned_copy(&gpu_res, &w[0]);
        czk_fr_add(&wx.aux[wx.num_aux / 2], &wx.aux[wx.num_aux / 2], &czk_fr_one);
        wx.packed = &pk[0];
        uint8_t other[CZK_PROOF_BYTES];
        prove_bytes(&gpu_res, p, s, &wx, 1, r, sv, got);
        assert_memory_equal(got, want, CZK_PROOF_BYTES);
        czk_assert_ok(czk_backend_cuda_set_packed(&gpu_res, false, &err), &err);
        prove_bytes(&gpu_res, p, s, &wx, 1, r, sv, other);
        assert_memory_not_equal(other, want, CZK_PROOF_BYTES);
        czk_assert_ok(czk_backend_cuda_set_packed(&gpu_res, true, &err), &err);
        pinned_free(&gpu_res, &wx);

        /* 4. never loaded: streamed, host SpMV (from the full witness), z from the packed form */
        czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
        czk_assert_ok(czk_backend_cuda_set_stream_chunk(&gpu, 1000, &err), &err);
        prove_bytes(&gpu, p, s, wp, 2, r, sv, got);
        assert_memory_equal(got, want, 2 * CZK_PROOF_BYTES);
        czk_backend_release(&gpu);

        packed_free(&gpu_res, &wp[0], blk[0]);
        packed_free(NULL, &w[1], blk[1]);
        pinned_free(&gpu_res, &wp[0]);
        czk_backend_release(&gpu_res);
        czk_witness_free(&w[0]);
        czk_witness_free(&w[1]);
        czk_params_free(p);
        czk_shape_free(s);
    }
    /* not a CUDA backend */
    assert_int_equal(czk_backend_cuda_set_packed(&cpu, true, &err), CZK_ERR_INVALID_ARG);
    czk_backend_release(&cpu);
    /* CZK_CUDA_PACKED other than 0 or 1 refuses the backend, naming it (the caller's restored) */
    const char *old = getenv("CZK_CUDA_PACKED");
    char *saved = old ? strdup(old) : NULL;
    static const char *const bad[2] = {"2", "yes"};
    for (int b = 0; b < 2; b++) {
        setenv("CZK_CUDA_PACKED", bad[b], 1);
        czk_backend x;
        assert_int_equal(czk_backend_cuda(&x, 0, pool, 0, &err), CZK_ERR_INVALID_ARG);
        assert_null(x.ops);
        assert_non_null(strstr(err.msg, "CZK_CUDA_PACKED"));
    }
    if (saved)
        setenv("CZK_CUDA_PACKED", saved, 1);
    else
        unsetenv("CZK_CUDA_PACKED");
    free(saved);
}

static void test_bad_device(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    czk_backend b;
    assert_int_equal(czk_backend_cuda(&b, 1000, pool, 0, &err), CZK_ERR_INVALID_ARG);
    assert_null(b.ops);
    czk_backend cpu;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    czk_cuda_residency res;
    czk_params dummy;
    memset(&dummy, 0, sizeof dummy);
    assert_int_equal(czk_backend_cuda_residency(&cpu, &dummy, &res, &err), CZK_ERR_INVALID_ARG);
    czk_backend_release(&cpu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spmv),
        cmocka_unit_test(test_prove_equal),
        cmocka_unit_test(test_prove_equal_affine),
        cmocka_unit_test(test_msm_h_knobs),
        cmocka_unit_test(test_dropped_host_vectors),
        cmocka_unit_test(test_prove_packed),
        cmocka_unit_test(test_prove_lagrange),
        cmocka_unit_test(test_bad_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

#else /* no CUDA in this build */

static void test_no_cuda(void **state) {
    (void)state;
    czk_err err;
    czk_backend b;
    assert_int_equal(czk_backend_cuda(&b, 0, NULL, 0, &err), CZK_ERR_UNSUPPORTED);
    assert_null(b.ops);
    /* the test circuits themselves: satisfied (CHECK mode), counts and densities */
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        gc c = {.structure_seed = 40 + si, .value_seed = 100 + si, .ni = 6, .n = SIZES[si]};
        czk_shape *s = gc_record(&c);
        check_counts(s, SIZES[si], c.ni);
        czk_witness w;
        gc_witness(&c, &w);
        czk_witness_free(&w);
        czk_shape_free(s);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
