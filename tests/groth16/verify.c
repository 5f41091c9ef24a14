/* CZK_TEST_LABELS: unit */
/*
 * Proof encoding and the verifier, on a vk and proofs built from known
 * discrete logarithms (no setup or prover involved): with α₁ = α·G1,
 * β₂ = β·G2, γ₂ = γ·G2, δ₂ = δ·G2 and IC_i = k_i·G1, the proof
 * A = a·G1, B = b·G2, C = c·G1 with c = (a·b − α·β − γ·Σ in_i·k_i)/δ
 * satisfies e(A,B) = e(α,β)·e(Σ in_i·IC_i, γ)·e(C,δ). The expected results
 * come from this scalar identity, not from the pairing code under test.
 */
#include "testkeys.h"

#define NIN 4 /* public inputs (ic has NIN + 1 points) */

typedef struct trapdoor {
    czk_fr alpha, beta, gamma, delta, k[NIN + 1];
} trapdoor;

typedef struct fixture {
    trapdoor t;
    czk_vk vk;
    czk_pvk pvk;
    czk_rng rng;
    czk_pool *pool;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    czk_rng_seed(&f->rng, 42);
    trapdoor *t = &f->t;
    tk_rand_fr(&t->alpha, &f->rng);
    tk_rand_fr(&t->beta, &f->rng);
    tk_rand_fr(&t->gamma, &f->rng);
    tk_rand_fr(&t->delta, &f->rng);
    tk_g1(&f->vk.alpha_g1, &t->alpha);
    tk_g1(&f->vk.beta_g1, &t->beta);
    tk_g2(&f->vk.beta_g2, &t->beta);
    tk_g2(&f->vk.gamma_g2, &t->gamma);
    tk_g1(&f->vk.delta_g1, &t->delta);
    tk_g2(&f->vk.delta_g2, &t->delta);
    f->vk.ic_len = NIN + 1;
    f->vk.ic = czk_g16_alloc((NIN + 1) * sizeof(czk_g1_affine));
    for (int i = 0; i <= NIN; i++) {
        tk_rand_fr(&t->k[i], &f->rng);
        tk_g1(&f->vk.ic[i], &t->k[i]);
    }
    czk_err err;
    czk_assert_ok(czk_pvk_prepare(&f->pvk, &f->vk, &err), &err);
    f->pool = czk_pool_create(3, &err);
    assert_non_null(f->pool);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    czk_vk_free(&f->vk);
    czk_pvk_free(&f->pvk);
    czk_pool_destroy(f->pool);
    free(f);
    return 0;
}

/* A proof for `in` (NIN values) from the trapdoor. */
static void simulate(fixture *f, const czk_fr *in, czk_proof *out) {
    czk_fr a, b, c, t, s = f->t.k[0];
    tk_rand_fr(&a, &f->rng);
    tk_rand_fr(&b, &f->rng);
    for (int i = 0; i < NIN; i++) {
        czk_fr_mul(&t, &in[i], &f->t.k[i + 1]);
        czk_fr_add(&s, &s, &t);
    }
    czk_fr_mul(&c, &a, &b);
    czk_fr_mul(&t, &f->t.alpha, &f->t.beta);
    czk_fr_sub(&c, &c, &t);
    czk_fr_mul(&t, &f->t.gamma, &s);
    czk_fr_sub(&c, &c, &t);
    czk_fr_inv(&t, &f->t.delta);
    czk_fr_mul(&c, &c, &t);
    tk_g1(&out->a, &a);
    tk_g2(&out->b, &b);
    tk_g1(&out->c, &c);
}

static void rand_inputs(fixture *f, czk_fr *in) {
    for (int i = 0; i < NIN; i++)
        tk_rand_fr(&in[i], &f->rng);
}

static void test_valid_and_inputs(void **state) {
    fixture *f = *state;
    czk_fr in[NIN], other[NIN];
    czk_proof p;
    czk_err err;
    rand_inputs(f, in);
    simulate(f, in, &p);
    czk_assert_ok(czk_verify(&f->pvk, &p, in, NIN, &err), &err);
    /* each input changed alone */
    for (int i = 0; i < NIN; i++) {
        memcpy(other, in, sizeof in);
        czk_fr_add(&other[i], &other[i], &czk_fr_one);
        assert_int_equal(czk_verify(&f->pvk, &p, other, NIN, &err), CZK_ERR_VERIFY);
    }
    /* zero and one inputs (the bit-aware MSM's special cases) */
    for (int i = 0; i < NIN; i++)
        in[i] = i % 2 ? czk_fr_one : czk_fr_zero;
    simulate(f, in, &p);
    czk_assert_ok(czk_verify(&f->pvk, &p, in, NIN, &err), &err);
    /* wrong count */
    assert_int_equal(czk_verify(&f->pvk, &p, in, NIN - 1, &err), CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "3 public inputs, the vk takes 4"));
    /* swapped points */
    czk_proof q = p;
    q.a = p.c;
    q.c = p.a;
    assert_int_equal(czk_verify(&f->pvk, &q, in, NIN, &err), CZK_ERR_VERIFY);
}

static void test_encoding(void **state) {
    fixture *f = *state;
    czk_fr in[NIN];
    rand_inputs(f, in);
    czk_proof p, q;
    simulate(f, in, &p);
    uint8_t enc[CZK_PROOF_BYTES], a[48], b[96], c[48];
    czk_proof_encode(enc, &p);
    /* the layout: A ‖ B ‖ C compressed */
    czk_g1_compress(a, &p.a);
    czk_g2_compress(b, &p.b);
    czk_g1_compress(c, &p.c);
    assert_memory_equal(enc, a, 48);
    assert_memory_equal(enc + 48, b, 96);
    assert_memory_equal(enc + 144, c, 48);
    assert_true((enc[0] & 0x80) && (enc[48] & 0x80) && (enc[144] & 0x80));
    czk_err err;
    czk_assert_ok(czk_proof_decode(&q, enc, &err), &err);
    assert_memory_equal(&p, &q, sizeof p);
    czk_assert_ok(czk_verify(&f->pvk, &q, in, NIN, &err), &err);

    /* any single changed byte: refused by the decoder or by the verifier */
    for (int i = 0; i < CZK_PROOF_BYTES; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            uint8_t e2[CZK_PROOF_BYTES];
            memcpy(e2, enc, sizeof e2);
            e2[i] ^= (uint8_t)(1u << bit);
            czk_status st = czk_proof_decode(&q, e2, &err);
            if (st == CZK_OK) st = czk_verify(&f->pvk, &q, in, NIN, &err);
            if (st == CZK_OK) fail_msg("byte %d bit %d changed, proof still accepted", i, bit);
            const char *part = i < 48 ? "A" : i < 144 ? "B" : "C";
            if (st != CZK_ERR_VERIFY) {
                char want[32];
                snprintf(want, sizeof want, "proof: %s (bytes", part);
                assert_non_null(strstr(err.msg, want));
            }
        }
    }
    /* infinity is refused */
    uint8_t inf[CZK_PROOF_BYTES];
    memcpy(inf, enc, sizeof inf);
    memset(inf + 48, 0, 96);
    inf[48] = 0xc0;
    assert_int_equal(czk_proof_decode(&q, inf, &err), CZK_ERR_EC_INFINITY);
    assert_non_null(strstr(err.msg, "proof: B"));
    memcpy(inf, enc, sizeof inf);
    memset(inf + 144, 0, 48);
    inf[144] = 0xc0;
    assert_int_equal(czk_proof_decode(&q, inf, &err), CZK_ERR_EC_INFINITY);
    assert_non_null(strstr(err.msg, "proof: C"));
}

static void test_batch(void **state) {
    fixture *f = *state;
    enum { N = 9 };
    czk_fr in[N * NIN];
    czk_proof p[N];
    czk_err err;
    for (int j = 0; j < N; j++) {
        rand_inputs(f, in + j * NIN);
        simulate(f, in + j * NIN, &p[j]);
    }
    czk_assert_ok(czk_verify_batch(&f->pvk, p, N, in, NIN, f->pool, &err), &err);
    czk_assert_ok(czk_verify_batch(&f->pvk, p, N, in, NIN, NULL, &err), &err);
    czk_assert_ok(czk_verify_batch(&f->pvk, p, 1, in, NIN, f->pool, &err), &err);
    czk_assert_ok(czk_verify_batch(&f->pvk, p, 0, in, NIN, f->pool, &err), &err);
    /* one bad proof anywhere in the batch */
    for (int j = 0; j < N; j += 4) {
        czk_proof bad[N];
        memcpy(bad, p, sizeof p);
        czk_g1 c;
        blst_p1_from_affine(&c, &bad[j].c);
        blst_p1_add_or_double_affine(&c, &c, blst_p1_affine_generator());
        blst_p1_to_affine(&bad[j].c, &c);
        assert_int_equal(czk_verify(&f->pvk, &bad[j], in + j * NIN, NIN, &err), CZK_ERR_VERIFY);
        assert_int_equal(czk_verify_batch(&f->pvk, bad, N, in, NIN, f->pool, &err), CZK_ERR_VERIFY);
    }
    /* one wrong public input */
    czk_fr in2[N * NIN];
    memcpy(in2, in, sizeof in);
    czk_fr_add(&in2[5 * NIN + 2], &in2[5 * NIN + 2], &czk_fr_one);
    assert_int_equal(czk_verify_batch(&f->pvk, p, N, in2, NIN, f->pool, &err), CZK_ERR_VERIFY);
    /* two proofs swapped against their inputs */
    czk_proof sw[N];
    memcpy(sw, p, sizeof p);
    sw[1] = p[2];
    sw[2] = p[1];
    assert_int_equal(czk_verify_batch(&f->pvk, sw, N, in, NIN, f->pool, &err), CZK_ERR_VERIFY);
    assert_int_equal(czk_verify_batch(&f->pvk, p, N, in, NIN + 1, f->pool, &err), CZK_ERR_MISMATCH);
}

/* A vk without public inputs (ic = IC_0 only). */
static void test_no_inputs(void **state) {
    fixture *f = *state;
    czk_vk vk = f->vk;
    vk.ic_len = 1;
    czk_pvk pvk;
    czk_err err;
    czk_assert_ok(czk_pvk_prepare(&pvk, &vk, &err), &err);
    czk_fr a, b, c, t;
    tk_rand_fr(&a, &f->rng);
    tk_rand_fr(&b, &f->rng);
    czk_fr_mul(&c, &a, &b);
    czk_fr_mul(&t, &f->t.alpha, &f->t.beta);
    czk_fr_sub(&c, &c, &t);
    czk_fr_mul(&t, &f->t.gamma, &f->t.k[0]);
    czk_fr_sub(&c, &c, &t);
    czk_fr_inv(&t, &f->t.delta);
    czk_fr_mul(&c, &c, &t);
    czk_proof p;
    tk_g1(&p.a, &a);
    tk_g2(&p.b, &b);
    tk_g1(&p.c, &c);
    czk_assert_ok(czk_verify(&pvk, &p, NULL, 0, &err), &err);
    czk_assert_ok(czk_verify_batch(&pvk, &p, 1, NULL, 0, NULL, &err), &err);
    assert_int_equal(czk_verify(&f->pvk, &p, NULL, 0, &err), CZK_ERR_MISMATCH);
    czk_pvk_free(&pvk);
    vk.ic_len = 0;
    assert_int_equal(czk_pvk_prepare(&pvk, &vk, &err), CZK_ERR_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_valid_and_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encoding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_inputs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
