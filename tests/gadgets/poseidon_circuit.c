/* CZK_TEST_LABELS: unit */
/*
 * The Poseidon gadget (neptune legacy circuit::poseidon_hash): constraint and
 * aux counts against neptune's circuit.rs test values, the output against the
 * native hash, CHECK-mode satisfaction, the same shape in RECORD and CHECK,
 * the same witness in WITNESS and CHECK, the row pattern of spec §4.9, and
 * corrupted witnesses failing the constraint that defines the value.
 */
#include "support.h"

#include "czk/poseidon.h"
#include "czk/r1cs.h"

#include <stdlib.h>
#include <string.h>

/* One Poseidon hash of `arity` aux variables. */
typedef struct ctx {
    unsigned arity;
    czk_fr values[CZK_POSEIDON_MAX_ARITY];  /* values given to the cs */
    czk_fr claimed[CZK_POSEIDON_MAX_ARITY]; /* values given to the gadget */
    bool no_values;                         /* pass input_values = NULL */
    const czk_poseidon_constants *pc;       /* NULL: the arity's MerkleTree constants */
    /* results */
    czk_status gadget_status;
    czk_var out;
    czk_fr out_value;
    uint32_t aux_before, aux_after;
    uint64_t cons_before, cons_after;
} ctx;

static czk_status circuit(czk_cs *cs, void *arg) {
    ctx *c = arg;
    czk_var in[CZK_POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < c->arity; i++)
        in[i] = czk_cs_alloc(cs, &c->values[i]);
    c->aux_before = czk_cs_num_aux(cs);
    c->cons_before = czk_cs_num_constraints(cs);
    czk_cs_push_ns(cs, "poseidon");
    const czk_fr *vals = c->no_values ? NULL : c->claimed;
    c->gadget_status = c->pc
                           ? czk_poseidon_circuit_with(cs, c->pc, in, vals, &c->out, &c->out_value)
                           : czk_poseidon_circuit(cs, in, vals, c->arity, &c->out, &c->out_value);
    czk_cs_pop_ns(cs);
    c->aux_after = czk_cs_num_aux(cs);
    c->cons_after = czk_cs_num_constraints(cs);
    return c->gadget_status;
}

static void random_ctx(ctx *c, unsigned arity, czk_rng *rng) {
    memset(c, 0, sizeof *c);
    c->arity = arity;
    czk_err err;
    for (unsigned i = 0; i < arity; i++) {
        czk_assert_ok(czk_fr_random(&c->values[i], rng, &err), &err);
        c->claimed[i] = c->values[i];
    }
}

/* Runs one mode; returns czk_cs_run's status, the cs kept in *out_cs. */
static czk_status run_mode(czk_cs_mode mode, ctx *c, czk_cs **out_cs, czk_err *err) {
    czk_cs *cs = czk_cs_create(mode, NULL, err);
    assert_non_null(cs);
    czk_status st = czk_cs_run(cs, circuit, c, err);
    *out_cs = cs;
    return st;
}

/* neptune src/circuit.rs test_poseidon_hash, Strength::Standard:
 * U2 311, U4 377, U8 505, U16 761, U24 1009, U36 1385; 598 for U11 from
 * storage-proofs circuit/hash.rs (spec §7), = 3·arity + 4·(7t + RP) + 1. */
static const struct {
    unsigned arity;
    uint64_t constraints;
} COUNTS[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}, {24, 1009}, {36, 1385}};
#define NUM_COUNTS (sizeof COUNTS / sizeof COUNTS[0])

static void test_counts_output_and_check_mode(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 0x5e1d);
    for (size_t k = 0; k < NUM_COUNTS; k++) {
        for (int rep = 0; rep < 3; rep++) {
            ctx c;
            random_ctx(&c, COUNTS[k].arity, &rng);
            czk_err err;
            czk_cs *cs;
            czk_assert_ok(run_mode(CZK_CS_CHECK, &c, &cs, &err), &err);
            assert_int_equal(c.cons_after - c.cons_before, COUNTS[k].constraints);
            assert_int_equal(c.aux_after - c.aux_before, COUNTS[k].constraints);
            assert_int_equal(czk_cs_first_unsatisfied(cs), UINT64_MAX);
            czk_fr want;
            czk_assert_ok(czk_poseidon_hash(&want, c.values, c.arity, &err), &err);
            assert_true(czk_fr_eq(&c.out_value, &want));
            /* the output variable is the last aux and holds the hash */
            assert_false(czk_var_is_input(c.out));
            assert_int_equal(czk_var_index(c.out), c.aux_after - 1);
            czk_witness w;
            czk_assert_ok(czk_cs_take_witness(cs, &w, &err), &err);
            assert_true(czk_fr_eq(&w.aux[czk_var_index(c.out)], &want));
            czk_witness_free(&w);
            czk_cs_free(cs);
        }
    }
}

/*
 * A custom hash type (storage-proofs-update's GEN_RANDOMNESS, arity 2, id
 * 1): the same 311 constraints and aux, CHECK mode satisfied, the output
 * the native hash with the custom tag (not the MerkleTree one), and the
 * same shape as the MerkleTree circuit but for the folded constants.
 */
static void test_custom_hash_type(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 0x6e4);
    czk_err err;
    czk_poseidon_constants gr;
    czk_assert_ok(czk_poseidon_constants_custom(&gr, 2, 1, &err), &err);
    ctx c;
    random_ctx(&c, 2, &rng);
    c.pc = &gr;
    czk_cs *cs;
    czk_assert_ok(run_mode(CZK_CS_CHECK, &c, &cs, &err), &err);
    assert_int_equal(c.cons_after - c.cons_before, 311);
    assert_int_equal(c.aux_after - c.aux_before, 311);
    assert_int_equal(czk_cs_first_unsatisfied(cs), UINT64_MAX);
    czk_fr want, mt;
    czk_poseidon_hash_with(&gr, &want, c.values);
    assert_true(czk_fr_eq(&c.out_value, &want));
    czk_assert_ok(czk_poseidon_hash(&mt, c.values, 2, &err), &err);
    assert_false(czk_fr_eq(&c.out_value, &mt));
    czk_shape *custom = NULL, *merkle = NULL;
    czk_assert_ok(czk_cs_take_shape(cs, &custom, &err), &err);
    czk_cs_free(cs);
    ctx d = c;
    d.pc = NULL;
    czk_assert_ok(run_mode(CZK_CS_CHECK, &d, &cs, &err), &err);
    czk_assert_ok(czk_cs_take_shape(cs, &merkle, &err), &err);
    czk_cs_free(cs);
    assert_int_equal(custom->num_constraints, merkle->num_constraints);
    for (int m = 0; m < 3; m++)
        assert_int_equal(custom->m[m].nnz, merkle->m[m].nnz);
    assert_false(czk_shape_equal(custom, merkle)); /* another constant folded in */
    czk_shape_free(custom);
    czk_shape_free(merkle);
}

/* WITNESS mode builds no linear combination but must assign exactly the
 * values CHECK mode assigns; RECORD mode (no values at all) must record the
 * shape CHECK mode records. */
static void test_modes_agree(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 0xa9e3);
    for (size_t k = 0; k < NUM_COUNTS; k++) {
        ctx c, cw, cr;
        random_ctx(&c, COUNTS[k].arity, &rng);
        cw = c;
        cr = c;
        cr.no_values = true;
        czk_err err;
        czk_cs *check, *wit, *rec;
        czk_assert_ok(run_mode(CZK_CS_CHECK, &c, &check, &err), &err);
        czk_assert_ok(run_mode(CZK_CS_WITNESS, &cw, &wit, &err), &err);
        czk_assert_ok(run_mode(CZK_CS_RECORD, &cr, &rec, &err), &err);
        assert_int_equal(cw.aux_after - cw.aux_before, COUNTS[k].constraints);
        assert_int_equal(cr.cons_after - cr.cons_before, COUNTS[k].constraints);
        assert_true(czk_fr_eq(&cw.out_value, &c.out_value));

        czk_witness w1, w2;
        czk_assert_ok(czk_cs_take_witness(check, &w1, &err), &err);
        czk_assert_ok(czk_cs_take_witness(wit, &w2, &err), &err);
        assert_int_equal(w1.num_aux, w2.num_aux);
        assert_int_equal(w1.num_inputs, w2.num_inputs);
        assert_memory_equal(w1.aux, w2.aux, w1.num_aux * sizeof(czk_fr));

        czk_shape *s1, *s2;
        czk_assert_ok(czk_cs_take_shape(check, &s1, &err), &err);
        czk_assert_ok(czk_cs_take_shape(rec, &s2, &err), &err);
        assert_true(czk_shape_equal(s1, s2));

        czk_witness_free(&w1);
        czk_witness_free(&w2);
        czk_shape_free(s1);
        czk_shape_free(s2);
        czk_cs_free(check);
        czk_cs_free(wit);
        czk_cs_free(rec);
    }
}

/* Number of stored terms of constraint row k in matrix m (0 A, 1 B, 2 C). */
static uint64_t row_nnz(const czk_shape *s, int m, uint64_t k) {
    return s->m[m].row_ptr[k + 1] - s->m[m].row_ptr[k];
}

/*
 * The row pattern of spec §4.9 for arity 2 (t = 3), with gadget-relative
 * constraint j (the gadget starts after the arity data allocations, no
 * constraints before it):
 *   0..2   input 1, first round: (l + pre)², l2², (l + pre)·l4 = l5 − post
 *          → A 2, B 2, C 1; A 1, B 1, C 1; A 2, B 1, C 2;
 *   6      first S-box input of round 1: lc·ONE = v, lc = ONE + 2 l5 → A 3, B 1, C 1;
 *   last   lc(state[1])·ONE = out.
 */
static void test_row_pattern(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 7);
    ctx c;
    random_ctx(&c, 2, &rng);
    czk_err err;
    czk_cs *cs;
    czk_assert_ok(run_mode(CZK_CS_CHECK, &c, &cs, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    const uint64_t b = c.cons_before;
    assert_int_equal(b, 0);
    static const uint64_t first[9][3] = {
        {2, 2, 1}, {1, 1, 1}, {2, 1, 2}, /* input 1 */
        {2, 2, 1}, {1, 1, 1}, {2, 1, 2}, /* input 2 */
        {3, 1, 1}, {1, 1, 1}, {1, 1, 1}, /* round 1, element 0: v, l2, l4 */
    };
    for (uint64_t j = 0; j < 9; j++)
        for (int m = 0; m < 3; m++)
            assert_int_equal(row_nnz(s, m, b + j), first[j][m]);
    assert_int_equal(row_nnz(s, 0, b + 9), 1); /* v·l4 = l5 − post: A v, B l4, C l5 + ONE */
    assert_int_equal(row_nnz(s, 1, b + 9), 1);
    assert_int_equal(row_nnz(s, 2, b + 9), 2);
    /* terminal round, last element: v·l4 = l5 without key (C 1 term) */
    const uint64_t last = b + 310;
    assert_int_equal(row_nnz(s, 2, last - 1), 1);
    /* result: A = lc of state[1] (3 l5 of the terminal round), B = ONE, C = out */
    assert_int_equal(row_nnz(s, 0, last), 3);
    assert_int_equal(row_nnz(s, 1, last), 1);
    assert_int_equal(row_nnz(s, 2, last), 1);
    assert_int_equal(s->m[1].col[s->m[1].row_ptr[last]], 0); /* ONE is column 0 */
    czk_shape_free(s);
    czk_cs_free(cs);
}

/*
 * Densities implied by the §4.9 pattern (the S-box is v·v = l2, l2·l2 = l4,
 * v·l4 = l5 − k: v and l2 sit in A and B, l4 only in B (and C), l5 only in
 * A of later linear combinations, the output only in C; the data inputs
 * sit in A and B of the first round). With S = 7t + RP four-constraint
 * S-boxes and `arity` three-constraint ones: a_aux = b_aux = 3·arity + 3·S
 * (data inputs included), b_input = {ONE}. Arity 2: S = 76 → 234; arity 8:
 * S = 120 → 384; arity 11: S = 141 → 456.
 */
static void test_densities(void **state) {
    (void)state;
    static const struct {
        unsigned arity;
        uint64_t dense;
    } want[] = {{2, 234}, {8, 384}, {11, 456}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        ctx c;
        czk_rng rng;
        czk_rng_seed(&rng, 19);
        random_ctx(&c, want[k].arity, &rng);
        c.no_values = true;
        czk_err err;
        czk_cs *cs;
        czk_assert_ok(run_mode(CZK_CS_RECORD, &c, &cs, &err), &err);
        czk_shape *s;
        czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
        assert_int_equal(s->a_aux.popcount, want[k].dense);
        assert_int_equal(s->b_aux.popcount, want[k].dense);
        assert_int_equal(s->b_input.popcount, 1);
        czk_shape_free(s);
        czk_cs_free(cs);
    }
}

/* The gadget told a different input value than the cs holds: CHECK mode
 * names the first constraint that uses it, (l + rk)² = l2 of input 1. */
static void test_mismatched_input_names_constraint(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 11);
    ctx c;
    random_ctx(&c, 8, &rng);
    czk_fr_add(&c.claimed[0], &c.claimed[0], &czk_fr_one);
    czk_err err;
    czk_cs *cs;
    assert_int_equal(run_mode(CZK_CS_CHECK, &c, &cs, &err), CZK_ERR_UNSATISFIED);
    assert_int_equal(czk_cs_first_unsatisfied(cs), c.cons_before);
    const char *path = czk_cs_first_unsatisfied_path(cs);
    assert_non_null(path);
    assert_string_equal(path, "poseidon/first round/quintic s-box 1/(l+rk)^2");
    assert_non_null(strstr(err.msg, "(l+rk)^2"));
    czk_cs_free(cs);
}

/*
 * Corrupt one aux value of a correct witness: the gadget allocates each aux
 * right before the constraint that defines it, so gadget aux j is checked
 * first by gadget constraint j, which must be the first row to fail.
 */
static void test_corrupted_aux_fails_its_constraint(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 13);
    ctx c, cr;
    random_ctx(&c, 11, &rng);
    cr = c;
    czk_err err;
    czk_cs *wit, *rec;
    czk_assert_ok(run_mode(CZK_CS_WITNESS, &c, &wit, &err), &err);
    czk_assert_ok(run_mode(CZK_CS_RECORD, &cr, &rec, &err), &err);
    czk_witness w;
    czk_shape *s;
    czk_assert_ok(czk_cs_take_witness(wit, &w, &err), &err);
    czk_assert_ok(czk_cs_take_shape(rec, &s, &err), &err);
    const uint64_t n = s->num_constraints;
    czk_fr *a = malloc(3 * n * sizeof *a);
    assert_non_null(a);
    czk_fr *b = a + n, *cc = b + n;
    const uint32_t picks[] = {0, 5, 17, 100, 300, 597}; /* gadget-relative aux / constraint */
    for (size_t p = 0; p <= sizeof picks / sizeof picks[0]; p++) {
        czk_fr saved = czk_fr_zero;
        uint32_t j = p < sizeof picks / sizeof picks[0] ? picks[p] : 0;
        bool corrupt = p < sizeof picks / sizeof picks[0];
        if (corrupt) {
            saved = w.aux[c.aux_before + j];
            czk_fr_add(&w.aux[c.aux_before + j], &saved, &czk_fr_one);
        }
        czk_assert_ok(czk_shape_eval(s, &w, a, b, cc, NULL, &err), &err);
        uint64_t first_bad = UINT64_MAX;
        for (uint64_t k = 0; k < n && first_bad == UINT64_MAX; k++) {
            czk_fr ab;
            czk_fr_mul(&ab, &a[k], &b[k]);
            if (!czk_fr_eq(&ab, &cc[k])) first_bad = k;
        }
        if (corrupt) {
            assert_int_equal(first_bad, c.cons_before + j);
            w.aux[c.aux_before + j] = saved;
        } else {
            assert_int_equal(first_bad, UINT64_MAX); /* the restored witness satisfies all */
        }
    }
    free(a);
    czk_witness_free(&w);
    czk_shape_free(s);
    czk_cs_free(wit);
    czk_cs_free(rec);
}

static void test_errors(void **state) {
    (void)state;
    czk_err err;
    ctx c;
    czk_rng rng;
    czk_rng_seed(&rng, 17);
    random_ctx(&c, 3, &rng); /* unsupported arity */
    czk_cs *cs;
    assert_int_equal(run_mode(CZK_CS_WITNESS, &c, &cs, &err), CZK_ERR_UNSUPPORTED);
    assert_int_equal(c.gadget_status, CZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "arity 3"));
    czk_cs_free(cs);

    random_ctx(&c, 4, &rng);
    c.no_values = true; /* values are needed in WITNESS mode */
    assert_int_equal(run_mode(CZK_CS_WITNESS, &c, &cs, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "input values"));
    czk_cs_free(cs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_custom_hash_type),
        cmocka_unit_test(test_counts_output_and_check_mode),
        cmocka_unit_test(test_modes_agree),
        cmocka_unit_test(test_row_pattern),
        cmocka_unit_test(test_densities),
        cmocka_unit_test(test_mismatched_input_names_constraint),
        cmocka_unit_test(test_corrupted_aux_fails_its_constraint),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
