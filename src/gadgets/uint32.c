/*
 * UInt32 (bellpepper gadgets/uint32.rs) and MultiEq (gadgets/multieq.rs);
 * spec §4.4.
 *
 * A czk_u32 is 32 czk_bools, least significant first, plus the word's value.
 * rotr / shr only rewire; xor, ch and maj go bit by bit (bit 0 first) through
 * the Boolean gadgets; addmany allocates the k bits of the full sum and hands
 * the equality Σ operands = Σ 2^i·r_i to a MultiEq.
 *
 * MultiEq packs several such equalities into one constraint lhs·ONE = rhs,
 * each shifted by the bits already used, while they fit under Fr::CAPACITY
 * (254 bits). addmany writes its terms straight into the accumulator with
 * coefficients 2^(bits_used + i): the same field elements, after merging, as
 * bellperson's lhs + 2^bits_used·(Σ 2^i·lc(bit)), without scaling a copy.
 * The flush happens inside enforce_equal, i.e. after the new result bits'
 * boolean constraints, as upstream.
 */
#include "boolean_internal.h"

#include <string.h>

void czk_u32_constant(czk_u32 *out, uint32_t value) {
    for (unsigned i = 0; i < 32; i++)
        out->bits[i] = czk_bool_constant((value >> i) & 1);
    out->value = value;
}

void czk_u32_alloc(czk_cs *cs, czk_u32 *out, uint32_t value) {
    czk_gs s = CZK_GS_INIT;
    for (unsigned i = 0; i < 32; i++)
        out->bits[i] = czk_gb_alloc(cs, &s, (value >> i) & 1);
    out->value = value;
    czk_gs_free(&s);
}

void czk_u32_from_bits_be(czk_u32 *out, const czk_bool bits[32]) {
    czk_u32 t;
    t.value = 0;
    for (unsigned i = 0; i < 32; i++) {
        t.bits[i] = bits[31 - i];
        t.value |= (uint32_t)(bits[31 - i].value & 1) << i;
    }
    *out = t;
}

void czk_u32_to_bits_be(const czk_u32 *x, czk_bool bits[32]) {
    czk_bool t[32];
    for (unsigned i = 0; i < 32; i++)
        t[i] = x->bits[31 - i];
    memcpy(bits, t, sizeof t);
}

void czk_u32_rotr(czk_u32 *out, const czk_u32 *x, unsigned by) {
    by %= 32;
    czk_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.bits[i] = x->bits[(i + by) % 32];
    t.value = by ? (x->value >> by) | (x->value << (32 - by)) : x->value;
    *out = t;
}

void czk_u32_shr(czk_u32 *out, const czk_u32 *x, unsigned by) {
    by %= 32;
    czk_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.bits[i] = i + by < 32 ? x->bits[i + by] : czk_bool_constant(false);
    t.value = x->value >> by;
    *out = t;
}

void czk_gu_xor(czk_cs *cs, czk_gs *s, czk_u32 *out, const czk_u32 *a, const czk_u32 *b) {
    czk_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.bits[i] = czk_gb_xor(cs, s, a->bits[i], b->bits[i]);
    t.value = a->value ^ b->value;
    *out = t;
}

void czk_gu_ch(czk_cs *cs, czk_gs *s, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
               const czk_u32 *c) {
    czk_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.bits[i] = czk_gb_ch(cs, s, a->bits[i], b->bits[i], c->bits[i]);
    t.value = (a->value & b->value) ^ (~a->value & c->value);
    *out = t;
}

void czk_gu_maj(czk_cs *cs, czk_gs *s, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
                const czk_u32 *c) {
    czk_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.bits[i] = czk_gb_maj(cs, s, a->bits[i], b->bits[i], c->bits[i]);
    t.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    *out = t;
}

void czk_u32_xor(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b) {
    czk_gs s = CZK_GS_INIT;
    czk_gu_xor(cs, &s, out, a, b);
    czk_gs_free(&s);
}

void czk_u32_sha256_ch(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
                       const czk_u32 *c) {
    czk_gs s = CZK_GS_INIT;
    czk_gu_ch(cs, &s, out, a, b, c);
    czk_gs_free(&s);
}

void czk_u32_sha256_maj(czk_cs *cs, czk_u32 *out, const czk_u32 *a, const czk_u32 *b,
                        const czk_u32 *c) {
    czk_gs s = CZK_GS_INIT;
    czk_gu_maj(cs, &s, out, a, b, c);
    czk_gs_free(&s);
}

/* ---- MultiEq ---- */

/* Emits lhs·ONE = rhs and resets the accumulator (bellperson accumulate()). */
static void multieq_flush(czk_cs *cs, czk_multieq *m) {
    czk_lc_clear(&m->one);
    czk_lc_add_var(cs, &m->one, CZK_VAR_ONE);
    czk_cs_push_ns(cs, "multieq %u", m->ops);
    czk_cs_enforce(cs, &m->lhs, &m->one, &m->rhs);
    czk_cs_pop_ns(cs);
    czk_lc_clear(&m->lhs);
    czk_lc_clear(&m->rhs);
    m->bits_used = 0;
    m->ops++;
}

/* Makes room for num_bits more (flushing first if 254 ≤ bits_used + num_bits). */
static void multieq_reserve(czk_cs *cs, czk_multieq *m, unsigned num_bits) {
    if (CZK_FR_CAPACITY <= m->bits_used + num_bits) multieq_flush(cs, m);
}

void czk_multieq_enforce_equal(czk_cs *cs, czk_multieq *m, unsigned num_bits, const czk_lc *lhs,
                               const czk_lc *rhs) {
    if (!czk_cs_records(cs)) return;
    if (num_bits == 0 || num_bits >= CZK_FR_CAPACITY) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "MultiEq: %u bits, must be in 1..253", num_bits);
        return;
    }
    multieq_reserve(cs, m, num_bits);
    const czk_fr *k = czk_fr_pow2(m->bits_used);
    czk_lc_add_lc(cs, &m->lhs, lhs, k);
    czk_lc_add_lc(cs, &m->rhs, rhs, k);
    m->bits_used += num_bits;
}

void czk_multieq_finish(czk_cs *cs, czk_multieq *m) {
    if (czk_cs_records(cs) && m->bits_used > 0) multieq_flush(cs, m);
    czk_lc_free(&m->lhs);
    czk_lc_free(&m->rhs);
    czk_lc_free(&m->one);
    m->bits_used = 0;
}

/* ---- addmany ---- */

void czk_gu_addmany(czk_cs *cs, czk_gs *s, czk_multieq *m, const czk_u32 *const *ops, unsigned n,
                    czk_u32 *out) {
    if (n < 2 || n > 10) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "UInt32::addmany: %u operands, must be 2..10", n);
        czk_u32_constant(out, 0);
        return;
    }
    bool all_const = true;
    uint64_t sum = 0;
    for (unsigned j = 0; j < n; j++) {
        sum += ops[j]->value;
        for (unsigned i = 0; i < 32 && all_const; i++)
            all_const = ops[j]->bits[i].kind == CZK_BOOL_CONST;
    }
    if (all_const) {
        czk_u32_constant(out, (uint32_t)sum);
        return;
    }
    unsigned k = czk_addmany_bits(n);
    czk_bool r[40];
    for (unsigned i = 0; i < k; i++)
        r[i] = czk_gb_alloc(cs, s, (sum >> i) & 1);
    if (czk_cs_records(cs)) {
        multieq_reserve(cs, m, k);
        unsigned off = m->bits_used;
        for (unsigned j = 0; j < n; j++)
            for (unsigned i = 0; i < 32; i++)
                czk_bool_lc(cs, &m->lhs, ops[j]->bits[i], czk_fr_pow2(off + i));
        for (unsigned i = 0; i < k; i++)
            czk_lc_add(cs, &m->rhs, r[i].var, czk_fr_pow2(off + i));
        m->bits_used += k;
    }
    memcpy(out->bits, r, sizeof out->bits);
    out->value = (uint32_t)sum;
}

void czk_u32_addmany(czk_cs *cs, czk_multieq *m, const czk_u32 *ops, unsigned n, czk_u32 *out) {
    const czk_u32 *p[10];
    if (n < 2 || n > 10) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "UInt32::addmany: %u operands, must be 2..10", n);
        czk_u32_constant(out, 0);
        return;
    }
    for (unsigned j = 0; j < n; j++)
        p[j] = &ops[j];
    czk_gs s = CZK_GS_INIT;
    czk_gu_addmany(cs, &s, m, p, n, out);
    czk_gs_free(&s);
}
