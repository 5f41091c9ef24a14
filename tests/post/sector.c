/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * FallbackPoSt from really sealed 2KiB test sectors (czk_seal_post_vanilla:
 * full SDR sealing, TreeR, bincode FallbackPoStSectorProof): parsed, pre-
 * checked, turned into a witness and run in CHECK mode, for WindowPoSt V1
 * (partition 1, two sectors and one padded), V1_2 and WinningPoSt.
 *
 * Independent values: the challenged leaves, computed with Python's
 * hashlib.sha256 as in tests/post/inputs.c (r = sha256(b"czk post test
 * randomness") with r[31] &= 0x3f; leaf(sid, idx, 64)):
 *   sector 7, V1, k = 1, i = 0: idx 20 + n -> 50 0 24 47 31 55 60 10 30 13
 *   sector 9, V1, k = 1, i = 1: idx 30 + n -> 22 10 53 4 25 33 30 36 62 49
 *   sector 7, V1_2: idx n                  -> 28 34 10 43 18 51 43 33 52 6
 *   sector 7, Winning: idx j (66 of them), listed below;
 * and the circuit itself: in CHECK mode its inputs (comm_r, then the packed
 * path bits of each TreeR path) must equal czk_post_public_inputs, and
 * every constraint (gadget Poseidon) must hold over the sealed tree.
 * Tampered proofs are refused by the pre-check naming the sector. Sparse
 * 32GiB/64GiB PoSt sectors against the sizes of spec §3.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/post.h"
#include "czk/seal.h"

static const char *const rand_hex =
    "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f100";

static const uint64_t leaves7_v1_k1[10] = {50, 0, 24, 47, 31, 55, 60, 10, 30, 13};
static const uint64_t leaves9_v1_k1[10] = {22, 10, 53, 4, 25, 33, 30, 36, 62, 49};
static const uint64_t leaves7_v12[10] = {28, 34, 10, 43, 18, 51, 43, 33, 52, 6};
static const uint64_t leaves7_win[66] = {
    28, 34, 10, 43, 18, 51, 43, 33, 52, 6,  3,  1,  60, 22, 62, 14, 16, 60, 63, 62, 50, 0,
    24, 47, 31, 55, 60, 10, 30, 13, 20, 47, 26, 29, 7,  60, 3,  11, 47, 57, 43, 51, 27, 2,
    43, 24, 20, 11, 49, 18, 62, 45, 57, 23, 62, 52, 46, 41, 0,  33, 30, 39, 17, 4,  30, 16};

static czk_pool *pool;
static uint8_t rnd[32];

static int setup(void **state) {
    (void)state;
    czk_err err;
    pool = czk_pool_create(2, &err);
    czk_test_hex(rnd, 32, rand_hex);
    return pool ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    czk_pool_destroy(pool);
    return 0;
}

static const czk_post_shape *shape_2k(void) {
    return czk_post_shape_for_size(2048);
}

typedef struct sealed {
    uint8_t *blob;
    size_t len;
    czk_seal_result res;
    czk_post_vanilla *v;
} sealed;

static void seal(sealed *s, uint64_t sector_num, uint64_t data_seed, czk_post_kind kind,
                 czk_post_api api, uint64_t sector_index) {
    czk_seal_request r;
    memset(&r, 0, sizeof r);
    r.registered_proof = 5; /* StackedDrg2KiBV1_1 */
    r.miner_id = 1000;
    r.sector_num = sector_num;
    memset(r.ticket, 0x11, 32);
    memset(r.seed, 0x22, 32);
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = data_seed;
    czk_err err;
    czk_assert_ok(czk_seal_post_vanilla(&s->blob, &s->len, &s->res, &r, kind, api, rnd,
                                        sector_index, pool, &err),
                  &err);
    czk_post_config cfg;
    czk_post_config_for(&cfg, kind, shape_2k());
    czk_por_tree t;
    czk_assert_ok(czk_post_config_check(&cfg, &t, &err), &err);
    unsigned n = kind == CZK_POST_WINNING ? 66 : 10;
    czk_assert_ok(czk_post_vanilla_parse(&s->v, s->blob, s->len, &t, n, &err), &err);
    /* the blob holds the sealed sector's commitments */
    assert_int_equal(s->v->sector_id, sector_num);
    assert_memory_equal(s->v->comm_r, s->res.comm_r, 32);
    assert_memory_equal(s->v->comm_c, s->res.comm_c, 32);
    assert_memory_equal(s->v->comm_r_last, s->res.comm_r_last, 32);
    /* 2KiB Single proofs: 8 + 32 + 8 + 8 + n · 556 + 64 */
    assert_int_equal(s->len, 120 + (size_t)n * 556);
}

static void unseal(sealed *s) {
    czk_post_vanilla_free(s->v);
    free(s->blob);
}

/* The leaf index a parsed proof's positions encode (8-0-0). */
static uint64_t opened(const czk_post_vanilla *v, unsigned j) {
    return v->paths[j].positions[0] + 8u * v->paths[j].positions[1];
}

/* CHECK mode over the vanilla proofs; the inputs against czk_post_public_inputs. */
static void prove_check(czk_post_kind kind, czk_post_api api, const czk_post_vanilla *const *v,
                        size_t n, uint64_t k) {
    czk_post_config cfg;
    czk_post_config_for(&cfg, kind, shape_2k());
    czk_err err;
    czk_post_witness *w = NULL;
    czk_assert_ok(czk_post_witness_alloc(&w, &cfg, &err), &err);
    czk_assert_ok(czk_post_witness_fill(w, v, n, kind, &err), &err);
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_non_null(cs);
    czk_post_circuit c = {&cfg, w};
    czk_assert_ok(czk_cs_run(cs, czk_post_circuit_fn, &c, &err), &err);
    czk_witness wit;
    czk_assert_ok(czk_cs_take_witness(cs, &wit, &err), &err);
    czk_cs_free(cs);

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
    uint32_t ni = czk_post_num_inputs(&cfg);
    assert_int_equal(wit.num_inputs, ni);
    czk_fr *in = malloc(ni * sizeof *in);
    assert_non_null(in);
    czk_assert_ok(czk_post_public_inputs(in, &cfg, api, rnd, pub, np, k, &err), &err);
    for (uint32_t i = 1; i < ni; i++)
        if (!czk_fr_eq(&wit.inputs[i], &in[i - 1])) fail_msg("input %u differs", i);
    free(in);
    czk_witness_free(&wit);
    czk_post_witness_free(w);
}

static void test_window_v1(void **state) {
    (void)state;
    sealed a, b;
    seal(&a, 7, 1, CZK_POST_WINDOW, CZK_POST_API_1_0, 1 * 2 + 0);
    seal(&b, 9, 2, CZK_POST_WINDOW, CZK_POST_API_1_0, 1 * 2 + 1);
    for (unsigned j = 0; j < 10; j++) {
        assert_int_equal(opened(a.v, j), leaves7_v1_k1[j]);
        assert_int_equal(opened(b.v, j), leaves9_v1_k1[j]);
    }
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, shape_2k());
    const czk_post_vanilla *both[2] = {a.v, b.v};
    czk_err err;
    czk_assert_ok(
        czk_post_precheck(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 1, NULL, &err),
        &err);
    prove_check(CZK_POST_WINDOW, CZK_POST_API_1_0, both, 2, 1);
    /* one sector in the partition: padded with itself */
    czk_assert_ok(
        czk_post_precheck(both, 1, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 1, NULL, &err),
        &err);
    prove_check(CZK_POST_WINDOW, CZK_POST_API_1_0, both, 1, 1);
    /* another partition index: other challenges, the pre-check names sector 7 */
    size_t bad = 99;
    assert_int_equal(
        czk_post_precheck(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 0, &bad, &err),
        CZK_ERR_VERIFY);
    assert_int_equal(bad, 0);
    assert_non_null(strstr(err.msg, "PoSt vanilla proof of sector 7 (0 of 2 in the partition) "
                                    "does not verify: challenge 0: the proof opens leaf 50"));
    /* the same on a pool: the same verdicts, the first bad sector in order named */
    czk_pool *pp = czk_pool_create(3, &err);
    assert_non_null(pp);
    czk_assert_ok(czk_post_precheck_on(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 1, pp,
                                       NULL, &err),
                  &err);
    bad = 99;
    assert_int_equal(czk_post_precheck_on(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 0,
                                          pp, &bad, &err),
                     CZK_ERR_VERIFY);
    assert_int_equal(bad, 0);
    assert_non_null(strstr(err.msg, "sector 7 (0 of 2 in the partition) does not verify: "
                                    "challenge 0: the proof opens leaf 50"));
    const czk_post_vanilla *swapped[2] = {b.v, a.v}; /* both at the other's sector index */
    assert_int_equal(czk_post_precheck_on(swapped, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd,
                                          1, pp, &bad, &err),
                     CZK_ERR_VERIFY);
    assert_int_equal(bad, 0);
    assert_non_null(strstr(err.msg, "sector 9 (0 of 2 in the partition)"));
    const czk_post_vanilla *second[2] = {a.v, a.v}; /* sector 7 again at index 3: bad */
    assert_int_equal(czk_post_precheck_on(second, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd,
                                          1, pp, &bad, &err),
                     CZK_ERR_VERIFY);
    assert_int_equal(bad, 1);
    assert_non_null(strstr(err.msg, "sector 7 (1 of 2 in the partition)"));
    czk_pool_destroy(pp);
    unseal(&a);
    unseal(&b);
}

static void test_window_v1_2(void **state) {
    (void)state;
    sealed a;
    seal(&a, 7, 1, CZK_POST_WINDOW, CZK_POST_API_1_2, 5);
    for (unsigned j = 0; j < 10; j++)
        assert_int_equal(opened(a.v, j), leaves7_v12[j]);
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, shape_2k());
    const czk_post_vanilla *one[1] = {a.v};
    czk_err err;
    /* V1_2 does not depend on k */
    for (uint64_t k = 0; k < 3; k++)
        czk_assert_ok(
            czk_post_precheck(one, 1, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_2, rnd, k, NULL, &err),
            &err);
    prove_check(CZK_POST_WINDOW, CZK_POST_API_1_2, one, 1, 4);
    /* not a V1 proof of partition 1; but of sector 0 of partition 0, where V1's indices are
     * n as well */
    assert_int_equal(
        czk_post_precheck(one, 1, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 1, NULL, &err),
        CZK_ERR_VERIFY);
    czk_assert_ok(
        czk_post_precheck(one, 1, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 0, NULL, &err),
        &err);
    unseal(&a);
}

static void test_winning(void **state) {
    (void)state;
    sealed a;
    seal(&a, 7, 3, CZK_POST_WINNING, CZK_POST_API_1_0, 0);
    for (unsigned j = 0; j < 66; j++)
        assert_int_equal(opened(a.v, j), leaves7_win[j]);
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINNING, shape_2k());
    const czk_post_vanilla *one[1] = {a.v};
    czk_err err;
    czk_assert_ok(
        czk_post_precheck(one, 1, &cfg, CZK_POST_WINNING, CZK_POST_API_1_0, rnd, 0, NULL, &err),
        &err);
    prove_check(CZK_POST_WINNING, CZK_POST_API_1_0, one, 1, 0);
    /* two blobs are not a WinningPoSt */
    const czk_post_vanilla *two[2] = {a.v, a.v};
    assert_int_equal(
        czk_post_precheck(two, 2, &cfg, CZK_POST_WINNING, CZK_POST_API_1_0, rnd, 0, NULL, &err),
        CZK_ERR_MISMATCH);
    unseal(&a);
}

static void test_tampered(void **state) {
    (void)state;
    sealed a, b;
    seal(&a, 7, 1, CZK_POST_WINDOW, CZK_POST_API_1_0, 2);
    seal(&b, 9, 2, CZK_POST_WINDOW, CZK_POST_API_1_0, 3);
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, shape_2k());
    const czk_post_vanilla *both[2] = {a.v, b.v};
    czk_err err;
    size_t bad = 99;
    /* a sibling of sector 9, challenge 3 (stays a canonical Fr) */
    b.v->paths[3].siblings[32 * 5] ^= 1;
    assert_int_equal(
        czk_post_precheck(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 1, &bad, &err),
        CZK_ERR_VERIFY);
    assert_int_equal(bad, 1);
    assert_non_null(strstr(err.msg, "PoSt vanilla proof of sector 9 (1 of 2 in the partition) "
                                    "does not verify: challenge 3: the inclusion path does not "
                                    "hash to comm_r_last"));
    /* the circuit of that witness is not satisfied either (never a bad SNARK) */
    czk_post_witness *w = NULL;
    czk_assert_ok(czk_post_witness_alloc(&w, &cfg, &err), &err);
    czk_assert_ok(czk_post_witness_fill(w, both, 2, CZK_POST_WINDOW, &err), &err);
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    czk_post_circuit c = {&cfg, w};
    assert_int_equal(czk_cs_run(cs, czk_post_circuit_fn, &c, &err), CZK_ERR_UNSATISFIED);
    assert_non_null(strstr(czk_cs_first_unsatisfied_path(cs), "sector_1/challenge_inclusion_3"));
    czk_cs_free(cs);
    czk_post_witness_free(w);
    b.v->paths[3].siblings[32 * 5] ^= 1;
    /* comm_c of sector 7 */
    a.v->comm_c[0] ^= 1;
    assert_int_equal(
        czk_post_precheck(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 1, &bad, &err),
        CZK_ERR_VERIFY);
    assert_int_equal(bad, 0);
    assert_non_null(strstr(err.msg, "sector 7 (0 of 2 in the partition) does not verify: "
                                    "Poseidon-2(comm_c, comm_r_last) is not comm_r"));
    a.v->comm_c[0] ^= 1;
    /* a root that is not comm_r_last */
    b.v->roots[6][1] ^= 1;
    assert_int_equal(
        czk_post_precheck(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, rnd, 1, &bad, &err),
        CZK_ERR_VERIFY);
    assert_non_null(strstr(err.msg, "sector 9 (1 of 2 in the partition) does not verify: "
                                    "challenge 6: the proof's root is not comm_r_last"));
    b.v->roots[6][1] ^= 1;
    /* other randomness: every leaf is another */
    uint8_t other[32];
    memcpy(other, rnd, 32);
    other[0] ^= 1;
    assert_int_equal(
        czk_post_precheck(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, other, 1, &bad, &err),
        CZK_ERR_VERIFY);
    assert_non_null(strstr(err.msg, "the proof opens leaf 50, the challenge is leaf"));
    /* unmasked randomness */
    other[31] |= 0xc0;
    assert_int_equal(
        czk_post_precheck(both, 2, &cfg, CZK_POST_WINDOW, CZK_POST_API_1_0, other, 1, &bad, &err),
        CZK_ERR_FR_RANGE);
    czk_seal_request r;
    memset(&r, 0, sizeof r);
    r.registered_proof = 5;
    uint8_t *blob = NULL;
    size_t len = 0;
    assert_int_equal(czk_seal_post_vanilla(&blob, &len, NULL, &r, CZK_POST_WINDOW, CZK_POST_API_1_0,
                                           other, 0, pool, &err),
                     CZK_ERR_FR_RANGE);
    assert_null(blob);
    unseal(&a);
    unseal(&b);
}

/* Sparse 32GiB and 64GiB PoSt sectors: sizes of spec §3 (32GiB Window sector 24,960 B, as
 * Curio's testgolden post.vproof; WinningPoSt 164,064 B), the pre-check, and the circuit of
 * one sector (WindowPoSt, k = 0) and the whole 32GiB WinningPoSt in CHECK mode, inputs against
 * czk_post_public_inputs. */
static void sparse_case(uint64_t seal_id, uint64_t size, czk_post_kind kind, size_t want_len) {
    czk_seal_request r;
    memset(&r, 0, sizeof r);
    r.registered_proof = seal_id;
    r.miner_id = 1000;
    r.sector_num = 21;
    r.sparse = true;
    r.random_seed = 5;
    uint8_t *blob = NULL;
    size_t len = 0;
    czk_err err;
    czk_seal_result res;
    czk_assert_ok(
        czk_seal_post_vanilla(&blob, &len, &res, &r, kind, CZK_POST_API_1_0, rnd, 0, pool, &err),
        &err);
    assert_int_equal(len, want_len);
    czk_post_config cfg;
    czk_post_config_for(&cfg, kind, czk_post_shape_for_size(size));
    if (kind == CZK_POST_WINDOW) cfg.sectors = 1; /* one sector's circuit */
    czk_por_tree t;
    czk_assert_ok(czk_post_config_check(&cfg, &t, &err), &err);
    czk_post_vanilla *v = NULL;
    czk_assert_ok(
        czk_post_vanilla_parse(&v, blob, len, &t, kind == CZK_POST_WINDOW ? 10 : 66, &err), &err);
    assert_memory_equal(v->comm_r, res.comm_r, 32);
    const czk_post_vanilla *one[1] = {v};
    czk_assert_ok(czk_post_precheck(one, 1, &cfg, kind, CZK_POST_API_1_0, rnd, 0, NULL, &err),
                  &err);
    czk_post_witness *w = NULL;
    czk_assert_ok(czk_post_witness_alloc(&w, &cfg, &err), &err);
    czk_assert_ok(czk_post_witness_fill(w, one, 1, kind, &err), &err);
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    czk_post_circuit c = {&cfg, w};
    czk_assert_ok(czk_cs_run(cs, czk_post_circuit_fn, &c, &err), &err);
    czk_witness wit;
    czk_assert_ok(czk_cs_take_witness(cs, &wit, &err), &err);
    czk_cs_free(cs);
    czk_post_pub_sector pub[CZK_POST_WINNING_CHALLENGES];
    pub[0].sector_id = 21;
    memcpy(pub[0].comm_r, v->comm_r, 32);
    if (kind == CZK_POST_WINNING) czk_post_winning_sectors(pub, &pub[0]);
    size_t ni = czk_post_num_inputs(&cfg) - 1;
    czk_fr in[2 * CZK_POST_WINNING_CHALLENGES];
    czk_assert_ok(czk_post_public_inputs(in, &cfg, CZK_POST_API_1_0, rnd, pub,
                                         kind == CZK_POST_WINNING ? 66 : 1, 0, &err),
                  &err);
    assert_int_equal(wit.num_inputs, ni + 1);
    for (size_t i = 0; i < ni; i++)
        assert_true(czk_fr_eq(&wit.inputs[1 + i], &in[i]));
    czk_witness_free(&wit);
    czk_post_witness_free(w);
    czk_post_vanilla_free(v);
    free(blob);
}

static void test_sparse_big(void **state) {
    (void)state;
    sparse_case(8, 32ull << 30, CZK_POST_WINDOW, 24960);
    sparse_case(9, 64ull << 30, CZK_POST_WINDOW, 25520);
    sparse_case(8, 32ull << 30, CZK_POST_WINNING, 164064);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_v1),  cmocka_unit_test(test_window_v1_2),
        cmocka_unit_test(test_winning),    cmocka_unit_test(test_tampered),
        cmocka_unit_test(test_sparse_big),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
