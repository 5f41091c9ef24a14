/*
 * SHA-256 (bellpepper gadgets/sha256.rs; spec §4.5).
 *
 * One compression body (sha256_body.h) runs on two word types.
 *
 * RECORD / CHECK: czk_u32, 32 Booleans with their linear combinations; every
 * bit goes through the Boolean gadgets (constant folding included) and every
 * addition through UInt32::addmany and one MultiEq per compression.
 *
 * WITNESS: a word is (v, c, n): v the 32 bit values, c the constant mask, n
 * the negation mask (Boolean::Not; zero on constant bits). Which aux a bit op
 * allocates depends only on c (and on the constants' values), and the aux
 * value only on v and n, so whole words are processed at once:
 *   xor     allocates where neither bit is constant, value = variable values
 *           xored; result v = v1 ^ v2, c = c1 & c2, n = n1 ^ n2 where both
 *           are variables, flipped by a constant true on the other side;
 *   ch/maj  with no constant bit: the general case at every bit (maj also
 *           allocates b∧c after each maj bit); otherwise the bits go one by
 *           one through the Boolean gadgets (first rounds after a constant IV);
 *   addmany all constant: a constant; else k bits of the full sum.
 * Only the aux values are written, in R1CS order; tests compare the
 * assignment with CHECK mode's on mixed constant / Is / Not inputs.
 */
#include "boolean_internal.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t czk_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

const uint32_t czk_sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* ---- RECORD / CHECK: czk_u32 ---- */

typedef struct rec_ctx {
    czk_cs *cs;
    czk_gs s;
    czk_multieq m;
} rec_ctx;

static void rec_constant(czk_u32 *o, uint32_t v) {
    czk_u32_constant(o, v);
}
static void rec_rotr(czk_u32 *o, const czk_u32 *x, unsigned by) {
    czk_u32_rotr(o, x, by);
}
static void rec_shr(czk_u32 *o, const czk_u32 *x, unsigned by) {
    czk_u32_shr(o, x, by);
}
static void rec_xor(rec_ctx *cx, czk_u32 *o, const czk_u32 *a, const czk_u32 *b) {
    czk_gu_xor(cx->cs, &cx->s, o, a, b);
}
static void rec_ch(rec_ctx *cx, czk_u32 *o, const czk_u32 *a, const czk_u32 *b, const czk_u32 *c) {
    czk_gu_ch(cx->cs, &cx->s, o, a, b, c);
}
static void rec_maj(rec_ctx *cx, czk_u32 *o, const czk_u32 *a, const czk_u32 *b, const czk_u32 *c) {
    czk_gu_maj(cx->cs, &cx->s, o, a, b, c);
}
static void rec_addmany(rec_ctx *cx, czk_u32 *o, const czk_u32 *const *ops, unsigned n) {
    czk_gu_addmany(cx->cs, &cx->s, &cx->m, ops, n, o);
}
static void rec_push(rec_ctx *cx, const char *fmt, unsigned i) {
    czk_cs_push_ns(cx->cs, fmt, i);
}
static void rec_pop(rec_ctx *cx) {
    czk_cs_pop_ns(cx->cs);
}
static void rec_finish(rec_ctx *cx) {
    czk_multieq_finish(cx->cs, &cx->m);
    cx->m = (czk_multieq)CZK_MULTIEQ_INIT;
}

#define W czk_u32
#define CTX rec_ctx
#define OP(name) rec_##name
#include "sha256_body.h"
#undef W
#undef CTX
#undef OP

/* ---- WITNESS: words of values and masks ---- */

typedef struct wword {
    uint32_t v;   /* values of the 32 Booleans */
    uint32_t c;   /* constant bits */
    uint32_t n;   /* Not bits (zero where constant) */
    czk_var base; /* an addmany result (c = 0): the variable of bit 0; bit i is base + i */
} wword;

typedef struct wit_ctx {
    czk_cs *cs;
} wit_ctx;

/* Allocates, in bit order, the bits of `vals` selected by `mask`. */
static inline void alloc_masked(czk_cs *cs, uint32_t mask, uint32_t vals) {
    if (mask == 0xffffffffu) {
        for (unsigned i = 0; i < 32; i++)
            czk_alloc_bitval(cs, (vals >> i) & 1);
        return;
    }
    while (mask) {
        unsigned i = (unsigned)__builtin_ctz(mask);
        czk_alloc_bitval(cs, (vals >> i) & 1);
        mask &= mask - 1;
    }
}

static void wit_constant(wword *o, uint32_t v) {
    o->v = v;
    o->c = 0xffffffffu;
    o->n = 0;
    o->base = 0;
}

static inline uint32_t rotr32(uint32_t x, unsigned by) {
    by &= 31;
    return by ? (x >> by) | (x << (32 - by)) : x;
}

static void wit_rotr(wword *o, const wword *x, unsigned by) {
    wword t = {rotr32(x->v, by), rotr32(x->c, by), rotr32(x->n, by), 0};
    *o = t;
}

static void wit_shr(wword *o, const wword *x, unsigned by) {
    by &= 31;
    wword t = {x->v >> by, by ? (x->c >> by) | (0xffffffffu << (32 - by)) : x->c, x->n >> by, 0};
    *o = t;
}

static void wit_xor(wit_ctx *cx, wword *o, const wword *x, const wword *y) {
    alloc_masked(cx->cs, ~x->c & ~y->c, (x->v ^ x->n) ^ (y->v ^ y->n));
    wword t;
    t.v = x->v ^ y->v;
    t.c = x->c & y->c;
    t.n = (x->n ^ y->n ^ (x->v & x->c) ^ (y->v & y->c)) & ~t.c;
    t.base = 0;
    *o = t;
}

static inline czk_bool wbit(const wword *x, unsigned i) {
    czk_bool b = {0, CZK_BOOL_IS, (uint8_t)((x->v >> i) & 1), 0};
    if ((x->c >> i) & 1)
        b.kind = CZK_BOOL_CONST;
    else if ((x->n >> i) & 1)
        b.kind = CZK_BOOL_NOT;
    return b;
}

static inline void set_wbit(wword *x, unsigned i, czk_bool b) {
    x->v |= (uint32_t)(b.value & 1) << i;
    if (b.kind == CZK_BOOL_CONST) x->c |= 1u << i;
    if (b.kind == CZK_BOOL_NOT) x->n |= 1u << i;
}

static void wit_ch(wit_ctx *cx, wword *o, const wword *a, const wword *b, const wword *c) {
    wword t = {0, 0, 0, 0};
    if ((a->c | b->c | c->c) == 0) {
        t.v = (a->v & b->v) ^ (~a->v & c->v);
        alloc_masked(cx->cs, 0xffffffffu, t.v);
    } else {
        for (unsigned i = 0; i < 32; i++)
            set_wbit(&t, i, czk_gb_ch(cx->cs, NULL, wbit(a, i), wbit(b, i), wbit(c, i)));
    }
    *o = t;
}

static void wit_maj(wit_ctx *cx, wword *o, const wword *a, const wword *b, const wword *c) {
    wword t = {0, 0, 0, 0};
    if ((a->c | b->c | c->c) == 0) {
        t.v = (a->v & b->v) ^ (a->v & c->v) ^ (b->v & c->v);
        uint32_t bc = b->v & c->v;
        for (unsigned i = 0; i < 32; i++) {
            czk_alloc_bitval(cx->cs, (t.v >> i) & 1);
            czk_alloc_bitval(cx->cs, (bc >> i) & 1);
        }
    } else {
        for (unsigned i = 0; i < 32; i++)
            set_wbit(&t, i, czk_gb_maj(cx->cs, NULL, wbit(a, i), wbit(b, i), wbit(c, i)));
    }
    *o = t;
}

static void wit_addmany(wit_ctx *cx, wword *o, const wword *const *ops, unsigned n) {
    uint32_t all_c = 0xffffffffu;
    uint64_t sum = 0;
    for (unsigned j = 0; j < n; j++) {
        all_c &= ops[j]->c;
        sum += ops[j]->v;
    }
    if (all_c == 0xffffffffu) {
        wit_constant(o, (uint32_t)sum);
        return;
    }
    unsigned k = czk_addmany_bits(n);
    czk_var base = czk_alloc_bitval(cx->cs, sum & 1);
    for (unsigned i = 1; i < k; i++)
        czk_alloc_bitval(cx->cs, (sum >> i) & 1);
    o->v = (uint32_t)sum;
    o->c = 0;
    o->n = 0;
    o->base = base;
}

static void wit_push(wit_ctx *cx, const char *fmt, unsigned i) {
    (void)cx, (void)fmt, (void)i;
}
static void wit_pop(wit_ctx *cx) {
    (void)cx;
}
static void wit_finish(wit_ctx *cx) {
    (void)cx;
}

#define W wword
#define CTX wit_ctx
#define OP(name) wit_##name
#include "sha256_body.h"
#undef W
#undef CTX
#undef OP

/* ---- conversions ---- */

static void wword_from_u32(wword *o, const czk_u32 *x) {
    wword t = {0, 0, 0, x->bits[0].var};
    for (unsigned i = 0; i < 32; i++)
        set_wbit(&t, i, x->bits[i]);
    *o = t;
}

/* 32 Booleans, most significant first -> word. */
static void wword_from_bits_be(wword *o, const czk_bool *bits) {
    wword t = {0, 0, 0, 0};
    for (unsigned i = 0; i < 32; i++)
        set_wbit(&t, i, bits[31 - i]);
    *o = t;
}

/* A compression output (constant, or an addmany result) -> czk_u32. */
static void wword_to_u32(czk_u32 *o, const wword *x) {
    for (unsigned i = 0; i < 32; i++) {
        czk_bool b = wbit(x, i);
        if (b.kind != CZK_BOOL_CONST) b.var = x->base + i;
        o->bits[i] = b;
    }
    o->value = x->v;
}

/* ---- public ---- */

void czk_sha256_compression(czk_cs *cs, const czk_bool in[512], const czk_u32 state[8],
                            czk_u32 out[8]) {
    if (czk_cs_records(cs)) {
        rec_ctx cx = {cs, CZK_GS_INIT, CZK_MULTIEQ_INIT};
        czk_u32 w[16];
        for (unsigned i = 0; i < 16; i++)
            czk_u32_from_bits_be(&w[i], in + 32 * i);
        rec_compress(&cx, w, state, out);
        czk_gs_free(&cx.s);
        return;
    }
    wit_ctx cx = {cs};
    wword w[16], st[8], o[8];
    for (unsigned i = 0; i < 16; i++)
        wword_from_bits_be(&w[i], in + 32 * i);
    for (unsigned i = 0; i < 8; i++)
        wword_from_u32(&st[i], &state[i]);
    wit_compress(&cx, w, st, o);
    for (unsigned i = 0; i < 8; i++)
        wword_to_u32(&out[i], &o[i]);
}

void czk_sha256_block_no_padding(czk_cs *cs, const czk_bool in[512], czk_bool out[256]) {
    czk_u32 st[8];
    for (unsigned i = 0; i < 8; i++)
        czk_u32_constant(&st[i], czk_sha256_iv[i]);
    czk_sha256_compression(cs, in, st, st);
    for (unsigned i = 0; i < 8; i++)
        czk_u32_to_bits_be(&st[i], out + 32 * i);
}

/* Bit p of the padded message: the input, then true, falses, the 64-bit length. */
static inline czk_bool padded_bit(const czk_bool *in, size_t nbits, size_t total, size_t p) {
    if (p < nbits) return in[p];
    if (p == nbits) return czk_bool_constant(true);
    if (p >= total - 64)
        return czk_bool_constant(((uint64_t)nbits >> (63 - (p - (total - 64)))) & 1);
    return czk_bool_constant(false);
}

czk_status czk_sha256(czk_cs *cs, const czk_bool *in, size_t nbits, czk_bool out[256]) {
    if (nbits % 8 != 0) {
        for (unsigned i = 0; i < 256; i++)
            out[i] = czk_bool_constant(false);
        return czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                           "sha256: %zu input bits, not a whole number of bytes", nbits);
    }
    size_t blocks = (nbits + 64) / 512 + 1, total = 512 * blocks;
    czk_bool block[512];
    czk_u32 st[8];
    if (czk_cs_records(cs)) {
        for (unsigned i = 0; i < 8; i++)
            czk_u32_constant(&st[i], czk_sha256_iv[i]);
        for (size_t b = 0; b < blocks; b++) {
            for (unsigned p = 0; p < 512; p++)
                block[p] = padded_bit(in, nbits, total, 512 * b + p);
            czk_cs_push_ns(cs, "block %zu", b);
            czk_sha256_compression(cs, block, st, st);
            czk_cs_pop_ns(cs);
        }
    } else {
        /* the state stays in word form from block to block */
        wit_ctx cx = {cs};
        wword ws[8], w[16];
        for (unsigned i = 0; i < 8; i++)
            wit_constant(&ws[i], czk_sha256_iv[i]);
        for (size_t b = 0; b < blocks; b++) {
            size_t p0 = 512 * b;
            if (p0 + 512 <= nbits) {
                for (unsigned i = 0; i < 16; i++)
                    wword_from_bits_be(&w[i], in + p0 + 32 * i);
            } else {
                for (unsigned p = 0; p < 512; p++)
                    block[p] = padded_bit(in, nbits, total, p0 + p);
                for (unsigned i = 0; i < 16; i++)
                    wword_from_bits_be(&w[i], block + 32 * i);
            }
            wit_compress(&cx, w, ws, ws);
        }
        for (unsigned i = 0; i < 8; i++)
            wword_to_u32(&st[i], &ws[i]);
    }
    for (unsigned i = 0; i < 8; i++)
        czk_u32_to_bits_be(&st[i], out + 32 * i);
    return czk_cs_status(cs);
}
