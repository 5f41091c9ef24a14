/*
 * Test-key setup from toxic waste, as bellperson's generator
 * (src/groth16/generator.rs) computes it, from a recorded czk_shape.
 *
 * The QAP polynomials of column j are u_j(x) = Σ_k A[k][j]·L_k(x) (and v_j,
 * w_j from B and C), with L_k the Lagrange basis of the domain of size N.
 * Their values at τ need L_k(τ) for every constraint k: that is the inverse
 * NTT of (1, τ, τ², …, τ^(N−1)), since L_k(τ) = (1/N)·Σ_i τ^i·ω^(−ik) (on
 * the setup backend when it offers one, a GPU: the same values). The shape
 * stores A, B, C by rows (constraints); the sums run by column, so each
 * matrix is transposed once by a parallel counting sort (atomic counts,
 * then an atomic scatter: the order of the terms inside a column does not
 * matter, field addition is exact), then every column's sum is independent.
 *
 * All scalar math is here and shared by every path; a setup backend
 * (groth16.h, czk_setup_ops) only computes the products k·G of the
 * generators: the CPU one below with the signed-window tables of
 * fixed_base.h on the pool (batches of 1,024 scalars with affine running
 * sums, one shared inversion per window and batch, so the points come out
 * affine), a GPU one in src/cuda/setup.cu. The affine point k·G is unique,
 * so every backend gives the same bytes.
 *
 * Two sinks take the points: memory (czk_setup_with: a czk_params) and the
 * piece writer (czk_setup_write: the .params file, vector by vector in file
 * order, so that a 44 GiB file never sits in memory; pieces.c hashes and
 * writes on threads of its own while the backend makes the next points).
 * Every check that can refuse a shape (a zero toxic value, τ in the
 * domain, an unconstrained variable, a dense column whose polynomial
 * vanishes at τ) runs before the first product, so a refused setup leaves
 * no file behind.
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

/* ---- the CPU backend: batches of fixed-base products on the pool ---- */

#define FB_MANY_IMPL(P, ENC, SER)                                                                  \
    typedef struct fb_job_##P {                                                                    \
        const czk_fb_##P *tab;                                                                     \
        const czk_fr *k;                                                                           \
        blst_##P##_affine *out; /* affine results, or NULL: */                                     \
        uint8_t *enc;           /* encoded results */                                              \
        atomic_bool oom;                                                                           \
    } fb_job_##P;                                                                                  \
                                                                                                   \
    static void fb_fn_##P(void *arg, size_t b, size_t e, unsigned worker) {                        \
        (void)worker;                                                                              \
        fb_job_##P *j = arg;                                                                       \
        czk_fb_##P##_scratch *s = czk_fb_##P##_scratch_new();                                      \
        blst_##P##_affine *tmp = j->out ? NULL : malloc(CZK_FB_BATCH * sizeof *tmp);               \
        if (!s || (!j->out && !tmp)) {                                                             \
            free(s);                                                                               \
            free(tmp);                                                                             \
            atomic_store(&j->oom, true);                                                           \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = b; i < e; i += CZK_FB_BATCH) {                                             \
            size_t m = e - i < CZK_FB_BATCH ? e - i : CZK_FB_BATCH;                                \
            czk_fb_##P##_batch(j->out ? j->out + i : tmp, j->tab, j->k + i, m, s);                 \
            for (size_t t = 0; !j->out && t < m; t++)                                              \
                SER(j->enc + (i + t) * ENC, &tmp[t]);                                              \
        }                                                                                          \
        free(s);                                                                                   \
        free(tmp);                                                                                 \
    }                                                                                              \
                                                                                                   \
    /* out[i] (or enc[i]) = k[i]·G for i < n. false: out of memory. */                            \
    static bool fb_many_##P(blst_##P##_affine *out, uint8_t *enc, const czk_fb_##P *tab,           \
                            const czk_fr *k, size_t n, czk_pool *pool) {                           \
        fb_job_##P j = {tab, k, out, enc, false};                                                  \
        czk_pool_for(pool, n, 4 * CZK_FB_BATCH, fb_fn_##P, &j);                                    \
        return !atomic_load(&j.oom);                                                               \
    }

FB_MANY_IMPL(p1, CZK_G1_UNCOMPRESSED, czk_g1_serialize)
FB_MANY_IMPL(p2, CZK_G2_UNCOMPRESSED, czk_g2_serialize)

typedef struct cpu_setup {
    czk_pool *pool;
    czk_fb_p1 t1; /* built on first use (a refused setup builds none) */
    czk_fb_p2 t2;
} cpu_setup;

static czk_status cpu_nomem(size_t n, czk_err *err) {
    return czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory for %zu fixed-base products", n);
}

static czk_status cpu_g1_any(cpu_setup *c, czk_g1_affine *out, uint8_t *enc, const czk_fr *k,
                             size_t n, czk_err *err) {
    czk_status st = c->t1.t ? CZK_OK : czk_fb_p1_build(&c->t1, blst_p1_generator(), err);
    if (st) return st;
    return fb_many_p1(out, enc, &c->t1, k, n, c->pool) ? CZK_OK : cpu_nomem(n, err);
}
static czk_status cpu_g2_any(cpu_setup *c, czk_g2_affine *out, uint8_t *enc, const czk_fr *k,
                             size_t n, czk_err *err) {
    czk_status st = c->t2.t ? CZK_OK : czk_fb_p2_build(&c->t2, blst_p2_generator(), err);
    if (st) return st;
    return fb_many_p2(out, enc, &c->t2, k, n, c->pool) ? CZK_OK : cpu_nomem(n, err);
}
static czk_status cpu_g1(void *self, czk_g1_affine *out, const czk_fr *k, size_t n, czk_err *err) {
    return cpu_g1_any(self, out, NULL, k, n, err);
}
static czk_status cpu_g2(void *self, czk_g2_affine *out, const czk_fr *k, size_t n, czk_err *err) {
    return cpu_g2_any(self, out, NULL, k, n, err);
}
static czk_status cpu_g1_enc(void *self, uint8_t *out, const czk_fr *k, size_t n, czk_err *err) {
    return cpu_g1_any(self, NULL, out, k, n, err);
}
static czk_status cpu_g2_enc(void *self, uint8_t *out, const czk_fr *k, size_t n, czk_err *err) {
    return cpu_g2_any(self, NULL, out, k, n, err);
}
static void cpu_destroy(void *self) {
    cpu_setup *c = self;
    czk_fb_p1_free(&c->t1);
    czk_fb_p2_free(&c->t2);
    free(c);
}

static const czk_setup_ops CPU_SETUP_OPS = {"cpu", cpu_g1, cpu_g2, cpu_g1_enc, cpu_g2_enc,
                                            NULL,  NULL,   NULL,   cpu_destroy};

czk_status czk_setup_backend_cpu(czk_setup_backend *out, czk_pool *pool, czk_err *err) {
    out->ops = NULL;
    out->self = NULL;
    cpu_setup *c = calloc(1, sizeof *c);
    if (!c) return czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory");
    c->pool = pool;
    out->ops = &CPU_SETUP_OPS;
    out->self = c;
    return CZK_OK;
}

void czk_setup_backend_release(czk_setup_backend *b) {
    if (!b) return;
    if (b->ops && b->ops->destroy) b->ops->destroy(b->self);
    b->ops = NULL;
    b->self = NULL;
}

/* ---- column sums: u, v, w at τ ---- */

typedef struct col_job {
    const czk_csr *m;
    size_t nv;
    _Atomic uint64_t *pos; /* counts, then start positions, then (after the scatter) ends */
    uint64_t *blk;         /* per block of columns: its count, then its start */
    size_t blk_cols;
    uint32_t *rows, *cidx;
    atomic_uint_fast64_t bad; /* lowest non-zero index with a column out of range */
} col_job;

static void count_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    col_job *j = arg;
    for (size_t q = b; q < e; q++) {
        uint32_t c = j->m->col[q];
        if (c >= j->nv) {
            uint_fast64_t cur = atomic_load(&j->bad);
            while (q < cur && !atomic_compare_exchange_weak(&j->bad, &cur, q)) {
            }
            continue;
        }
        atomic_fetch_add_explicit(&j->pos[c], 1, memory_order_relaxed);
    }
}

static void blk_sum_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    col_job *j = arg;
    for (size_t k = b; k < e; k++) {
        size_t c0 = k * j->blk_cols, c1 = c0 + j->blk_cols < j->nv ? c0 + j->blk_cols : j->nv;
        uint64_t s = 0;
        for (size_t c = c0; c < c1; c++)
            s += atomic_load_explicit(&j->pos[c], memory_order_relaxed);
        j->blk[k] = s;
    }
}

static void blk_start_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    col_job *j = arg;
    for (size_t k = b; k < e; k++) {
        size_t c0 = k * j->blk_cols, c1 = c0 + j->blk_cols < j->nv ? c0 + j->blk_cols : j->nv;
        uint64_t at = j->blk[k];
        for (size_t c = c0; c < c1; c++) {
            uint64_t n = atomic_load_explicit(&j->pos[c], memory_order_relaxed);
            atomic_store_explicit(&j->pos[c], at, memory_order_relaxed);
            at += n;
        }
    }
}

static void scatter_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    col_job *j = arg;
    const czk_csr *m = j->m;
    for (size_t k = b; k < e; k++)
        for (uint64_t q = m->row_ptr[k]; q < m->row_ptr[k + 1]; q++) {
            uint64_t at = atomic_fetch_add_explicit(&j->pos[m->col[q]], 1, memory_order_relaxed);
            j->rows[at] = (uint32_t)k;
            j->cidx[at] = m->coeff[q];
        }
}

void czk_g16_columns_free(czk_g16_columns *c) {
    free(c->end);
    free(c->rows);
    free(c->cidx);
    memset(c, 0, sizeof *c);
}

czk_status czk_g16_columns_make(czk_g16_columns *out, const czk_shape *s, const czk_csr *m,
                                czk_pool *pool, czk_err *err) {
    memset(out, 0, sizeof *out);
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    col_job j = {.m = m, .nv = nv};
    atomic_init(&j.bad, UINT64_MAX);
    size_t nblk = 4 * (size_t)czk_pool_threads(pool);
    j.blk_cols = (nv + nblk - 1) / nblk;
    if (j.blk_cols == 0) j.blk_cols = 1;
    nblk = (nv + j.blk_cols - 1) / j.blk_cols;
    j.pos = calloc(nv ? nv : 1, sizeof *j.pos);
    j.blk = malloc((nblk ? nblk : 1) * sizeof *j.blk);
    j.rows = malloc((m->nnz ? m->nnz : 1) * sizeof *j.rows);
    j.cidx = malloc((m->nnz ? m->nnz : 1) * sizeof *j.cidx);
    czk_status st = CZK_OK;
    if (!j.pos || !j.blk || !j.rows || !j.cidx) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: no memory to transpose a matrix (%llu non-zeros)",
                      (unsigned long long)m->nnz);
        goto out;
    }
    if (m->row_ptr[s->num_constraints] != m->nnz) {
        st = czk_errf(err, CZK_ERR_INVALID_ARG, "setup: shape rows hold %llu non-zeros, not %llu",
                      (unsigned long long)m->row_ptr[s->num_constraints],
                      (unsigned long long)m->nnz);
        goto out;
    }
    /* grains: a few chunks per thread (small test shapes run in parallel too) */
    size_t T8 = 8 * (size_t)czk_pool_threads(pool);
    size_t g_nnz = m->nnz / T8 > (1 << 16) ? (1 << 16) : m->nnz / T8 + 1;
    size_t g_rows = s->num_constraints / T8 > 4096 ? 4096 : s->num_constraints / T8 + 1;
    czk_pool_for(pool, m->nnz, g_nnz, count_fn, &j);
    if (atomic_load(&j.bad) != UINT64_MAX) {
        st = czk_errf(err, CZK_ERR_INVALID_ARG, "setup: shape column %u out of range",
                      m->col[atomic_load(&j.bad)]);
        goto out;
    }
    /* exclusive prefix sums: per block, over the blocks, then inside each block */
    czk_pool_for(pool, nblk, 1, blk_sum_fn, &j);
    uint64_t at = 0;
    for (size_t k = 0; k < nblk; k++) {
        uint64_t n = j.blk[k];
        j.blk[k] = at;
        at += n;
    }
    czk_pool_for(pool, nblk, 1, blk_start_fn, &j);
    czk_pool_for(pool, s->num_constraints, g_rows, scatter_fn, &j);
    /* after the scatter each position is its column's end */
    out->nv = nv;
    out->end = malloc((nv ? nv : 1) * sizeof *out->end);
    if (!out->end) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: no memory for %zu column ends", nv);
        goto out;
    }
    for (size_t c = 0; c < nv; c++)
        out->end[c] = atomic_load_explicit(&j.pos[c], memory_order_relaxed);
    out->rows = j.rows;
    out->cidx = j.cidx;
    j.rows = j.cidx = NULL;
out:
    free(j.pos);
    free(j.blk);
    free(j.rows);
    free(j.cidx);
    if (st) czk_g16_columns_free(out);
    return st;
}

typedef struct sum_job {
    const czk_g16_columns *c;
    const czk_fr *coeffs, *lag;
    czk_fr *out;
} sum_job;

static void sum_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    sum_job *j = arg;
    const czk_g16_columns *c = j->c;
    for (size_t k = b; k < e; k++) {
        czk_fr acc = czk_fr_zero, t;
        for (uint64_t q = k ? c->end[k - 1] : 0; q < c->end[k]; q++) {
            czk_fr_mul(&t, &j->coeffs[c->cidx[q]], &j->lag[c->rows[q]]);
            czk_fr_add(&acc, &acc, &t);
        }
        j->out[k] = acc;
    }
}

czk_status czk_g16_column_evals(const czk_shape *s, const czk_csr *m, const czk_fr *lag,
                                czk_fr *out, czk_pool *pool, czk_err *err) {
    czk_g16_columns c;
    czk_status st = czk_g16_columns_make(&c, s, m, pool, err);
    if (st) return st;
    size_t T8 = 8 * (size_t)czk_pool_threads(pool);
    size_t g_cols = c.nv / T8 > 1024 ? 1024 : c.nv / T8 + 1;
    sum_job j = {&c, s->coeffs, lag, out};
    czk_pool_for(pool, c.nv, g_cols, sum_fn, &j);
    czk_g16_columns_free(&c);
    return CZK_OK;
}

/* ---- the scalars ---- */

/* out[i] = c·x^i, i < n, on the pool. */
typedef struct pow_job {
    czk_fr x, c;
    czk_fr *out;
} pow_job;

static void pow_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    pow_job *j = arg;
    czk_fr p;
    czk_fr_pow_u64(&p, &j->x, b);
    czk_fr_mul(&p, &p, &j->c);
    for (size_t i = b; i < e; i++) {
        j->out[i] = p;
        czk_fr_mul(&p, &p, &j->x);
    }
}

static bool bit(const czk_bitmap *b, uint64_t i) {
    return i < b->len && (b->words[i / 64] >> (i % 64)) & 1;
}

/* Lowest failing index of a parallel loop. */
static void fail_at(atomic_uint_fast64_t *bad, uint64_t i) {
    uint_fast64_t cur = atomic_load(bad);
    while (i < cur && !atomic_compare_exchange_weak(bad, &cur, i)) {
    }
}

typedef struct scalars {
    const czk_shape *shape;
    const czk_toxic *toxic;
    czk_pool *pool;
    unsigned lg;
    size_t N, ni, na, nv;
    czk_fr zt_d;       /* Z(τ)/δ */
    czk_fr dinv, ginv; /* 1/δ, 1/γ */
    czk_fr *u, *v, *w; /* the QAP polynomials at τ per column (separate: freed when done) */
    size_t a_len, b_len;
} scalars;

static void scalars_free(scalars *s) {
    free(s->u);
    free(s->v);
    free(s->w);
    s->u = s->v = s->w = NULL;
}

/* The refusals that need no scalars (czk_setup's doc). */
static czk_status scalars_init(scalars *s, const czk_shape *shape, const czk_toxic *toxic,
                               czk_pool *pool, czk_err *err) {
    memset(s, 0, sizeof *s);
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
    s->shape = shape;
    s->toxic = toxic;
    s->pool = pool;
    s->lg = lg;
    s->N = (size_t)1 << lg;
    s->ni = shape->num_inputs;
    s->na = shape->num_aux;
    s->nv = s->ni + s->na;
    if (s->ni == 0)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "setup: the shape has no inputs (ONE)");
    czk_fr zt;
    czk_fr_pow_u64(&zt, &toxic->tau, s->N);
    czk_fr_sub(&zt, &zt, &czk_fr_one);
    if (czk_fr_is_zero(&zt))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "setup: tau is in the domain (Z(tau) = 0)");
    czk_fr_inv(&s->dinv, &toxic->delta);
    czk_fr_inv(&s->ginv, &toxic->gamma);
    czk_fr_mul(&s->zt_d, &zt, &s->dinv);
    s->a_len = s->ni + shape->a_aux.popcount;
    s->b_len = shape->b_input.popcount + shape->b_aux.popcount;
    return CZK_OK;
}

/* The Lagrange basis at τ, then u, v, w (the backend's inverse NTT where it has one). */
static czk_status scalars_qap(scalars *s, const czk_setup_backend *be, double *t_lag,
                              czk_err *err) {
    double t0 = czk_g16_now();
    czk_fr *lag = malloc(s->N * sizeof *lag);
    s->u = malloc((s->nv ? s->nv : 1) * sizeof *s->u);
    s->v = malloc((s->nv ? s->nv : 1) * sizeof *s->v);
    s->w = malloc((s->nv ? s->nv : 1) * sizeof *s->w);
    czk_status st = CZK_OK;
    if (!lag || !s->u || !s->v || !s->w) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory (domain 2^%u, %zu variables)",
                      s->lg, s->nv);
        goto out;
    }
    pow_job pj = {s->toxic->tau, czk_fr_one, lag};
    czk_pool_for(s->pool, s->N, 4096, pow_fn, &pj);
    if (s->lg > 0) {
        st = be->ops->intt ? be->ops->intt(be->self, lag, s->lg, err)
                           : czk_ntt(lag, s->lg, CZK_NTT_INVERSE, s->pool, err);
        if (st) goto out;
    }
    *t_lag = czk_g16_now() - t0;
    for (int m = 0; m < 3 && !st; m++)
        st = czk_g16_column_evals(s->shape, &s->shape->m[m], lag,
                                  m == 0   ? s->u
                                  : m == 1 ? s->v
                                           : s->w,
                                  s->pool, err);
out:
    free(lag);
    if (st) scalars_free(s);
    return st;
}

/* ic (c < ni, over γ) and l (aux, over δ): (β·u + α·v + w)/(γ or δ), for columns [c0, c1). */
typedef struct lc_job {
    const scalars *s;
    size_t c0;
    czk_fr *out; /* NULL: check only */
    atomic_uint_fast64_t bad;
} lc_job;

static void lc_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    lc_job *j = arg;
    const scalars *s = j->s;
    for (size_t i = b; i < e; i++) {
        size_t c = j->c0 + i;
        czk_fr x, t;
        czk_fr_mul(&x, &s->toxic->beta, &s->u[c]);
        czk_fr_mul(&t, &s->toxic->alpha, &s->v[c]);
        czk_fr_add(&x, &x, &t);
        czk_fr_add(&x, &x, &s->w[c]);
        czk_fr_mul(&x, &x, c < s->ni ? &s->ginv : &s->dinv);
        if (czk_fr_is_zero(&x)) fail_at(&j->bad, c);
        if (j->out) j->out[i] = x;
    }
}

static czk_status scalars_lc(const scalars *s, size_t c0, size_t c1, czk_fr *out, czk_err *err) {
    lc_job j = {.s = s, .c0 = c0, .out = out};
    atomic_init(&j.bad, UINT64_MAX);
    czk_pool_for(s->pool, c1 - c0, 4096, lc_fn, &j);
    uint64_t c = atomic_load(&j.bad);
    if (c == UINT64_MAX) return CZK_OK;
    bool in = c < s->ni;
    return czk_errf(err, CZK_ERR_INVALID_ARG,
                    "setup: %s %llu is unconstrained (its %s point would be infinity)",
                    in ? "input" : "aux", (unsigned long long)(in ? c : c - s->ni),
                    in ? "ic" : "l");
}

/*
 * The dense columns of u (A: every input, then A-dense aux) or v (B: B-dense inputs and aux),
 * compacted into out (NULL: check only), in blocks on the pool.
 */
typedef struct dense_job {
    const scalars *s;
    bool b;          /* B (v) rather than A (u) */
    size_t blk_cols; /* columns per block */
    uint64_t *start; /* output start of each block */
    czk_fr *out;
    atomic_uint_fast64_t bad;
} dense_job;

static bool dense(const scalars *s, bool b, size_t c) {
    if (!b) return c < s->ni || bit(&s->shape->a_aux, c - s->ni);
    return c < s->ni ? bit(&s->shape->b_input, c) : bit(&s->shape->b_aux, c - s->ni);
}

static void dense_count_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    dense_job *j = arg;
    for (size_t k = b; k < e; k++) {
        size_t c0 = k * j->blk_cols, c1 = c0 + j->blk_cols < j->s->nv ? c0 + j->blk_cols : j->s->nv;
        uint64_t n = 0;
        for (size_t c = c0; c < c1; c++)
            n += dense(j->s, j->b, c);
        j->start[k] = n;
    }
}

static void dense_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    dense_job *j = arg;
    const czk_fr *x = j->b ? j->s->v : j->s->u;
    for (size_t k = b; k < e; k++) {
        size_t c0 = k * j->blk_cols, c1 = c0 + j->blk_cols < j->s->nv ? c0 + j->blk_cols : j->s->nv;
        uint64_t at = j->start[k];
        for (size_t c = c0; c < c1; c++) {
            if (!dense(j->s, j->b, c)) continue;
            if (czk_fr_is_zero(&x[c])) fail_at(&j->bad, c);
            if (j->out) j->out[at] = x[c];
            at++;
        }
    }
}

static czk_status scalars_dense(const scalars *s, bool b, czk_fr *out, czk_err *err) {
    dense_job j = {.s = s, .b = b, .out = out};
    atomic_init(&j.bad, UINT64_MAX);
    size_t nblk = 4 * (size_t)czk_pool_threads(s->pool);
    j.blk_cols = (s->nv + nblk - 1) / nblk;
    if (j.blk_cols == 0) j.blk_cols = 1;
    nblk = (s->nv + j.blk_cols - 1) / j.blk_cols;
    j.start = malloc((nblk ? nblk : 1) * sizeof *j.start);
    if (!j.start) return czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory");
    czk_pool_for(s->pool, nblk, 1, dense_count_fn, &j);
    uint64_t at = 0;
    for (size_t k = 0; k < nblk; k++) {
        uint64_t n = j.start[k];
        j.start[k] = at;
        at += n;
    }
    czk_status st = CZK_OK;
    if (at != (b ? s->b_len : s->a_len))
        st = czk_errf(err, CZK_ERR_INVALID_ARG,
                      "setup: the shape's %s density counts %llu columns, its bitmaps %llu",
                      b ? "B" : "A", (unsigned long long)(b ? s->b_len : s->a_len),
                      (unsigned long long)at);
    if (!st) czk_pool_for(s->pool, nblk, 1, dense_fn, &j);
    free(j.start);
    uint64_t c = atomic_load(&j.bad);
    if (st || c == UINT64_MAX) return st;
    bool in = c < s->ni;
    return czk_errf(err, CZK_ERR_INVALID_ARG,
                    "setup: %s %llu is %s-dense but its %s polynomial vanishes at tau",
                    in ? "input" : "aux", (unsigned long long)(in ? c : c - s->ni), b ? "B" : "A",
                    b ? "B" : "A");
}

/* Every refusal that needs the scalars, before any product is made. */
static czk_status scalars_check(const scalars *s, czk_err *err) {
    czk_status st = scalars_lc(s, 0, s->nv, NULL, err);
    if (!st) st = scalars_dense(s, false, NULL, err);
    if (!st) st = scalars_dense(s, true, NULL, err);
    return st;
}

/* ---- the two sinks: memory and the piece writer ---- */

enum { V_IC, V_H, V_L, V_A, V_B_G1, V_B_G2, NV };
static const char *const V_NAME[NV] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

typedef struct run {
    const czk_setup_backend *be;
    czk_pool *pool;
    const czk_setup_opts *opts;
    czk_setup_timings *t;
    czk_g16_writer *w; /* NULL: into memory */
    void *scratch;     /* affine points of one piece, when the backend cannot encode */
    size_t scratch_bytes;
} run;

static void phase(run *r, const char *name, double *slot, double seconds, uint64_t points) {
    *slot += seconds;
    if (r->opts && r->opts->phase) r->opts->phase(r->opts->phase_ctx, name, seconds, points);
}

/* A progress report (czk_setup_progress_fn): a phase begins (done 0), or done of total points. */
static void progress(run *r, const char *name, uint64_t done, uint64_t total) {
    if (r->opts && r->opts->progress) r->opts->progress(r->opts->phase_ctx, name, done, total);
}

static czk_status products(run *r, bool g2, czk_g1_affine *o1, czk_g2_affine *o2, const czk_fr *k,
                           size_t n, czk_err *err) {
    const czk_setup_ops *ops = r->be->ops;
    return g2 ? ops->g2(r->be->self, o2, k, n, err) : ops->g1(r->be->self, o1, k, n, err);
}

/* n points k[i]·G of vector v into the writer (its length prefix first). */
static czk_status stream_points(run *r, int v, const czk_fr *k, size_t n, czk_err *err) {
    bool g2 = v == V_B_G2;
    const czk_g16_group *g = g2 ? &czk_g16_g2 : &czk_g16_g1;
    const czk_setup_ops *ops = r->be->ops;
    czk_status (*enc)(void *, uint8_t *, const czk_fr *, size_t, czk_err *) =
        g2 ? ops->g2_enc : ops->g1_enc;
    czk_status st = czk_g16_write_count(r->w, (uint32_t)n, err);
    for (size_t i = 0; i < n && !st;) {
        uint8_t *p = NULL;
        size_t rest = 0;
        if ((st = czk_g16_writer_reserve(r->w, &p, &rest, err))) break;
        size_t m = (rest + g->enc - 1) / g->enc;
        if (m > n - i) m = n - i;
        if (enc) {
            if ((st = enc(r->be->self, p, k + i, m, err))) break;
            for (size_t t = 0; t < m; t++) /* scalars were checked: never infinity */
                if (p[t * g->enc] & 0x40) {
                    st = czk_errf(err, CZK_ERR_INTERNAL,
                                  "setup: the %s backend made point %zu of %s infinity", ops->name,
                                  i + t, V_NAME[v]);
                    break;
                }
            if (st) break;
            st = czk_g16_writer_commit(r->w, m * g->enc, err);
        } else {
            size_t need = (CZK_TREE_PIECE_BYTES / g->enc + 2) * g->aff;
            if (r->scratch_bytes < need) {
                free(r->scratch);
                r->scratch_bytes = 0;
                if (!(r->scratch = malloc(need))) {
                    st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory");
                    break;
                }
                r->scratch_bytes = need;
            }
            if ((st = products(r, g2, r->scratch, r->scratch, k + i, m, err))) break;
            /* the encoding commits */
            st = czk_g16_write_points(r->w, g, r->scratch, m, V_NAME[v], i, r->pool, err);
        }
        i += m;
        if (!st) progress(r, V_NAME[v], i, n);
    }
    return st;
}

/*
 * The whole setup into params (memory) or the writer (r->w, opened here once the size is known
 * from the checked counts: czk_setup_write passes open_path).
 */
static czk_status setup_run(run *r, czk_params *p, const char *open_path, const czk_shape *shape,
                            const czk_toxic *toxic, czk_err *err) {
    czk_setup_timings *t = r->t;
    double t_all = czk_g16_now(), t0;
    scalars s;
    czk_fr *sc = NULL;
    czk_status st = scalars_init(&s, shape, toxic, r->pool, err);
    if (st) return st;
    t0 = czk_g16_now();
    double t_lag = 0;
    progress(r, "lagrange", 0, 0);
    if ((st = scalars_qap(&s, r->be, &t_lag, err))) return st;
    phase(r, "lagrange", &t->lagrange, t_lag, 0);
    phase(r, "qap", &t->qap, czk_g16_now() - t0 - t_lag, 0);
    t0 = czk_g16_now();
    if ((st = scalars_check(&s, err))) goto out;
    size_t len[NV] = {s.ni, s.N - 1, s.na, s.a_len, s.b_len, s.b_len};
    size_t cap = s.N - 1 > s.nv ? s.N - 1 : s.nv;
    if (!(sc = malloc((cap ? cap : 1) * sizeof *sc))) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory (%zu scalars)", cap);
        goto out;
    }
    if (len[V_A] > UINT32_MAX || len[V_L] > UINT32_MAX || len[V_H] > UINT32_MAX) {
        st = czk_errf(err, CZK_ERR_UNSUPPORTED, "setup: a vector of 2^32 points or more");
        goto out;
    }
    double t_sc = czk_g16_now() - t0;

    /* the vk: α, β, δ in G1; β, γ, δ in G2 */
    t0 = czk_g16_now();
    czk_fr k1[3] = {toxic->alpha, toxic->beta, toxic->delta};
    czk_fr k2[3] = {toxic->beta, toxic->gamma, toxic->delta};
    czk_g1_affine a1[3];
    czk_g2_affine a2[3];
    if ((st = products(r, false, a1, NULL, k1, 3, err)) ||
        (st = products(r, true, NULL, a2, k2, 3, err)))
        goto out;
    p->vk.alpha_g1 = a1[0];
    p->vk.beta_g1 = a1[1];
    p->vk.delta_g1 = a1[2];
    p->vk.beta_g2 = a2[0];
    p->vk.gamma_g2 = a2[1];
    p->vk.delta_g2 = a2[2];
    p->vk.ic_len = (uint32_t)s.ni;
    p->h_len = (uint32_t)len[V_H];
    p->l_len = (uint32_t)len[V_L];
    p->a_len = (uint32_t)len[V_A];
    p->b_g1_len = p->b_g2_len = (uint32_t)len[V_B_G1];
    if (!(p->vk.ic = czk_g16_alloc(s.ni * sizeof *p->vk.ic))) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory for ic");
        goto out;
    }
    if (open_path &&
        (st = czk_g16_writer_open(
             &r->w, open_path, czk_params_encoded_size(p),
             r->be->ops->host_alloc ? (czk_g16_host_alloc_fn)r->be->ops->host_alloc : NULL,
             r->be->ops->host_free, r->be->self, err)))
        goto out;
    phase(r, "vk", &t->vk, czk_g16_now() - t0, 6);

    void **vec[NV] = {NULL,           (void **)&p->h,    (void **)&p->l,
                      (void **)&p->a, (void **)&p->b_g1, (void **)&p->b_g2};
    for (int v = V_IC; v < NV && !st; v++) {
        progress(r, V_NAME[v], 0, len[v]);
        /* the scalars */
        t0 = czk_g16_now();
        if (v == V_IC || v == V_L) {
            size_t c0 = v == V_IC ? 0 : s.ni;
            st = scalars_lc(&s, c0, c0 + len[v], sc, err);
            if (v == V_L) {
                free(s.w);
                s.w = NULL;
            }
        } else if (v == V_H) {
            pow_job pj = {toxic->tau, s.zt_d, sc};
            czk_pool_for(r->pool, len[v], 4096, pow_fn, &pj);
        } else if (v == V_A) {
            st = scalars_dense(&s, false, sc, err);
            free(s.u);
            s.u = NULL;
        } else if (v == V_B_G1) {
            st = scalars_dense(&s, true, sc, err);
        }
        t_sc += czk_g16_now() - t0;
        if (st) break;
        /* the products */
        t0 = czk_g16_now();
        double *slot = v == V_IC     ? &t->ic
                       : v == V_H    ? &t->h
                       : v == V_L    ? &t->l
                       : v == V_A    ? &t->a
                       : v == V_B_G1 ? &t->b_g1
                                     : &t->b_g2;
        if (v == V_IC) {
            st = products(r, false, p->vk.ic, NULL, sc, len[v], err);
            if (!st && r->w) st = czk_g16_write_vk(r->w, &p->vk, err);
        } else if (r->w) {
            st = stream_points(r, v, sc, len[v], err);
        } else {
            size_t bytes = len[v] * (v == V_B_G2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine));
            if (!(*vec[v] = czk_g16_alloc(bytes)))
                st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory for %s (%zu points)",
                              V_NAME[v], len[v]);
            else
                st = products(r, v == V_B_G2, *vec[v], *vec[v], sc, len[v], err);
        }
        if (!st) phase(r, V_NAME[v], slot, czk_g16_now() - t0, len[v]);
    }
    if (!st) phase(r, "scalars", &t->scalars, t_sc, 0);
out:
    free(sc);
    scalars_free(&s);
    t->total += czk_g16_now() - t_all;
    return st;
}

czk_status czk_setup_with(czk_params **out, const czk_shape *shape, const czk_toxic *toxic,
                          const czk_setup_backend *backend, czk_pool *pool,
                          const czk_setup_opts *opts, czk_err *err) {
    *out = NULL;
    czk_setup_timings tm = {0};
    run r = {.be = backend, .pool = pool, .opts = opts, .t = &tm};
    czk_params *p = calloc(1, sizeof *p);
    if (!p) return czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory");
    czk_status st = setup_run(&r, p, NULL, shape, toxic, err);
    free(r.scratch);
    if (opts && opts->timings) *opts->timings = tm;
    if (st) {
        czk_params_free(p);
        return st;
    }
    *out = p;
    return CZK_OK;
}

/* out[i] = c·step^i·x^i for i < n − 1 (out[n − 1] = 0): the scaled powers of czk_setup_lagrange */
typedef struct spow_job {
    czk_fr x, c;
    size_t n;
    czk_fr *out;
} spow_job;

static void spow_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    spow_job *j = arg;
    czk_fr p;
    czk_fr_pow_u64(&p, &j->x, b);
    czk_fr_mul(&p, &p, &j->c);
    for (size_t i = b; i < e; i++) {
        j->out[i] = i + 1 < j->n ? p : czk_fr_zero;
        czk_fr_mul(&p, &p, &j->x);
    }
}

czk_status czk_setup_lagrange(czk_params_lagrange **out, const czk_shape *shape,
                              const czk_toxic *toxic, const czk_setup_backend *backend,
                              czk_pool *pool, czk_err *err) {
    *out = NULL;
    scalars s;
    czk_status st = scalars_init(&s, shape, toxic, pool, err);
    if (st) return st;
    double t_lag = 0;
    if ((st = scalars_qap(&s, backend, &t_lag, err))) return st;
    czk_fr *x = NULL, *y = NULL, *wk = NULL, *lk = NULL;
    czk_params_lagrange *lg = NULL;
    if ((st = scalars_check(&s, err))) goto out;
    x = malloc(s.N * sizeof *x);
    y = malloc(s.N * sizeof *y);
    wk = malloc((s.nv ? s.nv : 1) * sizeof *wk);
    lk = malloc((s.na ? s.na : 1) * sizeof *lk);
    if (!x || !y || !wk || !lk) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory (domain 2^%u)", s.lg);
        goto out;
    }
    /* h[j] = iNTT(x)_j with x_i = zinv·Z(τ)/δ·(τ/g)^i; H″[j] = iNTT(y)_j, y_i = −zinv·Z(τ)/δ·τ^i
     * (i < N − 1; the iNTT's 1/N is the form's) */
    czk_fr g, zinv, c;
    czk_fr_from_u64(&g, CZK_FR_GENERATOR);
    czk_fr_pow_u64(&zinv, &g, s.N);
    czk_fr_sub(&zinv, &zinv, &czk_fr_one);
    czk_fr_inv(&zinv, &zinv);
    czk_fr_mul(&c, &zinv, &s.zt_d);
    spow_job pj = {.c = c, .n = s.N, .out = x};
    czk_fr_inv(&pj.x, &g);
    czk_fr_mul(&pj.x, &pj.x, &toxic->tau);
    czk_pool_for(pool, s.N, 4096, spow_fn, &pj);
    czk_fr_neg(&pj.c, &c);
    pj.x = toxic->tau;
    pj.out = y;
    czk_pool_for(pool, s.N, 4096, spow_fn, &pj);
    czk_fr *v[2] = {x, y};
    for (int k = 0; k < 2 && !st && s.lg > 0; k++)
        st = backend->ops->intt ? backend->ops->intt(backend->self, v[k], s.lg, err)
                                : czk_ntt(v[k], s.lg, CZK_NTT_INVERSE, pool, err);
    /* W = Cᵀ·H″, then L + W for aux */
    if (!st) st = czk_g16_column_evals(shape, &shape->m[2], y, wk, pool, err);
    if (!st) st = scalars_lc(&s, s.ni, s.nv, lk, err);
    if (st) goto out;
    for (size_t k = 0; k < s.na; k++)
        czk_fr_add(&lk[k], &lk[k], &wk[s.ni + k]);
    /* u, v, w and y are spent: freed before the form's points are allocated (at 32GiB the
     * scalars are ≈ 17 GB, the points 25 GB) */
    free(y);
    y = NULL;
    scalars_free(&s);
    if (!(lg = czk_g16_lagrange_alloc(shape))) {
        st = czk_errf(err, CZK_ERR_NOMEM, "setup: out of memory for the form (domain 2^%u)", s.lg);
        goto out;
    }
    const czk_setup_ops *ops = backend->ops;
    if ((st = ops->g1(backend->self, lg->h, x, s.N, err)) ||
        (st = ops->g1(backend->self, lg->l, lk, s.na, err)) ||
        (st = ops->g1(backend->self, lg->w_in, wk, s.ni, err)))
        goto out;
    *out = lg;
    lg = NULL;
out:
    free(x);
    free(y);
    free(wk);
    free(lk);
    czk_params_lagrange_free(lg);
    scalars_free(&s);
    return st;
}

czk_status czk_setup(czk_params **out, const czk_shape *shape, const czk_toxic *toxic,
                     czk_pool *pool, czk_err *err) {
    *out = NULL;
    czk_setup_backend be;
    czk_status st = czk_setup_backend_cpu(&be, pool, err);
    if (st) return st;
    st = czk_setup_with(out, shape, toxic, &be, pool, NULL, err);
    czk_setup_backend_release(&be);
    return st;
}

czk_status czk_setup_write(const char *path, czk_vk *vk, bool *stamped, const czk_shape *shape,
                           const czk_toxic *toxic, const czk_setup_backend *backend, czk_pool *pool,
                           const czk_setup_opts *opts, czk_err *err) {
    if (vk) memset(vk, 0, sizeof *vk);
    if (stamped) *stamped = false;
    czk_setup_timings tm = {0};
    run r = {.be = backend, .pool = pool, .opts = opts, .t = &tm};
    /* the vk and the lengths; the vectors go to the file */
    czk_params p = {0};
    czk_status st = setup_run(&r, &p, path, shape, toxic, err);
    free(r.scratch);
    uint8_t tree[64];
    if (!st) {
        double t0 = czk_g16_now();
        czk_g16_writer *w = r.w;
        r.w = NULL;
        st = czk_g16_writer_close(w, tree, err);
        if (!st) phase(&r, "write", &tm.write, czk_g16_now() - t0, 0);
    }
    if (r.w) czk_g16_writer_abort(r.w);
    if (!st && !(opts && opts->no_stamp)) {
        double t0 = czk_g16_now();
        bool ok = czk_g16_stamp_file(path, opts ? opts->stamp_dir : NULL, tree);
        if (stamped) *stamped = ok;
        phase(&r, "stamp", &tm.stamp, czk_g16_now() - t0, 0);
    }
    tm.total = tm.total + tm.write + tm.stamp;
    if (opts && opts->timings) *opts->timings = tm;
    if (!st && vk) {
        *vk = p.vk;
        p.vk.ic = NULL;
    }
    czk_vk_free(&p.vk);
    if (st) czk_err_wrap(err, "setup %s", path);
    return st;
}
