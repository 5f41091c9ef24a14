/* CZK_TEST_LABELS: unit */
/*
 * Circuits of parts (czk_cs_run_parts) against the same circuit run as one
 * function (czk_cs_run of the prefix and every part in a loop: the naive
 * serial run). The shape must be the serial one byte for byte
 * (czk_shape_encode) and the assignment value for value, with no pool and
 * with pools of 1, 2 and 4 threads; parts that break the contract where it
 * is checked (part 1 unlike part 0 in RECORD; a part with other counts, or
 * a namespace left open, in WITNESS) must still give the serial result;
 * failures are the serial run's, with its message (the first failing
 * part's); CHECK reports the serial run's first unsatisfied constraint.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "czk/pool.h"
#include "czk/r1cs.h"
#include "r1cs/r1cs_internal.h"

#define NONE UINT64_MAX

typedef struct pc {
    uint64_t count, seed;
    uint64_t differ_from; /* parts >= this allocate one more aux and a constraint */
    uint64_t coeff_from;  /* parts >= this use coefficient 9 where the others use 7 */
    uint64_t cross_from;  /* parts >= this read the previous part's first variable */
    uint64_t fail_at[2];  /* these parts fail (czk_cs_fail) midway */
    uint64_t return_at;   /* this part returns CZK_ERR_FORMAT without recording it */
    uint64_t open_ns_at;  /* this part leaves a namespace open */
    uint64_t wrong_at;    /* this part's product value is off by one (CHECK) */
    uint64_t slow_at;     /* this part sleeps 100 ms first (finishes after the others) */
    atomic_int *cancel;
    uint64_t cancel_at; /* this part sets *cancel */
    /* the prefix's shared variables, and each part's first aux (for cross_from) */
    czk_var x, y;
    uint32_t first_aux, part_aux;
} pc;

static pc pc_make(uint64_t count, uint64_t seed) {
    pc c;
    memset(&c, 0, sizeof c);
    c.count = count;
    c.seed = seed;
    c.differ_from = c.coeff_from = c.cross_from = c.return_at = c.open_ns_at = c.wrong_at =
        c.cancel_at = c.fail_at[0] = c.fail_at[1] = c.slow_at = NONE;
    return c;
}

static czk_fr small(uint64_t x) {
    czk_fr f;
    czk_fr_from_u64(&f, x);
    return f;
}

static czk_fr val(const pc *c, uint64_t i, unsigned j) {
    return small(c->seed * 100003 + i * 17 + j + 1);
}

static czk_status prefix(czk_cs *cs, void *ctx) {
    pc *c = ctx;
    czk_fr vx = val(c, 999999, 0), vy = val(c, 999999, 1);
    c->x = czk_cs_alloc_input(cs, &vx);
    c->y = czk_cs_alloc(cs, &vy);
    czk_cs_push_ns(cs, "prefix");
    if (czk_cs_records(cs)) {
        czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT;
        czk_lc_add_var(cs, &a, c->y);
        czk_lc_add_var(cs, &b, CZK_VAR_ONE);
        czk_cs_enforce(cs, &a, &b, &a);
        czk_lc_free(&a);
        czk_lc_free(&b);
    }
    czk_cs_pop_ns(cs);
    c->first_aux = czk_cs_num_aux(cs);
    c->part_aux = 3;
    return czk_cs_status(cs);
}

/* A·B = C of raw terms (RECORD and CHECK), in namespace `name`. */
static void enforce(czk_cs *cs, const char *name, const czk_var *va, const czk_fr *ka, int na,
                    const czk_var *vb, int nb, const czk_var *vc, int nc) {
    czk_cs_push_ns(cs, "%s", name);
    czk_lc A = CZK_LC_INIT, B = CZK_LC_INIT, C = CZK_LC_INIT;
    if (czk_cs_records(cs)) {
        for (int i = 0; i < na; i++)
            czk_lc_add(cs, &A, va[i], &ka[i]);
        for (int i = 0; i < nb; i++)
            czk_lc_add_var(cs, &B, vb[i]);
        for (int i = 0; i < nc; i++)
            czk_lc_add_var(cs, &C, vc[i]);
    }
    czk_cs_enforce(cs, &A, &B, &C);
    czk_lc_free(&A);
    czk_lc_free(&B);
    czk_lc_free(&C);
    czk_cs_pop_ns(cs);
}

/*
 * Part i: a, b (input), c = (3 + a)·b, d = c + k·y (k = 7), e (input) = d, and a
 * constraint whose A (a + a − 2a + x) cancels to x; every value from i alone.
 */
static czk_status part(czk_cs *cs, void *ctx, uint64_t i) {
    const pc *c = ctx;
    if (i == c->slow_at) usleep(100000);
    czk_cs_push_ns(cs, "part %llu", (unsigned long long)i);
    czk_fr va = val(c, i, 0), vb = val(c, i, 1), vc, vd, t, three = small(3), two = small(2);
    czk_fr k = small(i >= c->coeff_from ? 9 : 7), m2;
    czk_fr_neg(&m2, &two);
    czk_var a = czk_cs_alloc(cs, &va), b = czk_cs_alloc_input(cs, &vb);
    czk_fr_add(&t, &va, &three);
    czk_fr_mul(&vc, &t, &vb);
    if (i == c->wrong_at) czk_fr_add(&vc, &vc, &czk_fr_one);
    czk_var cv = czk_cs_alloc(cs, &vc);
    {
        czk_var A[2] = {a, CZK_VAR_ONE}; /* ONE after a: the cs sorts */
        czk_fr KA[2] = {czk_fr_one, three};
        enforce(cs, "product", A, KA, 2, &b, 1, &cv, 1);
    }
    if (i == c->cancel_at) atomic_store(c->cancel, 1);
    if (i == c->fail_at[0] || i == c->fail_at[1]) {
        czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "part %llu failed", (unsigned long long)i);
        czk_cs_pop_ns(cs);
        return CZK_ERR_INVALID_ARG;
    }
    if (i == c->return_at) {
        czk_cs_pop_ns(cs);
        return CZK_ERR_FORMAT;
    }
    czk_fr vy = val(c, 999999, 1);
    czk_fr_mul(&t, &k, &vy);
    czk_fr_add(&vd, &vc, &t);
    czk_var d = czk_cs_alloc(cs, &vd), e = czk_cs_alloc_input(cs, &vd);
    {
        czk_var shared = c->y;
        if (i >= c->cross_from && i > 0) /* the previous part's a */
            shared = czk_var_aux(c->first_aux + (uint32_t)(i - 1) * c->part_aux);
        czk_var A[2] = {cv, shared};
        czk_fr KA[2] = {czk_fr_one, k};
        czk_var one = CZK_VAR_ONE;
        enforce(cs, "sum", A, KA, 2, &one, 1, &d, 1);
        czk_var E[1] = {e};
        czk_fr KE[1] = {czk_fr_one};
        enforce(cs, "inputize", E, KE, 1, &one, 1, &d, 1);
        czk_var X[4] = {a, c->x, a, a};
        czk_fr KX[4] = {czk_fr_one, czk_fr_one, czk_fr_one, m2};
        enforce(cs, "cancel", X, KX, 4, &one, 1, &c->x, 1);
    }
    if (i >= c->differ_from) {
        czk_var z = czk_cs_alloc(cs, &va);
        czk_var A[1] = {z};
        czk_fr KA[1] = {czk_fr_one};
        czk_var one = CZK_VAR_ONE;
        enforce(cs, "extra", A, KA, 1, &one, 1, &a, 1);
    }
    if (i != c->open_ns_at) czk_cs_pop_ns(cs);
    return czk_cs_status(cs);
}

/* The naive serial circuit: prefix, then every part, stopping at the first failure. */
static czk_status serial_fn(czk_cs *cs, void *ctx) {
    pc *c = ctx;
    czk_status st = prefix(cs, c);
    for (uint64_t i = 0; i < c->count && !st; i++)
        st = part(cs, c, i);
    return st;
}

static czk_cs_parts parts_of(pc *c) {
    return (czk_cs_parts){prefix, part, c->count, c};
}

/* Pools of 0 (none), 1, 2 and 4 threads. */
#define NPOOLS 4
static czk_pool *pools[NPOOLS];

static int setup(void **state) {
    (void)state;
    czk_err err;
    unsigned t[NPOOLS] = {0, 1, 2, 4};
    for (int i = 0; i < NPOOLS; i++)
        pools[i] = t[i] ? czk_pool_create(t[i], &err) : NULL;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (int i = 0; i < NPOOLS; i++)
        czk_pool_destroy(pools[i]);
    return 0;
}

static void assert_shapes_bytes_equal(const czk_shape *x, const czk_shape *y) {
    czk_err err;
    uint8_t *bx, *by;
    size_t lx, ly;
    czk_assert_ok(czk_shape_encode(x, &bx, &lx, &err), &err);
    czk_assert_ok(czk_shape_encode(y, &by, &ly, &err), &err);
    assert_int_equal(lx, ly);
    assert_memory_equal(bx, by, lx);
    assert_true(czk_shape_equal(x, y));
    free(bx);
    free(by);
}

static void assert_witness_equal(const czk_witness *x, const czk_witness *y) {
    assert_int_equal(x->num_inputs, y->num_inputs);
    assert_int_equal(x->num_aux, y->num_aux);
    assert_memory_equal(x->inputs, y->inputs, x->num_inputs * sizeof(czk_fr));
    assert_memory_equal(x->aux, y->aux, (size_t)x->num_aux * sizeof(czk_fr));
}

/* RECORD and WITNESS of c as parts equal the serial run on every pool (both succeed). */
static void same_as_serial(pc c) {
    czk_err err;
    czk_shape *ref = NULL;
    czk_witness wref;
    pc s = c;
    czk_assert_ok(czk_cs_record(&ref, serial_fn, &s, NULL, &err), &err);
    s = c;
    czk_assert_ok(czk_cs_witness(&wref, serial_fn, &s, NULL, &err), &err);
    for (int p = 0; p < NPOOLS; p++) {
        pc q = c;
        czk_cs_parts parts = parts_of(&q);
        czk_shape *sh = NULL;
        czk_assert_ok(czk_cs_record_parts(&sh, &parts, pools[p], NULL, &err), &err);
        assert_shapes_bytes_equal(sh, ref);
        czk_shape_free(sh);
        czk_witness w;
        czk_assert_ok(czk_cs_witness_parts(&w, &parts, pools[p], NULL, &err), &err);
        assert_witness_equal(&w, &wref);
        czk_witness_free(&w);
        /* into the caller's arrays, exactly the size */
        czk_witness buf = {calloc(wref.num_inputs, sizeof(czk_fr)),
                           calloc(wref.num_aux ? wref.num_aux : 1, sizeof(czk_fr)), wref.num_inputs,
                           wref.num_aux, NULL};
        czk_fr *bi = buf.inputs, *ba = buf.aux;
        czk_assert_ok(czk_cs_witness_parts_into(&buf, &parts, pools[p], NULL, &err), &err);
        assert_ptr_equal(buf.inputs, bi);
        assert_ptr_equal(buf.aux, ba);
        assert_witness_equal(&buf, &wref);
        free(bi);
        free(ba);
    }
    czk_shape_free(ref);
    czk_witness_free(&wref);
}

static void test_counts(void **state) {
    (void)state;
    uint64_t counts[] = {0, 1, 2, 3, 4, 50, 301};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        same_as_serial(pc_make(counts[i], i + 1));
}

/* Parts unlike part 0: caught where the contract is checked, still the serial result. */
static void test_parts_that_differ(void **state) {
    (void)state;
    pc c = pc_make(40, 3);
    c.differ_from = 1; /* part 1 has another count: RECORD and WITNESS notice */
    same_as_serial(c);
    c = pc_make(40, 4);
    c.coeff_from = 1; /* part 1 another coefficient: RECORD notices (WITNESS has no rows) */
    same_as_serial(c);
    c = pc_make(40, 5);
    c.cross_from = 1; /* part 1 reads part 0's variable: RECORD notices */
    same_as_serial(c);
    /* WITNESS checks every part's counts: a part far from the start that differs */
    for (uint64_t k = 2; k < 40; k += 13) {
        c = pc_make(40, 6);
        c.differ_from = k;
        pc s = c;
        czk_err err;
        czk_witness wref;
        czk_assert_ok(czk_cs_witness(&wref, serial_fn, &s, NULL, &err), &err);
        for (int p = 0; p < NPOOLS; p++) {
            pc q = c;
            czk_cs_parts parts = parts_of(&q);
            czk_witness w;
            czk_assert_ok(czk_cs_witness_parts(&w, &parts, pools[p], NULL, &err), &err);
            assert_witness_equal(&w, &wref);
            czk_witness_free(&w);
        }
        czk_witness_free(&wref);
    }
}

/* Status and message of a run of c in `mode`, serially (parts false) or as parts on pool. */
static czk_status run_mode(pc c, czk_cs_mode mode, bool as_parts, czk_pool *pool, czk_err *err) {
    czk_cs *cs = czk_cs_create(mode, c.cancel, err);
    assert_non_null(cs);
    czk_cs_parts parts = parts_of(&c);
    czk_status st =
        as_parts ? czk_cs_run_parts(cs, &parts, pool, err) : czk_cs_run(cs, serial_fn, &c, err);
    czk_cs_free(cs);
    return st;
}

/*
 * Fails as the serial run does, with its message, on every pool, in every mode or (record
 * false) in WITNESS and CHECK only: RECORD runs no part after part 1, so a part 2 .. that
 * fails by its index alone breaks the contract there, unseen.
 */
static void fails_as_serial(pc c, bool record, czk_status want, const char *msg) {
    czk_cs_mode modes[3] = {CZK_CS_WITNESS, CZK_CS_CHECK, CZK_CS_RECORD};
    for (int m = 0; m < (record ? 3 : 2); m++) {
        czk_err e0, e1;
        if (c.cancel) atomic_store(c.cancel, 0);
        assert_int_equal(run_mode(c, modes[m], false, NULL, &e0), want);
        if (msg && !strstr(e0.msg, msg)) fail_msg("serial: '%s', expected '%s'", e0.msg, msg);
        for (int p = 0; p < NPOOLS; p++) {
            if (c.cancel) atomic_store(c.cancel, 0);
            assert_int_equal(run_mode(c, modes[m], true, pools[p], &e1), want);
            if (want != CZK_ERR_CANCELLED) assert_string_equal(e1.msg, e0.msg);
        }
    }
}

static void test_failures(void **state) {
    (void)state;
    pc c = pc_make(60, 7);
    c.fail_at[0] = 37;
    c.fail_at[1] = 45; /* the first failing part's message, though 45 fails last */
    c.slow_at = 45;
    fails_as_serial(c, false, CZK_ERR_INVALID_ARG, "part 37 failed");
    c = pc_make(60, 7);
    c.fail_at[0] = 1;
    fails_as_serial(c, true, CZK_ERR_INVALID_ARG, "part 1 failed");
    c = pc_make(60, 7);
    c.return_at = 12;
    fails_as_serial(c, false, CZK_ERR_FORMAT, "the circuit returned");
    c = pc_make(60, 7);
    c.return_at = 0;
    fails_as_serial(c, true, CZK_ERR_FORMAT, "the circuit returned");
    c = pc_make(60, 7);
    c.open_ns_at = 20; /* WITNESS: counted as a part unlike part 0, run again serially */
    fails_as_serial(c, false, CZK_ERR_INVALID_ARG, "1 namespaces pushed and not popped");
    c = pc_make(60, 7);
    c.open_ns_at = 1;
    fails_as_serial(c, true, CZK_ERR_INVALID_ARG, "1 namespaces pushed and not popped");
    atomic_int cancel = 0;
    c = pc_make(60, 7);
    c.cancel = &cancel;
    c.cancel_at = 0; /* parts after it run on a cs that polls the flag */
    fails_as_serial(c, true, CZK_ERR_CANCELLED, "cancelled");
    /* a part function for parts that are not there */
    czk_cs_parts bad = {NULL, NULL, 3, NULL};
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_int_equal(czk_cs_run_parts(cs, &bad, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "without a part function"));
    czk_cs_free(cs);
}

/* Caller's arrays too small: the serial run's message, nothing written past them. */
static void test_buffers_too_small(void **state) {
    (void)state;
    pc c = pc_make(30, 8);
    czk_err e0, e1;
    pc s = c;
    czk_witness wref;
    czk_assert_ok(czk_cs_witness(&wref, serial_fn, &s, NULL, &e0), &e0);
    uint32_t ni = wref.num_inputs, na = wref.num_aux - 5;
    czk_fr *in = calloc(ni + 8, sizeof(czk_fr)), *aux = calloc(na + 8, sizeof(czk_fr));
    czk_fr guard = small(0xdead);
    for (int k = 0; k < 8; k++)
        aux[na + k] = guard;
    s = c;
    czk_witness b0 = {in, aux, ni, na, NULL};
    assert_int_equal(czk_cs_witness_into(&b0, serial_fn, &s, NULL, &e0), CZK_ERR_INVALID_ARG);
    for (int p = 0; p < NPOOLS; p++) {
        pc q = c;
        czk_cs_parts parts = parts_of(&q);
        czk_witness b1 = {in, aux, ni, na, NULL};
        assert_int_equal(czk_cs_witness_parts_into(&b1, &parts, pools[p], NULL, &e1),
                         CZK_ERR_INVALID_ARG);
        assert_string_equal(e1.msg, e0.msg);
        for (int k = 0; k < 8; k++)
            assert_true(czk_fr_eq(&aux[na + k], &guard));
    }
    free(in);
    free(aux);
    czk_witness_free(&wref);
}

/* CHECK: the serial run's first unsatisfied constraint and its namespace path. */
static void test_check(void **state) {
    (void)state;
    pc c = pc_make(25, 9);
    c.wrong_at = 17;
    czk_err e0, e1;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &e0);
    pc s = c;
    assert_int_equal(czk_cs_run(cs, serial_fn, &s, &e0), CZK_ERR_UNSATISFIED);
    uint64_t k0 = czk_cs_first_unsatisfied(cs);
    assert_string_equal(czk_cs_first_unsatisfied_path(cs), "part 17/product");
    czk_cs_free(cs);
    for (int p = 0; p < NPOOLS; p++) {
        pc q = c;
        czk_cs_parts parts = parts_of(&q);
        cs = czk_cs_create(CZK_CS_CHECK, NULL, &e1);
        assert_int_equal(czk_cs_run_parts(cs, &parts, pools[p], &e1), CZK_ERR_UNSATISFIED);
        assert_int_equal(czk_cs_first_unsatisfied(cs), k0);
        assert_string_equal(e1.msg, e0.msg);
        czk_cs_free(cs);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),   cmocka_unit_test(test_parts_that_differ),
        cmocka_unit_test(test_failures), cmocka_unit_test(test_buffers_too_small),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
