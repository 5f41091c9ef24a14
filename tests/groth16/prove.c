/* CZK_TEST_LABELS: unit */
/*
 * Setup and the CPU prover on random circuits: proofs verify; A and B equal
 * the values computed naively from the toxic waste (Lagrange basis by its
 * closed form, no NTT); changed bytes, other inputs and bad batches are
 * refused; parameter lengths equal naive density counts; setup → files →
 * read → prove → verify.
 */
#include "testkeys.h"

#include "czk/ntt.h"

#define NI 5 /* inputs, ONE included */

typedef struct fixture {
    tk_circuit c;
    czk_shape *shape;
    czk_toxic toxic;
    czk_params *params;
    czk_pvk pvk;
    czk_pool *pool;
    czk_backend be;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->c = (tk_circuit){.structure_seed = 3, .value_seed = 100, .ni = NI, .nbits = 40, .nmul = 150};
    f->shape = tk_record(&f->c);
    czk_err err;
    f->pool = czk_pool_create(3, &err);
    assert_non_null(f->pool);
    czk_rng rng;
    czk_rng_seed(&rng, 9);
    czk_assert_ok(czk_toxic_random(&f->toxic, &rng, &err), &err);
    czk_assert_ok(czk_setup(&f->params, f->shape, &f->toxic, f->pool, &err), &err);
    czk_assert_ok(czk_pvk_prepare(&f->pvk, &f->params->vk, &err), &err);
    czk_assert_ok(czk_backend_cpu(&f->be, f->pool, &err), &err);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    czk_backend_release(&f->be);
    czk_pvk_free(&f->pvk);
    czk_params_free(f->params);
    czk_shape_free(f->shape);
    czk_pool_destroy(f->pool);
    tk_circuit_free(&f->c);
    free(f);
    return 0;
}

static void prove_one(fixture *f, uint64_t value_seed, const czk_fr *r, const czk_fr *s,
                      czk_proof *out, czk_fr in[NI - 1]) {
    f->c.value_seed = value_seed;
    czk_witness w;
    tk_witness(&f->c, &w);
    memcpy(in, f->c.in, (NI - 1) * sizeof(czk_fr));
    czk_err err;
    czk_assert_ok(czk_prove(&f->be, f->params, f->shape, &w, 1, r, s, out, NULL, &err), &err);
    czk_witness_free(&w);
}

static void test_prove_verify(void **state) {
    fixture *f = *state;
    czk_err err;
    czk_proof p;
    czk_fr in[NI - 1];
    for (uint64_t v = 1; v <= 3; v++) {
        prove_one(f, v, NULL, NULL, &p, in); /* random r, s */
        czk_assert_ok(czk_verify(&f->pvk, &p, in, NI - 1, &err), &err);
        /* the values of another witness are other public inputs */
        czk_fr other[NI - 1];
        memcpy(other, in, sizeof other);
        czk_fr_add(&other[v % (NI - 1)], &other[v % (NI - 1)], &czk_fr_one);
        assert_int_equal(czk_verify(&f->pvk, &p, other, NI - 1, &err), CZK_ERR_VERIFY);
    }
    /* without randomization (bellperson's r = s = 0) */
    czk_fr zero[1] = {czk_fr_zero};
    prove_one(f, 7, zero, zero, &p, in);
    czk_assert_ok(czk_verify(&f->pvk, &p, in, NI - 1, &err), &err);
}

/*
 * L_k(τ) = ω^k·(τ^N − 1)/(N·(τ − ω^k)), the Lagrange basis in closed form,
 * and u_j(τ) = Σ_k A[k][j]·L_k(τ) by rows, with no NTT and no transpose.
 */
static void naive_qap(const czk_shape *s, int m, const czk_fr *tau, czk_fr *out) {
    size_t N = (size_t)1 << czk_domain_log(s->num_constraints);
    czk_fr om, wk = czk_fr_one, zt, nf, t, lk;
    czk_err err;
    czk_assert_ok(czk_fr_root_of_unity(&om, czk_domain_log(s->num_constraints), &err), &err);
    czk_fr_pow_u64(&zt, tau, N);
    czk_fr_sub(&zt, &zt, &czk_fr_one);
    czk_fr_from_u64(&nf, N);
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    for (size_t j = 0; j < nv; j++)
        out[j] = czk_fr_zero;
    for (uint64_t k = 0; k < s->num_constraints; k++) {
        czk_fr_sub(&t, tau, &wk);
        czk_fr_mul(&t, &t, &nf);
        czk_fr_inv(&t, &t);
        czk_fr_mul(&lk, &wk, &zt);
        czk_fr_mul(&lk, &lk, &t);
        for (uint64_t q = s->m[m].row_ptr[k]; q < s->m[m].row_ptr[k + 1]; q++) {
            czk_fr_mul(&t, &s->coeffs[s->m[m].coeff[q]], &lk);
            czk_fr_add(&out[s->m[m].col[q]], &out[s->m[m].col[q]], &t);
        }
        czk_fr_mul(&wk, &wk, &om);
    }
}

static void test_matches_trapdoor(void **state) {
    fixture *f = *state;
    size_t nv = (size_t)f->shape->num_inputs + f->shape->num_aux;
    czk_fr *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v);
    naive_qap(f->shape, 0, &f->toxic.tau, u);
    naive_qap(f->shape, 1, &f->toxic.tau, v);
    czk_fr r, s;
    czk_fr_from_u64(&r, 12345);
    czk_fr_from_u64(&s, 67890);
    czk_proof p;
    czk_fr in[NI - 1];
    f->c.value_seed = 5;
    czk_witness w;
    tk_witness(&f->c, &w);
    czk_err err;
    czk_assert_ok(czk_prove(&f->be, f->params, f->shape, &w, 1, &r, &s, &p, NULL, &err), &err);
    memcpy(in, f->c.in, sizeof in);
    czk_assert_ok(czk_verify(&f->pvk, &p, in, NI - 1, &err), &err);
    /* A = α + Σ z_j·u_j(τ) + r·δ, B = β + Σ z_j·v_j(τ) + s·δ, as scalars of G1 / G2 */
    czk_fr ea = f->toxic.alpha, eb = f->toxic.beta, t;
    for (size_t j = 0; j < nv; j++) {
        const czk_fr *z = j < w.num_inputs ? &w.inputs[j] : &w.aux[j - w.num_inputs];
        czk_fr_mul(&t, z, &u[j]);
        czk_fr_add(&ea, &ea, &t);
        czk_fr_mul(&t, z, &v[j]);
        czk_fr_add(&eb, &eb, &t);
    }
    czk_fr_mul(&t, &r, &f->toxic.delta);
    czk_fr_add(&ea, &ea, &t);
    czk_fr_mul(&t, &s, &f->toxic.delta);
    czk_fr_add(&eb, &eb, &t);
    czk_g1_affine want_a;
    czk_g2_affine want_b;
    tk_g1(&want_a, &ea);
    tk_g2(&want_b, &eb);
    assert_memory_equal(&p.a, &want_a, sizeof want_a);
    assert_memory_equal(&p.b, &want_b, sizeof want_b);
    /* the same r and s give the same proof */
    czk_proof q;
    czk_assert_ok(czk_prove(&f->be, f->params, f->shape, &w, 1, &r, &s, &q, NULL, &err), &err);
    assert_memory_equal(&p, &q, sizeof p);
    czk_witness_free(&w);
    free(u);
    free(v);
}

static void test_tampering(void **state) {
    fixture *f = *state;
    czk_proof p, q;
    czk_fr in[NI - 1];
    prove_one(f, 11, NULL, NULL, &p, in);
    uint8_t enc[CZK_PROOF_BYTES];
    czk_proof_encode(enc, &p);
    czk_err err;
    czk_assert_ok(czk_proof_decode(&q, enc, &err), &err);
    czk_assert_ok(czk_verify(&f->pvk, &q, in, NI - 1, &err), &err);
    for (int i = 0; i < CZK_PROOF_BYTES; i++) {
        uint8_t e2[CZK_PROOF_BYTES];
        memcpy(e2, enc, sizeof e2);
        e2[i] ^= (uint8_t)(1u << (i % 8));
        czk_status st = czk_proof_decode(&q, e2, &err);
        if (st == CZK_OK) st = czk_verify(&f->pvk, &q, in, NI - 1, &err);
        if (st == CZK_OK) fail_msg("byte %d changed: proof still accepted", i);
    }
}

static void test_batch(void **state) {
    fixture *f = *state;
    enum { N = 4 };
    tk_circuit cs[N];
    void *ctx[N];
    for (int k = 0; k < N; k++) {
        cs[k] = f->c;
        cs[k].a_aux = cs[k].b_aux = cs[k].b_in = NULL;
        cs[k].value_seed = 1000 + (uint64_t)k;
        ctx[k] = &cs[k];
    }
    czk_proof p[N];
    czk_prove_timings t = {0};
    czk_err err;
    czk_assert_ok(czk_prove_circuits(&f->be, f->params, f->shape, tk_circuit_fn, ctx, N, NULL, NULL,
                                     p, &t, f->pool, &err),
                  &err);
    assert_true(t.total > 0 && t.witness > 0 && t.msm_b2 > 0);
    czk_fr in[N * (NI - 1)];
    for (int k = 0; k < N; k++) {
        memcpy(in + k * (NI - 1), cs[k].in, (NI - 1) * sizeof(czk_fr));
        czk_assert_ok(czk_verify(&f->pvk, &p[k], in + k * (NI - 1), NI - 1, &err), &err);
        tk_circuit_free(&cs[k]);
    }
    czk_assert_ok(czk_verify_batch(&f->pvk, p, N, in, NI - 1, f->pool, &err), &err);
    /* one proof replaced by a valid proof of other inputs */
    czk_proof bad[N];
    memcpy(bad, p, sizeof p);
    czk_fr other[NI - 1];
    prove_one(f, 77, NULL, NULL, &bad[2], other);
    czk_assert_ok(czk_verify(&f->pvk, &bad[2], other, NI - 1, &err), &err);
    assert_int_equal(czk_verify_batch(&f->pvk, bad, N, in, NI - 1, f->pool, &err), CZK_ERR_VERIFY);
}

static void test_lengths_and_density(void **state) {
    fixture *f = *state;
    const czk_params *p = f->params;
    uint32_t na = f->c.naux, a = NI, b = 0;
    for (uint32_t j = 0; j < na; j++)
        a += f->c.a_aux[j], b += f->c.b_aux[j];
    for (uint32_t i = 0; i < NI; i++)
        b += f->c.b_in[i];
    /* 4 input copies + 40 bits + 150 products */
    assert_int_equal(na, 194);
    assert_int_equal(f->shape->num_constraints, 4 + 40 + 150 + NI);
    assert_int_equal(p->vk.ic_len, NI);
    assert_int_equal(p->h_len, 255); /* domain 2^8 for 199 constraints */
    assert_int_equal(p->l_len, na);
    assert_int_equal(p->a_len, a);
    assert_int_equal(p->b_g1_len, b);
    assert_int_equal(p->b_g2_len, b);
    czk_err err;
    czk_assert_ok(czk_params_check_shape(p, f->shape, &err), &err);
    /* a witness of another shape is refused */
    czk_witness w;
    tk_witness(&f->c, &w);
    w.num_aux--;
    czk_proof pr;
    assert_int_equal(czk_prove(&f->be, p, f->shape, &w, 1, NULL, NULL, &pr, NULL, &err),
                     CZK_ERR_MISMATCH);
    w.num_aux++;
    czk_witness_free(&w);
}

static void test_files_roundtrip(void **state) {
    fixture *f = *state;
    char dir[256], pp[300], vp[300];
    czk_test_tmpdir(dir, sizeof dir, "groth16");
    snprintf(pp, sizeof pp, "%s/c.params", dir);
    snprintf(vp, sizeof vp, "%s/c.vk", dir);
    czk_err err;
    czk_assert_ok(czk_params_write(f->params, pp, f->pool, &err), &err);
    czk_assert_ok(czk_vk_write(&f->params->vk, vp, &err), &err);
    czk_params *p;
    czk_params_read_opts o = {.flags = CZK_PARAMS_NO_STAMP, .pool = f->pool};
    czk_assert_ok(czk_params_read(&p, pp, &o, NULL, &err), &err);
    czk_vk vk;
    czk_assert_ok(czk_vk_read(&vk, vp, &err), &err);
    czk_pvk pvk;
    czk_assert_ok(czk_pvk_prepare(&pvk, &vk, &err), &err);
    f->c.value_seed = 31;
    czk_witness w;
    tk_witness(&f->c, &w);
    czk_proof pr;
    czk_assert_ok(czk_prove(&f->be, p, f->shape, &w, 1, NULL, NULL, &pr, NULL, &err), &err);
    czk_assert_ok(czk_verify(&pvk, &pr, f->c.in, NI - 1, &err), &err);
    /* and with the original key's vk */
    czk_assert_ok(czk_verify(&f->pvk, &pr, f->c.in, NI - 1, &err), &err);
    czk_witness_free(&w);
    czk_pvk_free(&pvk);
    czk_vk_free(&vk);
    czk_params_free(p);
    czk_test_rm_rf(dir);
}

/* Params for another circuit are refused before proving. */
static void test_wrong_params(void **state) {
    fixture *f = *state;
    tk_circuit c2 = f->c;
    c2.a_aux = c2.b_aux = c2.b_in = NULL;
    c2.nmul += 1;
    czk_shape *s2 = tk_record(&c2);
    czk_witness w;
    tk_witness(&c2, &w);
    czk_proof pr;
    czk_err err;
    assert_int_equal(czk_prove(&f->be, f->params, s2, &w, 1, NULL, NULL, &pr, NULL, &err),
                     CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "section l holds 194 points, the circuit needs 195"));
    czk_witness_free(&w);
    czk_shape_free(s2);
    tk_circuit_free(&c2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prove_verify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_matches_trapdoor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tampering, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lengths_and_density, setup, teardown),
        cmocka_unit_test_setup_teardown(test_files_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_params, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
