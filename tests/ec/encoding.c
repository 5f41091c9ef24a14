/* CZK_TEST_LABELS: unit */
/*
 * G1/G2 zcash encoding: round trips, the generators' published encodings,
 * and one specific status per kind of bad encoding.
 */
#include "support.h"
#include "czk/ec.h"

#include <string.h>

/* Compressed generators from the zcash BLS12-381 serialization spec
 * (also bls12_381 crate tests, blst's own tests). */
static const char *G1_GEN = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char *G2_GEN = "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
                            "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
/* p, big-endian. */
static const char *P_HEX = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
/* r, big-endian (for the independent subgroup test r·P = O). */
static const char *R_HEX = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";

static void test_generators(void **state) {
    (void)state;
    uint8_t want1[48], want2[96], got1[48], got2[96];
    czk_test_hex(want1, 48, G1_GEN);
    czk_test_hex(want2, 96, G2_GEN);
    czk_g1_compress(got1, blst_p1_affine_generator());
    czk_g2_compress(got2, blst_p2_affine_generator());
    assert_memory_equal(got1, want1, 48);
    assert_memory_equal(got2, want2, 96);
    czk_err err;
    czk_g1_affine p;
    czk_g2_affine q;
    czk_assert_ok(czk_g1_decode(&p, want1, 48, &err), &err);
    czk_assert_ok(czk_g2_decode(&q, want2, 96, &err), &err);
    assert_true(blst_p1_affine_is_equal(&p, blst_p1_affine_generator()));
    assert_true(blst_p2_affine_is_equal(&q, blst_p2_affine_generator()));
}

static void random_points(czk_rng *rng, czk_g1_affine *p, czk_g2_affine *q) {
    czk_fr k;
    czk_err err;
    czk_assert_ok(czk_fr_random(&k, rng, &err), &err);
    czk_g1 pj;
    czk_g2 qj;
    czk_g1_mul(&pj, blst_p1_generator(), &k);
    czk_g2_mul(&qj, blst_p2_generator(), &k);
    blst_p1_to_affine(p, &pj);
    blst_p2_to_affine(q, &qj);
}

static void test_roundtrip(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 11);
    czk_err err;
    for (int i = 0; i < 64; i++) {
        czk_g1_affine p, p2;
        czk_g2_affine q, q2;
        random_points(&rng, &p, &q);
        uint8_t c1[48], u1[96], c2[96], u2[192];
        czk_g1_compress(c1, &p);
        czk_g1_serialize(u1, &p);
        czk_g2_compress(c2, &q);
        czk_g2_serialize(u2, &q);
        assert_int_equal(c1[0] & 0x80, 0x80);
        assert_int_equal(u1[0] & 0xe0, 0);
        /* uncompressed x equals compressed x without flags */
        assert_int_equal(c1[0] & 0x1f, u1[0]);
        assert_memory_equal(c1 + 1, u1 + 1, 47);
        czk_assert_ok(czk_g1_decode(&p2, c1, 48, &err), &err);
        assert_true(blst_p1_affine_is_equal(&p, &p2));
        czk_assert_ok(czk_g1_decode(&p2, u1, 96, &err), &err);
        assert_true(blst_p1_affine_is_equal(&p, &p2));
        czk_assert_ok(czk_g2_decode(&q2, c2, 96, &err), &err);
        assert_true(blst_p2_affine_is_equal(&q, &q2));
        czk_assert_ok(czk_g2_decode(&q2, u2, 192, &err), &err);
        assert_true(blst_p2_affine_is_equal(&q, &q2));
        czk_assert_ok(czk_g2_decode_trusted(&q2, u2, 192, &err), &err);
        assert_true(blst_p2_affine_is_equal(&q, &q2));
    }
    /* infinity */
    uint8_t inf_c[48] = {0xc0}, inf_u[96] = {0x40};
    czk_g1_affine p;
    czk_assert_ok(czk_g1_decode(&p, inf_c, 48, &err), &err);
    assert_true(czk_g1_affine_is_inf(&p));
    czk_assert_ok(czk_g1_decode(&p, inf_u, 96, &err), &err);
    assert_true(czk_g1_affine_is_inf(&p));
    uint8_t enc[48];
    czk_g1_compress(enc, &p);
    assert_memory_equal(enc, inf_c, 48);
}

static void expect(czk_status want, czk_status got, const czk_err *err) {
    if (got != want)
        fail_msg("expected %s, got %s (%s)", czk_status_name(want), czk_status_name(got), err->msg);
    assert_true(strlen(err->msg) > 0);
}

static void test_bad_encodings_g1(void **state) {
    (void)state;
    czk_err err;
    czk_g1_affine p;
    uint8_t gen[48], u[96];
    czk_test_hex(gen, 48, G1_GEN);
    czk_g1_serialize(u, blst_p1_affine_generator());

    expect(CZK_ERR_EC_LENGTH, czk_g1_decode(&p, gen, 47, &err), &err);
    expect(CZK_ERR_EC_LENGTH, czk_g1_decode(&p, u, 95, &err), &err);
    expect(CZK_ERR_EC_LENGTH, czk_g1_decode(&p, u, 0, &err), &err);

    uint8_t b[96];
    memcpy(b, gen, 48);
    b[0] &= 0x7f; /* compressed length, compression flag clear */
    expect(CZK_ERR_EC_FLAGS, czk_g1_decode(&p, b, 48, &err), &err);
    memcpy(b, u, 96);
    b[0] |= 0x80; /* uncompressed length, compression flag set */
    expect(CZK_ERR_EC_FLAGS, czk_g1_decode(&p, b, 96, &err), &err);
    memcpy(b, u, 96);
    b[0] |= 0x20; /* sign on an uncompressed encoding */
    expect(CZK_ERR_EC_FLAGS, czk_g1_decode(&p, b, 96, &err), &err);
    uint8_t inf[48] = {0xe0}; /* infinity with sign */
    expect(CZK_ERR_EC_FLAGS, czk_g1_decode(&p, inf, 48, &err), &err);

    uint8_t inf2[48] = {0xc0};
    inf2[47] = 1; /* infinity with a non-zero byte */
    expect(CZK_ERR_EC_INFINITY, czk_g1_decode(&p, inf2, 48, &err), &err);
    uint8_t inf3[96] = {0x41}; /* infinity, low bits of byte 0 set */
    expect(CZK_ERR_EC_INFINITY, czk_g1_decode(&p, inf3, 96, &err), &err);

    /* x = p */
    czk_test_hex(b, 48, P_HEX);
    b[0] |= 0x80;
    expect(CZK_ERR_EC_FP_RANGE, czk_g1_decode(&p, b, 48, &err), &err);
    /* uncompressed y = p */
    memcpy(b, u, 96);
    czk_test_hex(b + 48, 48, P_HEX);
    expect(CZK_ERR_EC_FP_RANGE, czk_g1_decode(&p, b, 96, &err), &err);

    /* x = 1: 1 + 4 = 5 is not a square mod p (Python: pow(5, (p-1)//2, p) == p-1) */
    memset(b, 0, 48);
    b[0] = 0x80;
    b[47] = 1;
    expect(CZK_ERR_EC_NO_POINT, czk_g1_decode(&p, b, 48, &err), &err);

    /* generator with y + 1: off the curve */
    memcpy(b, u, 96);
    b[95] ^= 1;
    expect(CZK_ERR_EC_NOT_ON_CURVE, czk_g1_decode(&p, b, 96, &err), &err);
    expect(CZK_ERR_EC_NOT_ON_CURVE, czk_g1_decode_trusted(&p, b, 96, &err), &err);

    /* x = 4: 4^3 + 4 = 68 is a square mod p, so a curve point; r·P != O shows it lies
     * outside the subgroup (an independent check of what the decoder reports). */
    memset(b, 0, 48);
    b[0] = 0x80;
    b[47] = 4;
    expect(CZK_ERR_EC_NOT_IN_GROUP, czk_g1_decode(&p, b, 48, &err), &err);
    czk_assert_ok(czk_g1_decode_trusted(&p, b, 48, &err), &err);
    uint8_t rbe[32], rle[32];
    czk_test_hex(rbe, 32, R_HEX);
    for (int i = 0; i < 32; i++) rle[i] = rbe[31 - i];
    czk_g1 pj, rp;
    blst_p1_from_affine(&pj, &p);
    blst_p1_mult(&rp, &pj, rle, 255);
    assert_false(blst_p1_is_inf(&rp));

    /* (0, 2) lies on the curve (0^3 + 4 = 2^2) and has order 3 (x = 0 makes it a
     * flex point), so it is outside G1; blst's decoder refuses it even where the
     * subgroup pass is skipped, and czk reports that as NOT_IN_GROUP. */
    memset(b, 0, 96);
    b[95] = 2;
    expect(CZK_ERR_EC_NOT_IN_GROUP, czk_g1_decode(&p, b, 96, &err), &err);
    expect(CZK_ERR_EC_NOT_IN_GROUP, czk_g1_decode_trusted(&p, b, 96, &err), &err);
}

static void test_bad_encodings_g2(void **state) {
    (void)state;
    czk_err err;
    czk_g2_affine q;
    uint8_t gen[96], u[192], b[192];
    czk_test_hex(gen, 96, G2_GEN);
    czk_g2_serialize(u, blst_p2_affine_generator());

    expect(CZK_ERR_EC_LENGTH, czk_g2_decode(&q, gen, 48, &err), &err);
    expect(CZK_ERR_EC_LENGTH, czk_g2_decode(&q, u, 191, &err), &err);
    memcpy(b, gen, 96);
    b[0] &= 0x7f;
    expect(CZK_ERR_EC_FLAGS, czk_g2_decode(&q, b, 96, &err), &err);
    memcpy(b, u, 192);
    b[0] |= 0x20;
    expect(CZK_ERR_EC_FLAGS, czk_g2_decode(&q, b, 192, &err), &err);
    uint8_t inf[96] = {0xc0};
    inf[50] = 1;
    expect(CZK_ERR_EC_INFINITY, czk_g2_decode(&q, inf, 96, &err), &err);
    /* x.c0 (second Fp of a G2 x) = p */
    memcpy(b, gen, 96);
    czk_test_hex(b + 48, 48, P_HEX);
    expect(CZK_ERR_EC_FP_RANGE, czk_g2_decode(&q, b, 96, &err), &err);
    /* y.c0 = p */
    memcpy(b, u, 192);
    czk_test_hex(b + 144, 48, P_HEX);
    expect(CZK_ERR_EC_FP_RANGE, czk_g2_decode(&q, b, 192, &err), &err);
    /* off the curve */
    memcpy(b, u, 192);
    b[191] ^= 1;
    expect(CZK_ERR_EC_NOT_ON_CURVE, czk_g2_decode(&q, b, 192, &err), &err);

    /* Small x = (k, 0): each decodes to a point outside G2, or has no point. Which one is
     * told independently: x^3 + 4(1+i) square in Fp2 (blst_fp2_sqrt), and r·Q != O. */
    unsigned no_point = 0, outside = 0;
    for (unsigned k = 1; k <= 12; k++) {
        memset(b, 0, 96);
        b[0] = 0x80;
        b[95] = (uint8_t)k; /* c1 = 0 (first 48 bytes), c0 = k */
        czk_status st = czk_g2_decode(&q, b, 96, &err);
        blst_fp2 x, rhs, y;
        uint64_t kk[6] = {k, 0, 0, 0, 0, 0}, four[6] = {4, 0, 0, 0, 0, 0};
        blst_fp_from_uint64(&x.fp[0], kk);
        memset(&x.fp[1], 0, sizeof x.fp[1]);
        blst_fp2_sqr(&rhs, &x);
        blst_fp2_mul(&rhs, &rhs, &x);
        blst_fp2 bb;
        blst_fp_from_uint64(&bb.fp[0], four);
        blst_fp_from_uint64(&bb.fp[1], four);
        blst_fp2_add(&rhs, &rhs, &bb);
        if (!blst_fp2_sqrt(&y, &rhs)) {
            expect(CZK_ERR_EC_NO_POINT, st, &err);
            no_point++;
        } else {
            expect(CZK_ERR_EC_NOT_IN_GROUP, st, &err);
            czk_assert_ok(czk_g2_decode_trusted(&q, b, 96, &err), &err);
            uint8_t rbe[32], rle[32];
            czk_test_hex(rbe, 32, R_HEX);
            for (int i = 0; i < 32; i++) rle[i] = rbe[31 - i];
            czk_g2 qj, rq;
            blst_p2_from_affine(&qj, &q);
            blst_p2_mult(&rq, &qj, rle, 255);
            assert_false(blst_p2_is_inf(&rq));
            outside++;
        }
    }
    assert_true(no_point > 0 && outside > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_bad_encodings_g1),
        cmocka_unit_test(test_bad_encodings_g2),
    };
    return cmocka_run_group_tests_name("ec.encoding", tests, NULL, NULL);
}
