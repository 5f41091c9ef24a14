/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * SHA-256 gadget: constraint counts from bellperson's own tests
 * (crates/bellpepper/src/gadgets/sha256.rs: test_full_block 25,840,
 * test_full_hash 44,874, test_blank_hash 0; those tests count the 512
 * AllocatedBit constraints of the input too and subtract them, and their
 * TestConstraintSystem adds no finalization, so here synthesized =
 * czk_cs_num_constraints() − num_inputs), digests against blst_sha256 in
 * CHECK and WITNESS modes on inputs mixing constants, Is and Not bits, the
 * WITNESS assignment against CHECK's, and a corrupted bit.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "blst_aux.h"
#include "czk/gadgets.h"

/* ---- helpers ---- */

static uint64_t synthesized(const czk_cs *cs) {
    return czk_cs_num_constraints(cs) - czk_cs_num_inputs(cs);
}

/* Message bit p (bytes in order, each most significant bit first). */
static bool msg_bit(const uint8_t *msg, size_t p) {
    return (msg[p / 8] >> (7 - p % 8)) & 1;
}

/* kinds: 0 = allocated (Is), 1 = allocated then negated (Not of the negated
 * value), 2 = constant. */
static czk_bool make_bit(czk_cs *cs, bool v, int kind) {
    switch (kind) {
    case 0:
        return czk_bit_alloc(cs, v);
    case 1:
        return czk_bool_not(czk_bit_alloc(cs, !v));
    default:
        return czk_bool_constant(v);
    }
}

static void bits_to_bytes_be(uint8_t *out, const czk_bool *bits, size_t nbytes) {
    for (size_t i = 0; i < nbytes; i++) {
        uint8_t b = 0;
        for (unsigned j = 0; j < 8; j++)
            b = (uint8_t)(b << 1 | (bits[8 * i + j].value & 1));
        out[i] = b;
    }
}

static czk_cs *run(czk_cs_mode mode, czk_circuit_fn fn, void *ctx) {
    czk_err err;
    czk_cs *cs = czk_cs_create(mode, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, fn, ctx, &err), &err);
    return cs;
}

/* ---- bellperson's counts ---- */

typedef struct block_ctx {
    uint8_t msg[64]; /* the 512 input bits */
    int mode;        /* 0: one compression from the IV; 1: sha256 with padding */
    czk_bool out[256];
    uint64_t before;
} block_ctx;

static czk_status full_block_circuit(czk_cs *cs, void *p) {
    block_ctx *c = p;
    czk_bool in[512];
    for (size_t i = 0; i < 512; i++)
        in[i] = czk_bit_alloc(cs, msg_bit(c->msg, i));
    c->before = czk_cs_num_constraints(cs);
    if (c->mode == 0) {
        czk_sha256_block_no_padding(cs, in, c->out);
        return czk_cs_status(cs);
    }
    return czk_sha256(cs, in, 512, c->out);
}

/* test_full_block: 512 allocated bits forming one padded block of a 55-byte
 * message, so that the compression from the IV is that message's digest. */
static void test_full_block(void **state) {
    (void)state;
    block_ctx c = {.mode = 0};
    czk_rng rng;
    czk_rng_seed(&rng, 11);
    czk_err err;
    czk_assert_ok(czk_random_bytes(&rng, c.msg, 55, &err), &err);
    c.msg[55] = 0x80;
    memset(c.msg + 56, 0, 8);
    c.msg[62] = (55 * 8) >> 8;
    c.msg[63] = (55 * 8) & 0xff;
    czk_cs *cs = run(CZK_CS_CHECK, full_block_circuit, &c);
    assert_int_equal(c.before, 512);
    assert_int_equal(synthesized(cs) - 512, 25840); /* bellperson test_full_block */
    uint8_t want[32], got[32];
    blst_sha256(want, c.msg, 55);
    bits_to_bytes_be(got, c.out, 32);
    assert_memory_equal(got, want, 32);
    czk_cs_free(cs);
}

static void test_full_hash(void **state) {
    (void)state;
    block_ctx c = {.mode = 1};
    czk_rng rng;
    czk_rng_seed(&rng, 12);
    czk_err err;
    czk_assert_ok(czk_random_bytes(&rng, c.msg, 64, &err), &err);
    czk_cs *cs = run(CZK_CS_CHECK, full_block_circuit, &c);
    assert_int_equal(synthesized(cs) - 512, 44874); /* bellperson test_full_hash */
    uint8_t want[32], got[32];
    blst_sha256(want, c.msg, 64);
    bits_to_bytes_be(got, c.out, 32);
    assert_memory_equal(got, want, 32);
    czk_cs_free(cs);
}

static czk_status blank_circuit(czk_cs *cs, void *p) {
    czk_bool *out = p;
    czk_bool in[512];
    for (size_t i = 0; i < 512; i++)
        in[i] = czk_bool_constant(i == 0);
    czk_sha256_block_no_padding(cs, in, out);
    return czk_cs_status(cs);
}

/* test_blank_hash: the padded empty message, all constants: no constraint,
 * constant digest = SHA-256("") (FIPS 180-2 / bellperson's expected value). */
static void test_blank_hash(void **state) {
    (void)state;
    czk_bool out[256];
    for (int mode = 0; mode < 3; mode++) {
        czk_cs *cs = run((czk_cs_mode)mode, blank_circuit, out);
        if (mode != CZK_CS_WITNESS) assert_int_equal(synthesized(cs), 0);
        assert_int_equal(czk_cs_num_aux(cs), 0);
        uint8_t want[32], got[32];
        czk_test_hex(want, 32, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        for (int i = 0; i < 256; i++)
            assert_int_equal(out[i].kind, CZK_BOOL_CONST);
        bits_to_bytes_be(got, out, 32);
        assert_memory_equal(got, want, 32);
        czk_cs_free(cs);
    }
}

/* ---- random messages, mixed bit kinds, all modes ---- */

typedef struct msg_ctx {
    const uint8_t *msg;
    size_t len;
    uint64_t kind_seed; /* picks each bit's kind */
    int kinds;          /* 1: all Is; 3: Is / Not / constant */
    czk_bool out[256];
} msg_ctx;

static czk_status msg_circuit(czk_cs *cs, void *p) {
    msg_ctx *c = p;
    size_t n = 8 * c->len;
    czk_bool *in = malloc((n ? n : 1) * sizeof *in);
    if (!in) return czk_cs_fail(cs, CZK_ERR_NOMEM, "test message");
    czk_rng rng;
    czk_rng_seed(&rng, c->kind_seed);
    for (size_t i = 0; i < n; i++) {
        int kind = c->kinds == 1 ? 0 : (int)(czk_rng_u64(&rng) % 3);
        in[i] = make_bit(cs, msg_bit(c->msg, i), kind);
    }
    czk_status st = czk_sha256(cs, in, n, c->out);
    free(in);
    return st;
}

static void check_digest(const msg_ctx *c) {
    uint8_t want[32], got[32];
    blst_sha256(want, c->msg, c->len);
    bits_to_bytes_be(got, c->out, 32);
    assert_memory_equal(got, want, 32);
}

static void test_random_messages(void **state) {
    (void)state;
    static const size_t lens[] = {0, 1, 3, 31, 32, 55, 56, 63, 64, 65, 100, 119, 128, 200};
    czk_rng rng;
    czk_rng_seed(&rng, 13);
    czk_err err;
    uint8_t msg[200];
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (int kinds = 1; kinds <= 3; kinds += 2) {
            msg_ctx c = {msg, lens[li], 1000 + li, kinds, {{0}}};
            czk_assert_ok(czk_random_bytes(&rng, msg, sizeof msg, &err), &err);

            czk_cs *chk = run(CZK_CS_CHECK, msg_circuit, &c);
            check_digest(&c);
            czk_bool chk_out[256];
            memcpy(chk_out, c.out, sizeof chk_out);

            memset(c.out, 0xee, sizeof c.out);
            czk_cs *wit = run(CZK_CS_WITNESS, msg_circuit, &c);
            check_digest(&c);
            /* the same output Booleans (kind, variable, value) */
            assert_memory_equal(c.out, chk_out, sizeof chk_out);

            /* WITNESS mode enforces nothing: only the finalization counts */
            assert_int_equal(czk_cs_num_constraints(wit), czk_cs_num_inputs(wit));

            czk_cs *rec = run(CZK_CS_RECORD, msg_circuit, &c);
            assert_int_equal(czk_cs_num_aux(rec), czk_cs_num_aux(chk));
            assert_int_equal(czk_cs_num_constraints(rec), czk_cs_num_constraints(chk));

            czk_witness wc, ww;
            czk_assert_ok(czk_cs_take_witness(chk, &wc, &err), &err);
            czk_assert_ok(czk_cs_take_witness(wit, &ww, &err), &err);
            assert_int_equal(ww.num_aux, wc.num_aux);
            assert_int_equal(ww.num_inputs, wc.num_inputs);
            assert_memory_equal(ww.aux, wc.aux, sizeof(czk_fr) * wc.num_aux);

            czk_shape *sc, *sr;
            czk_assert_ok(czk_cs_take_shape(chk, &sc, &err), &err);
            czk_assert_ok(czk_cs_take_shape(rec, &sr, &err), &err);
            assert_true(czk_shape_equal(sc, sr));
            czk_shape_free(sc);
            czk_shape_free(sr);
            czk_witness_free(&wc);
            czk_witness_free(&ww);
            czk_cs_free(chk);
            czk_cs_free(wit);
            czk_cs_free(rec);
        }
    }
}

/* ---- one compression from an arbitrary state ---- */

/* FIPS 180-4 §6.2.2, written out independently of the gadget. */
static void native_compress(uint32_t h[8], const uint8_t block[64]) {
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
#undef ROR
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

typedef struct state_ctx {
    uint8_t block[64];
    uint32_t h[8];
    uint64_t seed;
    czk_u32 out[8];
} state_ctx;

/* The state's and the block's bits are each Is, Not or constant at random,
 * so that ch and maj meet every mix of operand kinds. */
static czk_status state_circuit(czk_cs *cs, void *p) {
    state_ctx *c = p;
    czk_rng rng;
    czk_rng_seed(&rng, c->seed);
    czk_u32 st[8];
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 32; j++) {
            /* a few all-constant words, as after a constant IV */
            int kind = i == (int)(c->seed % 8) ? 2 : (int)(czk_rng_u64(&rng) % 3);
            st[i].bits[j] = make_bit(cs, (c->h[i] >> j) & 1, kind);
        }
        st[i].value = c->h[i];
    }
    czk_bool in[512];
    for (size_t i = 0; i < 512; i++)
        in[i] = make_bit(cs, msg_bit(c->block, i), (int)(czk_rng_u64(&rng) % 3));
    czk_sha256_compression(cs, in, st, c->out);
    return czk_cs_status(cs);
}

static void test_compression_state(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 18);
    czk_err err;
    for (uint64_t iter = 0; iter < 6; iter++) {
        state_ctx c;
        memset(&c, 0, sizeof c);
        c.seed = 100 + iter;
        czk_assert_ok(czk_random_bytes(&rng, c.block, 64, &err), &err);
        czk_assert_ok(czk_random_bytes(&rng, c.h, sizeof c.h, &err), &err);
        uint32_t want[8];
        memcpy(want, c.h, sizeof want);
        native_compress(want, c.block);
        czk_witness w[2];
        czk_u32 outs[2][8];
        for (int m = 0; m < 2; m++) {
            czk_cs *cs = run(m ? CZK_CS_CHECK : CZK_CS_WITNESS, state_circuit, &c);
            for (int i = 0; i < 8; i++) {
                assert_int_equal(c.out[i].value, want[i]);
                for (int j = 0; j < 32; j++)
                    assert_int_equal(c.out[i].bits[j].value, (want[i] >> j) & 1);
            }
            memcpy(outs[m], c.out, sizeof c.out);
            czk_assert_ok(czk_cs_take_witness(cs, &w[m], &err), &err);
            czk_cs_free(cs);
        }
        assert_memory_equal(outs[0], outs[1], sizeof outs[0]);
        assert_int_equal(w[0].num_aux, w[1].num_aux);
        assert_memory_equal(w[0].aux, w[1].aux, sizeof(czk_fr) * w[0].num_aux);
        czk_witness_free(&w[0]);
        czk_witness_free(&w[1]);
    }
}

/* ---- a corrupted witness bit ---- */

typedef struct corrupt_ctx {
    uint8_t msg[64];
} corrupt_ctx;

/* Bit 0 of the message (the top bit of w[0]) is allocated with its value but
 * handed to the gadget with the opposite one. w[0] is first used by the
 * addition of w[16]; additions of four words take 34 bits each in the MultiEq,
 * seven fit under 254 bits, so the first MultiEq constraint, which holds the
 * wrong sum, is emitted while adding w[23]. */
static czk_status corrupt_circuit(czk_cs *cs, void *p) {
    corrupt_ctx *c = p;
    czk_bool in[512], out[256];
    for (size_t i = 0; i < 512; i++)
        in[i] = czk_bit_alloc(cs, msg_bit(c->msg, i));
    in[0].value ^= 1;
    return czk_sha256(cs, in, 512, out);
}

static void test_corrupted_bit(void **state) {
    (void)state;
    corrupt_ctx c;
    memset(c.msg, 0x5a, sizeof c.msg);
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_non_null(cs);
    assert_int_equal(czk_cs_run(cs, corrupt_circuit, &c, &err), CZK_ERR_UNSATISFIED);
    assert_string_equal(czk_cs_first_unsatisfied_path(cs), "block 0/w extension 23/multieq 0");
    czk_cs_free(cs);
}

/* ---- TreeD: hash_leaf_bits_circuit ---- */

typedef struct leaf_ctx {
    uint8_t left[32], right[32];
    czk_num out;
} leaf_ctx;

static czk_status leaf_circuit(czk_cs *cs, void *p) {
    leaf_ctx *c = p;
    czk_bool l[256], r[256];
    czk_bits_alloc_bytes(cs, c->left, 32, false, l);
    czk_bits_alloc_bytes(cs, c->right, 32, false, r);
    return czk_sha256_hash_leaf_bits(cs, l, 256, r, 256, &c->out);
}

/* Upstream storage-proofs-core util.rs hash_leaf_bits_circuit: 45,387
 * constraints (512 bits + 44,874 + 1 pack) and the value of
 * Sha256Function::node: sha256(left ‖ right), little-endian, top 2 bits cleared. */
static void test_hash_leaf_bits(void **state) {
    (void)state;
    leaf_ctx c;
    czk_rng rng;
    czk_rng_seed(&rng, 14);
    czk_err err;
    for (int i = 0; i < 2; i++) {
        czk_fr x;
        czk_assert_ok(czk_fr_random(&x, &rng, &err), &err);
        czk_fr_to_bytes(i ? c.right : c.left, &x);
    }
    uint8_t buf[64], h[32];
    memcpy(buf, c.left, 32);
    memcpy(buf + 32, c.right, 32);
    blst_sha256(h, buf, 64);
    h[31] &= 0x3f;
    czk_fr want;
    czk_assert_ok(czk_fr_from_bytes(&want, h, &err), &err);
    for (int mode = 0; mode < 3; mode++) {
        czk_cs *cs = run((czk_cs_mode)mode, leaf_circuit, &c);
        if (mode != CZK_CS_WITNESS) assert_int_equal(synthesized(cs), 45387);
        if (mode != CZK_CS_RECORD) assert_true(czk_fr_eq(&c.out.value, &want));
        czk_cs_free(cs);
    }
}

/* hash_multi_leaf (TreeD node from two AllocatedNums): the same digest; cost
 * 2 × (255 + 1) + 44,866 + 1 = 45,379 (spec §1: a TreeD level costs 45,382 =
 * 1 index bit + insert_2 (2) + two 255-bit decompositions + 2 SHA blocks of
 * 44,866 (bit 255 of each leaf is Constant(false)) + the pack). */
typedef struct node_ctx {
    czk_fr l, r;
    czk_num out;
    uint64_t cost;
} node_ctx;

static czk_status node_circuit(czk_cs *cs, void *p) {
    node_ctx *c = p;
    czk_num leaves[2] = {czk_num_alloc(cs, &c->l), czk_num_alloc(cs, &c->r)};
    uint64_t before = czk_cs_num_constraints(cs);
    czk_status st = czk_sha256_hash_multi_leaf(cs, leaves, 2, &c->out);
    c->cost = czk_cs_num_constraints(cs) - before;
    return st;
}

static void test_hash_multi_leaf(void **state) {
    (void)state;
    node_ctx c;
    czk_rng rng;
    czk_rng_seed(&rng, 15);
    czk_err err;
    czk_assert_ok(czk_fr_random(&c.l, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(&c.r, &rng, &err), &err);
    uint8_t buf[64], h[32];
    czk_fr_to_bytes(buf, &c.l);
    czk_fr_to_bytes(buf + 32, &c.r);
    blst_sha256(h, buf, 64);
    h[31] &= 0x3f;
    czk_fr want;
    czk_assert_ok(czk_fr_from_bytes(&want, h, &err), &err);
    czk_cs *cs = run(CZK_CS_CHECK, node_circuit, &c);
    assert_int_equal(c.cost, 45379);
    assert_true(czk_fr_eq(&c.out.value, &want));
    czk_cs_free(cs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_block),        cmocka_unit_test(test_full_hash),
        cmocka_unit_test(test_blank_hash),        cmocka_unit_test(test_random_messages),
        cmocka_unit_test(test_compression_state), cmocka_unit_test(test_corrupted_bit),
        cmocka_unit_test(test_hash_leaf_bits),    cmocka_unit_test(test_hash_multi_leaf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
