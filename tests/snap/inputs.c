/* CZK_TEST_LABELS: unit */
/*
 * SnapDeals shapes, public inputs, randomness and challenges.
 *
 * Sources of the expected values:
 *   [R]  storage-proofs-update constants.rs rules (partition_count,
 *        challenge_count, apex_leaf_count, hs, h_default,
 *        validate_tree_r_shape) re-derived here from the node count;
 *   [P]  parameters.json (spec post-snap.md appendix): the parameter id of
 *        each production size is SHA-256 of "empty_sector_update::
 *        PublicParams{ sector_nodes: N }" (parameter_cache.rs);
 *   [V]  challenges.rs test_challenges_against_hardcoded (v28): the first 5
 *        challenges of 25 (size, partition) pairs for comm_r_new =
 *        TreeRDomain::random(XorShiftRng::from_seed(TEST_SEED)). Every one
 *        is a Poseidon GEN_RANDOMNESS digest (tag 2^40), so this is also the
 *        published vector of that hash type. The generator is rebuilt
 *        here: rand_xorshift 0.3 (x ^= x << 11 ..., next_u64 = low word
 *        first), blstrs Scalar::random (four u64 LE limbs, the top bit
 *        cleared, retried until below r), TEST_SEED from
 *        storage-proofs-core lib.rs;
 *   [S]  spec §2.2: k_and_h_select of 32GiB with h = 10 is k + 128.
 */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "czk/poseidon.h"
#include "czk/snap.h"
#include "util/digest.h"

static const czk_snap_shape *shape(const char *name) {
    for (int i = 0; i < CZK_SNAP_SHAPE_COUNT; i++)
        if (!strcmp(czk_snap_shapes[i].name, name)) return &czk_snap_shapes[i];
    fail_msg("no shape %s", name);
    return NULL;
}

static unsigned log2u(uint64_t x) {
    unsigned n = 0;
    while (x > 1)
        x >>= 1, n++;
    return n;
}

/* [R] and [P] */
static void test_shapes(void **state) {
    (void)state;
    static const uint64_t nodes[CZK_SNAP_SHAPE_COUNT] = {1 << 5,  1 << 6,  1 << 7,    1 << 8,
                                                         1 << 9,  1 << 10, 1 << 18,   1 << 19,
                                                         1 << 24, 1 << 30, 1ull << 31};
    /* validate_tree_r_shape */
    static const unsigned arity[CZK_SNAP_SHAPE_COUNT][3] = {
        {8, 4, 0}, {8, 0, 0}, {8, 2, 0}, {8, 4, 0}, {8, 8, 0}, {8, 8, 2},
        {8, 0, 0}, {8, 2, 0}, {8, 0, 0}, {8, 8, 0}, {8, 8, 2}};
    for (int i = 0; i < CZK_SNAP_SHAPE_COUNT; i++) {
        const czk_snap_shape *s = &czk_snap_shapes[i];
        uint64_t n = nodes[i];
        assert_int_equal(s->nodes, n);
        assert_int_equal(s->sector_size, n * 32);
        assert_int_equal(s->partitions, n <= 1 << 8 ? 1 : n <= 1 << 10 ? 2 : n <= 1 << 19 ? 4 : 16);
        assert_int_equal(s->challenges, n <= 1 << 19 ? 10 : 86);
        assert_int_equal(s->apex_leafs, n <= 1 << 8 ? 8 : 128);
        assert_int_equal(s->challenge_bits, log2u(n));
        assert_int_equal(s->partition_bits, log2u(s->partitions));
        assert_int_equal(s->apex_bits, log2u(s->apex_leafs));
        for (unsigned k = 0; k < CZK_SNAP_HS; k++)
            assert_int_equal(s->hs[k], n <= 1 << 10 ? 1 : 7 + k);
        assert_int_equal(s->h_default, s->hs[3]);
        assert_int_equal(s->base_arity, arity[i][0]);
        assert_int_equal(s->sub_arity, arity[i][1]);
        assert_int_equal(s->top_arity, arity[i][2]);
        czk_por_tree tr, td;
        czk_err err;
        czk_assert_ok(czk_snap_trees(s, &tr, &td, &err), &err);
        assert_int_equal(czk_por_tree_index_bits(&tr), s->challenge_bits);
        assert_int_equal(czk_por_tree_levels(&td), s->challenge_bits);
        assert_ptr_equal(czk_snap_shape_for_size(s->sector_size), s);
        if (s->registered_proof < 0) {
            assert_null(s->param_id);
            continue;
        }
        const czk_snap_shape *p = NULL;
        czk_assert_ok(czk_snap_proof_lookup((uint64_t)s->registered_proof, &p, &err), &err);
        assert_ptr_equal(p, s);
        char id[96], hex[65];
        uint8_t h[32];
        snprintf(id, sizeof id, "empty_sector_update::PublicParams{ sector_nodes: %llu }",
                 (unsigned long long)n);
        czk_sha256_digest(h, id, strlen(id));
        for (int b = 0; b < 32; b++)
            sprintf(hex + 2 * b, "%02x", h[b]);
        assert_string_equal(hex, s->param_id);
    }
    /* RegisteredUpdateProof 0..4 are 2KiB, 8MiB, 512MiB, 32GiB, 64GiB */
    const char *names[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    for (uint64_t id = 0; id < 5; id++) {
        const czk_snap_shape *p = NULL;
        czk_err err;
        czk_assert_ok(czk_snap_proof_lookup(id, &p, &err), &err);
        assert_string_equal(p->name, names[id]);
    }
    const czk_snap_shape *p = NULL;
    czk_err err;
    assert_int_equal(czk_snap_proof_lookup(5, &p, &err), CZK_ERR_UNSUPPORTED);
    assert_null(p);
    assert_non_null(strstr(err.msg, "registered update proof 5"));
    assert_null(czk_snap_shape_for_size(3 << 10));
}

/* rand_xorshift 0.3 XorShiftRng */
typedef struct xorshift {
    uint32_t x, y, z, w;
} xorshift;

static uint32_t xs_u32(xorshift *r) {
    uint32_t t = r->x ^ (r->x << 11);
    r->x = r->y;
    r->y = r->z;
    r->z = r->w;
    r->w = r->w ^ (r->w >> 19) ^ (t ^ (t >> 8));
    return r->w;
}

static uint64_t xs_u64(xorshift *r) {
    uint64_t lo = xs_u32(r), hi = xs_u32(r);
    return hi << 32 | lo;
}

/* blstrs Scalar::random, as 32 LE bytes */
static void scalar_random(uint8_t out[32], xorshift *r) {
    for (;;) {
        uint64_t raw[4];
        for (int i = 0; i < 4; i++)
            raw[i] = xs_u64(r);
        raw[3] &= UINT64_MAX >> 1;
        for (int i = 0; i < 32; i++)
            out[i] = (uint8_t)(raw[i / 8] >> (8 * (i % 8)));
        czk_fr x;
        if (czk_fr_from_bytes(&x, out, NULL) == CZK_OK) return;
    }
}

static void test_seed_comm_r_new(uint8_t out[32]) {
    static const uint8_t seed[16] = {0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                                     0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5};
    xorshift r;
    uint32_t w[4];
    for (int i = 0; i < 4; i++)
        w[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 |
               (uint32_t)seed[4 * i + 2] << 16 | (uint32_t)seed[4 * i + 3] << 24;
    r.x = w[0], r.y = w[1], r.z = w[2], r.w = w[3];
    scalar_random(out, &r);
}

typedef struct vec {
    const char *shape;
    uint64_t k;
    uint64_t c[5];
} vec;

/* [V] */
static const vec VECTORS[] = {
    {"1KiB", 0, {21, 7, 3, 31, 0}},
    {"2KiB", 0, {53, 51, 56, 3, 0}},
    {"4KiB", 0, {117, 25, 62, 0, 72}},
    {"8KiB", 0, {245, 140, 15, 128, 28}},
    {"16KiB", 0, {245, 140, 15, 128, 28}},
    {"16KiB", 1, {286, 308, 493, 510, 508}},
    {"32KiB", 0, {245, 454, 3, 400, 193}},
    {"32KiB", 1, {542, 666, 955, 927, 911}},
    {"8MiB", 0, {36085, 32783, 44060, 10950, 3731}},
    {"8MiB", 1, {78878, 130797, 112892, 93994, 78379}},
    {"16MiB", 0, {101621, 16391, 109319, 25944, 41193}},
    {"16MiB", 1, {209950, 163702, 175679, 224741, 197410}},
    {"512MiB", 0, {1019125, 116736, 706220, 59698, 799498}},
    {"512MiB", 1, {2092548, 1213276, 1185483, 1164598, 1095197}},
    {"512MiB", 14, {15212432, 15665918, 15015423, 15012912, 15495223}},
    {"512MiB", 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
    {"32GiB", 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
    {"32GiB", 1, {109168525, 127316247, 80331041, 97065716, 72310052}},
    {"32GiB", 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
    {"32GiB", 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
    {"64GiB", 0, {1019125, 13992848, 3820715, 18225541, 57316660}},
    {"64GiB", 1, {243386253, 197875851, 204632136, 171516766, 247789010}},
    {"64GiB", 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
    {"64GiB", 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
};

static void test_challenges_against_upstream(void **state) {
    (void)state;
    uint8_t comm_r_new[32];
    test_seed_comm_r_new(comm_r_new);
    for (size_t i = 0; i < sizeof VECTORS / sizeof VECTORS[0]; i++) {
        const vec *v = &VECTORS[i];
        const czk_snap_shape *s = shape(v->shape);
        uint64_t c[86];
        czk_err err;
        czk_assert_ok(czk_snap_challenges(c, s, comm_r_new, v->k, &err), &err);
        for (int j = 0; j < 5; j++)
            if (c[j] != v->c[j])
                fail_msg("%s partition %llu challenge %d: %llu, upstream %llu", v->shape,
                         (unsigned long long)v->k, j, (unsigned long long)c[j],
                         (unsigned long long)v->c[j]);
        /* challenge_bucketing: all of partition k's challenges are in its k-th part */
        uint64_t per = s->nodes / s->partitions;
        for (unsigned j = 0; j < s->challenges; j++)
            assert_true(c[j] / per == v->k);
    }
    const czk_snap_shape *s = shape("2KiB");
    uint64_t c[10];
    czk_err err;
    assert_int_equal(czk_snap_challenges(c, s, comm_r_new, 1, &err), CZK_ERR_INVALID_ARG);
    uint8_t bad[32];
    memset(bad, 0xff, 32);
    assert_int_equal(czk_snap_challenges(c, s, bad, 0, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "comm_r_new"));
}

/* [S] and PublicInputs::new: h_select = 1 << position of h */
static void test_public_inputs(void **state) {
    (void)state;
    czk_snap_public pub;
    memset(&pub, 0, sizeof pub);
    czk_test_hex(pub.comm_r_old, 32,
                 "0100000000000000000000000000000000000000000000000000000000000000");
    czk_test_hex(pub.comm_d_new, 32,
                 "0200000000000000000000000000000000000000000000000000000000000000");
    czk_test_hex(pub.comm_r_new, 32,
                 "0300000000000000000000000000000000000000000000000000000000000000");
    const czk_snap_shape *g32 = shape("32GiB");
    czk_fr in[4], want;
    czk_err err;
    for (uint64_t k = 0; k < 16; k++) {
        pub.k = k;
        pub.h = 10;
        czk_assert_ok(czk_snap_public_inputs(in, g32, &pub, &err), &err);
        czk_fr_from_u64(&want, k + 128);
        assert_true(czk_fr_eq(&in[0], &want));
        for (int i = 1; i < 4; i++) {
            czk_fr_from_u64(&want, (uint64_t)i);
            assert_true(czk_fr_eq(&in[i], &want));
        }
    }
    /* h = 12 is position 5: 16 · 32 = 512 */
    pub.k = 3;
    pub.h = 12;
    czk_assert_ok(czk_snap_public_inputs(in, g32, &pub, &err), &err);
    czk_fr_from_u64(&want, 3 + (32u << 4));
    assert_true(czk_fr_eq(&in[0], &want));
    /* 2KiB: hs are all 1, h_select 1, no partition bits */
    pub.k = 0;
    pub.h = 1;
    czk_assert_ok(czk_snap_public_inputs(in, shape("2KiB"), &pub, &err), &err);
    assert_true(czk_fr_is_one(&in[0]));
    /* refusals */
    pub.h = 10;
    pub.k = 16;
    assert_int_equal(czk_snap_public_inputs(in, g32, &pub, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "partition 16 of 16"));
    pub.k = 0;
    pub.h = 6;
    assert_int_equal(czk_snap_public_inputs(in, g32, &pub, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "h 6 is not one of"));
    pub.h = 10;
    pub.comm_d_new[31] = 0xff;
    assert_int_equal(czk_snap_public_inputs(in, g32, &pub, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "comm_d_new"));
}

/* phi and rho are H(a, b) with the GEN_RANDOMNESS tag, as in vanilla.rs */
static void test_phi_rho(void **state) {
    (void)state;
    uint8_t d[32], r[32];
    czk_test_hex(d, 32, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
    czk_test_hex(r, 32, "0300000000000000000000000000000000000000000000000000000000000000");
    czk_fr phi, rho, pre[2], want;
    czk_err err;
    czk_assert_ok(czk_snap_phi(&phi, d, r, &err), &err);
    czk_poseidon_constants gr;
    czk_assert_ok(czk_poseidon_constants_custom(&gr, 2, 1, &err), &err);
    czk_assert_ok(czk_fr_from_bytes(&pre[0], d, &err), &err);
    czk_fr_from_u64(&pre[1], 3);
    czk_poseidon_hash_with(&gr, &want, pre);
    assert_true(czk_fr_eq(&phi, &want));
    czk_assert_ok(czk_snap_rho(&rho, &phi, 1023, &err), &err);
    pre[0] = phi;
    czk_fr_from_u64(&pre[1], 1023);
    czk_poseidon_hash_with(&gr, &want, pre);
    assert_true(czk_fr_eq(&rho, &want));
    r[31] = 0x80;
    assert_int_equal(czk_snap_phi(&phi, d, r, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "comm_r_old"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_challenges_against_upstream),
        cmocka_unit_test(test_public_inputs),
        cmocka_unit_test(test_phi_rho),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
