/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * 2KiB WindowPoSt (V1 partition 1 with two sectors, V1_2 with one padded
 * sector) and WinningPoSt proved and verified on the CPU: the shape
 * recorded, test keys made from it (czk_setup with random toxic waste: a
 * test key, not Filecoin's), the witness from really sealed sectors
 * (czk_seal_post_vanilla → czk_post_vanilla_parse → czk_post_witness_fill
 * → WITNESS mode), the Groth16 proof checked by the pairing equation
 * against czk_post_public_inputs, and refused against the inputs of
 * another partition index, another API version or another randomness.
 */
#include "post2k_fixture.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/groth16.h"
#include "czk/post.h"
#include "czk/seal.h"

static czk_pool *pool;
static uint8_t rnd[32];

static int setup(void **state) {
    (void)state;
    czk_err err;
    pool = czk_pool_create(2, &err);
    czk_test_hex(rnd, 32, "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f100");
    return pool ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    czk_pool_destroy(pool);
    return 0;
}

static czk_post_vanilla *sealed(uint64_t num, czk_post_kind kind, czk_post_api api,
                                uint64_t sector_index, const czk_post_config *cfg) {
    uint8_t *blob = NULL;
    size_t len = 0;
    czk_err err;
    czk_assert_ok(czk_post2k_blob(&blob, &len, kind, api, rnd, num, sector_index, pool, &err),
                  &err);
    czk_por_tree t;
    czk_assert_ok(czk_post_config_check(cfg, &t, &err), &err);
    czk_post_vanilla *v = NULL;
    czk_assert_ok(czk_post_vanilla_parse(&v, blob, len, &t, 0, &err), &err);
    free(blob);
    return v;
}

typedef struct keys {
    czk_shape *shape;
    czk_params *params;
    czk_pvk pvk;
} keys;

static void make_keys(keys *k, const czk_post_config *cfg, uint64_t seed) {
    czk_err err;
    czk_assert_ok(czk_post_record(&k->shape, cfg, NULL, NULL, &err), &err);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_toxic toxic;
    czk_assert_ok(czk_toxic_random(&toxic, &rng, &err), &err);
    czk_assert_ok(czk_setup(&k->params, k->shape, &toxic, pool, &err), &err);
    czk_assert_ok(czk_pvk_prepare(&k->pvk, &k->params->vk, &err), &err);
}

static void free_keys(keys *k) {
    czk_pvk_free(&k->pvk);
    czk_params_free(k->params);
    czk_shape_free(k->shape);
}

/* Proves the partition of v[0..n) and verifies it against its inputs and refuses others. */
static void prove_verify(const keys *k, const czk_post_config *cfg, czk_post_kind kind,
                         czk_post_api api, const czk_post_vanilla *const *v, size_t n,
                         uint64_t kidx) {
    czk_err err;
    size_t bad = 0;
    czk_assert_ok(czk_post_precheck(v, n, cfg, kind, api, rnd, kidx, &bad, &err), &err);
    czk_post_witness *pw = NULL;
    czk_assert_ok(czk_post_witness_alloc(&pw, cfg, &err), &err);
    czk_assert_ok(czk_post_witness_fill(pw, v, n, kind, &err), &err);
    czk_witness w;
    czk_assert_ok(czk_post_witness_generate(&w, cfg, pw, NULL, NULL, &err), &err);
    czk_post_witness_free(pw);
    czk_backend be;
    czk_assert_ok(czk_backend_cpu(&be, pool, &err), &err);
    czk_proof proof;
    czk_assert_ok(czk_prove(&be, k->params, k->shape, &w, 1, NULL, NULL, &proof, NULL, &err), &err);
    czk_backend_release(&be);
    czk_witness_free(&w);

    czk_post_pub_sector pub[CZK_POST_WINNING_CHALLENGES];
    size_t np = n;
    if (kind == CZK_POST_WINNING) {
        czk_post_pub_sector one = {v[0]->sector_id, {0}};
        memcpy(one.comm_r, v[0]->comm_r, 32);
        czk_post_winning_sectors(pub, &one);
        np = CZK_POST_WINNING_CHALLENGES;
    } else {
        for (size_t i = 0; i < n; i++) {
            pub[i].sector_id = v[i]->sector_id;
            memcpy(pub[i].comm_r, v[i]->comm_r, 32);
        }
    }
    size_t ni = czk_post_num_inputs(cfg) - 1;
    czk_fr *in = malloc(ni * sizeof *in);
    assert_non_null(in);
    czk_assert_ok(czk_post_public_inputs(in, cfg, api, rnd, pub, np, kidx, &err), &err);
    /* through the 192-byte encoding, as it leaves */
    uint8_t bytes[CZK_PROOF_BYTES];
    czk_proof_encode(bytes, &proof);
    czk_proof back;
    czk_assert_ok(czk_proof_decode(&back, bytes, &err), &err);
    czk_assert_ok(czk_verify(&k->pvk, &back, in, ni, &err), &err);
    /* another partition index (V1) or API version, another randomness: refused */
    czk_assert_ok(czk_post_public_inputs(in, cfg, api == CZK_POST_API_1_0 ? api : CZK_POST_API_1_0,
                                         rnd, pub, np, kidx + 1, &err),
                  &err);
    assert_int_equal(czk_verify(&k->pvk, &back, in, ni, &err), CZK_ERR_VERIFY);
    uint8_t other[32];
    memcpy(other, rnd, 32);
    other[1] ^= 1;
    czk_assert_ok(czk_post_public_inputs(in, cfg, api, other, pub, np, kidx, &err), &err);
    assert_int_equal(czk_verify(&k->pvk, &back, in, ni, &err), CZK_ERR_VERIFY);
    free(in);
}

static void test_window(void **state) {
    (void)state;
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(2048));
    keys k;
    make_keys(&k, &cfg, 1);
    /* V1, partition 1: sectors 7 and 9 are sector indices 2 and 3 */
    czk_post_vanilla *a = sealed(7, CZK_POST_WINDOW, CZK_POST_API_1_0, 2, &cfg);
    czk_post_vanilla *b = sealed(9, CZK_POST_WINDOW, CZK_POST_API_1_0, 3, &cfg);
    const czk_post_vanilla *both[2] = {a, b};
    prove_verify(&k, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, both, 2, 1);
    czk_post_vanilla_free(a);
    czk_post_vanilla_free(b);
    /* V1_2, one sector (padded), partition 3 */
    czk_post_vanilla *c = sealed(11, CZK_POST_WINDOW, CZK_POST_API_1_2, 6, &cfg);
    const czk_post_vanilla *one[1] = {c};
    prove_verify(&k, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_2, one, 1, 3);
    czk_post_vanilla_free(c);
    free_keys(&k);
}

static void test_winning(void **state) {
    (void)state;
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINNING, czk_post_shape_for_size(2048));
    keys k;
    make_keys(&k, &cfg, 2);
    czk_post_vanilla *a = sealed(7, CZK_POST_WINNING, CZK_POST_API_1_0, 0, &cfg);
    const czk_post_vanilla *one[1] = {a};
    prove_verify(&k, &cfg, CZK_POST_WINNING, CZK_POST_API_1_0, one, 1, 0);
    czk_post_vanilla_free(a);
    free_keys(&k);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_winning),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
