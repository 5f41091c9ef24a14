/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1200 */
/*
 * A 2KiB SnapDeals update proved and verified on the CPU through the
 * library: the blank circuit recorded, test keys made from it (czk_setup
 * with random toxic waste: a test key, not Filecoin's), a really sealed CC
 * sector updated with random data (czk_seal_snap_vanilla), its partition
 * proof parsed and pre-checked, the witness made in WITNESS mode, the
 * Groth16 proof checked by the pairing equation against the public inputs
 * computed from the commitments (czk_snap_public_inputs), and refused
 * against the inputs of another update, another comm_d_new and another
 * k_and_h_select.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/groth16.h"
#include "czk/seal.h"
#include "czk/snap.h"

static void test_prove_2kib(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(2, &err);
    assert_non_null(pool);
    const czk_snap_shape *s = czk_snap_shape_for_size(2048);

    /* keys */
    czk_shape *shape = NULL;
    czk_assert_ok(czk_snap_record(&shape, s, NULL, &err), &err);
    assert_int_equal(shape->num_constraints, 1705039 + CZK_SNAP_INPUTS);
    czk_rng rng;
    czk_rng_seed(&rng, 18);
    czk_toxic toxic;
    czk_assert_ok(czk_toxic_random(&toxic, &rng, &err), &err);
    czk_params *params = NULL;
    czk_assert_ok(czk_setup(&params, shape, &toxic, pool, &err), &err);
    czk_pvk pvk;
    czk_assert_ok(czk_pvk_prepare(&pvk, &params->vk, &err), &err);

    /* the update and its partition proof */
    czk_seal_snap_request r;
    memset(&r, 0, sizeof r);
    r.sector.registered_proof = 5;
    r.sector.miner_id = 1000;
    r.sector.sector_num = 12;
    memset(r.sector.ticket, 0x5a, 32);
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 12;
    czk_seal_snap u;
    czk_assert_ok(czk_seal_snap_vanilla(&u, &r, pool, &err), &err);
    czk_snap_vanilla *v = NULL;
    czk_assert_ok(czk_snap_vanilla_parse(&v, u.blobs[0], u.lens[0], s, 0, &err), &err);
    czk_snap_public pub = {.k = 0, .h = u.h};
    memcpy(pub.comm_r_old, u.comm_r_old, 32);
    memcpy(pub.comm_d_new, u.comm_d_new, 32);
    memcpy(pub.comm_r_new, u.comm_r_new, 32);
    czk_assert_ok(czk_snap_precheck(v, s, &pub, &err), &err);

    czk_witness w;
    czk_assert_ok(czk_snap_witness_generate(&w, s, &pub, v, NULL, &err), &err);
    assert_int_equal(w.num_inputs, shape->num_inputs);
    assert_int_equal(w.num_aux, shape->num_aux);
    czk_backend be;
    czk_assert_ok(czk_backend_cpu(&be, pool, &err), &err);
    czk_proof proof;
    czk_assert_ok(czk_prove(&be, params, shape, &w, 1, NULL, NULL, &proof, NULL, &err), &err);
    czk_backend_release(&be);
    czk_witness_free(&w);

    /* through the 192-byte encoding, as it leaves */
    uint8_t bytes[CZK_PROOF_BYTES];
    czk_proof_encode(bytes, &proof);
    czk_proof back;
    czk_assert_ok(czk_proof_decode(&back, bytes, &err), &err);
    czk_fr in[4];
    czk_assert_ok(czk_snap_public_inputs(in, s, &pub, &err), &err);
    czk_assert_ok(czk_verify(&pvk, &back, in, 4, &err), &err);

    /* another update of the same sector key: refused */
    czk_seal_snap u2;
    r.random_seed = 13;
    czk_assert_ok(czk_seal_snap_vanilla(&u2, &r, pool, &err), &err);
    assert_memory_equal(u2.comm_r_old, u.comm_r_old, 32);
    czk_snap_public other = pub;
    memcpy(other.comm_d_new, u2.comm_d_new, 32);
    memcpy(other.comm_r_new, u2.comm_r_new, 32);
    czk_assert_ok(czk_snap_public_inputs(in, s, &other, &err), &err);
    assert_int_equal(czk_verify(&pvk, &back, in, 4, &err), CZK_ERR_VERIFY);
    /* only comm_d_new changed */
    other = pub;
    memcpy(other.comm_d_new, u2.comm_d_new, 32);
    czk_assert_ok(czk_snap_public_inputs(in, s, &other, &err), &err);
    assert_int_equal(czk_verify(&pvk, &back, in, 4, &err), CZK_ERR_VERIFY);
    /* another h_select bit (2KiB's hs are all 1: h_select 2 names the same h) */
    czk_assert_ok(czk_snap_public_inputs(in, s, &pub, &err), &err);
    czk_fr_from_u64(&in[0], 2);
    assert_int_equal(czk_verify(&pvk, &back, in, 4, &err), CZK_ERR_VERIFY);
    czk_seal_snap_free(&u2);

    czk_snap_vanilla_free(v);
    czk_seal_snap_free(&u);
    czk_pvk_free(&pvk);
    czk_params_free(params);
    czk_shape_free(shape);
    czk_pool_destroy(pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prove_2kib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
