/*
 * Fixed-base scalar multiplication: k·G for many k and one base G, by a
 * table of signed-digit windows (a comb without doublings).
 *
 * With window w and half = 2^(w−1), the table holds d·2^(w·j)·G for every
 * window j and d in [1, half]. A scalar is recoded into digits
 * k = Σ_j e_j·2^(w·j) with e_j in [−half, half) (carry into the next
 * window), so k·G = Σ_j sign(e_j)·T[j][|e_j|]: one addition per window
 * and no doubling. w = 13 gives 21 windows of 4,096 points (8.3 MB for G1,
 * 16.5 MB for G2) and 21 additions per multiplication, against ~255
 * doublings and ~50 additions for a general one. Not constant time: for
 * test keys only.
 *
 * Many products at once (czk_fb_P_batch) run window by window over a batch
 * of scalars, with the running sums kept affine: the additions of one
 * window share one field inversion (Montgomery's trick: 3 multiplications
 * per element), so an addition costs about 5M + 1S instead of a mixed
 * Jacobian addition's ~11 multiplications, the results come out affine with
 * no final conversion, and each window's 4,096 table points (393 KB for
 * G1) stay in cache while the whole batch uses them. On the 2-core dev VM
 * (CPU time per product, random scalars): w = 10 with 512-scalar batches
 * 8.4–10.9 µs G1 / 22–26 µs G2, w = 13 with 1,024 7.7–8.1 / 18–23 µs, the
 * Jacobian one-at-a-time product (czk_fb_P_mul plus batch normalization)
 * about twice as much. Equal x (a doubling or
 * P + (−P)) is rare and goes through blst's complete Jacobian addition.
 *
 * One body serves G1 and G2 (CZK_FIXED_BASE_IMPL below, instantiated in
 * setup.c; it also compiles as C++, for the GPU backend's tables in
 * src/cuda/setup.cu).
 */
#ifndef CZK_GROTH16_FIXED_BASE_H
#define CZK_GROTH16_FIXED_BASE_H

#include "czk/ec.h"
#include "czk/pool.h"

#include <stdlib.h>
#include <string.h>

#ifndef CZK_FB_WBITS
#define CZK_FB_WBITS 13u
#endif
#define CZK_FB_HALF (1u << (CZK_FB_WBITS - 1))
#define CZK_FB_WINDOWS ((256u + CZK_FB_WBITS - 1) / CZK_FB_WBITS + 1)

/* The signed digits of a 256-bit little-endian scalar, e[j] in [−half, half). */
static inline void czk_fb_recode(int32_t e[CZK_FB_WINDOWS], const uint8_t k[32]) {
    uint32_t carry = 0;
    for (unsigned j = 0; j < CZK_FB_WINDOWS; j++) {
        unsigned bit = j * CZK_FB_WBITS;
        uint32_t v = 0;
        for (unsigned b = 0; b < CZK_FB_WBITS && bit + b < 256; b++)
            v |= (uint32_t)((k[(bit + b) / 8] >> ((bit + b) % 8)) & 1) << b;
        v += carry;
        if (v >= CZK_FB_HALF) {
            e[j] = (int32_t)v - (int32_t)(2 * CZK_FB_HALF);
            carry = 1;
        } else {
            e[j] = (int32_t)v;
            carry = 0;
        }
    }
}

/*
 * P = p1|p2 (blst prefix), FP = fp|fp2 (the y coordinate's type).
 * czk_fb_P: the table; czk_fb_P_build(tab, base) fills it (CZK_ERR_NOMEM
 * possible), czk_fb_P_free releases it (CZK_FIXED_BASE_TABLE_IMPL: these
 * alone); czk_fb_P_mul(out, tab, scalar) = scalar·base.
 */
#define CZK_FIXED_BASE_TABLE_IMPL(P)                                                               \
    typedef struct czk_fb_##P {                                                                    \
        blst_##P##_affine *t; /* t[j·half + d − 1] = d·2^(w·j)·G */                          \
    } czk_fb_##P;                                                                                  \
                                                                                                   \
    static inline czk_status czk_fb_##P##_build(czk_fb_##P *tab, const blst_##P *base,             \
                                                czk_err *err) {                                    \
        size_t n = (size_t)CZK_FB_WINDOWS * CZK_FB_HALF;                                           \
        tab->t = (blst_##P##_affine *)malloc(n * sizeof *tab->t);                                  \
        blst_##P *row = (blst_##P *)malloc(CZK_FB_HALF * sizeof *row);                             \
        if (!tab->t || !row) {                                                                     \
            free(tab->t);                                                                          \
            free(row);                                                                             \
            tab->t = NULL;                                                                         \
            return czk_errf(err, CZK_ERR_NOMEM, "setup: no memory for a fixed-base table");        \
        }                                                                                          \
        blst_##P b = *base;                                                                        \
        for (unsigned j = 0; j < CZK_FB_WINDOWS; j++) {                                            \
            row[0] = b;                                                                            \
            for (unsigned d = 1; d < CZK_FB_HALF; d++)                                             \
                blst_##P##_add_or_double(&row[d], &row[d - 1], &b);                                \
            const blst_##P *pp[2] = {row, NULL};                                                   \
            blst_##P##s_to_affine(tab->t + (size_t)j * CZK_FB_HALF, pp, CZK_FB_HALF);              \
            /* next window's base: 2^w·b = 2·(half·b) */                                        \
            blst_##P##_double(&b, &row[CZK_FB_HALF - 1]);                                          \
        }                                                                                          \
        free(row);                                                                                 \
        return CZK_OK;                                                                             \
    }                                                                                              \
                                                                                                   \
    static inline void czk_fb_##P##_free(czk_fb_##P *tab) {                                        \
        free(tab->t);                                                                              \
        tab->t = NULL;                                                                             \
    }

#define CZK_FIXED_BASE_IMPL(P)                                                                     \
    CZK_FIXED_BASE_TABLE_IMPL(P)                                                                   \
    static inline void czk_fb_##P##_mul(blst_##P *out, const czk_fb_##P *tab, const czk_fr *k) {   \
        blst_scalar s;                                                                             \
        blst_scalar_from_fr(&s, k);                                                                \
        int32_t e[CZK_FB_WINDOWS];                                                                 \
        czk_fb_recode(e, s.b);                                                                     \
        blst_##P acc;                                                                              \
        memset(&acc, 0, sizeof acc);                                                               \
        for (unsigned j = 0; j < CZK_FB_WINDOWS; j++) {                                            \
            if (e[j] == 0) continue;                                                               \
            blst_##P##_affine q = tab->t[(size_t)j * CZK_FB_HALF + (unsigned)abs(e[j]) - 1];       \
            if (e[j] < 0) CZK_FB_NEG_##P(&q);                                                      \
            blst_##P##_add_or_double_affine(&acc, &acc, &q);                                       \
        }                                                                                          \
        *out = acc;                                                                                \
    }

#define CZK_FB_NEG_p1(q) blst_fp_cneg(&(q)->y, &(q)->y, 1)
#define CZK_FB_NEG_p2(q) blst_fp2_cneg(&(q)->y, &(q)->y, 1)

/* Scalars per batch of czk_fb_P_batch. */
#ifndef CZK_FB_BATCH
#define CZK_FB_BATCH 1024u
#endif

/*
 * P = p1|p2, F = fp|fp2 (its coordinate field). Scratch for one batch:
 * czk_fb_P_scratch_new() (NULL on OOM) / free(). czk_fb_P_affine_add_batch
 * is the batched affine addition alone, acc[idx[t]] += q[t] for t < m (each
 * idx at most once), with d[t] = q[t].x − acc[idx[t]].x ≠ 0 given and pre
 * as scratch; czk_fb_P_batch(out, tab, k, n, scratch) sets out[i] = k[i]·G
 * for n ≤ CZK_FB_BATCH non-zero scalars (a zero k gives the all-zero
 * affine encoding of infinity).
 */
#define CZK_FIXED_BASE_BATCH_IMPL(P, F)                                                            \
    typedef struct czk_fb_##P##_scratch {                                                          \
        int16_t e[CZK_FB_BATCH][CZK_FB_WINDOWS];                                                   \
        bool inf[CZK_FB_BATCH];                                                                    \
        uint16_t idx[CZK_FB_BATCH];                                                                \
        blst_##F d[CZK_FB_BATCH], pre[CZK_FB_BATCH];                                               \
        blst_##P##_affine q[CZK_FB_BATCH];                                                         \
    } czk_fb_##P##_scratch;                                                                        \
                                                                                                   \
    static czk_fb_##P##_scratch *czk_fb_##P##_scratch_new(void) {                                  \
        return malloc(sizeof(czk_fb_##P##_scratch));                                               \
    }                                                                                              \
                                                                                                   \
    static bool czk_fb_##F##_is_zero(const blst_##F *a) {                                          \
        static const blst_##F zero;                                                                \
        return memcmp(a, &zero, sizeof zero) == 0;                                                 \
    }                                                                                              \
                                                                                                   \
    static void czk_fb_##P##_affine_add_batch(blst_##P##_affine *acc, const uint16_t *idx,         \
                                              const blst_##P##_affine *q, const blst_##F *d,       \
                                              blst_##F *pre, size_t m) {                           \
        if (m == 0) return;                                                                        \
        pre[0] = d[0];                                                                             \
        for (size_t t = 1; t < m; t++)                                                             \
            blst_##F##_mul(&pre[t], &pre[t - 1], &d[t]);                                           \
        blst_##F inv, dinv, lam, x3, t1;                                                           \
        blst_##F##_eucl_inverse(&inv, &pre[m - 1]);                                                \
        for (size_t t = m; t-- > 0;) {                                                             \
            if (t) {                                                                               \
                blst_##F##_mul(&dinv, &inv, &pre[t - 1]);                                          \
                blst_##F##_mul(&inv, &inv, &d[t]);                                                 \
            } else {                                                                               \
                dinv = inv;                                                                        \
            }                                                                                      \
            blst_##P##_affine *a = &acc[idx[t]];                                                   \
            blst_##F##_sub(&lam, &q[t].y, &a->y);                                                  \
            blst_##F##_mul(&lam, &lam, &dinv); /* (y2 − y1)/(x2 − x1) */                       \
            blst_##F##_sqr(&x3, &lam);                                                             \
            blst_##F##_sub(&x3, &x3, &a->x);                                                       \
            blst_##F##_sub(&x3, &x3, &q[t].x);                                                     \
            blst_##F##_sub(&t1, &a->x, &x3);                                                       \
            blst_##F##_mul(&t1, &t1, &lam);                                                        \
            blst_##F##_sub(&a->y, &t1, &a->y);                                                     \
            a->x = x3;                                                                             \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void czk_fb_##P##_batch(blst_##P##_affine *out, const czk_fb_##P *tab, const czk_fr *k, \
                                   size_t n, czk_fb_##P##_scratch *s) {                            \
        int32_t e32[CZK_FB_WINDOWS];                                                               \
        for (size_t i = 0; i < n; i++) {                                                           \
            blst_scalar sc;                                                                        \
            blst_scalar_from_fr(&sc, &k[i]);                                                       \
            czk_fb_recode(e32, sc.b);                                                              \
            for (unsigned j = 0; j < CZK_FB_WINDOWS; j++)                                          \
                s->e[i][j] = (int16_t)e32[j];                                                      \
            s->inf[i] = true;                                                                      \
        }                                                                                          \
        for (unsigned j = 0; j < CZK_FB_WINDOWS; j++) {                                            \
            const blst_##P##_affine *row = tab->t + (size_t)j * CZK_FB_HALF;                       \
            size_t m = 0;                                                                          \
            for (size_t i = 0; i < n; i++) {                                                       \
                int ej = s->e[i][j];                                                               \
                if (ej == 0) continue;                                                             \
                blst_##P##_affine q = row[(ej < 0 ? -ej : ej) - 1];                                \
                if (ej < 0) CZK_FB_NEG_##P(&q);                                                    \
                if (s->inf[i]) {                                                                   \
                    out[i] = q;                                                                    \
                    s->inf[i] = false;                                                             \
                    continue;                                                                      \
                }                                                                                  \
                blst_##F##_sub(&s->d[m], &q.x, &out[i].x);                                         \
                if (czk_fb_##F##_is_zero(&s->d[m])) { /* doubling, or P + (−P) */                \
                    blst_##P j1;                                                                   \
                    blst_##P##_from_affine(&j1, &out[i]);                                          \
                    blst_##P##_add_or_double_affine(&j1, &j1, &q);                                 \
                    s->inf[i] = blst_##P##_is_inf(&j1);                                            \
                    if (!s->inf[i]) blst_##P##_to_affine(&out[i], &j1);                            \
                    continue;                                                                      \
                }                                                                                  \
                s->q[m] = q;                                                                       \
                s->idx[m++] = (uint16_t)i;                                                         \
            }                                                                                      \
            czk_fb_##P##_affine_add_batch(out, s->idx, s->q, s->d, s->pre, m);                     \
        }                                                                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            if (s->inf[i]) memset(&out[i], 0, sizeof out[i]);                                      \
    }

#endif
