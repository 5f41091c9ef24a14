/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * A PoRep request resolved once (czk_porep_job_open) on a 2KiB sector
 * sealed here (miner 1000, sector 7): the registered proof, the
 * configuration (2 challenges: 3 + 18 · 2 = 39 public inputs, spec
 * porep-circuit.md §1 counts 40 with ONE), replica_id (recomputed from the
 * ids equals the sealed one), and partition witnesses and public inputs
 * that equal what the per-call functions make (czk_porep_witness_from_c1,
 * czk_porep_chain_inputs and czk_c1_public_inputs: one derivation). A wrong
 * miner or a changed sibling is refused at open, naming it.
 */
#include "support.h"

#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/seal.h"

#include <stdlib.h>
#include <string.h>

static czk_c1 *seal_2k(void) {
    czk_seal_request r;
    memset(&r, 0, sizeof r);
    r.registered_proof = 5; /* StackedDrg2KiBV1_1 */
    r.miner_id = 1000;
    r.sector_num = 7;
    memset(r.ticket, 0x11, 32);
    memset(r.seed, 0x22, 32);
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 5;
    czk_c1 *c1 = NULL;
    czk_err err;
    czk_assert_ok(czk_seal_generate(&c1, NULL, &r, NULL, &err), &err);
    return c1;
}

static czk_c1 *copy_c1(const czk_c1 *c1) {
    char *json;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &json, &len, &err), &err);
    czk_c1 *out;
    czk_assert_ok(czk_c1_parse(&out, (const uint8_t *)json, len, &err), &err);
    free(json);
    return out;
}

static void test_open(void **state) {
    (void)state;
    czk_c1 *ref = seal_2k();
    czk_porep_job *j;
    czk_err err;
    czk_porep_job_opts o = {true, 7, 1000, true};
    czk_assert_ok(czk_porep_job_open(&j, copy_c1(ref), &o, NULL, &err), &err);
    assert_int_equal(j->proof.id, 5);
    assert_string_equal(j->proof.shape->name, "2KiB");
    assert_int_equal(j->config.challenges, 2);
    assert_int_equal(j->num_inputs, 39);
    assert_memory_equal(j->replica_id, ref->replica_id.b, 32);
    assert_non_null(j->graph);

    czk_fr a[39], b[39], c[39];
    czk_assert_ok(czk_porep_job_inputs(a, j, 0, &err), &err);
    czk_assert_ok(czk_porep_chain_inputs(b, ref, ref->replica_id.b, NULL, 0, &err), &err);
    czk_assert_ok(czk_c1_public_inputs(c, ref, NULL, 0, &err), &err);
    assert_int_equal(czk_c1_num_public_inputs(ref), 39);
    for (int i = 0; i < 39; i++) {
        assert_true(czk_fr_eq(&a[i], &b[i]));
        assert_true(czk_fr_eq(&a[i], &c[i]));
    }
    assert_int_equal(czk_porep_job_inputs(a, j, 1, &err), CZK_ERR_INVALID_ARG);

    czk_porep_witness *w1, *w2;
    czk_assert_ok(czk_porep_job_witness(&w1, j, 0, &err), &err);
    czk_assert_ok(czk_porep_witness_from_c1(&w2, ref, 0, &err), &err);
    assert_int_equal(w1->config.nodes, w2->config.nodes);
    assert_int_equal(w1->config.layers, w2->config.layers);
    assert_int_equal(w1->config.challenges, w2->config.challenges);
    assert_int_equal(w1->config.base_arity, w2->config.base_arity);
    assert_memory_equal(w1->replica_id, w2->replica_id, 32);
    assert_memory_equal(w1->comm_c, w2->comm_c, 32);
    assert_memory_equal(w1->comm_r_last, w2->comm_r_last, 32);
    for (unsigned i = 0; i < w1->config.challenges; i++) {
        assert_int_equal(w1->challenges[i].challenge, w2->challenges[i].challenge);
        assert_memory_equal(w1->challenges[i].data_leaf, w2->challenges[i].data_leaf, 32);
    }
    czk_porep_witness_free(w1);
    czk_porep_witness_free(w2);
    assert_int_equal(czk_porep_job_witness(&w1, j, 1, &err), CZK_ERR_INVALID_ARG);
    assert_null(w1);
    czk_porep_job_free(j);

    /* no ids: the C1's replica_id is taken */
    czk_porep_job_opts none = {false, 0, 0, true};
    czk_assert_ok(czk_porep_job_open(&j, copy_c1(ref), &none, NULL, &err), &err);
    assert_memory_equal(j->replica_id, ref->replica_id.b, 32);
    czk_porep_job_free(j);

    /* refused at open (the C1 is freed there) */
    o.miner_id = 1001;
    assert_int_equal(czk_porep_job_open(&j, copy_c1(ref), &o, NULL, &err), CZK_ERR_MISMATCH);
    assert_null(j);
    assert_non_null(strstr(err.msg, "pre-check: replica_id"));
    assert_non_null(strstr(err.msg, "miner f01001, sector 7"));
    o.miner_id = 1000;
    czk_c1 *bad = copy_c1(ref);
    bad->proofs[1].comm_d_proof.siblings[0].b[0] ^= 1;
    assert_int_equal(czk_porep_job_open(&j, bad, &o, NULL, &err), CZK_ERR_VERIFY);
    assert_non_null(strstr(err.msg, "partition 0, challenge 1"));
    czk_c1_free(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
