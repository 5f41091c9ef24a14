/*
 * Insertion of an element into a Merkle path level (storage-proofs-core
 * gadgets/insertion.rs; spec §4.7).
 *
 * pick(cond, a, b) allocates c = cond ? a : b and enforces
 * (b − a)·lc(cond) = b − c. insert_2 / insert_4 / insert_8 are upstream's
 * hand-optimised selection networks; the picks below are written as tables
 * in upstream's emission order, each row (cond, if-true, if-false) naming
 * bits, inputs (x = the element, b.. = the elements) or earlier picks.
 */
#include "boolean_internal.h"

czk_num czk_pick(czk_cs *cs, czk_bool cond, const czk_num *a, const czk_num *b) {
    czk_num r;
    r.value = cond.value ? a->value : b->value;
    r.var = czk_cs_alloc(cs, &r.value);
    if (czk_cs_records(cs)) {
        czk_lc la = CZK_LC_INIT, lb = CZK_LC_INIT, lc = CZK_LC_INIT;
        czk_lc_add_var(cs, &la, b->var);
        czk_lc_sub_var(cs, &la, a->var);
        czk_bool_lc(cs, &lb, cond, NULL);
        czk_lc_add_var(cs, &lc, b->var);
        czk_lc_sub_var(cs, &lc, r.var);
        czk_cs_push_ns(cs, "pick");
        czk_cs_enforce(cs, &la, &lb, &lc);
        czk_cs_pop_ns(cs);
        czk_lc_free(&la);
        czk_lc_free(&lb);
        czk_lc_free(&lc);
    }
    return r;
}

/*
 * Operand codes of the pick tables: S(i) is slot i of the working array:
 * slot 0 = x (the element), slots 1..2^n−1 = the elements, then the picks in
 * order. Conditions: B0..B2 = bits, NOR / AND = insert_8's nor(b0, b1) and
 * and(b0, b1).
 */
enum { B0, B1, B2, NOR, AND };

typedef struct pick_row {
    uint8_t cond, if_true, if_false;
} pick_row;

/* insert_2: [pick(b0, s, x), pick(b0, x, s)]; slots x=0 s=1. */
static const pick_row ins2[] = {{B0, 1, 0}, {B0, 0, 1}};
static const uint8_t ins2_out[] = {2, 3};

/* insert_4, slots x=0 b=1 c=2 d=3, picks from 4. */
static const pick_row ins4[] = {
    {B0, 1, 0},  /* 4 p0_x0 */
    {B1, 1, 4},  /* 5 p0    */
    {B0, 0, 1},  /* 6 p1_x0 */
    {B1, 2, 6},  /* 7 p1    */
    {B0, 3, 0},  /* 8 p2_x1 */
    {B1, 8, 2},  /* 9 p2    */
    {B0, 0, 3},  /* 10 p3_x1 */
    {B1, 10, 3}, /* 11 p3  */
};
static const uint8_t ins4_out[] = {5, 7, 9, 11};

/* insert_8, slots x=0 b=1 c=2 d=3 e=4 f=5 g=6 h=7, picks from 8. */
static const pick_row ins8[] = {
    {NOR, 0, 1}, /* 8 p0_xx0 */
    {B2, 1, 8},  /* 9 p0 */
    {B0, 0, 1},  /* 10 p1_x00 */
    {B1, 2, 10}, /* 11 p1_xx0 */
    {B2, 2, 11}, /* 12 p1 */
    {B0, 3, 0},  /* 13 p2_x10 */
    {B1, 13, 2}, /* 14 p2_xx0 */
    {B2, 3, 14}, /* 15 p2 */
    {AND, 0, 3}, /* 16 p3_xx0 */
    {B2, 4, 16}, /* 17 p3 */
    {NOR, 0, 5}, /* 18 p4_xx1 */
    {B2, 18, 4}, /* 19 p4 */
    {B0, 0, 5},  /* 20 p5_x01 */
    {B1, 6, 20}, /* 21 p5_xx1 */
    {B2, 21, 5}, /* 22 p5 */
    {B0, 7, 0},  /* 23 p6_x11 */
    {B1, 23, 6}, /* 24 p6_xx1 */
    {B2, 24, 6}, /* 25 p6 */
    {AND, 0, 7}, /* 26 p7_xx1 */
    {B2, 26, 7}, /* 27 p7 */
};
static const uint8_t ins8_out[] = {9, 12, 15, 17, 19, 22, 25, 27};

czk_status czk_insert(czk_cs *cs, const czk_num *element, const czk_bool *bits, unsigned nbits,
                      const czk_num *elements, czk_num *out) {
    const pick_row *rows;
    const uint8_t *outs;
    unsigned nrows;
    switch (nbits) {
    case 1:
        rows = ins2, nrows = 2, outs = ins2_out;
        break;
    case 2:
        rows = ins4, nrows = 8, outs = ins4_out;
        break;
    case 3:
        rows = ins8, nrows = 20, outs = ins8_out;
        break;
    default:
        return czk_cs_fail(cs, CZK_ERR_UNSUPPORTED,
                           "insert: %u index bits, only 1, 2, 3 (arity 2, 4, 8)", nbits);
    }
    unsigned size = 1u << nbits;
    czk_num slot[28];
    czk_bool cond[5];
    slot[0] = *element;
    for (unsigned i = 1; i < size; i++)
        slot[i] = elements[i - 1];
    for (unsigned i = 0; i < nbits; i++)
        cond[i] = bits[i];
    if (nbits == 3) {
        if (bits[0].kind != CZK_BOOL_IS || bits[1].kind != CZK_BOOL_IS)
            return czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                               "insert_8: bits must be allocated and not negated");
        cond[NOR] = czk_bit_nor(cs, bits[0], bits[1]);
        cond[AND] = czk_bit_and(cs, bits[0], bits[1]);
    }
    for (unsigned r = 0; r < nrows; r++)
        slot[size + r] =
            czk_pick(cs, cond[rows[r].cond], &slot[rows[r].if_true], &slot[rows[r].if_false]);
    for (unsigned i = 0; i < size; i++)
        out[i] = slot[outs[i]];
    return czk_cs_status(cs);
}

#define SELECT_MAX_BITS 10u

czk_num czk_select(czk_cs *cs, const czk_num *from, const czk_bool *bits, unsigned n) {
    if (n > SELECT_MAX_BITS) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "select: %u index bits, at most %u", n,
                    SELECT_MAX_BITS);
        return from[0];
    }
    if (n == 0) return from[0];
    czk_num state[1u << (SELECT_MAX_BITS - 1)];
    const czk_num *cur = from;
    unsigned half = 1u << (n - 1);
    for (unsigned i = 0; i < n; i++, half >>= 1) {
        czk_bool bit = bits[n - 1 - i]; /* most significant first */
        for (unsigned j = 0; j < half; j++) {
            czk_cs_push_ns(cs, "pick %u, %u", i, j);
            /* state[j] may overwrite cur[j] (same array after the first level): read both first */
            czk_num a = cur[half + j], b = cur[j];
            state[j] = czk_pick(cs, bit, &a, &b);
            czk_cs_pop_ns(cs);
        }
        cur = state;
    }
    return state[0];
}
