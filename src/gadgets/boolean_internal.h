/*
 * Declarations shared by src/gadgets/{boolean,uint32,sha256,...}.c (not public).
 *
 * The public per-bit gadgets create their linear combinations afresh on each
 * call; the bulk gadgets (UInt32 ops, SHA-256) pass one czk_gs scratch down
 * instead, so that recording a SHA-256 block allocates no memory per
 * constraint. In WITNESS mode no scratch is touched (it may be NULL).
 */
#ifndef CZK_GADGETS_BOOLEAN_INTERNAL_H
#define CZK_GADGETS_BOOLEAN_INTERNAL_H

#include "czk/gadgets.h"

/* Scratch linear combinations for one constraint A·B = C. */
typedef struct czk_gs {
    czk_lc a, b, c;
} czk_gs;

#define CZK_GS_INIT                                                                                \
    { CZK_LC_INIT, CZK_LC_INIT, CZK_LC_INIT }

static inline void czk_gs_free(czk_gs *s) {
    czk_lc_free(&s->a);
    czk_lc_free(&s->b);
    czk_lc_free(&s->c);
}

/* Clears the three lcs of s. */
static inline void czk_gs_clear(czk_gs *s) {
    czk_lc_clear(&s->a);
    czk_lc_clear(&s->b);
    czk_lc_clear(&s->c);
}

/* A new aux holding 0 or 1 (no constraint). */
static inline czk_var czk_alloc_bitval(czk_cs *cs, bool v) {
    return czk_cs_alloc(cs, v ? &czk_fr_one : &czk_fr_zero);
}

/* The Boolean gadgets with an explicit scratch (s may be NULL when
 * !czk_cs_records(cs)). Same semantics as the public ones. */
czk_bool czk_gb_alloc(czk_cs *cs, czk_gs *s, bool value);
czk_bool czk_gb_xor(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b);
czk_bool czk_gb_and(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b);
czk_bool czk_gb_ch(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b, czk_bool c);
czk_bool czk_gb_maj(czk_cs *cs, czk_gs *s, czk_bool a, czk_bool b, czk_bool c);

/* UInt32 ops with an explicit scratch. ops is an array of n pointers. */
void czk_gu_xor(czk_cs *cs, czk_gs *s, czk_u32 *out, const czk_u32 *a, const czk_u32 *b);
void czk_gu_ch(czk_cs *cs, czk_gs *s, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
               const czk_u32 *c);
void czk_gu_maj(czk_cs *cs, czk_gs *s, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
                const czk_u32 *c);
void czk_gu_addmany(czk_cs *cs, czk_gs *s, czk_multieq *m, const czk_u32 *const *ops, unsigned n,
                    czk_u32 *out);

/* bitlen(n·(2^32 − 1)): the result bits of an n-operand addmany. */
static inline unsigned czk_addmany_bits(unsigned n) {
    uint64_t max = (uint64_t)n * 0xffffffffull;
    unsigned k = 0;
    while (max) {
        k++;
        max >>= 1;
    }
    return k;
}

#endif
