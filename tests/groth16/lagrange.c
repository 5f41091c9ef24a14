/* CZK_TEST_LABELS: unit */
/*
 * The Lagrange form of the H and L queries (groth16.h, czk_params_lagrange):
 *   - czk_params_lagrange_derive's points (two NTTs over G1, W by C's
 *     columns) equal the ones computed naively from the toxic waste: h[j]
 *     and H″[j] as O(N²) sums of scalars, W_k by C's rows, then k·G;
 *   - the CPU backend's proof with the form attached is byte-equal to the
 *     one without it for the same r, s, and verifies; byte-equal also for
 *     witnesses that satisfy nothing (the identity is linear in a, b, c);
 *   - czk_setup_lagrange (scalars from the toxic waste, no G1 NTT) gives
 *     the same points, and refuses bad toxic waste as czk_setup does;
 *   - its file (czk_params_lagrange_write / _read) gives the same points
 *     back; a damaged copy (magic, header, each vector, cut, trailing
 *     bytes), another vk and another shape are refused naming the defect;
 *   - a form of another shape, or parameters without h on the host, are
 *     refused with messages naming what differs.
 * The circuit: inputs (in C, ONE too, but the last: a W at infinity), bits, products whose C
 * coefficient is 1, −1 or random (each branch of W's sum).
 */
#include "testkeys.h"

#include "czk/ntt.h"

#define NI 4 /* inputs, ONE included */

typedef struct lcirc {
    uint64_t sseed, vseed; /* structure (which variables, coefficients), values */
    uint32_t nmul;
    czk_fr in[NI - 1];
} lcirc;

static czk_status lcirc_fn(czk_cs *cs, void *ctx) {
    lcirc *c = ctx;
    czk_rng rng, srng;
    czk_rng_seed(&rng, c->vseed);
    czk_rng_seed(&srng, c->sseed);
    czk_var vars[512];
    czk_fr vals[512];
    uint32_t nv = 0;
    czk_lc la = CZK_LC_INIT, lb = CZK_LC_INIT, lcc = CZK_LC_INIT;
    vars[nv] = CZK_VAR_ONE;
    vals[nv++] = czk_fr_one;
    /* ONE·ONE = ONE: ONE in C */
    czk_lc_add_var(cs, &la, CZK_VAR_ONE);
    czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
    czk_lc_add_var(cs, &lcc, CZK_VAR_ONE);
    czk_cs_enforce(cs, &la, &lb, &lcc);
    for (uint32_t i = 0; i < NI - 1; i++) {
        czk_fr_from_u64(&c->in[i], czk_rng_u64(&rng));
        czk_var x = czk_cs_alloc_input(cs, &c->in[i]);
        /* x·ONE = x: inputs in C; the last one only in A (x·ONE = y, y aux): its W is infinity */
        czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lcc);
        czk_lc_add_var(cs, &la, x);
        czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
        czk_lc_add_var(cs, &lcc, i + 2 < NI ? x : czk_cs_alloc(cs, &c->in[i]));
        czk_cs_enforce(cs, &la, &lb, &lcc);
        vars[nv] = x;
        vals[nv++] = c->in[i];
    }
    for (uint32_t j = 0; j < 20; j++) { /* bits: b·(1 − b) = 0, C empty */
        czk_fr v = czk_rng_u64(&rng) & 1 ? czk_fr_one : czk_fr_zero;
        czk_var b = czk_cs_alloc(cs, &v);
        czk_lc_clear(&la), czk_lc_clear(&lb), czk_lc_clear(&lcc);
        czk_lc_add_var(cs, &la, b);
        czk_lc_add_var(cs, &lb, CZK_VAR_ONE);
        czk_lc_sub_var(cs, &lb, b);
        czk_cs_enforce(cs, &la, &lb, &lcc);
        vars[nv] = b;
        vals[nv++] = v;
    }
    for (uint32_t m = 0; m < c->nmul && nv < 512; m++) {
        czk_fr av = czk_fr_zero, bv = czk_fr_zero, co, t;
        for (int side = 0; side < 2; side++) {
            czk_lc *l = side ? &lb : &la;
            czk_lc_clear(l);
            uint32_t k = (uint32_t)(czk_rng_u64(&srng) % nv);
            czk_fr_from_u64(&co, 1 + czk_rng_u64(&srng) % 1000);
            czk_lc_add(cs, l, vars[k], &co);
            czk_fr_mul(&t, &co, &vals[k]);
            czk_fr_add(side ? &bv : &av, side ? &bv : &av, &t);
        }
        /* C = co·z with co 1, −1 or random: z = a·b/co */
        switch (m % 3) {
        case 0:
            co = czk_fr_one;
            break;
        case 1:
            co = czk_fr_minus_one;
            break;
        default:
            czk_fr_from_u64(&co, 2 + czk_rng_u64(&srng) % 1000000);
        }
        czk_fr zv, ci;
        czk_fr_inv(&ci, &co);
        czk_fr_mul(&zv, &av, &bv);
        czk_fr_mul(&zv, &zv, &ci);
        czk_var z = czk_cs_alloc(cs, &zv);
        czk_lc_clear(&lcc);
        czk_lc_add(cs, &lcc, z, &co);
        czk_cs_enforce(cs, &la, &lb, &lcc);
        vars[nv] = z;
        vals[nv++] = zv;
    }
    czk_lc_free(&la);
    czk_lc_free(&lb);
    czk_lc_free(&lcc);
    return CZK_OK;
}

static czk_shape *lcirc_shape(lcirc *c) {
    return tk_shape_of(lcirc_fn, c);
}

static void lcirc_witness(lcirc *c, czk_witness *w) {
    tk_witness_of(lcirc_fn, c, w);
}

typedef struct fixture {
    lcirc c;
    czk_shape *shape;
    czk_toxic toxic;
    czk_params *params;
    czk_params_lagrange *lf;
    czk_pvk pvk;
    czk_pool *pool;
    czk_backend be;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->c = (lcirc){.sseed = 11, .vseed = 12, .nmul = 200};
    f->shape = lcirc_shape(&f->c);
    czk_err err;
    f->pool = czk_pool_create(3, &err);
    assert_non_null(f->pool);
    czk_rng rng;
    czk_rng_seed(&rng, 21);
    czk_assert_ok(czk_toxic_random(&f->toxic, &rng, &err), &err);
    czk_assert_ok(czk_setup(&f->params, f->shape, &f->toxic, f->pool, &err), &err);
    czk_assert_ok(czk_pvk_prepare(&f->pvk, &f->params->vk, &err), &err);
    czk_assert_ok(czk_backend_cpu(&f->be, f->pool, &err), &err);
    czk_assert_ok(czk_params_lagrange_derive(&f->lf, f->params, f->shape, f->pool, &err), &err);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    czk_params_lagrange_free(f->lf);
    czk_backend_release(&f->be);
    czk_pvk_free(&f->pvk);
    czk_params_free(f->params);
    czk_shape_free(f->shape);
    czk_pool_destroy(f->pool);
    free(f);
    return 0;
}

static void assert_g1_eq(const czk_g1_affine *got, const czk_g1_affine *want, const char *what,
                         size_t i) {
    if (!blst_p1_affine_is_equal(got, want)) fail_msg("%s[%zu] differs", what, i);
}

/* Σ_{i<N−1} x^i·τ^i for x = 1/(c·ω^j): the naive row j of (i)coset_fft applied to τ's powers */
static void row_sum(czk_fr *out, const czk_fr *tau, const czk_fr *c_wj, size_t N) {
    czk_fr x, p = czk_fr_one;
    czk_fr_inv(&x, c_wj);
    czk_fr_mul(&x, &x, tau);
    *out = czk_fr_zero;
    for (size_t i = 0; i + 1 < N; i++) {
        czk_fr_add(out, out, &p);
        czk_fr_mul(&p, &p, &x);
    }
}

static void test_matches_toxic(void **state) {
    fixture *f = *state;
    const czk_shape *s = f->shape;
    unsigned lg = czk_domain_log(s->num_constraints);
    size_t N = (size_t)1 << lg, ni = s->num_inputs, nv = ni + s->num_aux;
    assert_true(N >= 256); /* a domain with many stages */
    assert_int_equal(f->lf->log_n, lg);
    czk_err err;
    czk_fr om, g, zinv, nf, ztd, dinv, wj = czk_fr_one, cw, t;
    czk_assert_ok(czk_fr_root_of_unity(&om, lg, &err), &err);
    czk_fr_from_u64(&g, CZK_FR_GENERATOR);
    czk_fr_pow_u64(&zinv, &g, N);
    czk_fr_sub(&zinv, &zinv, &czk_fr_one);
    czk_fr_inv(&zinv, &zinv);
    czk_fr_from_u64(&nf, N);
    czk_fr_inv(&nf, &nf);
    czk_fr_pow_u64(&ztd, &f->toxic.tau, N);
    czk_fr_sub(&ztd, &ztd, &czk_fr_one);
    czk_fr_inv(&dinv, &f->toxic.delta);
    czk_fr_mul(&ztd, &ztd, &dinv); /* Z(τ)/δ */
    czk_fr *hc = malloc(N * sizeof *hc), *wk = calloc(nv, sizeof *wk);
    for (size_t j = 0; j < N; j++) {
        /* h[j] = zinv/N·Z(τ)/δ·Σ (τ/(g·ω^j))^i */
        czk_fr_mul(&cw, &g, &wj);
        row_sum(&t, &f->toxic.tau, &cw, N);
        czk_fr_mul(&t, &t, &zinv);
        czk_fr_mul(&t, &t, &nf);
        czk_fr_mul(&t, &t, &ztd);
        czk_g1_affine want;
        tk_g1(&want, &t);
        assert_g1_eq(&f->lf->h[j], &want, "h", j);
        /* H″[j] = −zinv/N·Z(τ)/δ·Σ (τ/ω^j)^i */
        row_sum(&t, &f->toxic.tau, &wj, N);
        czk_fr_mul(&t, &t, &zinv);
        czk_fr_mul(&t, &t, &nf);
        czk_fr_mul(&t, &t, &ztd);
        czk_fr_neg(&hc[j], &t);
        czk_fr_mul(&wj, &wj, &om);
    }
    /* W_k = Σ_j C[j][k]·H″[j], by rows */
    const czk_csr *c = &s->m[2];
    for (uint64_t j = 0; j < s->num_constraints; j++)
        for (uint64_t q = c->row_ptr[j]; q < c->row_ptr[j + 1]; q++) {
            czk_fr_mul(&t, &s->coeffs[c->coeff[q]], &hc[j]);
            czk_fr_add(&wk[c->col[q]], &wk[c->col[q]], &t);
        }
    size_t nonzero_in = 0;
    for (size_t k = 0; k < nv; k++) {
        czk_g1_affine want;
        tk_g1(&want, &wk[k]);
        if (k < ni) {
            nonzero_in += !czk_fr_is_zero(&wk[k]);
            assert_g1_eq(&f->lf->w_in[k], &want, "w_in", k);
        } else {
            /* l[k] = L_k + W_k */
            blst_p1 sum;
            blst_p1_from_affine(&sum, &f->params->l[k - ni]);
            blst_p1_add_or_double_affine(&sum, &sum, &want);
            blst_p1_to_affine(&want, &sum);
            assert_g1_eq(&f->lf->l[k - ni], &want, "l", k - ni);
        }
    }
    assert_int_equal(nonzero_in, ni - 1); /* every input but the last (ONE too) is in C */
    assert_true(czk_g1_affine_is_inf(&f->lf->w_in[ni - 1]));
    free(hc);
    free(wk);
}

/* czk_setup_lagrange (scalars from the toxic waste, then k·G) gives derive's points */
static void test_setup_form(void **state) {
    fixture *f = *state;
    czk_err err;
    czk_setup_backend be;
    czk_assert_ok(czk_setup_backend_cpu(&be, f->pool, &err), &err);
    czk_params_lagrange *lf;
    czk_assert_ok(czk_setup_lagrange(&lf, f->shape, &f->toxic, &be, f->pool, &err), &err);
    czk_setup_backend_release(&be);
    assert_int_equal(lf->log_n, f->lf->log_n);
    assert_int_equal(lf->num_inputs, f->lf->num_inputs);
    assert_int_equal(lf->num_aux, f->lf->num_aux);
    for (size_t j = 0; j < (size_t)1 << lf->log_n; j++)
        assert_g1_eq(&lf->h[j], &f->lf->h[j], "h", j);
    for (size_t k = 0; k < lf->num_aux; k++)
        assert_g1_eq(&lf->l[k], &f->lf->l[k], "l", k);
    for (size_t k = 0; k < lf->num_inputs; k++)
        assert_g1_eq(&lf->w_in[k], &f->lf->w_in[k], "w_in", k);
    /* the toxic waste's refusals come first, as czk_setup's */
    czk_toxic bad = f->toxic;
    bad.delta = czk_fr_zero;
    czk_params_lagrange *none = (czk_params_lagrange *)1;
    czk_assert_ok(czk_setup_backend_cpu(&be, f->pool, &err), &err);
    assert_int_equal(czk_setup_lagrange(&none, f->shape, &bad, &be, f->pool, &err),
                     CZK_ERR_INVALID_ARG);
    czk_setup_backend_release(&be);
    assert_null(none);
    assert_string_equal(err.msg, "setup: a toxic value is zero");
    czk_params_lagrange_free(lf);
}

/* a copy of the file at src with byte `at` xor-ed by x (at == SIZE_MAX: one byte appended,
 * x == 0: cut at `at`) */
static void damaged(const char *src, const char *dst, size_t at, uint8_t x) {
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n + 1);
    assert_int_equal(fread(b, 1, n, f), n);
    fclose(f);
    if (at == SIZE_MAX)
        b[n++] = 7;
    else if (x)
        b[at] ^= x;
    else
        n = at;
    f = fopen(dst, "wb");
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    free(b);
}

static void test_file(void **state) {
    fixture *f = *state;
    char dir[512], path[700], bad[700], name[CZK_LAGRANGE_NAME_MAX];
    czk_test_tmpdir(dir, sizeof dir, "lagrange");
    czk_params_lagrange_file_name(name, &f->params->vk);
    assert_int_equal(strlen(name), strlen("czk-lagrange-") + 32 + strlen(".bin"));
    assert_memory_equal(name, "czk-lagrange-", 13);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(bad, sizeof bad, "%s/bad.bin", dir);
    czk_err err;
    czk_assert_ok(czk_params_lagrange_write(f->lf, &f->params->vk, path, f->pool, &err), &err);
    czk_params_lagrange *got;
    czk_assert_ok(czk_params_lagrange_read(&got, path, &f->params->vk, f->shape, f->pool, &err),
                  &err);
    size_t N = (size_t)1 << f->lf->log_n, ni = f->lf->num_inputs, na = f->lf->num_aux;
    assert_memory_equal(got->h, f->lf->h, N * sizeof *got->h);
    assert_memory_equal(got->l, f->lf->l, na * sizeof *got->l);
    assert_memory_equal(got->w_in, f->lf->w_in, ni * sizeof *got->w_in);
    czk_params_lagrange_free(got);
    /* each defect named */
    const struct {
        size_t at;
        uint8_t x;
        czk_status st;
        const char *msg;
    } cases[] = {
        {0, 1, CZK_ERR_FORMAT, "not a czk Lagrange form file"},
        {13, 1, CZK_ERR_FORMAT, "header checksum mismatch"},
        {512 + 5, 1, CZK_ERR_FORMAT, "h's digest mismatch"},
        {512 + 96 * N + 1, 0x10, CZK_ERR_FORMAT, "l's digest mismatch"},
        {512 + 96 * (N + na) + 2, 4, CZK_ERR_FORMAT, "w_in's digest mismatch"},
        {512 + 96 * N, 0, CZK_ERR_TRUNCATED, "shorter than its counts"},
        {SIZE_MAX, 0, CZK_ERR_FORMAT, "trailing bytes"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        damaged(path, bad, cases[k].at, cases[k].x);
        czk_params_lagrange *none = (czk_params_lagrange *)1;
        czk_err_clear(&err);
        assert_int_equal(
            czk_params_lagrange_read(&none, bad, &f->params->vk, f->shape, f->pool, &err),
            cases[k].st);
        assert_null(none);
        if (!strstr(err.msg, cases[k].msg)) fail_msg("case %zu: %s", k, err.msg);
    }
    /* other parameters (another vk), another shape */
    czk_vk other = f->params->vk;
    other.alpha_g1 = f->params->vk.beta_g1;
    czk_params_lagrange *none;
    assert_int_equal(czk_params_lagrange_read(&none, path, &other, f->shape, f->pool, &err),
                     CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "made from other parameters"));
    lcirc o = {.sseed = 11, .vseed = 12, .nmul = 210};
    czk_shape *s2 = lcirc_shape(&o);
    assert_int_equal(czk_params_lagrange_read(&none, path, &f->params->vk, s2, f->pool, &err),
                     CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, " aux, the shape "));
    czk_shape_free(s2);
    assert_int_equal(czk_params_lagrange_read(&none, bad, &f->params->vk, f->shape, f->pool, &err),
                     CZK_ERR_FORMAT); /* the last damaged copy */
    unlink(bad);
    unlink(path);
    assert_int_equal(czk_params_lagrange_read(&none, path, &f->params->vk, f->shape, f->pool, &err),
                     CZK_ERR_IO);
    rmdir(dir);
}

static void prove(fixture *f, const czk_witness *w, bool lagrange, czk_proof *out) {
    czk_fr r, s;
    czk_fr_from_u64(&r, 31337);
    czk_fr_from_u64(&s, 4242);
    f->params->lagrange = lagrange ? f->lf : NULL;
    czk_err err;
    czk_status st = czk_prove(&f->be, f->params, f->shape, w, 1, &r, &s, out, NULL, &err);
    f->params->lagrange = NULL; /* the fixture owns the form */
    czk_assert_ok(st, &err);
}

/* w's proof with and without the form (same r, s): the same bytes; *with: the form's */
static void prove_both(fixture *f, const czk_witness *w, czk_proof *with) {
    czk_proof p0;
    prove(f, w, false, &p0);
    prove(f, w, true, with);
    uint8_t b0[CZK_PROOF_BYTES], b1[CZK_PROOF_BYTES];
    czk_proof_encode(b0, &p0);
    czk_proof_encode(b1, with);
    assert_memory_equal(b0, b1, CZK_PROOF_BYTES);
}

static void test_same_proof(void **state) {
    fixture *f = *state;
    czk_err err;
    for (uint64_t seed = 12; seed < 15; seed++) {
        lcirc c = f->c;
        c.vseed = seed;
        czk_witness w;
        lcirc_witness(&c, &w);
        czk_proof p1;
        prove_both(f, &w, &p1);
        czk_assert_ok(czk_verify(&f->pvk, &p1, c.in, NI - 1, &err), &err);
        czk_witness_free(&w);
    }
}

static void test_any_witness(void **state) {
    fixture *f = *state;
    lcirc c = f->c;
    czk_witness w;
    lcirc_witness(&c, &w);
    czk_rng rng;
    czk_rng_seed(&rng, 99);
    czk_err err;
    for (int round = 0; round < 2; round++) {
        /* values that satisfy nothing: every aux random (the first round), or every aux 0/1 */
        for (uint32_t k = 0; k < w.num_aux; k++) {
            if (round == 0)
                czk_assert_ok(czk_fr_random(&w.aux[k], &rng, &err), &err);
            else
                w.aux[k] = czk_rng_u64(&rng) & 1 ? czk_fr_one : czk_fr_zero;
        }
        czk_proof p1;
        prove_both(f, &w, &p1);
        assert_int_equal(czk_verify(&f->pvk, &p1, c.in, NI - 1, &err), CZK_ERR_VERIFY);
    }
    czk_witness_free(&w);
}

static void test_refusals(void **state) {
    fixture *f = *state;
    czk_err err;
    /* a form of another shape (more products: more aux) */
    lcirc other = {.sseed = 11, .vseed = 12, .nmul = 201};
    czk_shape *s2 = lcirc_shape(&other);
    czk_err_clear(&err);
    assert_int_equal(czk_params_lagrange_check(f->lf, s2, &err), CZK_ERR_MISMATCH);
    char want[128];
    snprintf(want, sizeof want, "lagrange form: %u inputs and %u aux, the shape %u and %u",
             f->lf->num_inputs, f->lf->num_aux, s2->num_inputs, s2->num_aux);
    assert_string_equal(err.msg, want);
    /* attached to parameters that fit the shape, a form of another domain is refused by the
     * prover (a changed log_n stands for it) */
    czk_witness w;
    lcirc_witness(&f->c, &w);
    f->lf->log_n++;
    f->params->lagrange = f->lf;
    czk_proof p;
    czk_fr r = czk_fr_one;
    czk_err_clear(&err);
    czk_status st = czk_prove(&f->be, f->params, f->shape, &w, 1, &r, &r, &p, NULL, &err);
    f->params->lagrange = NULL;
    f->lf->log_n--;
    assert_int_equal(st, CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "lagrange form: domain 2^"));
    czk_witness_free(&w);
    czk_shape_free(s2);
    /* no h on the host */
    czk_g1_affine *h = f->params->h;
    f->params->h = NULL;
    czk_params_lagrange *lf = (czk_params_lagrange *)1;
    czk_err_clear(&err);
    st = czk_params_lagrange_derive(&lf, f->params, f->shape, f->pool, &err);
    f->params->h = h;
    assert_int_equal(st, CZK_ERR_INVALID_ARG);
    assert_null(lf);
    assert_string_equal(err.msg, "lagrange form: the parameters' h or l is not held on the host");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_toxic), cmocka_unit_test(test_setup_form),
        cmocka_unit_test(test_file),          cmocka_unit_test(test_same_proof),
        cmocka_unit_test(test_any_witness),   cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
