/*
 * Test-key setup from toxic waste, as bellperson's generator
 * (src/groth16/generator.rs) computes it, from a recorded czk_shape.
 *
 * The QAP polynomials of column j are u_j(x) = Σ_k A[k][j]·L_k(x) (and v_j,
 * w_j from B and C), with L_k the Lagrange basis of the domain of size N.
 * Their values at τ need L_k(τ) for every constraint k: that is the inverse
 * NTT of (1, τ, τ², …, τ^(N−1)), since L_k(τ) = (1/N)·Σ_i τ^i·ω^(−ik). The
 * shape stores A, B, C by rows (constraints); the sums run by column, so
 * each matrix is transposed once (counting sort by column), then every
 * column's sum is independent and split over the pool.
 *
 * All points are k·G for a fixed generator, computed with the signed-window
 * tables of fixed_base.h on the pool, batches of 512 scalars at a time with
 * affine running sums (one shared inversion per window and batch), so they
 * come out affine.
 */
#include "groth16/fixed_base.h"
#include "groth16/internal.h"

#include "czk/ntt.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

CZK_FIXED_BASE_IMPL(p1)
CZK_FIXED_BASE_IMPL(p2)
CZK_FIXED_BASE_BATCH_IMPL(p1, fp)
CZK_FIXED_BASE_BATCH_IMPL(p2, fp2)

unsigned czk_domain_log(uint64_t n) {
    unsigned k = 0;
    while (k < 64 && ((uint64_t)1 << k) < n)
        k++;
    return k;
}

czk_status czk_toxic_random(czk_toxic *out, czk_rng *rng, czk_err *err) {
    czk_fr *v[5] = {&out->alpha, &out->beta, &out->gamma, &out->delta, &out->tau};
    for (int i = 0; i < 5; i++) {
        do {
            czk_status st = czk_fr_random(v[i], rng, err);
            if (st) return st;
        } while (czk_fr_is_zero(v[i]));
    }
    return CZK_OK;
}

czk_status czk_params_check_shape(const czk_params *params, const czk_shape *shape, czk_err *err) {
    uint64_t n = shape->num_constraints;
    unsigned lg = czk_domain_log(n);
    if (lg > 32)
        return czk_errf(err, CZK_ERR_MISMATCH, "params: shape of %llu constraints",
                        (unsigned long long)n);
    uint64_t h = ((uint64_t)1 << lg) - 1;
    return czk_params_check_lengths(params, shape->num_inputs, h, shape->num_aux,
                                    shape->num_inputs + shape->a_aux.popcount,
                                    shape->b_input.popcount + shape->b_aux.popcount, err);
}

/* ---- batches of fixed-base products ---- */

#define FB_MANY_IMPL(P)                                                                            \
    typedef struct fb_job_##P {                                                                    \
        const czk_fb_##P *tab;                                                                     \
        const czk_fr *k;                                                                           \
        blst_##P##_affine *out;                                                                    \
        atomic_bool oom;                                                                           \
    } fb_job_##P;                                                                                  \
                                                                                                   \
    static void fb_fn_##P(void *arg, size_t b, size_t e, unsigned worker) {                        \
        (void)worker;                                                                              \
        fb_job_##P *j = arg;                                                                       \
        czk_fb_##P##_scratch *s = czk_fb_##P##_scratch_new();                                      \
        if (!s) {                                                                                  \
            atomic_store(&j->oom, true);                                                           \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = b; i < e; i += CZK_FB_BATCH) {                                             \
            size_t m = e - i < CZK_FB_BATCH ? e - i : CZK_FB_BATCH;                                \
            czk_fb_##P##_batch(j->out + i, j->tab, j->k + i, m, s);                                \
        }                                                                                          \
        free(s);                                                                                   \
    }                                                                                              \
                                                                                                   \
    /* out[i] = k[i]·G for i < n; the k must be non-zero. false: out of memory. */                \
    static bool fb_many_##P(blst_##P##_affine *out, const czk_fb_##P *tab, const czk_fr *k,        \
                            size_t n, czk_pool *pool) {                                            \
        fb_job_##P j = {tab, k, out, false};                                                       \
        czk_pool_for(pool, n, 4 * CZK_FB_BATCH, fb_fn_##P, &j);                                    \
        return !atomic_load(&j.oom);                                                               \
    }

FB_MANY_IMPL(p1)
FB_MANY_IMPL(p2)

/* ---- column sums ---- */

typedef struct col_job {
    const uint64_t *col_ptr;
    const uint32_t *rows, *cidx;
    const czk_fr *coeffs, *lag;
    czk_fr *out;
} col_job;

static void col_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    col_job *j = arg;
    for (size_t c = b; c < e; c++) {
        czk_fr acc = czk_fr_zero, t;
        for (uint64_t q = j->col_ptr[c]; q < j->col_ptr[c + 1]; q++) {
            czk_fr_mul(&t, &j->coeffs[j->cidx[q]], &j->lag[j->rows[q]]);
            czk_fr_add(&acc, &acc, &t);
        }
        j->out[c] = acc;
    }
}

/* out[c] = Σ_k M[k][c]·lag[k] for every column c of matrix m. */
static czk_status column_evals(const czk_shape *s, const czk_csr *m, const czk_fr *lag, czk_fr *out,
                               czk_pool *pool, czk_err *err) {
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    uint64_t *ptr = calloc(nv + 1, sizeof *ptr);
    uint32_t *rows = malloc((m->nnz ? m->nnz : 1) * sizeof *rows);
    uint32_t *cidx = malloc((m->nnz ? m->nnz : 1) * sizeof *cidx);
    uint64_t *pos = malloc((nv + 1) * sizeof *pos);
    czk_status st = CZK_OK;
    if (!ptr || !rows || !cidx || !pos) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: no memory to transpose a matrix (%llu non-zeros)",
                      (unsigned long long)m->nnz);
        goto out;
    }
    for (uint64_t q = 0; q < m->nnz; q++) {
        if (m->col[q] >= nv) {
            st = czk_errf(err, CZK_ERR_INVALID_ARG, "setup: shape column %u out of range",
                          m->col[q]);
            goto out;
        }
        ptr[m->col[q] + 1]++;
    }
    for (size_t c = 0; c < nv; c++)
        ptr[c + 1] += ptr[c];
    memcpy(pos, ptr, (nv + 1) * sizeof *pos);
    for (uint64_t k = 0; k < s->num_constraints; k++)
        for (uint64_t q = m->row_ptr[k]; q < m->row_ptr[k + 1]; q++) {
            uint64_t at = pos[m->col[q]]++;
            rows[at] = (uint32_t)k;
            cidx[at] = m->coeff[q];
        }
    col_job j = {ptr, rows, cidx, s->coeffs, lag, out};
    czk_pool_for(pool, nv, 1024, col_fn, &j);
out:
    free(ptr);
    free(rows);
    free(cidx);
    free(pos);
    return st;
}

static bool bit(const czk_bitmap *b, uint64_t i) {
    return i < b->len && (b->words[i / 64] >> (i % 64)) & 1;
}

/* powers[i] = x^i, i < n, on the pool. */
typedef struct pow_job {
    czk_fr x;
    czk_fr *out;
} pow_job;

static void pow_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    pow_job *j = arg;
    czk_fr p;
    czk_fr_pow_u64(&p, &j->x, b);
    for (size_t i = b; i < e; i++) {
        j->out[i] = p;
        czk_fr_mul(&p, &p, &j->x);
    }
}

czk_status czk_setup(czk_params **out, const czk_shape *shape, const czk_toxic *toxic,
                     czk_pool *pool, czk_err *err) {
    *out = NULL;
    const czk_fr *tw[5] = {&toxic->alpha, &toxic->beta, &toxic->gamma, &toxic->delta, &toxic->tau};
    for (int i = 0; i < 5; i++)
        if (czk_fr_is_zero(tw[i]))
            return czk_errf(err, CZK_ERR_INVALID_ARG, "setup: a toxic value is zero");
    uint64_t n = shape->num_constraints;
    unsigned lg = czk_domain_log(n);
    if (lg > CZK_NTT_MAX_LOG)
        return czk_errf(err, CZK_ERR_UNSUPPORTED,
                        "setup: %llu constraints need a domain of 2^%u > 2^%u",
                        (unsigned long long)n, lg, CZK_NTT_MAX_LOG);
    size_t N = (size_t)1 << lg, ni = shape->num_inputs, na = shape->num_aux, nv = ni + na;
    if (ni == 0) return czk_errf(err, CZK_ERR_INVALID_ARG, "setup: the shape has no inputs (ONE)");

    czk_status st = CZK_OK;
    czk_params *p = calloc(1, sizeof *p);
    czk_fr *lag = malloc(N * sizeof *lag);
    czk_fr *sc = malloc((N > nv ? N : nv) * sizeof *sc); /* scalars of one vector */
    czk_fr *u = malloc(3 * nv * sizeof *u), *v = u ? u + nv : NULL, *w = u ? u + 2 * nv : NULL;
    czk_fb_p1 t1 = {0};
    czk_fb_p2 t2 = {0};
    if (!p || !lag || !sc || !u) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory (domain 2^%u, %zu variables)", lg,
                      nv);
        goto fail;
    }
    blst_p1 g1 = *blst_p1_generator();
    blst_p2 g2 = *blst_p2_generator();
    if ((st = czk_fb_p1_build(&t1, &g1, err)) || (st = czk_fb_p2_build(&t2, &g2, err))) goto fail;

    /* vk */
    czk_fb_p1_mul(&g1, &t1, &toxic->alpha);
    blst_p1_to_affine(&p->vk.alpha_g1, &g1);
    czk_fb_p1_mul(&g1, &t1, &toxic->beta);
    blst_p1_to_affine(&p->vk.beta_g1, &g1);
    czk_fb_p1_mul(&g1, &t1, &toxic->delta);
    blst_p1_to_affine(&p->vk.delta_g1, &g1);
    czk_fb_p2_mul(&g2, &t2, &toxic->beta);
    blst_p2_to_affine(&p->vk.beta_g2, &g2);
    czk_fb_p2_mul(&g2, &t2, &toxic->gamma);
    blst_p2_to_affine(&p->vk.gamma_g2, &g2);
    czk_fb_p2_mul(&g2, &t2, &toxic->delta);
    blst_p2_to_affine(&p->vk.delta_g2, &g2);

    /* h: τ^i·Z(τ)/δ for i < N − 1 */
    pow_job pj = {toxic->tau, lag};
    czk_pool_for(pool, N, 4096, pow_fn, &pj);
    czk_fr zt, dinv, ginv;
    czk_fr_pow_u64(&zt, &toxic->tau, N);
    czk_fr_sub(&zt, &zt, &czk_fr_one);
    if (czk_fr_is_zero(&zt)) {
        st = czk_errf(err, CZK_ERR_INVALID_ARG, "setup: tau is in the domain (Z(tau) = 0)");
        goto fail;
    }
    czk_fr_inv(&dinv, &toxic->delta);
    czk_fr_inv(&ginv, &toxic->gamma);
    czk_fr_mul(&zt, &zt, &dinv);
    for (size_t i = 0; i + 1 < N; i++)
        czk_fr_mul(&sc[i], &lag[i], &zt);
    p->h_len = (uint32_t)(N - 1);
    if (!(p->h = czk_g16_alloc((N - 1) * sizeof *p->h))) goto nomem;
    if (!fb_many_p1(p->h, &t1, sc, N - 1, pool)) goto nomem;

    /* Lagrange coefficients at τ, and the QAP polynomials at τ per column */
    if (lg > 0 && (st = czk_ntt(lag, lg, CZK_NTT_INVERSE, pool, err))) goto fail;
    if ((st = column_evals(shape, &shape->m[0], lag, u, pool, err)) ||
        (st = column_evals(shape, &shape->m[1], lag, v, pool, err)) ||
        (st = column_evals(shape, &shape->m[2], lag, w, pool, err)))
        goto fail;

    /* ic (over γ) and l (over δ): β·u + α·v + w */
    for (size_t c = 0; c < nv; c++) {
        czk_fr t;
        czk_fr_mul(&sc[c], &toxic->beta, &u[c]);
        czk_fr_mul(&t, &toxic->alpha, &v[c]);
        czk_fr_add(&sc[c], &sc[c], &t);
        czk_fr_add(&sc[c], &sc[c], &w[c]);
        czk_fr_mul(&sc[c], &sc[c], c < ni ? &ginv : &dinv);
        if (czk_fr_is_zero(&sc[c])) {
            st = czk_errf(err, CZK_ERR_INVALID_ARG,
                          "setup: %s %zu is unconstrained (its %s point would be infinity)",
                          c < ni ? "input" : "aux", c < ni ? c : c - ni, c < ni ? "ic" : "l");
            goto fail;
        }
    }
    p->vk.ic_len = (uint32_t)ni;
    p->l_len = (uint32_t)na;
    if (!(p->vk.ic = czk_g16_alloc(ni * sizeof *p->vk.ic)) ||
        !(p->l = czk_g16_alloc(na * sizeof *p->l)))
        goto nomem;
    if (!fb_many_p1(p->vk.ic, &t1, sc, ni, pool) || !fb_many_p1(p->l, &t1, sc + ni, na, pool))
        goto nomem;

    /* a: u for every input, then A-dense aux */
    size_t m = 0;
    for (size_t c = 0; c < nv; c++) {
        if (c >= ni && !bit(&shape->a_aux, c - ni)) continue;
        if (czk_fr_is_zero(&u[c])) {
            st = czk_errf(err, CZK_ERR_INVALID_ARG,
                          "setup: %s %zu is A-dense but its A polynomial vanishes at tau",
                          c < ni ? "input" : "aux", c < ni ? c : c - ni);
            goto fail;
        }
        sc[m++] = u[c];
    }
    p->a_len = (uint32_t)m;
    if (!(p->a = czk_g16_alloc(m * sizeof *p->a))) goto nomem;
    if (!fb_many_p1(p->a, &t1, sc, m, pool)) goto nomem;

    /* b_g1, b_g2: v for B-dense inputs, then B-dense aux */
    m = 0;
    for (size_t c = 0; c < nv; c++) {
        if (!(c < ni ? bit(&shape->b_input, c) : bit(&shape->b_aux, c - ni))) continue;
        if (czk_fr_is_zero(&v[c])) {
            st = czk_errf(err, CZK_ERR_INVALID_ARG,
                          "setup: %s %zu is B-dense but its B polynomial vanishes at tau",
                          c < ni ? "input" : "aux", c < ni ? c : c - ni);
            goto fail;
        }
        sc[m++] = v[c];
    }
    p->b_g1_len = p->b_g2_len = (uint32_t)m;
    if (!(p->b_g1 = czk_g16_alloc(m * sizeof *p->b_g1)) ||
        !(p->b_g2 = czk_g16_alloc(m * sizeof *p->b_g2)))
        goto nomem;
    if (!fb_many_p1(p->b_g1, &t1, sc, m, pool) || !fb_many_p2(p->b_g2, &t2, sc, m, pool))
        goto nomem;

    czk_fb_p1_free(&t1);
    czk_fb_p2_free(&t2);
    free(lag);
    free(sc);
    free(u);
    *out = p;
    return CZK_OK;
nomem:
    st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory for the parameter vectors");
fail:
    czk_fb_p1_free(&t1);
    czk_fb_p2_free(&t2);
    free(lag);
    free(sc);
    free(u);
    czk_params_free(p);
    return st;
}
