/*
 * The Groth16 prover: the CPU backend (bellperson src/groth16/prover/native.rs)
 * and the common front (czk_prove), which checks inputs, hands a batch of
 * witnesses to a backend for the five multi-scalar sums and randomizes each
 * proof with r and s.
 *
 * CPU backend, per circuit (gpu-prover.md §1):
 *   1. a, b, c = A·z, B·z, C·z (czk_shape_eval), zero-padded to N = 2^⌈log2 n⌉.
 *   2. H: a, b, c to coefficients (iNTT), to values on the coset g·ω^i
 *      (coset NTT, g = 7); there a·b − c = H·Z with Z = x^N − 1 constant
 *      g^N − 1, so H's coset values are (a·b − c)/(g^N − 1); a coset iNTT
 *      gives H's coefficients, of which the first N − 1 are used.
 *   3. The MSMs through the bit-aware czk_msm_g1/g2: h over N − 1 coefficients,
 *      l over aux, a over inputs ‖ A-dense aux, b1 and b2 over B-dense inputs ‖
 *      B-dense aux (scalars compacted by the density bitmaps).
 * The circuits of a batch run one after another, each on the whole pool.
 * Cancellation (the split device part, czk_device_lock.cancel): checked at
 * the start and after SpMV, each NTT and each MSM, so a cancelled job
 * leaves the pseudo-device within one phase.
 */
#include "groth16/internal.h"

#include "czk/msm.h"
#include "czk/ntt.h"

#include <stdlib.h>
#include <string.h>

typedef struct cpu_backend {
    czk_pool *pool;
} cpu_backend;

/*
 * H in six transforms, not bellperson's seven (the values are the same for any a, b, c):
 * icoset_fft is linear and icoset_fft(coset_fft(y)) = y, so
 *   h = icoset_fft((A·B − C)·zinv) = (icoset_fft(A·B) − ifft(c))·zinv
 * with A, B the coset evaluations of a and b: c takes only its ifft, its coset transform goes.
 */
typedef struct quot_job {
    czk_fr *a;
    const czk_fr *b, *c;
    czk_fr zinv;
} quot_job;

/* a <- a·b (the coset evaluations) */
static void quot_mul_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    quot_job *j = arg;
    for (size_t i = b; i < e; i++)
        czk_fr_mul(&j->a[i], &j->a[i], &j->b[i]);
}

/* a <- (a − c)·zinv (the coefficients) */
static void quot_sub_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    quot_job *j = arg;
    for (size_t i = b; i < e; i++) {
        czk_fr t;
        czk_fr_sub(&t, &j->a[i], &j->c[i]);
        czk_fr_mul(&j->a[i], &t, &j->zinv);
    }
}

static bool bit(const czk_bitmap *b, uint64_t i) {
    return i < b->len && (b->words[i / 64] >> (i % 64)) & 1;
}

/* scalars of the a query: inputs ‖ A-dense aux; of the b queries: B-dense inputs ‖ B-dense aux. */
static size_t compact_a(czk_fr *out, const czk_shape *s, const czk_witness *w) {
    size_t m = 0;
    memcpy(out, w->inputs, (size_t)w->num_inputs * sizeof *out);
    m = w->num_inputs;
    for (uint32_t j = 0; j < w->num_aux; j++)
        if (bit(&s->a_aux, j)) out[m++] = w->aux[j];
    return m;
}

static size_t compact_b(czk_fr *out, const czk_shape *s, const czk_witness *w) {
    size_t m = 0;
    for (uint32_t i = 0; i < w->num_inputs; i++)
        if (bit(&s->b_input, i)) out[m++] = w->inputs[i];
    for (uint32_t j = 0; j < w->num_aux; j++)
        if (bit(&s->b_aux, j)) out[m++] = w->aux[j];
    return m;
}

/* A checkpoint: CZK_ERR_CANCELLED "prove: cancelled after <after>" once lock's job is cancelled. */
static czk_status checkpoint(const czk_device_lock *lock, const char *after, czk_err *err) {
    return czk_device_lock_cancelled(lock)
               ? czk_errf(err, CZK_ERR_CANCELLED, "prove: cancelled after %s", after)
               : CZK_OK;
}

static czk_status cpu_witness_sums(czk_pool *pool, const czk_params *p, const czk_shape *s,
                                   const czk_witness *w, const czk_g1_affine *l, czk_fr *sc,
                                   czk_msm_sums *out, bool with_b2, const czk_device_lock *lock,
                                   czk_prove_timings *t, double t3, czk_err *err);

/*
 * H and L from the Lagrange form (groth16.h, czk_params_lagrange): a, b only, their iNTT and
 * coset NTT, A·B on the coset, h over its N values; the inputs' share of C (w_in) is added to
 * h; l over aux with the form's L. a, b are in abc (c was not computed); t1: SpMV's end.
 */
static czk_status cpu_lagrange(czk_pool *pool, const czk_params_lagrange *lf, const czk_params *p,
                               const czk_shape *s, const czk_witness *w, czk_fr *abc, czk_fr *sc,
                               czk_msm_sums *out, bool with_b2, const czk_device_lock *lock,
                               czk_prove_timings *t, double t1, czk_err *err) {
    unsigned lg = lf->log_n;
    size_t N = (size_t)1 << lg;
    czk_fr *a = abc, *b = abc + N;
    czk_status st = CZK_OK;
    if (lg > 0) {
        czk_fr *v[2] = {a, b};
        for (int k = 0; k < 2 && !st; k++)
            if (!(st = czk_ntt(v[k], lg, CZK_NTT_INVERSE, pool, err)))
                st = checkpoint(lock, "an iNTT", err);
        for (int k = 0; k < 2 && !st; k++)
            if (!(st = czk_ntt(v[k], lg, CZK_NTT_COSET_FORWARD, pool, err)))
                st = checkpoint(lock, "a coset NTT", err);
        if (st == CZK_ERR_CANCELLED) return st;
        if (st) return czk_err_wrap(err, "prove: NTT");
    }
    quot_job qj = {.a = a, .b = b};
    czk_pool_for(pool, N, 4096, quot_mul_fn, &qj);
    double t2 = czk_g16_now();
    t->ntt += t2 - t1;
    if ((st = checkpoint(lock, "H", err))) return st;
    czk_g1 win;
    if ((st = czk_msm_g1(&out->h, lf->h, a, N, pool, err)) ||
        (st = czk_msm_g1(&win, lf->w_in, w->inputs, w->num_inputs, pool, err)))
        return czk_err_wrap(err, "prove: MSM h");
    blst_p1_add_or_double(&out->h, &out->h, &win);
    double t3 = czk_g16_now();
    t->msm_h += t3 - t2;
    if ((st = checkpoint(lock, "MSM h", err))) return st;
    return cpu_witness_sums(pool, p, s, w, lf->l, sc, out, with_b2, lock, t, t3, err);
}

/* lock: NULL, or the device part's (its cancel flag is read at the checkpoints). */
static czk_status cpu_one(cpu_backend *be, const czk_params *p, const czk_shape *s,
                          const czk_witness *w, czk_fr *abc, czk_fr *sc, czk_msm_sums *out,
                          bool with_b2, const czk_device_lock *lock, czk_prove_timings *t,
                          czk_err *err) {
    czk_pool *pool = be->pool;
    uint64_t n = s->num_constraints;
    unsigned lg = czk_domain_log(n);
    size_t N = (size_t)1 << lg;
    czk_fr *a = abc, *b = abc + N, *c = abc + 2 * N;
    const czk_params_lagrange *lf = p->lagrange;
    /* encoded vectors (CZK_PARAMS_ENCODED) are decoded on first use */
    czk_status st = czk_params_decode_vectors(p, pool, err);
    if (!st && lf) st = czk_params_lagrange_check(lf, s, err);
    if (st || (st = checkpoint(lock, "the wait for the device", err))) return st;
    double t0 = czk_g16_now();
    st = czk_shape_eval(s, w, a, b, lf ? NULL : c, pool, err);
    if (st) return czk_err_wrap(err, "prove: SpMV");
    for (size_t i = n; i < N; i++)
        a[i] = b[i] = c[i] = czk_fr_zero;
    double t1 = czk_g16_now();
    t->spmv += t1 - t0;
    if ((st = checkpoint(lock, "SpMV", err))) return st;
    if (lf) return cpu_lagrange(pool, lf, p, s, w, abc, sc, out, with_b2, lock, t, t1, err);
    if (lg > 0) {
        czk_fr *v[3] = {a, b, c};
        for (int k = 0; k < 3 && !st; k++)
            if (!(st = czk_ntt(v[k], lg, CZK_NTT_INVERSE, pool, err)))
                st = checkpoint(lock, "an iNTT", err);
        for (int k = 0; k < 2 && !st; k++) /* a and b: c needs only its coefficients */
            if (!(st = czk_ntt(v[k], lg, CZK_NTT_COSET_FORWARD, pool, err)))
                st = checkpoint(lock, "a coset NTT", err);
        if (st == CZK_ERR_CANCELLED) return st;
        if (st) return czk_err_wrap(err, "prove: NTT");
        quot_job qj = {.a = a, .b = b, .c = c};
        czk_fr g;
        czk_fr_from_u64(&g, CZK_FR_GENERATOR);
        czk_fr_pow_u64(&qj.zinv, &g, N);
        czk_fr_sub(&qj.zinv, &qj.zinv, &czk_fr_one);
        czk_fr_inv(&qj.zinv, &qj.zinv);
        czk_pool_for(pool, N, 4096, quot_mul_fn, &qj);
        if ((st = czk_ntt(a, lg, CZK_NTT_COSET_INVERSE, pool, err)))
            return czk_err_wrap(err, "prove: NTT");
        czk_pool_for(pool, N, 4096, quot_sub_fn, &qj);
    }
    double t2 = czk_g16_now();
    t->ntt += t2 - t1;
    if ((st = checkpoint(lock, "H", err))) return st;
    if ((st = czk_msm_g1(&out->h, p->h, a, N - 1, pool, err)))
        return czk_err_wrap(err, "prove: MSM h");
    double t3 = czk_g16_now();
    t->msm_h += t3 - t2;
    if ((st = checkpoint(lock, "MSM h", err))) return st;
    return cpu_witness_sums(pool, p, s, w, p->l, sc, out, with_b2, lock, t, t3, err);
}

/* l (over aux, with the L given), a, b1 and (with_b2) b2; t3: the end of MSM h. */
static czk_status cpu_witness_sums(czk_pool *pool, const czk_params *p, const czk_shape *s,
                                   const czk_witness *w, const czk_g1_affine *l, czk_fr *sc,
                                   czk_msm_sums *out, bool with_b2, const czk_device_lock *lock,
                                   czk_prove_timings *t, double t3, czk_err *err) {
    czk_status st;
    if ((st = czk_msm_g1(&out->l, l, w->aux, w->num_aux, pool, err)))
        return czk_err_wrap(err, "prove: MSM l");
    double t4 = czk_g16_now();
    t->msm_l += t4 - t3;
    if ((st = checkpoint(lock, "MSM l", err))) return st;
    size_t m = compact_a(sc, s, w);
    if ((st = czk_msm_g1(&out->a, p->a, sc, m, pool, err)))
        return czk_err_wrap(err, "prove: MSM a");
    double t5 = czk_g16_now();
    t->msm_a += t5 - t4;
    if ((st = checkpoint(lock, "MSM a", err))) return st;
    m = compact_b(sc, s, w);
    if ((st = czk_msm_g1(&out->b1, p->b_g1, sc, m, pool, err)))
        return czk_err_wrap(err, "prove: MSM b_g1");
    double t6 = czk_g16_now();
    t->msm_b1 += t6 - t5;
    if (!with_b2) return CZK_OK;
    if ((st = checkpoint(lock, "MSM b_g1", err))) return st;
    if ((st = czk_msm_g2(&out->b2, p->b_g2, sc, m, pool, err)))
        return czk_err_wrap(err, "prove: MSM b_g2");
    t->msm_b2 += czk_g16_now() - t6;
    return CZK_OK;
}

static czk_status cpu_sums(void *self, const czk_params *p, const czk_shape *s,
                           const czk_witness *w, size_t count, czk_msm_sums *out,
                           czk_prove_timings *t, czk_err *err) {
    size_t N = (size_t)1 << czk_domain_log(s->num_constraints);
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    czk_fr *abc = czk_g16_alloc(3 * N * sizeof *abc);
    czk_fr *sc = malloc((nv ? nv : 1) * sizeof *sc);
    czk_status st = CZK_OK;
    if (!abc || !sc)
        st = czk_errf(err, CZK_ERR_NOMEM, "prove: no memory for a, b, c (3 × %zu) and scalars", N);
    for (size_t k = 0; k < count && !st; k++) {
        st = cpu_one(self, p, s, &w[k], abc, sc, &out[k], true, NULL, t, err);
        if (st && count > 1) czk_err_wrap(err, "circuit %zu", k);
    }
    czk_g16_free(abc);
    free(sc);
    return st;
}

/* The split device part: everything but the G2 MSM, all of it under the device lock (the
 * CPU is the pseudo-device); B2 is left to the finalizer. */
static czk_status cpu_device(void *self, const czk_params *p, const czk_shape *s,
                             const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                             unsigned *deferred, czk_prove_timings *t, czk_err *err) {
    size_t N = (size_t)1 << czk_domain_log(s->num_constraints);
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    czk_fr *abc = czk_g16_alloc(3 * N * sizeof *abc);
    czk_fr *sc = malloc((nv ? nv : 1) * sizeof *sc);
    czk_status st = CZK_OK;
    *deferred = 0;
    if (!abc || !sc) {
        st = czk_errf(err, CZK_ERR_NOMEM, "prove: no memory for a, b, c (3 × %zu) and scalars", N);
    } else {
        czk_device_lock_acquire(lock);
        st = cpu_one(self, p, s, w, abc, sc, out, false, lock, t, err);
        czk_device_lock_release(lock);
        if (!st) *deferred = CZK_SUM_B2;
    }
    czk_g16_free(abc);
    free(sc);
    return st;
}

static void cpu_destroy(void *self) {
    free(self);
}

static const czk_backend_ops CPU_OPS = {"cpu", cpu_sums, cpu_destroy, cpu_device, NULL,
                                        NULL,  NULL,     NULL,        NULL};

czk_status czk_backend_cpu(czk_backend *out, czk_pool *pool, czk_err *err) {
    cpu_backend *be = calloc(1, sizeof *be);
    if (!be) return czk_errf(err, CZK_ERR_NOMEM, "prove: out of memory");
    be->pool = pool;
    out->ops = &CPU_OPS;
    out->self = be;
    return CZK_OK;
}

void czk_backend_release(czk_backend *b) {
    if (!b || !b->ops) return;
    if (b->ops->destroy) b->ops->destroy(b->self);
    b->ops = NULL;
    b->self = NULL;
}

void czk_proof_assemble(czk_proof *out, const czk_vk *vk, const czk_msm_sums *m, const czk_fr *r,
                        const czk_fr *s) {
    blst_p1 d1, t1, acc;
    blst_p2 d2, t2, acc2;
    czk_fr rs;
    czk_fr_mul(&rs, r, s);
    blst_p1_from_affine(&d1, &vk->delta_g1);
    /* A = α₁ + a + r·δ₁ */
    blst_p1_from_affine(&acc, &vk->alpha_g1);
    blst_p1_add_or_double(&acc, &acc, &m->a);
    czk_g1_mul(&t1, &d1, r);
    blst_p1_add_or_double(&acc, &acc, &t1);
    blst_p1_to_affine(&out->a, &acc);
    /* B = β₂ + b2 + s·δ₂ */
    blst_p2_from_affine(&d2, &vk->delta_g2);
    blst_p2_from_affine(&acc2, &vk->beta_g2);
    blst_p2_add_or_double(&acc2, &acc2, &m->b2);
    czk_g2_mul(&t2, &d2, s);
    blst_p2_add_or_double(&acc2, &acc2, &t2);
    blst_p2_to_affine(&out->b, &acc2);
    /* C = s·a + r·b1 + rs·δ₁ + s·α₁ + r·β₁ + h + l */
    czk_g1_mul(&acc, &m->a, s);
    czk_g1_mul(&t1, &m->b1, r);
    blst_p1_add_or_double(&acc, &acc, &t1);
    czk_g1_mul(&t1, &d1, &rs);
    blst_p1_add_or_double(&acc, &acc, &t1);
    blst_p1_from_affine(&t1, &vk->alpha_g1);
    czk_g1_mul(&t1, &t1, s);
    blst_p1_add_or_double(&acc, &acc, &t1);
    blst_p1_from_affine(&t1, &vk->beta_g1);
    czk_g1_mul(&t1, &t1, r);
    blst_p1_add_or_double(&acc, &acc, &t1);
    blst_p1_add_or_double(&acc, &acc, &m->h);
    blst_p1_add_or_double(&acc, &acc, &m->l);
    blst_p1_to_affine(&out->c, &acc);
}

czk_status czk_prove(const czk_backend *be, const czk_params *params, const czk_shape *shape,
                     const czk_witness *w, size_t count, const czk_fr *r, const czk_fr *s,
                     czk_proof *out, czk_prove_timings *timings, czk_err *err) {
    double t0 = czk_g16_now();
    czk_prove_timings tl = {0};
    czk_prove_timings *t = timings ? timings : &tl;
    czk_status st = czk_params_check_shape(params, shape, err);
    if (st) return st;
    if (czk_g1_affine_is_inf(&params->vk.delta_g1) || czk_g2_affine_is_inf(&params->vk.delta_g2))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "prove: delta is infinity in the parameters");
    for (size_t k = 0; k < count; k++) {
        if (w[k].num_inputs != shape->num_inputs || w[k].num_aux != shape->num_aux)
            return czk_errf(err, CZK_ERR_MISMATCH,
                            "prove: witness %zu has %u inputs and %u aux, the shape %u and %u", k,
                            w[k].num_inputs, w[k].num_aux, shape->num_inputs, shape->num_aux);
        if (!czk_fr_is_one(&w[k].inputs[0]))
            return czk_errf(err, CZK_ERR_MISMATCH, "prove: witness %zu: input 0 (ONE) is not 1", k);
    }
    if (count == 0) return CZK_OK;
    czk_msm_sums *sums = malloc(count * sizeof *sums);
    czk_fr *rr = malloc(2 * count * sizeof *rr);
    if (!sums || !rr) {
        free(sums);
        free(rr);
        return czk_errf(err, CZK_ERR_NOMEM, "prove: out of memory");
    }
    for (size_t k = 0; k < count && !st; k++) {
        if (!r) st = czk_fr_random(&rr[k], NULL, err);
        if (!s && !st) st = czk_fr_random(&rr[count + k], NULL, err);
    }
    if (!st) st = be->ops->sums(be->self, params, shape, w, count, sums, t, err);
    if (!st) {
        double t1 = czk_g16_now();
        for (size_t k = 0; k < count; k++)
            czk_proof_assemble(&out[k], &params->vk, &sums[k], r ? &r[k] : &rr[k],
                               s ? &s[k] : &rr[count + k]);
        t->assemble += czk_g16_now() - t1;
    }
    free(sums);
    free(rr);
    t->total += czk_g16_now() - t0;
    return st;
}

typedef struct wit_job {
    const czk_shape *shape;
    czk_circuit_fn circuit;
    void *const *ctx;
    czk_witness *w;
    czk_status *st;
    czk_err *errs;
} wit_job;

static void wit_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    wit_job *j = arg;
    for (size_t k = b; k < e; k++) {
        czk_err *err = &j->errs[k];
        czk_cs *cs = czk_cs_create(CZK_CS_WITNESS, NULL, err);
        if (!cs) {
            j->st[k] = err->code ? err->code : CZK_ERR_NOMEM;
            continue;
        }
        czk_cs_reserve(cs, j->shape->num_inputs, j->shape->num_aux, 0);
        czk_status st = czk_cs_run(cs, j->circuit, j->ctx ? j->ctx[k] : NULL, err);
        if (!st) st = czk_cs_take_witness(cs, &j->w[k], err);
        czk_cs_free(cs);
        j->st[k] = st;
    }
}

czk_status czk_prove_circuits(const czk_backend *be, const czk_params *params,
                              const czk_shape *shape, czk_circuit_fn circuit, void *const *ctx,
                              size_t count, const czk_fr *r, const czk_fr *s, czk_proof *out,
                              czk_prove_timings *timings, czk_pool *pool, czk_err *err) {
    double t0 = czk_g16_now();
    czk_prove_timings tl = {0};
    czk_prove_timings *t = timings ? timings : &tl;
    size_t m = count ? count : 1;
    czk_witness *w = calloc(m, sizeof *w);
    czk_status *sts = calloc(m, sizeof *sts);
    czk_err *errs = calloc(m, sizeof *errs);
    czk_status st = CZK_OK;
    if (!w || !sts || !errs) {
        st = czk_errf(err, CZK_ERR_NOMEM, "prove: out of memory");
    } else {
        wit_job j = {shape, circuit, ctx, w, sts, errs};
        czk_pool_for(pool, count, 1, wit_fn, &j);
        for (size_t k = 0; k < count && !st; k++) {
            if ((st = sts[k])) {
                if (err) *err = errs[k];
                czk_err_wrap(err, "prove: witness of circuit %zu", k);
            }
        }
    }
    t->witness += czk_g16_now() - t0;
    t->total += czk_g16_now() - t0;
    if (!st) st = czk_prove(be, params, shape, w, count, r, s, out, t, err);
    for (size_t k = 0; w && k < count; k++)
        czk_witness_free(&w[k]);
    free(w);
    free(sts);
    free(errs);
    return st;
}

static czk_status check_witness(const czk_shape *shape, const czk_witness *w, size_t k,
                                czk_err *err) {
    if (w->num_inputs != shape->num_inputs || w->num_aux != shape->num_aux)
        return czk_errf(err, CZK_ERR_MISMATCH,
                        "prove: witness %zu has %u inputs and %u aux, the shape %u and %u", k,
                        w->num_inputs, w->num_aux, shape->num_inputs, shape->num_aux);
    if (!czk_fr_is_one(&w->inputs[0]))
        return czk_errf(err, CZK_ERR_MISMATCH, "prove: witness %zu: input 0 (ONE) is not 1", k);
    return CZK_OK;
}

czk_status czk_prove_device(const czk_backend *be, const czk_params *params, const czk_shape *shape,
                            const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *sums,
                            unsigned *deferred, czk_prove_timings *timings, czk_err *err) {
    czk_prove_timings tl = {0};
    czk_prove_timings *t = timings ? timings : &tl;
    *deferred = 0;
    czk_status st = check_witness(shape, w, 0, err);
    if (st) return st;
    double t0 = czk_g16_now();
    if (be->ops->device) {
        st = be->ops->device(be->self, params, shape, w, lock, sums, deferred, t, err);
    } else {
        /* no checkpoints inside sums(): only before it starts */
        czk_device_lock_acquire(lock);
        st = checkpoint(lock, "the wait for the device", err);
        if (!st) st = be->ops->sums(be->self, params, shape, w, 1, sums, t, err);
        czk_device_lock_release(lock);
    }
    t->total += czk_g16_now() - t0;
    return st;
}

czk_status czk_prove_finalize(const czk_params *params, const czk_shape *shape,
                              const czk_witness *w, czk_msm_sums *sums, unsigned deferred,
                              const czk_fr *r, const czk_fr *s, czk_proof *out, czk_pool *pool,
                              czk_prove_timings *timings, czk_err *err) {
    czk_prove_timings tl = {0};
    czk_prove_timings *t = timings ? timings : &tl;
    double t0 = czk_g16_now();
    czk_status st = CZK_OK;
    if (deferred & ~CZK_SUM_B2)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "prove: unknown deferred sums 0x%x", deferred);
    if (deferred & CZK_SUM_B2) {
        if ((st = check_witness(shape, w, 0, err))) return st;
        if ((st = czk_params_decode_vectors(params, pool, err))) return st; /* encoded: decode */
        size_t nv = (size_t)shape->num_inputs + shape->num_aux;
        czk_fr *sc = malloc((nv ? nv : 1) * sizeof *sc);
        if (!sc) return czk_errf(err, CZK_ERR_NOMEM, "prove: no memory for %zu scalars", nv);
        size_t m = compact_b(sc, shape, w);
        if (m > params->b_g2_len)
            st = czk_errf(err, CZK_ERR_MISMATCH, "prove: %zu B-dense scalars, b_g2 holds %u", m,
                          params->b_g2_len);
        else if ((st = czk_msm_g2(&sums->b2, params->b_g2, sc, m, pool, err)))
            czk_err_wrap(err, "prove: MSM b_g2");
        free(sc);
        t->msm_b2 += czk_g16_now() - t0;
        if (st) return st;
    }
    czk_fr rr, ss;
    if (!r && (st = czk_fr_random(&rr, NULL, err))) return st;
    if (!s && (st = czk_fr_random(&ss, NULL, err))) return st;
    double t1 = czk_g16_now();
    czk_proof_assemble(out, &params->vk, sums, r ? r : &rr, s ? s : &ss);
    t->assemble += czk_g16_now() - t1;
    t->total += czk_g16_now() - t0;
    return CZK_OK;
}
