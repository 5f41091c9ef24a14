/* CZK_TEST_LABELS: unit */
/*
 * The constraint system: random circuits evaluated through the recorded shape
 * against a naive evaluation of the logged constraints; densities and rows
 * against a naive merge; the three modes against each other; finalization;
 * unsatisfied constraints; sticky errors and cancellation; WITNESS mode into
 * caller-provided buffers (the circuit's own value log, byte for byte; nothing
 * written past the buffers; too-small buffers refused naming the counts).
 */
#include "rand_circuit.h"

#include <stdio.h>

/* Runs rc in `mode`; takes the shape and/or witness when asked. */
static czk_status run_rc(czk_cs_mode mode, rc *c, atomic_int *cancel, czk_shape **shape,
                         czk_witness *wit, czk_err *err) {
    czk_cs *cs = czk_cs_create(mode, cancel, err);
    assert_non_null(cs);
    czk_status st = czk_cs_run(cs, rc_circuit, c, err);
    if (st == CZK_OK) {
        czk_err e2;
        if (shape) czk_assert_ok(czk_cs_take_shape(cs, shape, &e2), &e2);
        if (wit) czk_assert_ok(czk_cs_take_witness(cs, wit, &e2), &e2);
    }
    czk_cs_free(cs);
    return st;
}

/* Column of a variable in [inputs | aux]. */
static uint32_t col_of(czk_var v, uint32_t ni) {
    return czk_var_is_input(v) ? czk_var_index(v) : ni + czk_var_index(v);
}

/* Naive merge: one entry per column with the summed coefficient, zero sums
 * dropped, sorted by column (selection sort; lcs are short). Returns count. */
static size_t naive_merge(const rc_term *t, size_t n, uint32_t ni, uint32_t *cols, czk_fr *coeffs) {
    size_t k = 0;
    bool *used = calloc(n ? n : 1, 1);
    assert_non_null(used);
    for (;;) {
        /* the smallest unused column */
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (!used[i] && (best == n || col_of(t[i].var, ni) < col_of(t[best].var, ni))) best = i;
        if (best == n) break;
        uint32_t col = col_of(t[best].var, ni);
        czk_fr sum = czk_fr_zero;
        for (size_t i = 0; i < n; i++)
            if (!used[i] && col_of(t[i].var, ni) == col) {
                czk_fr_add(&sum, &sum, &t[i].coeff);
                used[i] = true;
            }
        if (!czk_fr_is_zero(&sum)) {
            cols[k] = col;
            coeffs[k] = sum;
            k++;
        }
    }
    free(used);
    return k;
}

static void check_random_eval(uint64_t seed, czk_pool *pool) {
    rc c;
    rc_init(&c, seed, 300);
    czk_shape *s;
    czk_witness w;
    czk_err err;
    czk_assert_ok(run_rc(CZK_CS_CHECK, &c, NULL, &s, &w, &err), &err);
    /* a few hundred to a few thousand constraints */
    assert_true(c.ncons >= 300 && c.ncons < 10000);
    assert_int_equal(s->num_constraints, c.ncons + c.num_in);
    /* the witness is the values the circuit computed */
    assert_int_equal(w.num_inputs, c.num_in);
    assert_int_equal(w.num_aux, c.num_aux);
    assert_memory_equal(w.inputs, c.in_vals, c.num_in * sizeof(czk_fr));
    assert_memory_equal(w.aux, c.aux_vals, c.num_aux * sizeof(czk_fr));

    size_t n = s->num_constraints;
    czk_fr *abc = malloc(6 * n * sizeof(czk_fr));
    assert_non_null(abc);
    czk_assert_ok(czk_shape_eval(s, &w, abc, abc + n, abc + 2 * n, pool, &err), &err);
    czk_assert_ok(czk_shape_eval(s, &w, abc + 3 * n, NULL, abc + 5 * n, NULL, &err), &err);
    assert_memory_equal(abc, abc + 3 * n, n * sizeof(czk_fr));
    assert_memory_equal(abc + 2 * n, abc + 5 * n, n * sizeof(czk_fr));
    for (size_t k = 0; k < c.ncons; k++) {
        for (int m = 0; m < 3; m++) {
            czk_fr want = rc_lc_val(&c, c.terms + c.cons[k][m], c.cons[k][m + 1] - c.cons[k][m]);
            if (!czk_fr_eq(&abc[m * n + k], &want))
                fail_msg("seed %llu: %c[%zu] differs", (unsigned long long)seed, "abc"[m], k);
        }
        czk_fr ab;
        czk_fr_mul(&ab, &abc[k], &abc[n + k]);
        assert_true(czk_fr_eq(&ab, &abc[2 * n + k]));
    }
    /* finalization rows: a = input_i, b = c = 0 */
    for (uint32_t i = 0; i < c.num_in; i++) {
        size_t k = c.ncons + i;
        assert_true(czk_fr_eq(&abc[k], &c.in_vals[i]));
        assert_true(czk_fr_is_zero(&abc[n + k]));
        assert_true(czk_fr_is_zero(&abc[2 * n + k]));
    }
    free(abc);
    czk_shape_free(s);
    czk_witness_free(&w);
    rc_free(&c);
}

static void test_random_eval(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(4, &err);
    assert_non_null(pool);
    for (uint64_t seed = 1; seed <= 6; seed++)
        check_random_eval(seed, pool);
    czk_pool_destroy(pool);
}

/* Rows, nnz and densities against a naive merge of the logged terms. */
static void test_rows_and_density_naive(void **state) {
    (void)state;
    for (uint64_t seed = 11; seed <= 14; seed++) {
        rc c;
        rc_init(&c, seed, 300);
        czk_shape *s;
        czk_err err;
        czk_assert_ok(run_rc(CZK_CS_RECORD, &c, NULL, &s, NULL, &err), &err);
        uint32_t ni = c.num_in, na = c.num_aux;
        assert_int_equal(s->num_inputs, ni);
        assert_int_equal(s->num_aux, na);
        uint64_t *dens[3];
        for (int i = 0; i < 3; i++)
            dens[i] = calloc((na + ni) / 64 + 1, 8);
        uint64_t nnz[3] = {0, 0, 0};
        uint32_t cols[64];
        czk_fr coeffs[64];
        for (size_t k = 0; k < c.ncons; k++) {
            for (int m = 0; m < 3; m++) {
                size_t cnt = naive_merge(c.terms + c.cons[k][m], c.cons[k][m + 1] - c.cons[k][m],
                                         ni, cols, coeffs);
                const czk_csr *M = &s->m[m];
                assert_int_equal(M->row_ptr[k + 1] - M->row_ptr[k], cnt);
                for (size_t i = 0; i < cnt; i++) {
                    uint64_t at = M->row_ptr[k] + i;
                    assert_int_equal(M->col[at], cols[i]);
                    assert_true(czk_fr_eq(&s->coeffs[M->coeff[at]], &coeffs[i]));
                    uint32_t col = cols[i];
                    if (m == 0 && col >= ni) dens[0][(col - ni) / 64] |= 1ull << ((col - ni) % 64);
                    if (m == 1 && col < ni) dens[1][col / 64] |= 1ull << (col % 64);
                    if (m == 1 && col >= ni) dens[2][(col - ni) / 64] |= 1ull << ((col - ni) % 64);
                }
                nnz[m] += cnt;
            }
        }
        nnz[0] += ni; /* finalization: one A term per input */
        const czk_bitmap *bm[3] = {&s->a_aux, &s->b_input, &s->b_aux};
        uint32_t lens[3] = {na, ni, na};
        for (int m = 0; m < 3; m++) {
            assert_int_equal(s->m[m].nnz, nnz[m]);
            assert_int_equal(bm[m]->len, lens[m]);
            uint64_t pc = 0;
            for (uint32_t wd = 0; wd < (lens[m] + 63) / 64; wd++) {
                assert_int_equal(bm[m]->words[wd], dens[m][wd]);
                pc += (uint64_t)__builtin_popcountll(dens[m][wd]);
            }
            assert_int_equal(bm[m]->popcount, pc);
            free(dens[m]);
        }
        /* every random circuit uses ONE in B (boolean constraints) */
        assert_true(s->b_input.words[0] & 1);
        czk_shape_free(s);
        rc_free(&c);
    }
}

/* RECORD and CHECK record the same shape; WITNESS and CHECK the same values. */
static void test_modes_agree(void **state) {
    (void)state;
    for (uint64_t seed = 21; seed <= 23; seed++) {
        rc c1, c2, c3;
        rc_init(&c1, seed, 400);
        rc_init(&c2, seed, 400);
        rc_init(&c3, seed, 400);
        czk_shape *s_rec, *s_chk;
        czk_witness w_chk, w_wit;
        czk_err err;
        czk_assert_ok(run_rc(CZK_CS_RECORD, &c1, NULL, &s_rec, NULL, &err), &err);
        czk_assert_ok(run_rc(CZK_CS_CHECK, &c2, NULL, &s_chk, &w_chk, &err), &err);
        czk_assert_ok(run_rc(CZK_CS_WITNESS, &c3, NULL, NULL, &w_wit, &err), &err);
        assert_true(czk_shape_equal(s_rec, s_chk));
        assert_int_equal(w_chk.num_inputs, w_wit.num_inputs);
        assert_int_equal(w_chk.num_aux, w_wit.num_aux);
        assert_memory_equal(w_chk.inputs, w_wit.inputs, w_chk.num_inputs * sizeof(czk_fr));
        assert_memory_equal(w_chk.aux, w_wit.aux, w_chk.num_aux * sizeof(czk_fr));
        assert_true(czk_fr_is_one(&w_wit.inputs[0]));
        /* a different circuit gives a different shape */
        rc c4;
        rc_init(&c4, seed + 100, 400);
        czk_shape *s_other;
        czk_assert_ok(run_rc(CZK_CS_RECORD, &c4, NULL, &s_other, NULL, &err), &err);
        assert_false(czk_shape_equal(s_rec, s_other));
        czk_shape_free(s_other);
        rc_free(&c4);
        czk_shape_free(s_rec);
        czk_shape_free(s_chk);
        czk_witness_free(&w_chk);
        czk_witness_free(&w_wit);
        rc_free(&c1);
        rc_free(&c2);
        rc_free(&c3);
    }
}

/* ---- a small circuit with literal expectations ---- */

/* x = 1, y = 2, z = 0, input j = 5:
 *   (x + y − x)·ONE = y        A merges to y alone; x must not be A-dense
 *   z·(x − x) = 0              B merges to nothing
 *   j·ONE = 5·ONE
 * Columns: ONE 0, j 1, x 2, y 3, z 4. Expected by hand from bellpepper's
 * merge-then-skip-zero semantics (porep-circuit.md §4 conventions, §5). */
static czk_status merge_circuit(czk_cs *cs, void *ctx) {
    (void)ctx;
    czk_fr one = czk_fr_one, two, five, zero = czk_fr_zero;
    czk_fr_from_u64(&two, 2);
    czk_fr_from_u64(&five, 5);
    czk_var x = czk_cs_alloc(cs, &one), y = czk_cs_alloc(cs, &two), z = czk_cs_alloc(cs, &zero);
    czk_var j = czk_cs_alloc_input(cs, &five);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, x);
    czk_lc_add_var(cs, &a, y);
    czk_lc_sub_var(cs, &a, x);
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add_var(cs, &c, y);
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
    czk_lc_add_var(cs, &a, z);
    czk_lc_add_var(cs, &b, x);
    czk_lc_sub_var(cs, &b, x);
    czk_cs_enforce(cs, &a, &b, NULL); /* NULL: empty */
    czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
    czk_lc_add_var(cs, &a, j);
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add(cs, &c, CZK_VAR_ONE, &five);
    czk_cs_enforce(cs, &a, &b, &c);
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    return CZK_OK;
}

static void test_merge_literal(void **state) {
    (void)state;
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    czk_assert_ok(czk_cs_run(cs, merge_circuit, NULL, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    assert_int_equal(s->num_inputs, 2);
    assert_int_equal(s->num_aux, 3);
    assert_int_equal(s->num_constraints, 3 + 2); /* 3 synthesized + 2 inputs */
    static const uint64_t a_rp[] = {0, 1, 2, 3, 4, 5}, b_rp[] = {0, 1, 1, 2, 2, 2},
                          c_rp[] = {0, 1, 1, 2, 2, 2};
    static const uint32_t a_col[] = {3, 4, 1, 0, 1}, b_col[] = {0, 0}, c_col[] = {3, 0};
    assert_memory_equal(s->m[0].row_ptr, a_rp, sizeof a_rp);
    assert_memory_equal(s->m[1].row_ptr, b_rp, sizeof b_rp);
    assert_memory_equal(s->m[2].row_ptr, c_rp, sizeof c_rp);
    assert_int_equal(s->m[0].nnz, 5);
    assert_int_equal(s->m[1].nnz, 2);
    assert_int_equal(s->m[2].nnz, 2);
    assert_memory_equal(s->m[0].col, a_col, sizeof a_col);
    assert_memory_equal(s->m[1].col, b_col, sizeof b_col);
    assert_memory_equal(s->m[2].col, c_col, sizeof c_col);
    czk_fr five;
    czk_fr_from_u64(&five, 5);
    for (int i = 0; i < 5; i++)
        assert_true(czk_fr_is_one(&s->coeffs[s->m[0].coeff[i]]));
    assert_true(czk_fr_eq(&s->coeffs[s->m[2].coeff[1]], &five));
    /* a_aux: y and z (aux 1, 2), not x; b_input: ONE only; b_aux: none */
    assert_int_equal(s->a_aux.len, 3);
    assert_int_equal(s->a_aux.words[0], 0x6);
    assert_int_equal(s->a_aux.popcount, 2);
    assert_int_equal(s->b_input.len, 2);
    assert_int_equal(s->b_input.words[0], 0x1);
    assert_int_equal(s->b_input.popcount, 1);
    assert_int_equal(s->b_aux.words[0], 0);
    assert_int_equal(s->b_aux.popcount, 0);
    czk_shape_free(s);
}

/* ---- finalization ---- */

static void test_finalization(void **state) {
    (void)state;
    rc c;
    rc_init(&c, 31, 500);
    czk_shape *s;
    czk_err err;
    czk_assert_ok(run_rc(CZK_CS_RECORD, &c, NULL, &s, NULL, &err), &err);
    assert_true(c.num_in > 5); /* the circuit inputized some values */
    assert_int_equal(s->num_constraints, c.ncons + c.num_in);
    for (uint32_t i = 0; i < c.num_in; i++) {
        uint64_t k = c.ncons + i;
        const czk_csr *A = &s->m[0];
        assert_int_equal(A->row_ptr[k + 1] - A->row_ptr[k], 1);
        assert_int_equal(A->col[A->row_ptr[k]], i);
        assert_true(czk_fr_is_one(&s->coeffs[A->coeff[A->row_ptr[k]]]));
        for (int m = 1; m < 3; m++)
            assert_int_equal(s->m[m].row_ptr[k + 1], s->m[m].row_ptr[k]);
    }
    assert_int_equal(s->m[0].row_ptr[s->num_constraints], s->m[0].nnz);
    czk_shape_free(s);
    rc_free(&c);

    /* an empty circuit: just ONE and its constraint ONE·0 = 0 */
    czk_cs *cs = czk_cs_create(CZK_CS_WITNESS, NULL, &err);
    rc_init(&c, 1, 0);
    czk_assert_ok(czk_cs_run(cs, rc_circuit, &c, &err), &err);
    assert_int_equal(czk_cs_num_inputs(cs), 1);
    assert_int_equal(czk_cs_num_constraints(cs), 1);
    czk_witness w;
    czk_assert_ok(czk_cs_take_witness(cs, &w, &err), &err);
    assert_int_equal(w.num_aux, 0);
    assert_true(czk_fr_is_one(&w.inputs[0]));
    assert_int_equal(czk_cs_take_shape(cs, &s, &err), CZK_ERR_INVALID_ARG);
    czk_witness_free(&w);
    czk_cs_free(cs);
    rc_free(&c);
}

/* ---- unsatisfied constraints ---- */

static czk_status unsat_circuit(czk_cs *cs, void *ctx) {
    (void)ctx;
    czk_fr v3, v4, v12, v5;
    czk_fr_from_u64(&v3, 3), czk_fr_from_u64(&v4, 4), czk_fr_from_u64(&v12, 12),
        czk_fr_from_u64(&v5, 5);
    czk_cs_push_ns(cs, "outer");
    czk_var x = czk_cs_alloc(cs, &v3), y = czk_cs_alloc(cs, &v4), z = czk_cs_alloc(cs, &v12);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, x);
    czk_lc_add_var(cs, &b, y);
    czk_lc_add_var(cs, &c, z);
    czk_cs_enforce(cs, &a, &b, &c); /* 0: 3·4 = 12 */
    czk_cs_push_ns(cs, "inner %d", 7);
    czk_var w = czk_cs_alloc(cs, &v5);
    czk_lc_clear(&c);
    czk_lc_add_var(cs, &c, w);
    czk_cs_enforce(cs, &a, &b, &c); /* 1: 3·4 = 5, the first unsatisfied */
    czk_cs_pop_ns(cs);
    czk_cs_enforce(cs, &a, &b, &c); /* 2: unsatisfied too, not reported */
    czk_cs_pop_ns(cs);
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    return CZK_OK;
}

static void test_unsatisfied(void **state) {
    (void)state;
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_int_equal(czk_cs_run(cs, unsat_circuit, NULL, &err), CZK_ERR_UNSATISFIED);
    assert_string_equal(err.msg, "constraint 1 (outer/inner 7) is not satisfied");
    assert_int_equal(czk_cs_first_unsatisfied(cs), 1);
    assert_string_equal(czk_cs_first_unsatisfied_path(cs), "outer/inner 7");
    czk_cs_free(cs);
    /* RECORD mode does not evaluate */
    cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    czk_assert_ok(czk_cs_run(cs, unsat_circuit, NULL, &err), &err);
    assert_int_equal(czk_cs_first_unsatisfied(cs), UINT64_MAX);
    czk_cs_free(cs);

    /* random circuits with one product value changed */
    for (uint64_t seed = 41; seed <= 44; seed++) {
        rc c;
        rc_init(&c, seed, 300);
        c.corrupt_step = 100 + (uint32_t)seed;
        cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
        assert_int_equal(czk_cs_run(cs, rc_circuit, &c, &err), CZK_ERR_UNSATISFIED);
        assert_true(c.corrupt_index != UINT64_MAX && c.corrupt_index > 100);
        assert_int_equal(czk_cs_first_unsatisfied(cs), c.corrupt_index);
        assert_string_equal(czk_cs_first_unsatisfied_path(cs), c.corrupt_path);
        char want[512];
        snprintf(want, sizeof want, "constraint %llu (%s) is not satisfied",
                 (unsigned long long)c.corrupt_index, c.corrupt_path);
        assert_string_equal(err.msg, want);
        assert_non_null(strstr(c.corrupt_path, "step "));
        czk_cs_free(cs);
        rc_free(&c);
    }
}

/* ---- sticky errors and misuse ---- */

static czk_status failing_circuit(czk_cs *cs, void *ctx) {
    int *after = ctx;
    czk_cs_alloc(cs, NULL);
    assert_int_equal(czk_cs_fail(cs, CZK_ERR_MISMATCH, "bad value %d", 5), CZK_ERR_MISMATCH);
    czk_cs_fail(cs, CZK_ERR_IO, "second failure"); /* the first wins */
    czk_cs_alloc(cs, NULL);                        /* no-ops now */
    czk_lc a = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, CZK_VAR_ONE);
    czk_cs_enforce(cs, &a, &a, &a);
    *after = (int)czk_cs_num_aux(cs) * 10 + (int)a.len;
    czk_lc_free(&a);
    return CZK_OK;
}

static czk_status returns_error(czk_cs *cs, void *ctx) {
    (void)cs, (void)ctx;
    return CZK_ERR_VERIFY;
}

static czk_status out_of_range(czk_cs *cs, void *ctx) {
    (void)ctx;
    czk_lc a = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, czk_var_aux(3)); /* nothing allocated */
    czk_cs_enforce(cs, &a, &a, &a);
    czk_lc_free(&a);
    return CZK_OK;
}

static czk_status unbalanced_ns(czk_cs *cs, void *ctx) {
    (void)ctx;
    czk_cs_push_ns(cs, "left open");
    return CZK_OK;
}

static void test_sticky_errors(void **state) {
    (void)state;
    czk_err err;
    for (int mode = 0; mode < 3; mode++) {
        czk_cs *cs = czk_cs_create((czk_cs_mode)mode, NULL, &err);
        int after = -1;
        assert_int_equal(czk_cs_run(cs, failing_circuit, &after, &err), CZK_ERR_MISMATCH);
        assert_string_equal(err.msg, "bad value 5");
        assert_int_equal(after, 10); /* one aux, the lc left empty */
        assert_int_equal(czk_cs_status(cs), CZK_ERR_MISMATCH);
        czk_shape *s;
        czk_witness w;
        assert_int_equal(czk_cs_take_shape(cs, &s, &err), CZK_ERR_INVALID_ARG);
        assert_int_equal(czk_cs_take_witness(cs, &w, &err), CZK_ERR_INVALID_ARG);
        /* a cs runs once */
        assert_int_equal(czk_cs_run(cs, failing_circuit, &after, &err), CZK_ERR_INVALID_ARG);
        czk_cs_free(cs);
    }
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_int_equal(czk_cs_run(cs, returns_error, NULL, &err), CZK_ERR_VERIFY);
    assert_non_null(strstr(err.msg, "CZK_ERR_VERIFY"));
    czk_cs_free(cs);
    cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_int_equal(czk_cs_run(cs, out_of_range, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "aux 3"));
    czk_cs_free(cs);
    cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_int_equal(czk_cs_run(cs, unbalanced_ns, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "not popped"));
    czk_cs_free(cs);
    assert_null(czk_cs_create((czk_cs_mode)7, NULL, &err));
    assert_int_equal(err.code, CZK_ERR_INVALID_ARG);
}

/* ---- cancellation ---- */

static void test_cancel(void **state) {
    (void)state;
    czk_err err;
    for (int mode = 0; mode < 3; mode++) {
        atomic_int cancel = 0;
        rc c;
        rc_init(&c, 51, 6000);
        c.cancel = &cancel;
        c.cancel_step = 1000;
        czk_cs *cs = czk_cs_create((czk_cs_mode)mode, &cancel, &err);
        assert_int_equal(czk_cs_run(cs, rc_circuit, &c, &err), CZK_ERR_CANCELLED);
        assert_non_null(strstr(err.msg, "cancelled"));
        /* polled within 4096 allocations and constraints of the flag */
        uint64_t ops = czk_cs_num_aux(cs) + czk_cs_num_inputs(cs) + czk_cs_num_constraints(cs);
        assert_true(ops < 2 * 6000);
        czk_cs_free(cs);
        rc_free(&c);

        /* the same circuit, not cancelled, runs to the end */
        atomic_int never = 0;
        rc_init(&c, 51, 6000);
        cs = czk_cs_create((czk_cs_mode)mode, &never, &err);
        czk_assert_ok(czk_cs_run(cs, rc_circuit, &c, &err), &err);
        czk_cs_free(cs);
        rc_free(&c);

        /* a flag set before the run */
        atomic_int set = 1;
        rc_init(&c, 51, 10);
        cs = czk_cs_create((czk_cs_mode)mode, &set, &err);
        assert_int_equal(czk_cs_run(cs, rc_circuit, &c, &err), CZK_ERR_CANCELLED);
        czk_cs_free(cs);
        rc_free(&c);
    }
}

/* Runs rc in WITNESS mode into buffers of in_cap / aux_cap values (each followed by 4 guard
 * values of 0xa5 bytes). Returns the status; on CZK_OK *w points into the buffers. */
static czk_status run_into(rc *c, czk_fr *in, uint32_t in_cap, czk_fr *aux, uint32_t aux_cap,
                           czk_witness *w, czk_err *err) {
    czk_cs *cs = czk_cs_create(CZK_CS_WITNESS, NULL, err);
    assert_non_null(cs);
    memset(in, 0xa5, (in_cap + 4u) * sizeof *in);
    memset(aux, 0xa5, (aux_cap + 4u) * sizeof *aux);
    czk_assert_ok(czk_cs_set_witness_buffers(cs, in, in_cap, aux, aux_cap, err), err);
    czk_status st = czk_cs_run(cs, rc_circuit, c, err);
    if (!st) {
        czk_err e2;
        czk_assert_ok(czk_cs_take_witness(cs, w, &e2), &e2);
    }
    czk_cs_free(cs); /* must not free the caller's arrays */
    return st;
}

static bool guards_intact(const czk_fr *p, uint32_t cap) {
    const uint8_t *b = (const uint8_t *)(p + cap);
    for (size_t i = 0; i < 4 * sizeof *p; i++)
        if (b[i] != 0xa5) return false;
    return true;
}

static void test_witness_buffers(void **state) {
    (void)state;
    for (uint64_t seed = 31; seed <= 33; seed++) {
        rc own, ext;
        rc_init(&own, seed, 500);
        rc_init(&ext, seed, 500);
        czk_witness wo, we;
        czk_err err;
        czk_assert_ok(run_rc(CZK_CS_WITNESS, &own, NULL, NULL, &wo, &err), &err);
        uint32_t ni = wo.num_inputs, na = wo.num_aux;
        assert_true(ni >= 2 && na >= 10);
        /* exactly the needed size, then with room to spare */
        for (uint32_t extra = 0; extra <= 7; extra += 7) {
            czk_fr *in = malloc((ni + extra + 4) * sizeof *in);
            czk_fr *aux = malloc((na + extra + 4) * sizeof *aux);
            assert_true(in && aux);
            rc_free(&ext);
            rc_init(&ext, seed, 500);
            czk_assert_ok(run_into(&ext, in, ni + extra, aux, na + extra, &we, &err), &err);
            assert_ptr_equal(we.inputs, in);
            assert_ptr_equal(we.aux, aux);
            assert_int_equal(we.num_inputs, ni);
            assert_int_equal(we.num_aux, na);
            /* the circuit's own values (computed by the test, not the cs) and the malloc'ed run */
            assert_int_equal(ext.num_in, ni);
            assert_int_equal(ext.num_aux, na);
            assert_memory_equal(in, ext.in_vals, ni * sizeof *in);
            assert_memory_equal(aux, ext.aux_vals, na * sizeof *aux);
            assert_memory_equal(in, wo.inputs, ni * sizeof *in);
            assert_memory_equal(aux, wo.aux, na * sizeof *aux);
            /* nothing written past the values (room left untouched, guards intact) */
            for (uint32_t i = ni; i < ni + extra; i++)
                assert_int_equal(((uint8_t *)&in[i])[0], 0xa5);
            assert_true(guards_intact(in, ni + extra));
            assert_true(guards_intact(aux, na + extra));
            free(in);
            free(aux);
        }
        /* one value too few, of each kind: refused, naming both counts and capacities */
        czk_fr *in = malloc((ni + 4) * sizeof *in), *aux = malloc((na + 4) * sizeof *aux);
        assert_true(in && aux);
        char want[200];
        rc_free(&ext);
        rc_init(&ext, seed, 500);
        assert_int_equal(run_into(&ext, in, ni, aux, na - 1, &we, &err), CZK_ERR_INVALID_ARG);
        snprintf(want, sizeof want,
                 "witness buffers too small: the circuit has %u inputs and %u aux, the buffers "
                 "hold %u and %u",
                 ni, na, ni, na - 1);
        assert_string_equal(err.msg, want);
        assert_true(guards_intact(aux, na - 1));
        rc_free(&ext);
        rc_init(&ext, seed, 500);
        assert_int_equal(run_into(&ext, in, ni - 1, aux, na, &we, &err), CZK_ERR_INVALID_ARG);
        snprintf(want, sizeof want,
                 "witness buffers too small: the circuit has %u inputs and %u aux, the buffers "
                 "hold %u and %u",
                 ni, na, ni - 1, na);
        assert_string_equal(err.msg, want);
        assert_true(guards_intact(in, ni - 1));
        /* only WITNESS mode, only before the run, non-empty arrays */
        czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
        assert_int_equal(czk_cs_set_witness_buffers(cs, in, ni, aux, na, &err),
                         CZK_ERR_INVALID_ARG);
        czk_cs_free(cs);
        cs = czk_cs_create(CZK_CS_WITNESS, NULL, &err);
        assert_int_equal(czk_cs_set_witness_buffers(cs, in, 0, aux, na, &err), CZK_ERR_INVALID_ARG);
        assert_int_equal(czk_cs_set_witness_buffers(cs, in, ni, NULL, na, &err),
                         CZK_ERR_INVALID_ARG);
        rc_free(&ext);
        rc_init(&ext, seed, 500);
        czk_assert_ok(czk_cs_run(cs, rc_circuit, &ext, &err), &err);
        assert_int_equal(czk_cs_set_witness_buffers(cs, in, ni, aux, na, &err),
                         CZK_ERR_INVALID_ARG);
        czk_cs_free(cs);
        free(in);
        free(aux);
        czk_witness_free(&wo);
        rc_free(&own);
        rc_free(&ext);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_witness_buffers),
        cmocka_unit_test(test_random_eval),
        cmocka_unit_test(test_rows_and_density_naive),
        cmocka_unit_test(test_modes_agree),
        cmocka_unit_test(test_merge_literal),
        cmocka_unit_test(test_finalization),
        cmocka_unit_test(test_unsatisfied),
        cmocka_unit_test(test_sticky_errors),
        cmocka_unit_test(test_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
