/*
 * The Lagrange form of the H and L queries (include/czk/groth16.h,
 * czk_params_lagrange): the bases that let the prover skip c and two of
 * H's six transforms, made from the points of a parameter file.
 *
 * Two NTTs over G1 (czk_g1_ntt_fn): Y_j = Σ_i ρ^(ij)·X_i with ρ = ω^(−1),
 * the scalings (zinv/N·g^(−i), −zinv/N) applied to the inputs, one product
 * a point. The CPU's (czk_g1_ntt_cpu): radix 2 in place (bit reversal, then
 * log N stages of butterflies, each stage's N/2 butterflies split over the
 * pool; the twiddle of a butterfly is a 255-bit G1 product, skipped where
 * it is 1), Jacobian until one batch conversion; a GPU's in
 * src/cuda/g1ntt.cu. W_k = Σ_j C[j][k]·H″[j] runs by C's columns
 * (czk_g16_columns_make) on the pool, ±1 coefficients by addition. At 2^27
 * this is ≈ 3.6e9 products in the NTTs: the GPU's work, or the toxic
 * waste's shortcut for test keys (czk_setup_lagrange).
 */
#include "groth16/internal.h"

#include "czk/ntt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- the derivation ---- */

typedef struct scale_job {
    blst_p1 *x;
    const czk_g1_affine *h;
    size_t n;       /* points of h used; x[n..N) is infinity */
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

czk_status czk_g1_ntt_cpu(void *ctx, czk_g1_affine *out, const czk_g1_affine *in, size_t n_used,
                          unsigned log_n, const czk_fr *c, const czk_fr *step, const czk_fr *rho,
                          czk_err *err) {
    czk_pool *pool = ctx;
    size_t N = (size_t)1 << log_n;
    if (n_used > N)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "g1 ntt: %zu points for a domain of 2^%u", n_used,
                        log_n);
    blst_p1 *x = czk_g16_alloc(N * sizeof *x);
    czk_fr *tw = malloc((N / 2 ? N / 2 : 1) * sizeof *tw);
    if (!x || !tw) {
        czk_g16_free(x);
        free(tw);
        return czk_errf(err, CZK_ERR_NOMEM, "g1 ntt: out of memory (2^%u points)", log_n);
    }
    tw[0] = czk_fr_one;
    for (size_t k = 1; k < N / 2; k++)
        czk_fr_mul(&tw[k], &tw[k - 1], rho);
    scale_job sj = {.x = x, .h = in, .n = n_used, .c = *c, .step = *step};
    czk_pool_for(pool, N, 64, scale_fn, &sj);
    g1_ntt(x, tw, log_n, pool);
    czk_g16_to_affine(out, x, N, pool);
    czk_g16_free(x);
    free(tw);
    return CZK_OK;
}

typedef struct w_job {
    const czk_g16_columns *cols;
    const czk_shape *s;
    const czk_g1_affine *hc; /* H″ */
    const czk_g1_affine *l;
    czk_g1_affine *w_in, *l_out; /* inputs' W; aux's L + W (affine, written a block at a time) */
    uint32_t one, minus_one;
} w_job;

#define W_BLOCK 64 /* columns summed in Jacobian, then converted to affine together */

/* out[k − k0] = W_k (inputs) or L_k + W_k (aux) for columns [k0, k1) */
static void w_columns(const w_job *j, size_t k0, size_t k1, blst_p1 *out) {
    uint32_t ni = j->s->num_inputs;
    for (size_t k = k0; k < k1; k++) {
        blst_p1 acc;
        if (k < ni)
            memset(&acc, 0, sizeof acc);
        else
            blst_p1_from_affine(&acc, &j->l[k - ni]);
        for (uint64_t q = k ? j->cols->end[k - 1] : 0; q < j->cols->end[k]; q++) {
            const czk_g1_affine *h = &j->hc[j->cols->rows[q]];
            uint32_t ci = j->cols->cidx[q];
            if (ci == j->one) {
                blst_p1_add_or_double_affine(&acc, &acc, h);
                continue;
            }
            blst_p1 t;
            blst_p1_from_affine(&t, h);
            if (ci == j->minus_one)
                blst_p1_cneg(&t, 1);
            else
                czk_g1_mul(&t, &t, &j->s->coeffs[ci]);
            blst_p1_add_or_double(&acc, &acc, &t);
        }
        out[k - k0] = acc;
    }
}

static void w_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    w_job *j = arg;
    uint32_t ni = j->s->num_inputs;
    blst_p1 blk[W_BLOCK];
    for (size_t k0 = b; k0 < e; k0 += W_BLOCK) {
        size_t k1 = e - k0 < W_BLOCK ? e : k0 + W_BLOCK;
        w_columns(j, k0, k1, blk);
        /* the block's inputs and aux, each one conversion (no Jacobian copy of all nv) */
        size_t mid = k0 < ni ? (k1 < ni ? k1 : ni) : k0;
        if (mid > k0) czk_g16_to_affine(j->w_in + k0, blk, mid - k0, NULL);
        if (k1 > mid) czk_g16_to_affine(j->l_out + (mid - ni), blk + (mid - k0), k1 - mid, NULL);
    }
}

czk_status czk_params_lagrange_derive_with(czk_params_lagrange **out, const czk_params *p,
                                           const czk_shape *shape, czk_g1_ntt_fn ntt, void *ntt_ctx,
                                           czk_pool *pool, czk_err *err) {
    *out = NULL;
    czk_status st = czk_params_check_shape(p, shape, err);
    if (st) return st;
    if ((st = czk_params_decode_vectors(p, pool, err))) return st;
    if (!p->h || !p->l)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "lagrange form: the parameters' h or l is not held on the host");
    unsigned log_n = czk_domain_log(shape->num_constraints);
    size_t N = (size_t)1 << log_n, nv = (size_t)shape->num_inputs + shape->num_aux;
    czk_fr omega, rho, g, ginv, zinv, ninv, c;
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
    czk_g1_affine *hc = czk_g16_alloc(N * sizeof *hc);
    czk_g16_columns cols = {0};
    if (!lg || !hc) {
        st = czk_errf(err, CZK_ERR_NOMEM, "lagrange form: out of memory (domain 2^%u)", log_n);
        goto out;
    }
    /* h[j] = zinv/N·Σ ω^(−ij)·g^(−i)·H_i, H″[j] = −zinv/N·Σ ω^(−ij)·H_i (i < N − 1) */
    czk_fr_mul(&c, &zinv, &ninv);
    if ((st = ntt(ntt_ctx, lg->h, p->h, N - 1, log_n, &c, &ginv, &rho, err))) goto out;
    czk_fr_neg(&c, &c);
    if ((st = ntt(ntt_ctx, hc, p->h, N - 1, log_n, &c, &czk_fr_one, &rho, err))) goto out;
    /* W by C's columns, into L for aux */
    if ((st = czk_g16_columns_make(&cols, shape, &shape->m[2], pool, err))) goto out;
    w_job wj = {.cols = &cols,
                .s = shape,
                .hc = hc,
                .l = p->l,
                .w_in = lg->w_in,
                .l_out = lg->l,
                .one = UINT32_MAX,
                .minus_one = UINT32_MAX};
    for (uint32_t i = 0; i < shape->num_coeffs; i++) {
        if (wj.one == UINT32_MAX && czk_fr_eq(&shape->coeffs[i], &czk_fr_one)) wj.one = i;
        if (wj.minus_one == UINT32_MAX && czk_fr_eq(&shape->coeffs[i], &czk_fr_minus_one))
            wj.minus_one = i;
    }
    czk_pool_for(pool, nv, W_BLOCK, w_fn, &wj);
    *out = lg;
    lg = NULL;
out:
    czk_g16_columns_free(&cols);
    czk_params_lagrange_free(lg);
    czk_g16_free(hc);
    return st;
}

czk_status czk_params_lagrange_derive(czk_params_lagrange **out, const czk_params *p,
                                      const czk_shape *shape, czk_pool *pool, czk_err *err) {
    return czk_params_lagrange_derive_with(out, p, shape, czk_g1_ntt_cpu, pool, pool, err);
}

/* ---- the form's file (czk_params_lagrange_write / _read) ---- */

#define LF_MAGIC "CZKLAGR1"
#define LF_VERSION 1u
#define LF_HEADER 512 /* bytes before the points */

enum { LF_H, LF_L, LF_W, LF_NV };

typedef struct lf_vec {
    czk_g1_affine **p;
    size_t n;
} lf_vec;

static void lf_vecs(lf_vec v[LF_NV], czk_params_lagrange *lf) {
    v[LF_H] = (lf_vec){&lf->h, (size_t)1 << lf->log_n};
    v[LF_L] = (lf_vec){&lf->l, lf->num_aux};
    v[LF_W] = (lf_vec){&lf->w_in, lf->num_inputs};
}

void czk_params_lagrange_vk_digest(uint8_t out[64], const czk_vk *vk) {
    size_t n = czk_vk_encoded_size(vk->ic_len);
    uint8_t *buf = malloc(n);
    if (!buf) { /* out of memory: a digest that matches no file */
        memset(out, 0, 64);
        return;
    }
    czk_vk_encode(buf, vk);
    blake2b(out, buf, NULL, 64, n, 0);
    free(buf);
}

void czk_params_lagrange_file_name(char out[CZK_LAGRANGE_NAME_MAX], const czk_vk *vk) {
    uint8_t d[64];
    czk_params_lagrange_vk_digest(d, vk);
    char hex[33];
    czk_g16_hex(hex, d, 16);
    snprintf(out, CZK_LAGRANGE_NAME_MAX, "czk-lagrange-%s.bin", hex);
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

czk_status czk_params_lagrange_write(const czk_params_lagrange *lf, const czk_vk *vk,
                                     const char *path, czk_pool *pool, czk_err *err) {
    lf_vec v[LF_NV];
    lf_vecs(v, (czk_params_lagrange *)lf);
    for (int k = 0; k < LF_NV; k++)
        if (!*v[k].p && v[k].n)
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            "lagrange form %s: a vector is not held on the host (dropped)", path);
    uint8_t hdr[LF_HEADER] = {0};
    memcpy(hdr, LF_MAGIC, 8);
    put32(hdr + 8, LF_VERSION);
    put32(hdr + 12, lf->log_n);
    put32(hdr + 16, lf->num_inputs);
    put32(hdr + 20, lf->num_aux);
    czk_params_lagrange_vk_digest(hdr + 24, vk);
    czk_status st = CZK_OK;
    for (int k = 0; k < LF_NV && !st; k++)
        st = czk_tree_digest(hdr + 88 + 64 * k, *v[k].p, v[k].n * sizeof(czk_g1_affine), pool, err);
    if (st) return st;
    blake2b(hdr + LF_HEADER - 64, hdr, NULL, 64, LF_HEADER - 64, 0);
    char tmp[4096];
    int fd = -1;
    if ((st = czk_g16_open_tmp(path, tmp, sizeof tmp, &fd, err))) return st;
    st = czk_g16_write_full(fd, hdr, sizeof hdr, tmp, err);
    for (int k = 0; k < LF_NV && !st; k++)
        st = czk_g16_write_full(fd, (const uint8_t *)*v[k].p, v[k].n * sizeof(czk_g1_affine), tmp,
                                err);
    return czk_g16_close_rename(fd, tmp, path, st, err);
}

static czk_status read_full(int fd, void *buf, size_t n, const char *path, czk_err *err) {
    uint8_t *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return czk_errf(err, CZK_ERR_IO, "read %s: %s", path, strerror(errno));
        if (r == 0)
            return czk_errf(err, CZK_ERR_TRUNCATED, "lagrange form %s: shorter than its counts",
                            path);
        p += r;
        n -= (size_t)r;
    }
    return CZK_OK;
}

czk_status czk_params_lagrange_read(czk_params_lagrange **out, const char *path, const czk_vk *vk,
                                    const czk_shape *shape, czk_pool *pool, czk_err *err) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return czk_errf(err, CZK_ERR_IO, "open %s: %s", path, strerror(errno));
    uint8_t hdr[LF_HEADER], sum[64], dig[64];
    czk_params_lagrange *lf = NULL;
    czk_status st = read_full(fd, hdr, sizeof hdr, path, err);
    if (st) goto out;
    blake2b(sum, hdr, NULL, 64, LF_HEADER - 64, 0);
    if (memcmp(hdr, LF_MAGIC, 8) || get32(hdr + 8) != LF_VERSION) {
        st = czk_errf(err, CZK_ERR_FORMAT,
                      "lagrange form %s: not a czk Lagrange form file "
                      "(magic or version)",
                      path);
        goto out;
    }
    if (memcmp(sum, hdr + LF_HEADER - 64, 64)) {
        st = czk_errf(err, CZK_ERR_FORMAT, "lagrange form %s: header checksum mismatch", path);
        goto out;
    }
    czk_params_lagrange_vk_digest(dig, vk);
    if (memcmp(dig, hdr + 24, 64)) {
        st = czk_errf(err, CZK_ERR_MISMATCH,
                      "lagrange form %s: made from other parameters (its vk digest differs)", path);
        goto out;
    }
    czk_params_lagrange hd = {
        .log_n = get32(hdr + 12), .num_inputs = get32(hdr + 16), .num_aux = get32(hdr + 20)};
    if ((st = czk_params_lagrange_check(&hd, shape, err))) {
        czk_err_wrap(err, "%s", path);
        goto out;
    }
    if (!(lf = czk_g16_lagrange_alloc(shape))) {
        st = czk_errf(err, CZK_ERR_NOMEM, "lagrange form %s: out of memory", path);
        goto out;
    }
    lf_vec v[LF_NV];
    lf_vecs(v, lf);
    for (int k = 0; k < LF_NV && !st; k++) {
        size_t bytes = v[k].n * sizeof(czk_g1_affine);
        if (!(st = read_full(fd, *v[k].p, bytes, path, err)) &&
            !(st = czk_tree_digest(dig, *v[k].p, bytes, pool, err)) &&
            memcmp(dig, hdr + 88 + 64 * k, 64))
            st = czk_errf(err, CZK_ERR_FORMAT, "lagrange form %s: %s's digest mismatch", path,
                          k == LF_H   ? "h"
                          : k == LF_L ? "l"
                                      : "w_in");
    }
    uint8_t extra;
    if (!st && read(fd, &extra, 1) != 0)
        st = czk_errf(err, CZK_ERR_FORMAT, "lagrange form %s: trailing bytes", path);
    if (!st) {
        *out = lf;
        lf = NULL;
    }
out:
    close(fd);
    czk_params_lagrange_free(lf);
    return st;
}
