/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * Exact counts of the recorded StackedDRG partition circuit.
 *
 * Sources of the expected values:
 *   [T]  spec/porep-circuit.md §1, the table of synth constraints, inputs,
 *        aux, n, domain, per-challenge (constraints / aux) and a_aux / b_aux
 *        densities per sector size (an independent re-model of the gadgets,
 *        agreeing with every upstream test count).
 *   [C]  filecoin-project/curio@e0294b0f extern/cuzk/cuzk-project.md, "Phase 5
 *        Wave 1": the 32GiB PoRep R1CS measured from bellperson: 328 inputs,
 *        130,169,893 aux, 130,278,869 constraints, nnz A/B/C 309,405,051 /
 *        130,327,340 / 282,656,500, a_aux 129,753,292, b_input 1, b_aux
 *        33,112,281.
 *   [U]  rust-fil-proofs storage-proofs-porep/tests/stacked_circuit.rs
 *        (v28, 87348a74): test_stacked_porep_circuit_poseidon_base_2
 *        (22 inputs, 1,206,212 constraints), ..._base_8 (22, 1,199,620),
 *        ..._sub_8_4 (22, 1,296,576), ..._top_8_4_2 (22, 1,346,982): nodes =
 *        8 × base tree count, 2 layers, 1 challenge; MetricCS counts exclude
 *        bellperson's finalization, i.e. czk's n minus the inputs.
 *
 * 32GiB and 64GiB partitions (18 challenges) are recorded here as the top
 * level plus one challenge; every challenge allocates its own variables and
 * emits the same rows, so the whole partition's counts are
 * top + 18·(one challenge − top), which is checked against [T] and [C]. The
 * slow test porep.circuit_slow records the whole 32GiB partition.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/porep_circuit.h"

typedef struct counts {
    uint64_t n, nnz[3], a_aux, b_input, b_aux;
    uint32_t inputs, aux;
} counts;

static counts record(const czk_porep_config *cfg) {
    czk_shape *sh = NULL;
    czk_err err;
    czk_assert_ok(czk_porep_record(&sh, cfg, NULL, &err), &err);
    counts c = {sh->num_constraints, {sh->m[0].nnz, sh->m[1].nnz, sh->m[2].nnz},
                sh->a_aux.popcount,  sh->b_input.popcount,
                sh->b_aux.popcount,  sh->num_inputs,
                sh->num_aux};
    czk_shape_free(sh);
    return c;
}

static czk_porep_config shape_config(const char *name, unsigned challenges) {
    for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
        if (!strcmp(czk_porep_shapes[i].name, name)) {
            czk_porep_config cfg;
            czk_porep_config_for_shape(&cfg, &czk_porep_shapes[i]);
            if (challenges != ~0u) cfg.challenges = challenges;
            return cfg;
        }
    fail_msg("no shape %s", name);
    return (czk_porep_config){0};
}

static unsigned log2_ceil(uint64_t n) {
    unsigned k = 0;
    while ((1ull << k) < n)
        k++;
    return k;
}

/* A whole small partition against [T]. */
static void check_small(const char *name, uint64_t n, uint32_t aux, uint64_t a_aux, uint64_t b_aux,
                        unsigned log2_domain) {
    czk_porep_config cfg = shape_config(name, ~0u);
    assert_int_equal(cfg.challenges, 2);
    counts c = record(&cfg);
    assert_int_equal(c.n, n);
    assert_int_equal(c.inputs, 40);
    assert_int_equal(czk_porep_num_inputs(&cfg), 40);
    assert_int_equal(c.aux, aux);
    assert_int_equal(c.a_aux, a_aux);
    assert_int_equal(c.b_input, 1);
    assert_int_equal(c.b_aux, b_aux);
    assert_int_equal(log2_ceil(c.n), log2_domain);
}

/* [T] 2KiB: synth 2,687,921, n 2,687,961, 40 inputs, 2,685,673 aux, 2^22,
 * a_aux 2,674,908, b_aux 685,521. */
static void test_2kib(void **state) {
    (void)state;
    check_small("2KiB", 2687961, 2685673, 2674908, 685521, 22);
}

/* [T] 8MiB: n 3,844,969, aux 3,842,449, 2^22, a_aux 3,814,996, b_aux 1,011,289. */
static void test_8mib(void **state) {
    (void)state;
    check_small("8MiB", 3844969, 3842449, 3814996, 1011289, 22);
}

/* [T] 512MiB: n 4,423,473, aux 4,420,837, 2^23, a_aux 4,385,040, b_aux 1,174,173. */
static void test_512mib(void **state) {
    (void)state;
    check_small("512MiB", 4423473, 4420837, 4385040, 1174173, 23);
}

/* [T] the top level costs (571, 571); with no challenge it has 4 inputs
 * (ONE, replica_id, comm_d, comm_r). */
static void test_top_level(void **state) {
    (void)state;
    for (int k = 0; k < 2; k++) {
        czk_porep_config cfg = shape_config(k ? "32GiB" : "2KiB", 0);
        counts c = record(&cfg);
        assert_int_equal(c.inputs, 4);
        assert_int_equal(c.n - c.inputs, 571);
        assert_int_equal(c.aux, 571);
        assert_int_equal(c.b_input, 1);
    }
}

/*
 * Top + one challenge of 32GiB / 64GiB: [T] per challenge 7,237,665 / 7,231,629
 * (32GiB) and 7,288,071 / 7,282,004 (64GiB); the whole partition extrapolated
 * from top + 18·(one − top) against [T] (synth constraints, aux, densities)
 * and, for 32GiB, [C] (nnz, all counts).
 */
static void check_large(const char *name, uint64_t per_n, uint32_t per_aux, uint64_t synth,
                        uint32_t aux, uint64_t a_aux, uint64_t b_aux, const uint64_t *nnz) {
    czk_porep_config cfg0 = shape_config(name, 0), cfg1 = shape_config(name, 1);
    assert_int_equal(shape_config(name, ~0u).challenges, 18);
    counts t = record(&cfg0), o = record(&cfg1);
    assert_int_equal(o.inputs, 22);
    assert_int_equal((o.n - o.inputs) - (t.n - t.inputs), per_n);
    assert_int_equal(o.aux - t.aux, per_aux);
    /* the whole partition: 18 challenges, 328 inputs */
    uint64_t inputs = 4 + 18 * 18;
    assert_int_equal(inputs, 328);
    assert_int_equal((t.n - t.inputs) + 18 * ((o.n - o.inputs) - (t.n - t.inputs)), synth);
    assert_int_equal(t.aux + 18ull * (o.aux - t.aux), aux);
    assert_int_equal(t.a_aux + 18 * (o.a_aux - t.a_aux), a_aux);
    assert_int_equal(t.b_aux + 18 * (o.b_aux - t.b_aux), b_aux);
    assert_int_equal(o.b_input, 1);
    if (nnz) {
        /* each finalization row input_i·0 = 0 holds one A term and nothing else */
        uint64_t a_t = t.nnz[0] - t.inputs, a_o = o.nnz[0] - o.inputs;
        assert_int_equal(a_t + 18 * (a_o - a_t) + inputs, nnz[0]);
        assert_int_equal(t.nnz[1] + 18 * (o.nnz[1] - t.nnz[1]), nnz[1]);
        assert_int_equal(t.nnz[2] + 18 * (o.nnz[2] - t.nnz[2]), nnz[2]);
    }
}

static void test_32gib_one_challenge(void **state) {
    (void)state;
    static const uint64_t nnz[3] = {309405051, 130327340, 282656500}; /* [C] */
    /* [T] synth 130,278,541 (n 130,278,869 − 328), aux 130,169,893,
     * a_aux 129,753,292, b_aux 33,112,281 (= [C]) */
    check_large("32GiB", 7237665, 7231629, 130278541, 130169893, 129753292, 33112281, nnz);
}

static void test_64gib_one_challenge(void **state) {
    (void)state;
    /* [T] synth 131,185,849, aux 131,076,643, a_aux 130,637,542, b_aux 33,386,943 */
    check_large("64GiB", 7288071, 7282004, 131185849, 131076643, 130637542, 33386943, NULL);
}

/* [U] rust-fil-proofs' own circuit test configurations. */
static void test_upstream_configs(void **state) {
    (void)state;
    static const struct {
        unsigned base, sub, top;
        uint64_t constraints;
    } cases[] = {
        {2, 0, 0, 1206212}, /* test_stacked_porep_circuit_poseidon_base_2 */
        {8, 0, 0, 1199620}, /* test_stacked_input_circuit_poseidon_base_8 */
        {8, 4, 0, 1296576}, /* test_stacked_input_circuit_poseidon_sub_8_4 */
        {8, 4, 2, 1346982}, /* test_stacked_input_circuit_poseidon_top_8_4_2 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        czk_porep_config cfg = {
            .nodes = 8ull * (cases[i].sub ? cases[i].sub : 1) * (cases[i].top ? cases[i].top : 1),
            .layers = 2,
            .challenges = 1,
            .base_arity = cases[i].base,
            .sub_arity = cases[i].sub,
            .top_arity = cases[i].top,
        };
        counts c = record(&cfg);
        assert_int_equal(c.inputs, 22);
        if (c.n - c.inputs != cases[i].constraints)
            fail_msg("case %zu: %llu constraints, upstream %llu", i,
                     (unsigned long long)(c.n - c.inputs),
                     (unsigned long long)cases[i].constraints);
    }
}

static void test_config_errors(void **state) {
    (void)state;
    czk_err err;
    czk_porep_config good = shape_config("2KiB", ~0u), cfg;
    czk_por_tree d, rc;
    czk_assert_ok(czk_porep_config_check(&good, &d, &rc, &err), &err);
    assert_int_equal(czk_por_tree_levels(&d), 6);
    assert_int_equal(czk_por_tree_levels(&rc), 2);
    cfg = good, cfg.nodes = 48;
    assert_int_equal(czk_porep_config_check(&cfg, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    cfg = good, cfg.nodes = 1;
    assert_int_equal(czk_porep_config_check(&cfg, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    cfg = good, cfg.layers = 3; /* no Poseidon of arity 3 */
    assert_int_equal(czk_porep_config_check(&cfg, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    cfg = good, cfg.layers = 1;
    assert_int_equal(czk_porep_config_check(&cfg, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    cfg = good, cfg.base_arity = 16;
    assert_int_equal(czk_porep_config_check(&cfg, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    cfg = good, cfg.sub_arity = 8; /* 64 nodes: 8 base trees of 8 leaves: fine */
    czk_assert_ok(czk_porep_config_check(&cfg, NULL, NULL, &err), &err);
    cfg = good, cfg.nodes = 32; /* 32 is not a power of 8 */
    assert_int_equal(czk_porep_config_check(&cfg, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
    /* a refused configuration fails the record, not the process */
    czk_shape *sh = NULL;
    assert_int_equal(czk_porep_record(&sh, &cfg, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_null(sh);
    /* cancellation is honoured */
    atomic_int cancel = 1;
    assert_int_equal(czk_porep_record(&sh, &good, &cancel, &err), CZK_ERR_CANCELLED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2kib),
        cmocka_unit_test(test_8mib),
        cmocka_unit_test(test_512mib),
        cmocka_unit_test(test_top_level),
        cmocka_unit_test(test_32gib_one_challenge),
        cmocka_unit_test(test_64gib_one_challenge),
        cmocka_unit_test(test_upstream_configs),
        cmocka_unit_test(test_config_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
