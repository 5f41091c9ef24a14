/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * Test-key setup (src/groth16/setup.c) through its backend interface:
 *   - a naive backend written here (blst_p1_mult / blst_p2_mult per scalar,
 *     no encoder, an O(n²) inverse DFT for the Lagrange basis) gives the
 *     same parameters as the CPU fixed-base backend, byte for byte, on
 *     random circuits (tests/r1cs/rand_circuit.h);
 *   - czk_setup_write (streaming, both backends) writes the file that
 *     czk_params_write(czk_setup(...)) writes, stamps it, returns the vk;
 *     once on a file of more than one 64 MiB piece, checked against values
 *     computed here from the toxic waste;
 *   - the parallel transposition (czk_g16_column_evals) gives the column
 *     sums of a naive row-by-row accumulation, for 1 and 3 threads;
 *   - refusals (τ in the domain, a zero toxic value, an unconstrained aux)
 *     come before any product and leave no file behind.
 */
#include "../r1cs/rand_circuit.h"
#include "testkeys.h"

#include "czk/ntt.h"

#include <dirent.h>

static czk_shape *rand_shape(uint64_t seed, uint32_t steps) {
    rc c;
    rc_init(&c, seed, steps);
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, rc_circuit, &c, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    rc_free(&c);
    return s;
}

static czk_toxic toxic_of(uint64_t seed) {
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic t;
    czk_err err;
    czk_assert_ok(czk_toxic_random(&t, &rng, &err), &err);
    return t;
}

/* ---- the naive backend ---- */

typedef struct naive {
    unsigned intt_calls, g1_calls, g2_calls;
} naive;

static czk_status naive_g1(void *self, czk_g1_affine *out, const czk_fr *k, size_t n,
                           czk_err *err) {
    (void)err;
    ((naive *)self)->g1_calls++;
    for (size_t i = 0; i < n; i++) {
        blst_scalar s;
        blst_scalar_from_fr(&s, &k[i]);
        blst_p1 p;
        blst_p1_mult(&p, blst_p1_generator(), s.b, 255);
        blst_p1_to_affine(&out[i], &p);
    }
    return CZK_OK;
}

static czk_status naive_g2(void *self, czk_g2_affine *out, const czk_fr *k, size_t n,
                           czk_err *err) {
    (void)err;
    ((naive *)self)->g2_calls++;
    for (size_t i = 0; i < n; i++) {
        blst_scalar s;
        blst_scalar_from_fr(&s, &k[i]);
        blst_p2 p;
        blst_p2_mult(&p, blst_p2_generator(), s.b, 255);
        blst_p2_to_affine(&out[i], &p);
    }
    return CZK_OK;
}

/* x[i] <- (1/N)·Σ_j x[j]·ω^(−ij), by the definition. */
static czk_status naive_intt(void *self, czk_fr *x, unsigned lg, czk_err *err) {
    ((naive *)self)->intt_calls++;
    size_t n = (size_t)1 << lg;
    if (n > 4096) return czk_errf(err, CZK_ERR_UNSUPPORTED, "naive inverse DFT of 2^%u", lg);
    czk_fr w, winv, ninv, nn;
    czk_assert_ok(czk_fr_root_of_unity(&w, lg, err), err);
    czk_fr_inv(&winv, &w);
    czk_fr_from_u64(&nn, n);
    czk_fr_inv(&ninv, &nn);
    czk_fr *in = malloc(n * sizeof *in);
    assert_non_null(in);
    memcpy(in, x, n * sizeof *in);
    czk_fr wi = czk_fr_one;
    for (size_t i = 0; i < n; i++) {
        czk_fr acc = czk_fr_zero, p = czk_fr_one, t;
        for (size_t j = 0; j < n; j++) {
            czk_fr_mul(&t, &in[j], &p);
            czk_fr_add(&acc, &acc, &t);
            czk_fr_mul(&p, &p, &wi);
        }
        czk_fr_mul(&x[i], &acc, &ninv);
        czk_fr_mul(&wi, &wi, &winv);
    }
    free(in);
    return CZK_OK;
}

static const czk_setup_ops NAIVE_OPS = {"naive",    naive_g1, naive_g2, NULL, NULL,
                                        naive_intt, NULL,     NULL,     NULL};

static void assert_params_equal(const czk_params *x, const czk_params *y) {
    assert_memory_equal(&x->vk, &y->vk, offsetof(czk_vk, ic));
    assert_int_equal(x->vk.ic_len, y->vk.ic_len);
    assert_memory_equal(x->vk.ic, y->vk.ic, x->vk.ic_len * sizeof(czk_g1_affine));
    assert_int_equal(x->h_len, y->h_len);
    assert_int_equal(x->l_len, y->l_len);
    assert_int_equal(x->a_len, y->a_len);
    assert_int_equal(x->b_g1_len, y->b_g1_len);
    assert_int_equal(x->b_g2_len, y->b_g2_len);
    assert_memory_equal(x->h, y->h, x->h_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->l, y->l, x->l_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->a, y->a, x->a_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->b_g1, y->b_g1, x->b_g1_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->b_g2, y->b_g2, x->b_g2_len * sizeof(czk_g2_affine));
}

/* Entries of dir other than . and .. (the stamps folder excluded). */
static unsigned dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "stamps")) n++;
    closedir(d);
    return n;
}

/* ---- tests ---- */

static void test_backends_agree(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(3, &err);
    assert_non_null(pool);
    czk_setup_backend cpu;
    czk_assert_ok(czk_setup_backend_cpu(&cpu, pool, &err), &err);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        czk_shape *s = rand_shape(seed, 80 + 30 * (uint32_t)seed);
        czk_toxic t = toxic_of(100 + seed);
        naive nv = {0};
        czk_setup_backend nb = {&NAIVE_OPS, &nv};
        czk_params *pc, *pn, *ps;
        czk_setup_timings tm;
        czk_setup_opts so = {.timings = &tm};
        czk_assert_ok(czk_setup_with(&pc, s, &t, &cpu, pool, &so, &err), &err);
        assert_true(tm.total > 0);
        czk_assert_ok(czk_setup_with(&pn, s, &t, &nb, NULL, NULL, &err), &err);
        assert_int_equal(nv.intt_calls, 1);
        assert_true(nv.g1_calls >= 6 && nv.g2_calls >= 2);
        czk_assert_ok(czk_setup(&ps, s, &t, pool, &err), &err);
        czk_assert_ok(czk_params_check_shape(pc, s, &err), &err);
        assert_params_equal(pc, pn);
        assert_params_equal(pc, ps);
        czk_params_free(pc);
        czk_params_free(pn);
        czk_params_free(ps);
        czk_shape_free(s);
    }
    czk_setup_backend_release(&cpu);
    czk_pool_destroy(pool);
}

typedef struct phases {
    char names[16][16];
    uint64_t points[16];
    unsigned n;
    /* progress reports: phase, done, total */
    char prog[32][16];
    uint64_t done[32], total[32];
    unsigned np;
} phases;

static void on_progress(void *ctx, const char *name, uint64_t done, uint64_t total) {
    phases *p = ctx;
    assert_true(p->np < 32);
    assert_true(done <= total);
    snprintf(p->prog[p->np], sizeof p->prog[0], "%s", name);
    p->done[p->np] = done;
    p->total[p->np++] = total;
}

static void on_phase(void *ctx, const char *name, double seconds, uint64_t points) {
    phases *p = ctx;
    assert_true(seconds >= 0);
    assert_true(p->n < 16);
    snprintf(p->names[p->n], sizeof p->names[0], "%s", name);
    p->points[p->n++] = points;
}

static void test_stream_equals_memory(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(2, &err);
    assert_non_null(pool);
    char dir[256], p1[400], p2[400], p3[400], stamps[400];
    czk_test_tmpdir(dir, sizeof dir, "groth16");
    snprintf(p1, sizeof p1, "%s/memory.params", dir);
    snprintf(p2, sizeof p2, "%s/stream-cpu.params", dir);
    snprintf(p3, sizeof p3, "%s/stream-naive.params", dir);
    snprintf(stamps, sizeof stamps, "%s/stamps", dir);
    czk_shape *s = rand_shape(7, 300);
    czk_toxic t = toxic_of(5);
    czk_params *pm;
    czk_assert_ok(czk_setup(&pm, s, &t, pool, &err), &err);
    czk_assert_ok(czk_params_write(pm, p1, pool, &err), &err);

    czk_setup_backend cpu;
    czk_assert_ok(czk_setup_backend_cpu(&cpu, pool, &err), &err);
    czk_vk vk;
    bool stamped = false;
    phases ph = {0};
    czk_setup_opts so = {
        .stamp_dir = stamps, .phase = on_phase, .phase_ctx = &ph, .progress = on_progress};
    czk_assert_ok(czk_setup_write(p2, &vk, &stamped, s, &t, &cpu, pool, &so, &err), &err);
    assert_true(stamped);
    assert_memory_equal(&vk, &pm->vk, offsetof(czk_vk, ic));
    assert_int_equal(vk.ic_len, pm->vk.ic_len);
    assert_memory_equal(vk.ic, pm->vk.ic, vk.ic_len * sizeof *vk.ic);
    czk_vk_free(&vk);
    /* every phase reported once, the vectors with their lengths */
    const char *want[] = {"lagrange", "qap",  "vk",   "ic",      "h",     "l",
                          "a",        "b_g1", "b_g2", "scalars", "write", "stamp"};
    assert_int_equal(ph.n, sizeof want / sizeof want[0]);
    for (unsigned i = 0; i < ph.n; i++)
        assert_string_equal(ph.names[i], want[i]);
    assert_int_equal(ph.points[4], pm->h_len);
    assert_int_equal(ph.points[8], pm->b_g2_len);
    /* progress: the setup's start, each vector's start (0 of its length) and, for the five
     * streamed ones (one piece each here), its end */
    const char *vn[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};
    uint64_t vl[6] = {pm->vk.ic_len, pm->h_len, pm->l_len, pm->a_len, pm->b_g1_len, pm->b_g2_len};
    unsigned k = 0;
    assert_true(ph.np == 12);
    assert_string_equal(ph.prog[k], "lagrange");
    assert_true(ph.done[k] == 0 && ph.total[k] == 0);
    k++;
    for (int v = 0; v < 6; v++) {
        assert_true(vl[v] > 0);
        assert_string_equal(ph.prog[k], vn[v]);
        assert_true(ph.done[k] == 0 && ph.total[k] == vl[v]);
        k++;
        if (v == 0) continue; /* ic: made in memory, for the vk */
        assert_string_equal(ph.prog[k], vn[v]);
        assert_true(ph.done[k] == vl[v] && ph.total[k] == vl[v]);
        k++;
    }

    naive nv = {0};
    czk_setup_backend nb = {&NAIVE_OPS, &nv};
    so = (czk_setup_opts){.no_stamp = true};
    czk_assert_ok(czk_setup_write(p3, NULL, &stamped, s, &t, &nb, pool, &so, &err), &err);
    assert_false(stamped);

    size_t n1, n2, n3;
    uint8_t *b1 = czk_test_read(p1, &n1), *b2 = czk_test_read(p2, &n2),
            *b3 = czk_test_read(p3, &n3);
    assert_int_equal(n1, czk_params_encoded_size(pm));
    assert_int_equal(n2, n1);
    assert_int_equal(n3, n1);
    assert_memory_equal(b1, b2, n1);
    assert_memory_equal(b1, b3, n1);
    free(b1);
    free(b2);
    free(b3);
    /* the stamp is the one a full check would have left */
    czk_params_read_opts o = {.stamp_dir = stamps, .pool = pool};
    czk_params_read_info info;
    czk_params *rd;
    czk_assert_ok(czk_params_read(&rd, p2, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    czk_params_free(rd);
    o.flags = CZK_PARAMS_FULL_CHECK;
    czk_params_read_info full;
    czk_assert_ok(czk_params_read(&rd, p2, &o, &full, &err), &err);
    assert_memory_equal(full.tree, info.tree, 64);
    czk_params_free(rd);

    czk_setup_backend_release(&cpu);
    czk_params_free(pm);
    czk_shape_free(s);
    czk_pool_destroy(pool);
    czk_test_rm_rf(dir);
}

/* n constraints x·ONE = x over one aux x (and ONE): a file that is almost all h. */
typedef struct wide {
    uint64_t n;
} wide;

static czk_status wide_fn(czk_cs *cs, void *ctx) {
    wide *w = ctx;
    czk_fr v;
    czk_fr_from_u64(&v, 5);
    czk_var x = czk_cs_alloc(cs, &v);
    if (!czk_cs_records(cs)) return CZK_OK;
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, x);
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add_var(cs, &c, x);
    for (uint64_t k = 0; k < w->n; k++)
        czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
    return CZK_OK;
}

/*
 * Streaming across a piece boundary: N = 2^20, so h alone is 100 MB (a piece and a half, a point
 * straddling the boundary). The file is read back (trusted by its stamp) and checked against
 * values computed here with blst from the toxic waste: h at the points around the boundary and
 * at random ones, h_i = τ^i·Z(τ)/δ; the rest in full from the Lagrange basis of this circuit.
 * With n = N − 1 constraints x·ONE = x and the input constraint ONE·0 = 0 last, only
 * L = L_{N−1}(τ) = ω^{N−1}·Z(τ) / (N·(τ − ω^{N−1})) is needed (Σ_k L_k(τ) = 1):
 *   u_ONE = L, v_ONE = 1 − L, w_ONE = 0;  u_x = 1 − L, v_x = 0, w_x = 1 − L;
 *   ic = [(β·L + α·(1 − L))/γ], l = [(β + 1)·(1 − L)/δ], a = [L, 1 − L], b = [1 − L].
 */
static void test_stream_pieces(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    assert_non_null(pool);
    const unsigned LG = 20;
    const uint64_t N = (uint64_t)1 << LG;
    wide w = {N - 1}; /* + 1 input constraint = N */
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, wide_fn, &w, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    assert_int_equal(s->num_constraints, N);
    assert_int_equal(s->num_inputs, 1);
    assert_int_equal(s->num_aux, 1);
    czk_toxic t = toxic_of(77);
    char dir[256], path[400], stamps[400];
    czk_test_tmpdir(dir, sizeof dir, "groth16");
    snprintf(path, sizeof path, "%s/wide.params", dir);
    snprintf(stamps, sizeof stamps, "%s/stamps", dir);
    czk_setup_backend cpu;
    czk_assert_ok(czk_setup_backend_cpu(&cpu, pool, &err), &err);
    bool stamped;
    czk_setup_opts so = {.stamp_dir = stamps};
    czk_assert_ok(czk_setup_write(path, NULL, &stamped, s, &t, &cpu, pool, &so, &err), &err);
    assert_true(stamped);
    czk_params_read_opts o = {.stamp_dir = stamps, .pool = pool};
    czk_params_read_info info;
    czk_params *p;
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_true(info.bytes > CZK_TREE_PIECE_BYTES);
    assert_int_equal(p->h_len, N - 1);
    /* Z(τ)/δ, h_i = τ^i·Z(τ)/δ */
    czk_fr zt, zd, dinv, ginv;
    czk_fr_pow_u64(&zt, &t.tau, N);
    czk_fr_sub(&zt, &zt, &czk_fr_one);
    czk_fr_inv(&dinv, &t.delta);
    czk_fr_inv(&ginv, &t.gamma);
    czk_fr_mul(&zd, &zt, &dinv);
    uint64_t h_off = czk_vk_encoded_size(p->vk.ic_len) + 4;
    czk_rng rng;
    czk_rng_seed(&rng, 3);
    for (unsigned q = 0; q < 40; q++) {
        uint64_t i = q < 24 ? (CZK_TREE_PIECE_BYTES - h_off) / 96 - 12 + q /* around it */
                            : czk_rng_u64(&rng) % p->h_len;
        czk_fr k;
        czk_fr_pow_u64(&k, &t.tau, i);
        czk_fr_mul(&k, &k, &zd);
        czk_g1_affine want;
        tk_g1(&want, &k);
        if (memcmp(&want, &p->h[i], sizeof want))
            fail_msg("h[%llu] differs", (unsigned long long)i);
    }
    /* L = ω^{N−1}·Z(τ) / (N·(τ − ω^{N−1})) */
    czk_fr om, L, d, nn, oneL, k;
    czk_assert_ok(czk_fr_root_of_unity(&om, LG, &err), &err);
    czk_fr_pow_u64(&om, &om, N - 1);
    czk_fr_sub(&d, &t.tau, &om);
    czk_fr_from_u64(&nn, N);
    czk_fr_mul(&d, &d, &nn);
    czk_fr_inv(&d, &d);
    czk_fr_mul(&L, &om, &zt);
    czk_fr_mul(&L, &L, &d);
    czk_fr_sub(&oneL, &czk_fr_one, &L);
    czk_g1_affine g;
    czk_g2_affine g2;
    /* ic_0 = (β·L + α·(1 − L))/γ */
    czk_fr x, y;
    czk_fr_mul(&x, &t.beta, &L);
    czk_fr_mul(&y, &t.alpha, &oneL);
    czk_fr_add(&x, &x, &y);
    czk_fr_mul(&k, &x, &ginv);
    tk_g1(&g, &k);
    assert_int_equal(p->vk.ic_len, 1);
    assert_memory_equal(&g, &p->vk.ic[0], sizeof g);
    /* l = [(β + 1)·(1 − L)/δ] */
    czk_fr_add(&x, &t.beta, &czk_fr_one);
    czk_fr_mul(&x, &x, &oneL);
    czk_fr_mul(&k, &x, &dinv);
    tk_g1(&g, &k);
    assert_int_equal(p->l_len, 1);
    assert_memory_equal(&g, &p->l[0], sizeof g);
    /* a = [L, 1 − L], b = [1 − L] */
    assert_int_equal(p->a_len, 2);
    tk_g1(&g, &L);
    assert_memory_equal(&g, &p->a[0], sizeof g);
    tk_g1(&g, &oneL);
    assert_memory_equal(&g, &p->a[1], sizeof g);
    assert_int_equal(p->b_g1_len, 1);
    assert_memory_equal(&g, &p->b_g1[0], sizeof g);
    tk_g2(&g2, &oneL);
    assert_memory_equal(&g2, &p->b_g2[0], sizeof g2);
    /* the vk */
    tk_g1(&g, &t.alpha);
    assert_memory_equal(&g, &p->vk.alpha_g1, sizeof g);
    tk_g2(&g2, &t.delta);
    assert_memory_equal(&g2, &p->vk.delta_g2, sizeof g2);
    czk_params_free(p);
    czk_setup_backend_release(&cpu);
    czk_shape_free(s);
    czk_pool_destroy(pool);
    czk_test_rm_rf(dir);
}

/* out[c] = Σ_k M[k][c]·lag[k], row by row (the independent reference). */
static void naive_columns(const czk_shape *s, const czk_csr *m, const czk_fr *lag, czk_fr *out) {
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    for (size_t c = 0; c < nv; c++)
        out[c] = czk_fr_zero;
    for (uint64_t k = 0; k < s->num_constraints; k++)
        for (uint64_t q = m->row_ptr[k]; q < m->row_ptr[k + 1]; q++) {
            czk_fr t;
            czk_fr_mul(&t, &s->coeffs[m->coeff[q]], &lag[k]);
            czk_fr_add(&out[m->col[q]], &out[m->col[q]], &t);
        }
}

static void test_transpose(void **state) {
    (void)state;
    czk_err err;
    czk_pool *p1 = czk_pool_create(1, &err), *p3 = czk_pool_create(3, &err);
    assert_true(p1 && p3);
    for (uint64_t seed = 11; seed <= 13; seed++) {
        czk_shape *s = rand_shape(seed, seed == 13 ? 20000 : 500);
        size_t nv = (size_t)s->num_inputs + s->num_aux;
        czk_fr *lag = malloc(s->num_constraints * sizeof *lag), *want = malloc(nv * sizeof *want),
               *got = malloc(nv * sizeof *got);
        assert_true(lag && want && got);
        czk_rng rng;
        czk_rng_seed(&rng, seed);
        for (uint64_t k = 0; k < s->num_constraints; k++)
            czk_assert_ok(czk_fr_random(&lag[k], &rng, &err), &err);
        for (int m = 0; m < 3; m++) {
            naive_columns(s, &s->m[m], lag, want);
            for (int pi = 0; pi < 3; pi++) {
                czk_pool *pool = pi == 0 ? NULL : pi == 1 ? p1 : p3;
                memset(got, 0xa5, nv * sizeof *got);
                czk_assert_ok(czk_g16_column_evals(s, &s->m[m], lag, got, pool, &err), &err);
                for (size_t c = 0; c < nv; c++)
                    if (memcmp(&got[c], &want[c], sizeof got[c]))
                        fail_msg("seed %llu, matrix %d, pool %d: column %zu differs",
                                 (unsigned long long)seed, m, pi, c);
            }
        }
        /* a column out of range is refused */
        uint32_t saved = s->m[1].col[s->m[1].nnz / 2];
        s->m[1].col[s->m[1].nnz / 2] = (uint32_t)nv;
        assert_int_equal(czk_g16_column_evals(s, &s->m[1], lag, got, p3, &err),
                         CZK_ERR_INVALID_ARG);
        assert_non_null(strstr(err.msg, "out of range"));
        s->m[1].col[s->m[1].nnz / 2] = saved;
        free(lag);
        free(want);
        free(got);
        czk_shape_free(s);
    }
    czk_pool_destroy(p1);
    czk_pool_destroy(p3);
}

/* An aux variable that no constraint uses. */
static czk_status loose_fn(czk_cs *cs, void *ctx) {
    (void)ctx;
    czk_fr v;
    czk_fr_from_u64(&v, 3);
    czk_var x = czk_cs_alloc(cs, &v);
    czk_var y = czk_cs_alloc(cs, &v);
    (void)y;
    czk_var z = czk_cs_alloc(cs, &v);
    if (!czk_cs_records(cs)) return CZK_OK;
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, x);
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add_var(cs, &c, z);
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
    return CZK_OK;
}

static void expect_refused(const czk_shape *s, const czk_toxic *t, const char *what) {
    char dir[256], path[400];
    czk_test_tmpdir(dir, sizeof dir, "groth16");
    snprintf(path, sizeof path, "%s/k.params", dir);
    czk_err err;
    czk_params *p = (czk_params *)1;
    czk_status st = czk_setup(&p, s, t, NULL, &err);
    if (st != CZK_ERR_INVALID_ARG || !strstr(err.msg, what))
        fail_msg("czk_setup: want \"%s\", got %s: %s", what, czk_status_name(st), err.msg);
    assert_null(p);
    czk_setup_backend cpu;
    czk_assert_ok(czk_setup_backend_cpu(&cpu, NULL, &err), &err);
    naive nv = {0};
    czk_setup_backend nb = {&NAIVE_OPS, &nv};
    czk_setup_opts so = {.no_stamp = true};
    czk_vk vk;
    st = czk_setup_write(path, &vk, NULL, s, t, &cpu, NULL, &so, &err);
    if (st != CZK_ERR_INVALID_ARG || !strstr(err.msg, what))
        fail_msg("czk_setup_write: want \"%s\", got %s: %s", what, czk_status_name(st), err.msg);
    assert_null(vk.ic);
    assert_int_equal(dir_entries(dir), 0); /* no file, no temporary */
    /* refused before any product */
    st = czk_setup_write(path, NULL, NULL, s, t, &nb, NULL, &so, &err);
    assert_int_equal(st, CZK_ERR_INVALID_ARG);
    assert_int_equal(nv.g1_calls + nv.g2_calls, 0);
    czk_setup_backend_release(&cpu);
    czk_test_rm_rf(dir);
}

static void test_refusals(void **state) {
    (void)state;
    czk_shape *s = rand_shape(21, 60);
    czk_toxic t = toxic_of(9);
    /* τ = ω_N: Z(τ) = 0 */
    unsigned lg = czk_domain_log(s->num_constraints);
    czk_toxic bad = t;
    czk_err err;
    czk_assert_ok(czk_fr_root_of_unity(&bad.tau, lg, &err), &err);
    expect_refused(s, &bad, "tau is in the domain");
    bad = t;
    bad.gamma = czk_fr_zero;
    expect_refused(s, &bad, "a toxic value is zero");
    czk_shape_free(s);
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, loose_fn, NULL, &err), &err);
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    expect_refused(s, &t, "aux 1 is unconstrained");
    czk_shape_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backends_agree), cmocka_unit_test(test_stream_equals_memory),
        cmocka_unit_test(test_transpose),      cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_stream_pieces),
    };
    /* CZK_TEST_FILTER=test_transpose (a cmocka pattern): run only the matching tests */
    if (getenv("CZK_TEST_FILTER")) cmocka_set_test_filter(getenv("CZK_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
