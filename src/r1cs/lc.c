/*
 * Linear combinations: an unsorted list of (variable, coefficient) terms that
 * gadgets append to; czk_lc_normalize() brings one into the canonical form of
 * bellpepper-core's LinearCombination (one term per variable, inputs before
 * aux, each by index) and, unlike bellpepper, also drops terms whose merged
 * coefficient is zero: bellpepper keeps them but every consumer
 * (eval_with_trackers, the generator) skips them, so the two are equivalent.
 *
 * Also here: the constants 2^k (k < 256) and −1 that the gadgets use.
 */
#include "r1cs_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* −1 = r − R mod r in Montgomery form (Python: (r-1)*2**256 % r). */
const czk_fr czk_fr_minus_one = {
    {0xfffffffd00000003ull, 0xfb38ec08fffb13fcull, 0x99ad88181ce5880full, 0x5bc8f5f97cd877d8ull}};

static czk_fr pow2_table[256];
static pthread_once_t pow2_once = PTHREAD_ONCE_INIT;

static void pow2_init(void) {
    pow2_table[0] = czk_fr_one;
    for (unsigned k = 1; k < 256; k++)
        czk_fr_add(&pow2_table[k], &pow2_table[k - 1], &pow2_table[k - 1]);
}

const czk_fr *czk_fr_pow2(unsigned k) {
    if (k >= 256) return NULL;
    pthread_once(&pow2_once, pow2_init);
    return &pow2_table[k];
}

void czk_lc_free(czk_lc *lc) {
    free(lc->terms);
    lc->terms = NULL;
    lc->len = lc->cap = 0;
}

bool czk_lc_reserve(czk_cs *cs, czk_lc *lc, uint32_t need) {
    if (need <= lc->cap) return true;
    uint64_t cap = lc->cap ? (uint64_t)lc->cap * 2 : 8;
    if (cap < need) cap = need;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    czk_term *t = realloc(lc->terms, cap * sizeof *t);
    if (!t) {
        czk_cs_oom(cs, "linear combination");
        return false;
    }
    lc->terms = t;
    lc->cap = (uint32_t)cap;
    return true;
}

void czk_lc_add(czk_cs *cs, czk_lc *lc, czk_var v, const czk_fr *coeff) {
    if (cs && czk_cs_status(cs) != CZK_OK) return;
    if (lc->len == UINT32_MAX) {
        if (cs) czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "linear combination has 2^32 - 1 terms");
        return;
    }
    if (lc->len == lc->cap && !czk_lc_reserve(cs, lc, lc->len + 1)) return;
    czk_term *t = &lc->terms[lc->len++];
    t->var = v;
    t->reserved = 0;
    t->coeff = coeff ? *coeff : czk_fr_one;
}

void czk_lc_add_var(czk_cs *cs, czk_lc *lc, czk_var v) {
    czk_lc_add(cs, lc, v, &czk_fr_one);
}

void czk_lc_sub_var(czk_cs *cs, czk_lc *lc, czk_var v) {
    czk_lc_add(cs, lc, v, &czk_fr_minus_one);
}

void czk_lc_add_lc(czk_cs *cs, czk_lc *dst, const czk_lc *src, const czk_fr *scale) {
    if (cs && czk_cs_status(cs) != CZK_OK) return;
    uint32_t n = src->len; /* dst may be src: read only the original terms */
    if ((uint64_t)dst->len + n > UINT32_MAX) {
        if (cs) czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "linear combination has 2^32 - 1 terms");
        return;
    }
    if (!czk_lc_reserve(cs, dst, dst->len + n)) return;
    const czk_term *s = src->terms; /* valid after the reserve even if dst == src */
    czk_term *d = dst->terms + dst->len;
    bool plain = !scale || czk_fr_is_one(scale);
    for (uint32_t i = 0; i < n; i++) {
        d[i].var = s[i].var;
        d[i].reserved = 0;
        if (plain)
            d[i].coeff = s[i].coeff;
        else
            czk_fr_mul(&d[i].coeff, &s[i].coeff, scale);
    }
    dst->len += n;
}

void czk_lc_copy(czk_cs *cs, czk_lc *dst, const czk_lc *src) {
    if (dst == src) return;
    dst->len = 0;
    czk_lc_add_lc(cs, dst, src, NULL);
}

void czk_lc_merge(czk_cs *cs, czk_lc *dst, const czk_lc *src, const czk_fr *scale) {
    if (cs && czk_cs_status(cs) != CZK_OK) return;
    if (scale && czk_fr_is_zero(scale)) return;
    uint32_t nd = dst->len, ns = src->len;
    if ((uint64_t)nd + ns > UINT32_MAX) {
        if (cs) czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "linear combination has 2^32 - 1 terms");
        return;
    }
    if (!czk_lc_reserve(cs, dst, nd + ns)) return;
    bool plain = !scale || czk_fr_is_one(scale);
    czk_term *d = dst->terms;
    const czk_term *s = src->terms;
    /* From the ends: the write position w stays above i (w - i = j + 1 + merged pairs),
     * so no unread term of dst is overwritten. */
    uint64_t i = nd, j = ns, w = (uint64_t)nd + ns;
    while (j > 0) {
        const czk_term *y = &s[j - 1];
        uint32_t ky = czk_var_key(y->var);
        if (i > 0 && czk_var_key(d[i - 1].var) > ky) {
            d[--w] = d[--i];
            continue;
        }
        czk_fr c;
        if (plain)
            c = y->coeff;
        else
            czk_fr_mul(&c, &y->coeff, scale);
        j--;
        if (i > 0 && d[i - 1].var == y->var) {
            czk_fr_add(&c, &c, &d[--i].coeff);
            if (czk_fr_is_zero(&c)) continue;
        }
        czk_term *t = &d[--w];
        t->var = y->var;
        t->reserved = 0;
        t->coeff = c;
    }
    /* dst's remaining head [0, i) is in place already; close the gap after it. */
    uint64_t tail = (uint64_t)nd + ns - w;
    if (w > i) memmove(d + i, d + w, tail * sizeof *d);
    dst->len = (uint32_t)(i + tail);
}

static int term_cmp(const void *x, const void *y) {
    uint32_t a = czk_var_key(((const czk_term *)x)->var),
             b = czk_var_key(((const czk_term *)y)->var);
    return (a > b) - (a < b);
}

void czk_lc_normalize(czk_lc *lc) {
    uint32_t n = lc->len;
    czk_term *t = lc->terms;
    bool sorted = true;
    for (uint32_t i = 1; i < n && sorted; i++)
        sorted = czk_var_key(t[i - 1].var) <= czk_var_key(t[i].var);
    if (!sorted) {
        /* Gadgets' lcs are nearly sorted (e.g. Σ 2^i·bit_i − v with v allocated
         * before the bits): insertion sort, which costs n + inversions, with a
         * budget of moves; past it, qsort (not stable, which does not matter:
         * equal variables are summed). */
        uint64_t budget = 8 * (uint64_t)n + 256;
        for (uint32_t i = 1; i < n && budget; i++) {
            czk_term x = t[i];
            uint32_t k = czk_var_key(x.var), j = i;
            while (j > 0 && czk_var_key(t[j - 1].var) > k && budget) {
                t[j] = t[j - 1];
                j--;
                budget--;
            }
            t[j] = x;
        }
        if (!budget) qsort(t, n, sizeof *t, term_cmp);
    }
    uint32_t out = 0;
    for (uint32_t i = 0; i < n;) {
        czk_term acc = t[i];
        uint32_t j = i + 1;
        while (j < n && t[j].var == acc.var)
            czk_fr_add(&acc.coeff, &acc.coeff, &t[j++].coeff);
        if (!czk_fr_is_zero(&acc.coeff)) t[out++] = acc;
        i = j;
    }
    lc->len = out;
}
