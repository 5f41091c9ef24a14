/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * PoR gadget: constraint and aux counts per level and per Filecoin tree
 * (spec/porep-circuit.md §1, "Cost of each component"), rust-fil-proofs'
 * own PoR test counts (storage-proofs-core/tests/por_circuit.rs, v28
 * 87348a74: test_por_circuit_* with a public root, *_private_root), and
 * satisfiability in CHECK mode against trees built natively (blst SHA-256,
 * native Poseidon) for every arity and base/sub/top combination, with the
 * WITNESS assignment equal to CHECK's and corrupted witnesses refused.
 *
 * Upstream counts come from TestConstraintSystem, which adds no
 * finalization: they are czk's constraints minus one per input.
 */
#include "gtest.h"
#include "native_tree.h"

#include "czk/por.h"

typedef struct por_ctx {
    czk_por_tree tree;
    const czk_fr *leaf, *root; /* values; NULL = zero */
    const czk_por_path *path;  /* NULL = blank */
    bool public_root;
    czk_num computed;
} por_ctx;

/* The leaf and root allocated first (upstream's Root::Val), then the PoR. */
static czk_status por_fn(czk_cs *cs, void *p) {
    por_ctx *c = p;
    czk_num leaf = czk_num_alloc(cs, c->leaf);
    czk_num root = czk_num_alloc(cs, c->root);
    return czk_por(cs, &c->tree, &leaf, &root, c->path, c->public_root, &c->computed);
}

static czk_por_tree tree_of(czk_por_hash h, uint64_t leaves, unsigned base, unsigned sub,
                            unsigned top) {
    czk_por_tree t;
    czk_err err;
    czk_assert_ok(czk_por_tree_for_leaves(&t, h, leaves, base, sub, top, &err), &err);
    return t;
}

/* Records a blank PoR; returns (synthesized constraints, aux, inputs). */
static void record(const czk_por_tree *t, bool public_root, uint64_t *constraints, uint32_t *aux,
                   uint32_t *inputs) {
    por_ctx c = {.tree = *t, .public_root = public_root};
    czk_cs *cs = gt_run(CZK_CS_RECORD, por_fn, &c, CZK_OK);
    *constraints = gt_synthesized(cs);
    *aux = czk_cs_num_aux(cs);
    *inputs = czk_cs_num_inputs(cs);
    czk_cs_free(cs);
}

/* ---- counts ---- */

/* One level = a one-level tree minus the end (2 constraints) and the
 * caller's leaf and root (2 aux). Spec §1: SHA-256 TreeD level (45,382,
 * 45,335), Poseidon octree level (530, 537), binary level (314, 315). The
 * arity-4 level (387, 390) is 2 bits, 3 siblings, insert_4 (8, spec §4.7)
 * and Poseidon-4 (377, spec §4.9); 3 of them + 3 is upstream's 1,164 below. */
static void test_level_costs(void **state) {
    (void)state;
    static const struct {
        czk_por_hash h;
        unsigned arity;
        uint64_t constraints;
        uint32_t aux;
    } cases[] = {
        {CZK_POR_SHA256, 2, 45382, 45335},
        {CZK_POR_POSEIDON, 8, 530, 537},
        {CZK_POR_POSEIDON, 4, 387, 390},
        {CZK_POR_POSEIDON, 2, 314, 315},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        czk_por_tree t = tree_of(cases[i].h, cases[i].arity, cases[i].arity, 0, 0);
        uint64_t n;
        uint32_t aux, inputs;
        record(&t, false, &n, &aux, &inputs);
        assert_int_equal(n - 2, cases[i].constraints);
        assert_int_equal(aux - 2, cases[i].aux);
        assert_int_equal(inputs, 2); /* ONE, the packed path */
    }
}

/* Spec §1: a SHA PoR costs depth × 45,382 + 2 (TreeD: 2KiB depth 6, 8MiB 18,
 * 32GiB 30); a Poseidon PoR Σ levels + 2: 1,062 (2KiB, 8-0-0 over 64),
 * 5,302 (32GiB, 8-8-0 over 2^30), 5,616 (64GiB, 8-8-2 over 2^31). */
static void test_filecoin_trees(void **state) {
    (void)state;
    static const struct {
        czk_por_hash h;
        uint64_t leaves;
        unsigned base, sub, top;
        uint64_t constraints;
    } cases[] = {
        {CZK_POR_SHA256, 64, 2, 0, 0, 6 * 45382 + 2},
        {CZK_POR_SHA256, 1u << 18, 2, 0, 0, 18 * 45382 + 2},
        {CZK_POR_SHA256, 1u << 30, 2, 0, 0, 30 * 45382 + 2},
        {CZK_POR_POSEIDON, 64, 8, 0, 0, 1062},
        {CZK_POR_POSEIDON, 1u << 30, 8, 8, 0, 5302},
        {CZK_POR_POSEIDON, 1ull << 31, 8, 8, 2, 5616},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        czk_por_tree t =
            tree_of(cases[i].h, cases[i].leaves, cases[i].base, cases[i].sub, cases[i].top);
        uint64_t n;
        uint32_t aux, inputs;
        record(&t, false, &n, &aux, &inputs);
        assert_int_equal(n, cases[i].constraints);
        assert_int_equal(inputs, 2);
    }
}

/* storage-proofs-core/tests/por_circuit.rs: leaves = 64 × base tree count
 * (sub × top), inputs 3 with a public root and 2 with a private one. */
static void test_upstream_counts(void **state) {
    (void)state;
    static const struct {
        czk_por_hash h;
        unsigned base, sub, top;
        bool public_root;
        uint64_t constraints;
    } cases[] = {
        {CZK_POR_SHA256, 2, 0, 0, true, 272295},  /* test_por_circuit_sha256_base_2 */
        {CZK_POR_SHA256, 4, 0, 0, true, 216258},  /* test_por_circuit_sha256_base_4 */
        {CZK_POR_SHA256, 8, 0, 0, true, 250987},  /* test_por_circuit_sha256_base_8 */
        {CZK_POR_POSEIDON, 2, 0, 0, true, 1887},  /* ..._poseidon_base_2 */
        {CZK_POR_POSEIDON, 4, 0, 0, true, 1164},  /* ..._poseidon_base_4 */
        {CZK_POR_POSEIDON, 8, 0, 0, true, 1063},  /* ..._poseidon_base_8 */
        {CZK_POR_POSEIDON, 8, 2, 0, true, 1377},  /* ..._poseidon_sub_8_2 */
        {CZK_POR_POSEIDON, 8, 4, 2, true, 1764},  /* ..._poseidon_top_8_4_2 */
        {CZK_POR_POSEIDON, 8, 8, 0, true, 1593},  /* ..._poseidon_sub_8_8 */
        {CZK_POR_POSEIDON, 8, 8, 2, true, 1907},  /* ..._poseidon_top_8_8_2 */
        {CZK_POR_POSEIDON, 8, 2, 4, true, 1764},  /* ..._poseidon_top_8_2_4 */
        {CZK_POR_POSEIDON, 2, 0, 0, false, 1886}, /* ..._poseidon_base_2_private_root */
        {CZK_POR_POSEIDON, 4, 0, 0, false, 1163}, /* ..._poseidon_base_4_private_root */
        {CZK_POR_POSEIDON, 8, 0, 0, false, 1062}, /* ..._poseidon_base_8_private_root */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t leaves =
            64ull * (cases[i].sub ? cases[i].sub : 1) * (cases[i].top ? cases[i].top : 1);
        czk_por_tree t = tree_of(cases[i].h, leaves, cases[i].base, cases[i].sub, cases[i].top);
        uint64_t n;
        uint32_t aux, inputs;
        record(&t, cases[i].public_root, &n, &aux, &inputs);
        if (n != cases[i].constraints)
            fail_msg("case %zu: %llu constraints, upstream %llu", i, (unsigned long long)n,
                     (unsigned long long)cases[i].constraints);
        assert_int_equal(inputs, cases[i].public_root ? 3 : 2);
    }
}

/* ---- shapes ---- */

static void test_tree_for_leaves(void **state) {
    (void)state;
    czk_por_tree t;
    czk_err err;
    t = tree_of(CZK_POR_POSEIDON, 1u << 30, 8, 8, 0);
    assert_int_equal(t.base_levels, 9);
    assert_int_equal(czk_por_tree_levels(&t), 10);
    assert_int_equal(czk_por_tree_siblings(&t), 70);
    assert_int_equal(czk_por_tree_index_bits(&t), 30);
    t = tree_of(CZK_POR_POSEIDON, 1ull << 31, 8, 8, 2);
    assert_int_equal(t.base_levels, 9);
    assert_int_equal(czk_por_tree_levels(&t), 11);
    assert_int_equal(czk_por_tree_arity(&t, 9), 8);
    assert_int_equal(czk_por_tree_arity(&t, 10), 2);
    assert_int_equal(czk_por_tree_siblings(&t), 71);
    assert_int_equal(czk_por_tree_index_bits(&t), 31);
    t = tree_of(CZK_POR_SHA256, 1u << 30, 2, 0, 0);
    assert_int_equal(t.base_levels, 30);
    /* refused: not filling, top without sub, bad arities, no base level */
    assert_int_equal(czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, 48, 8, 0, 0, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, 64, 8, 0, 2, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, 256, 16, 0, 0, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, 64, 8, 3, 0, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, 8, 8, 8, 0, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, 0, 8, 0, 0, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_por_tree_for_leaves(&t, (czk_por_hash)7, 64, 8, 0, 0, &err),
                     CZK_ERR_INVALID_ARG);
    czk_por_tree bad = {CZK_POR_SHA256, 2, 65, 0, 0};
    assert_int_equal(czk_por_tree_check(&bad, &err), CZK_ERR_INVALID_ARG);
}

/* ---- satisfiability against native trees ---- */

static const struct {
    czk_por_hash h;
    uint64_t leaves;
    unsigned base, sub, top;
} native_cases[] = {
    {CZK_POR_SHA256, 64, 2, 0, 0},    {CZK_POR_SHA256, 64, 4, 0, 0},
    {CZK_POR_SHA256, 64, 8, 0, 0},    {CZK_POR_POSEIDON, 64, 2, 0, 0},
    {CZK_POR_POSEIDON, 64, 4, 0, 0},  {CZK_POR_POSEIDON, 64, 8, 0, 0},
    {CZK_POR_POSEIDON, 128, 8, 2, 0}, {CZK_POR_POSEIDON, 512, 8, 4, 2},
    {CZK_POR_POSEIDON, 512, 8, 8, 0}, {CZK_POR_POSEIDON, 1024, 8, 8, 2},
};

static void assert_fr_eq(const czk_fr *a, const czk_fr *b) {
    if (!czk_fr_eq(a, b)) fail_msg("Fr values differ");
}

static void test_check_native(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 0x504f52);
    for (size_t k = 0; k < sizeof native_cases / sizeof native_cases[0]; k++) {
        czk_por_tree t = tree_of(native_cases[k].h, native_cases[k].leaves, native_cases[k].base,
                                 native_cases[k].sub, native_cases[k].top);
        uint64_t nl = native_cases[k].leaves;
        czk_fr *leaves = malloc(nl * sizeof *leaves);
        assert_non_null(leaves);
        for (uint64_t i = 0; i < nl; i++)
            nt_random_fr(&rng, &leaves[i]);
        nt_tree nt;
        nt_build(&nt, &t, leaves, nl);
        uint64_t picks[3] = {0, nl - 1, czk_rng_u64(&rng) % nl};
        for (int p = 0; p < 3; p++) {
            uint64_t idx = picks[p];
            uint32_t pos[CZK_POR_MAX_LEVELS];
            czk_fr sib[CZK_POR_MAX_LEVELS * 7];
            nt_path(&nt, idx, pos, sib);
            czk_por_path path = {pos, sib};
            por_ctx c = {.tree = t, .leaf = &leaves[idx], .root = nt_root(&nt), .path = &path};
            czk_cs *cs = gt_run(CZK_CS_CHECK, por_fn, &c, CZK_OK);
            assert_fr_eq(&c.computed.value, nt_root(&nt));
            czk_witness wc, ww;
            czk_err err;
            czk_assert_ok(czk_cs_take_witness(cs, &wc, &err), &err);
            czk_cs_free(cs);
            /* the packed path input is the leaf index */
            czk_fr want;
            czk_fr_from_u64(&want, idx);
            assert_int_equal(wc.num_inputs, 2);
            assert_fr_eq(&wc.inputs[1], &want);
            /* WITNESS mode assigns exactly what CHECK assigned */
            cs = gt_run(CZK_CS_WITNESS, por_fn, &c, CZK_OK);
            czk_assert_ok(czk_cs_take_witness(cs, &ww, &err), &err);
            czk_cs_free(cs);
            assert_int_equal(ww.num_aux, wc.num_aux);
            assert_int_equal(ww.num_inputs, wc.num_inputs);
            assert_memory_equal(ww.aux, wc.aux, wc.num_aux * sizeof(czk_fr));
            assert_memory_equal(ww.inputs, wc.inputs, wc.num_inputs * sizeof(czk_fr));
            czk_witness_free(&wc);
            czk_witness_free(&ww);
        }
        nt_free(&nt);
        free(leaves);
    }
}

static void test_check_rejects(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 0x52454a);
    czk_por_tree t = tree_of(CZK_POR_POSEIDON, 512, 8, 4, 2);
    czk_fr leaves[512];
    for (int i = 0; i < 512; i++)
        nt_random_fr(&rng, &leaves[i]);
    nt_tree nt;
    nt_build(&nt, &t, leaves, 512);
    uint64_t idx = 300;
    uint32_t pos[CZK_POR_MAX_LEVELS];
    czk_fr sib[CZK_POR_MAX_LEVELS * 7];
    nt_path(&nt, idx, pos, sib);
    czk_por_path path = {pos, sib};
    por_ctx c = {.tree = t, .leaf = &leaves[idx], .root = nt_root(&nt), .path = &path};
    czk_cs_free(gt_run(CZK_CS_CHECK, por_fn, &c, CZK_OK));

    /* Every gadget computes from the witness it is given, so a wrong
     * sibling, position or root only breaks the final equality: the last
     * synthesized constraint (before the 2 finalization rows), "equal". */
    for (int k = 0; k < 3; k++) {
        czk_fr saved = sib[8];
        if (k == 0) czk_fr_add(&sib[8], &sib[8], &czk_fr_one); /* level 1 (base) */
        if (k == 1) pos[2] ^= 1;                               /* sub level */
        if (k == 2) c.root = &leaves[0];
        czk_cs *cs = gt_run(CZK_CS_CHECK, por_fn, &c, CZK_ERR_UNSATISFIED);
        assert_int_equal(czk_cs_first_unsatisfied(cs), czk_cs_num_constraints(cs) - 3);
        assert_string_equal(czk_cs_first_unsatisfied_path(cs), "equal");
        czk_cs_free(cs);
        sib[8] = saved;
        if (k == 1) pos[2] ^= 1;
        c.root = nt_root(&nt);
    }
    czk_cs_free(gt_run(CZK_CS_CHECK, por_fn, &c, CZK_OK));
    /* a position beyond its level's arity is refused */
    assert_int_equal(czk_por_tree_levels(&t), 4);
    pos[3] = 2; /* the top level has arity 2 */
    czk_cs_free(gt_run(CZK_CS_CHECK, por_fn, &c, CZK_ERR_INVALID_ARG));
    czk_cs_free(gt_run(CZK_CS_WITNESS, por_fn, &c, CZK_ERR_INVALID_ARG));
    /* a malformed tree */
    por_ctx bad = {.tree = {CZK_POR_POSEIDON, 16, 1, 0, 0}};
    czk_cs_free(gt_run(CZK_CS_RECORD, por_fn, &bad, CZK_ERR_INVALID_ARG));
    nt_free(&nt);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_costs),     cmocka_unit_test(test_filecoin_trees),
        cmocka_unit_test(test_upstream_counts), cmocka_unit_test(test_tree_for_leaves),
        cmocka_unit_test(test_check_native),    cmocka_unit_test(test_check_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
