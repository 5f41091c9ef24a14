/*
 * Fixed-base scalar multiplication: k·G for many k and one base G, by a
 * table of signed-digit windows (a comb without doublings).
 *
 * With window w and half = 2^(w−1), the table holds d·2^(w·j)·G for every
 * window j and d in [1, half]. A scalar is recoded into digits
 * k = Σ_j e_j·2^(w·j) with e_j in [−half, half) (carry into the next
 * window), so k·G = Σ_j sign(e_j)·T[j][|e_j|]: one mixed addition per
 * window and no doubling. w = 10 gives 27 windows of 512 points (1.3 MB for
 * G1, 2.6 MB for G2) and 27 additions per multiplication, against ~255
 * doublings and ~50 additions for a general one. Not constant time: for
 * test keys only.
 *
 * One body serves G1 and G2 (CZK_FIXED_BASE_IMPL below, instantiated in
 * setup.c).
 */
#ifndef CZK_GROTH16_FIXED_BASE_H
#define CZK_GROTH16_FIXED_BASE_H

#include "czk/ec.h"
#include "czk/pool.h"

#include <stdlib.h>

#define CZK_FB_WBITS 10u
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
 * possible); czk_fb_P_mul(out, tab, scalar) = scalar·base; czk_fb_P_many
 * computes n products into affine outputs on the pool.
 */
#define CZK_FIXED_BASE_IMPL(P)                                                                     \
    typedef struct czk_fb_##P {                                                                    \
        blst_##P##_affine *t; /* t[j·half + d − 1] = d·2^(w·j)·G */                          \
    } czk_fb_##P;                                                                                  \
                                                                                                   \
    static czk_status czk_fb_##P##_build(czk_fb_##P *tab, const blst_##P *base, czk_err *err) {    \
        size_t n = (size_t)CZK_FB_WINDOWS * CZK_FB_HALF;                                           \
        tab->t = malloc(n * sizeof *tab->t);                                                       \
        blst_##P *row = malloc(CZK_FB_HALF * sizeof *row);                                         \
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
    static void czk_fb_##P##_free(czk_fb_##P *tab) {                                               \
        free(tab->t);                                                                              \
        tab->t = NULL;                                                                             \
    }                                                                                              \
                                                                                                   \
    static void czk_fb_##P##_mul(blst_##P *out, const czk_fb_##P *tab, const czk_fr *k) {          \
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

#endif
