/*
 * The Lagrange form of the H and L queries (include/czk/groth16.h,
 * czk_params_lagrange): the bases that let the prover skip c and two of
 * H's six transforms, made from the points of a parameter file.
 *
 * Two NTTs over G1: Y_j = Σ_i ρ^(ij)·X_i with ρ = ω^(−1), radix 2 in place
 * (bit reversal, then log N stages of butterflies, each stage's N/2
 * butterflies split over the pool; the twiddle of a butterfly is a 255-bit
 * G1 product, skipped where it is 1). The scalings (zinv/N·g^(−i), −zinv/N)
 * are applied to the inputs, one product a point. W_k = Σ_j C[j][k]·H″[j]
 * runs by C's columns (czk_g16_columns_make), ±1 coefficients by addition.
 * Everything is Jacobian until one batch conversion to affine per vector.
 * At 2^27 this is ≈ 3.6e9 products: a GPU's work (not written yet), or
 * the toxic waste's shortcut for test keys (czk_setup_lagrange).
 */
#include "groth16/internal.h"

#include "czk/ntt.h"

#include <stdlib.h>
#include <string.h>

void czk_params_lagrange_free(czk_params_lagrange *lg) {
    if (!lg) return;
    czk_g16_free(lg->h);
    czk_g16_free(lg->l);
    czk_g16_free(lg->w_in);
    free(lg);
}

czk_status czk_params_lagrange_check(const czk_params_lagrange *lg, const czk_shape *shape,
                                     czk_err *err) {
    unsigned log_n = czk_domain_log(shape->num_constraints);
    if (lg->log_n != log_n)
        return czk_errf(err, CZK_ERR_MISMATCH,
                        "lagrange form: domain 2^%u, the shape's %llu constraints need 2^%u",
                        lg->log_n, (unsigned long long)shape->num_constraints, log_n);
    if (lg->num_inputs != shape->num_inputs || lg->num_aux != shape->num_aux)
        return czk_errf(err, CZK_ERR_MISMATCH,
                        "lagrange form: %u inputs and %u aux, the shape %u and %u", lg->num_inputs,
                        lg->num_aux, shape->num_inputs, shape->num_aux);
    return CZK_OK;
}

/* An empty form for shape (vectors allocated, not filled); NULL: out of memory. */
czk_params_lagrange *czk_g16_lagrange_alloc(const czk_shape *shape) {
    czk_params_lagrange *lg = calloc(1, sizeof *lg);
    if (!lg) return NULL;
    lg->log_n = czk_domain_log(shape->num_constraints);
    lg->num_inputs = shape->num_inputs;
    lg->num_aux = shape->num_aux;
    size_t N = (size_t)1 << lg->log_n;
    lg->h = czk_g16_alloc(N * sizeof *lg->h);
    lg->l = czk_g16_alloc((size_t)lg->num_aux * sizeof *lg->l);
    lg->w_in = czk_g16_alloc((size_t)lg->num_inputs * sizeof *lg->w_in);
    if (!lg->h || !lg->l || !lg->w_in) {
        czk_params_lagrange_free(lg);
        return NULL;
    }
    return lg;
}

/* ---- an NTT over G1 ---- */

typedef struct gntt_job {
    blst_p1 *x;
    const czk_fr *tw; /* ρ^k, k < N/2 */
    size_t half, step;
    unsigned log_n;
} gntt_job;

static size_t bitrev(size_t i, unsigned bits) {
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

static void bitrev_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    gntt_job *j = arg;
    for (size_t i = b; i < e; i++) {
        size_t r = bitrev(i, j->log_n);
        if (i < r) {
            blst_p1 t = j->x[i];
            j->x[i] = j->x[r];
            j->x[r] = t;
        }
    }
}

/* butterfly t of a stage: (x0, x1) <- (x0 + ρ^k·x1, x0 − ρ^k·x1) */
static void bfly_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    gntt_job *j = arg;
    for (size_t t = b; t < e; t++) {
        size_t k = t % j->half, i0 = (t / j->half) * 2 * j->half + k, i1 = i0 + j->half;
        blst_p1 u = j->x[i0], v;
        if (k == 0)
            v = j->x[i1];
        else
            czk_g1_mul(&v, &j->x[i1], &j->tw[k * j->step]);
        blst_p1_add_or_double(&j->x[i0], &u, &v);
        blst_p1_cneg(&v, 1);
        blst_p1_add_or_double(&j->x[i1], &u, &v);
    }
}

/* x[j] <- Σ_i ρ^(ij)·x[i], N = 2^log_n; tw[k] = ρ^k for k < N/2. */
static void g1_ntt(blst_p1 *x, const czk_fr *tw, unsigned log_n, czk_pool *pool) {
    size_t N = (size_t)1 << log_n;
    gntt_job j = {.x = x, .tw = tw, .log_n = log_n};
    czk_pool_for(pool, N, 1024, bitrev_fn, &j);
    for (j.half = 1; j.half < N; j.half <<= 1) {
        j.step = N / (2 * j.half);
        czk_pool_for(pool, N / 2, 16, bfly_fn, &j);
    }
}

/* ---- the derivation ---- */

typedef struct scale_job {
    blst_p1 *x;
    const czk_g1_affine *h;
    size_t n;       /* points of h used (N − 1); x[n..N) is infinity */
    czk_fr c, step; /* x[i] = c·step^i·h[i] */
} scale_job;

static void scale_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    scale_job *j = arg;
    czk_fr k;
    czk_fr_pow_u64(&k, &j->step, b);
    czk_fr_mul(&k, &k, &j->c);
    for (size_t i = b; i < e; i++) {
        if (i < j->n) {
            blst_p1 p;
            blst_p1_from_affine(&p, &j->h[i]);
            czk_g1_mul(&j->x[i], &p, &k);
        } else {
            memset(&j->x[i], 0, sizeof j->x[i]);
        }
        czk_fr_mul(&k, &k, &j->step);
    }
}

typedef struct w_job {
    const czk_g16_columns *cols;
    const czk_shape *s;
    const blst_p1 *hc; /* H″ */
    const czk_g1_affine *l;
    blst_p1 *out; /* nv points: inputs' W, then aux's L + W */
    uint32_t one, minus_one;
} w_job;

static void w_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    w_job *j = arg;
    uint32_t ni = j->s->num_inputs;
    for (size_t k = b; k < e; k++) {
        blst_p1 acc;
        if (k < ni)
            memset(&acc, 0, sizeof acc);
        else
            blst_p1_from_affine(&acc, &j->l[k - ni]);
        for (uint64_t q = k ? j->cols->end[k - 1] : 0; q < j->cols->end[k]; q++) {
            blst_p1 t = j->hc[j->cols->rows[q]];
            uint32_t ci = j->cols->cidx[q];
            if (ci == j->minus_one)
                blst_p1_cneg(&t, 1);
            else if (ci != j->one)
                czk_g1_mul(&t, &t, &j->s->coeffs[ci]);
            blst_p1_add_or_double(&acc, &acc, &t);
        }
        j->out[k] = acc;
    }
}

typedef struct aff_job {
    const blst_p1 *in;
    czk_g1_affine *out;
} aff_job;

static void aff_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    aff_job *j = arg;
    const blst_p1 *ptr[256];
    size_t at[256];
    czk_g1_affine tmp[256];
    for (size_t i = b; i < e; i += 256) {
        size_t m = e - i < 256 ? e - i : 256, f = 0;
        /* blst's batch conversion takes no infinity (one Z = 0 spoils its whole batch) */
        for (size_t t = 0; t < m; t++) {
            if (blst_p1_is_inf(&j->in[i + t])) {
                memset(&j->out[i + t], 0, sizeof j->out[i + t]);
            } else {
                ptr[f] = &j->in[i + t];
                at[f++] = i + t;
            }
        }
        if (f) blst_p1s_to_affine(tmp, ptr, f);
        for (size_t t = 0; t < f; t++)
            j->out[at[t]] = tmp[t];
    }
}

void czk_g16_to_affine(czk_g1_affine *out, const blst_p1 *in, size_t n, czk_pool *pool) {
    aff_job j = {in, out};
    czk_pool_for(pool, n, 4096, aff_fn, &j);
}

czk_status czk_params_lagrange_derive(czk_params_lagrange **out, const czk_params *p,
                                      const czk_shape *shape, czk_pool *pool, czk_err *err) {
    *out = NULL;
    czk_status st = czk_params_check_shape(p, shape, err);
    if (st) return st;
    if ((st = czk_params_decode_vectors(p, pool, err))) return st;
    if (!p->h || !p->l)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "lagrange form: the parameters' h or l is not held on the host");
    unsigned log_n = czk_domain_log(shape->num_constraints);
    size_t N = (size_t)1 << log_n, nv = (size_t)shape->num_inputs + shape->num_aux;
    czk_fr omega, rho, g, ginv, zinv, ninv;
    if ((st = czk_fr_root_of_unity(&omega, log_n, err))) return st;
    czk_fr_inv(&rho, &omega);
    czk_fr_from_u64(&g, CZK_FR_GENERATOR);
    czk_fr_inv(&ginv, &g);
    czk_fr_pow_u64(&zinv, &g, N);
    czk_fr_sub(&zinv, &zinv, &czk_fr_one);
    czk_fr_inv(&zinv, &zinv);
    czk_fr_from_u64(&ninv, N);
    czk_fr_inv(&ninv, &ninv);
    czk_params_lagrange *lg = czk_g16_lagrange_alloc(shape);
    blst_p1 *x = czk_g16_alloc(N * sizeof *x), *y = czk_g16_alloc(N * sizeof *y),
            *wl = czk_g16_alloc((nv ? nv : 1) * sizeof *wl);
    czk_fr *tw = malloc((N / 2 ? N / 2 : 1) * sizeof *tw);
    czk_g16_columns cols = {0};
    if (!lg || !x || !y || !wl || !tw) {
        st = czk_errf(err, CZK_ERR_NOMEM, "lagrange form: out of memory (domain 2^%u)", log_n);
        goto out;
    }
    tw[0] = czk_fr_one;
    for (size_t k = 1; k < N / 2; k++)
        czk_fr_mul(&tw[k], &tw[k - 1], &rho);
    /* h[j] = zinv/N·Σ ω^(−ij)·g^(−i)·H_i, H″[j] = −zinv/N·Σ ω^(−ij)·H_i */
    scale_job sj = {.x = x, .h = p->h, .n = N - 1, .step = ginv};
    czk_fr_mul(&sj.c, &zinv, &ninv);
    czk_pool_for(pool, N, 64, scale_fn, &sj);
    g1_ntt(x, tw, log_n, pool);
    czk_g16_to_affine(lg->h, x, N, pool);
    sj.x = y;
    czk_fr_neg(&sj.c, &sj.c);
    sj.step = czk_fr_one;
    czk_pool_for(pool, N, 64, scale_fn, &sj);
    g1_ntt(y, tw, log_n, pool);
    /* W by C's columns, into L for aux */
    if ((st = czk_g16_columns_make(&cols, shape, &shape->m[2], pool, err))) goto out;
    w_job wj = {.cols = &cols,
                .s = shape,
                .hc = y,
                .l = p->l,
                .out = wl,
                .one = UINT32_MAX,
                .minus_one = UINT32_MAX};
    for (uint32_t i = 0; i < shape->num_coeffs; i++) {
        if (wj.one == UINT32_MAX && czk_fr_eq(&shape->coeffs[i], &czk_fr_one)) wj.one = i;
        if (wj.minus_one == UINT32_MAX && czk_fr_eq(&shape->coeffs[i], &czk_fr_minus_one))
            wj.minus_one = i;
    }
    czk_pool_for(pool, nv, 16, w_fn, &wj);
    czk_g16_to_affine(lg->w_in, wl, shape->num_inputs, pool);
    czk_g16_to_affine(lg->l, wl + shape->num_inputs, shape->num_aux, pool);
    *out = lg;
    lg = NULL;
out:
    czk_g16_columns_free(&cols);
    czk_params_lagrange_free(lg);
    czk_g16_free(x);
    czk_g16_free(y);
    czk_g16_free(wl);
    free(tw);
    return st;
}
