/* Helpers shared by the gadget tests in tests/gadgets. */
#ifndef CZK_TESTS_GADGETS_GTEST_H
#define CZK_TESTS_GADGETS_GTEST_H

#include "support.h"

#include <stdio.h>
#include <string.h>

#include "czk/gadgets.h"

/* Constraints the circuit synthesized (czk_cs_run appends one per input). */
static inline uint64_t gt_synthesized(const czk_cs *cs) {
    return czk_cs_num_constraints(cs) - czk_cs_num_inputs(cs);
}

/* Runs fn in `mode` and expects `want` from czk_cs_run. */
static inline czk_cs *gt_run(czk_cs_mode mode, czk_circuit_fn fn, void *ctx, czk_status want) {
    czk_err err;
    czk_cs *cs = czk_cs_create(mode, NULL, &err);
    assert_non_null(cs);
    czk_status st = czk_cs_run(cs, fn, ctx, &err);
    if (st != want)
        fail_msg("czk_cs_run: %s (%s), expected %s", czk_status_name(st), err.msg,
                 czk_status_name(want));
    return cs;
}

/* A coefficient as text: "", "-", "<k>*", "-<k>*" for |k| ≤ 4096, or
 * "2^<k>*" / "-2^<k>*". */
static inline void gt_coeff(char *buf, size_t len, const czk_fr *c) {
    czk_fr k, neg;
    for (uint64_t v = 1; v <= 4096; v++) {
        czk_fr_from_u64(&k, v);
        czk_fr_neg(&neg, &k);
        const char *sign = czk_fr_eq(c, &k) ? "" : czk_fr_eq(c, &neg) ? "-" : NULL;
        if (!sign) continue;
        if (v == 1)
            snprintf(buf, len, "%s", sign);
        else
            snprintf(buf, len, "%s%llu*", sign, (unsigned long long)v);
        return;
    }
    for (unsigned e = 13; e < 256; e++) {
        czk_fr_neg(&neg, czk_fr_pow2(e));
        const char *sign = czk_fr_eq(c, czk_fr_pow2(e)) ? "" : czk_fr_eq(c, &neg) ? "-" : NULL;
        if (sign) {
            snprintf(buf, len, "%s2^%u*", sign, e);
            return;
        }
    }
    snprintf(buf, len, "?*");
}

/*
 * Row k of matrix m (0 = A, 1 = B, 2 = C) as text: terms in column order,
 * "i<j>" for input j (i0 = ONE), "a<j>" for aux j, joined by " + ", e.g.
 * "i0 + -a3"; "0" for an empty row.
 */
static inline const char *gt_row(const czk_shape *s, int m, uint64_t k, char *buf, size_t len) {
    const czk_csr *csr = &s->m[m];
    size_t off = 0;
    buf[0] = 0;
    for (uint64_t t = csr->row_ptr[k]; t < csr->row_ptr[k + 1]; t++) {
        char c[32];
        gt_coeff(c, sizeof c, &s->coeffs[csr->coeff[t]]);
        uint32_t col = csr->col[t];
        bool in = col < s->num_inputs;
        off += (size_t)snprintf(buf + off, len - off, "%s%s%c%u", off ? " + " : "", c,
                                in ? 'i' : 'a', in ? col : col - s->num_inputs);
        if (off >= len) break;
    }
    if (!off) snprintf(buf, len, "0");
    return buf;
}

/* The coefficient of column col in row k of matrix m; false if absent. */
static inline bool gt_coeff_of(const czk_shape *s, int m, uint64_t k, uint32_t col, czk_fr *out) {
    const czk_csr *csr = &s->m[m];
    for (uint64_t t = csr->row_ptr[k]; t < csr->row_ptr[k + 1]; t++)
        if (csr->col[t] == col) {
            *out = s->coeffs[csr->coeff[t]];
            return true;
        }
    return false;
}

/* Asserts constraint k is exactly A·B = C as given by gt_row's text. */
static inline void gt_assert_row(const czk_shape *s, uint64_t k, const char *a, const char *b,
                                 const char *c) {
    char buf[8192];
    const char *want[3] = {a, b, c};
    for (int m = 0; m < 3; m++) {
        gt_row(s, m, k, buf, sizeof buf);
        if (strcmp(buf, want[m]))
            fail_msg("constraint %llu %c: got \"%s\", expected \"%s\"", (unsigned long long)k,
                     "ABC"[m], buf, want[m]);
    }
}

/* Records fn and returns its shape. */
static inline czk_shape *gt_shape(czk_circuit_fn fn, void *ctx) {
    czk_cs *cs = gt_run(CZK_CS_RECORD, fn, ctx, CZK_OK);
    czk_shape *s;
    czk_err err;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    return s;
}

#endif
