/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * The test-sector generator: 2KiB sectors sealed in full (every registered
 * proof kind), sparse sectors of every shape, each checked by the naive
 * verifier in vverify.h; the commitments of a 2KiB sector of known data
 * against Python; determinism; refusals.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/seal.h"
#include "vverify.h"

static czk_pool *g_pool;

/* A digest of everything in the C1, to compare two runs. */
static void hash_merkle(uint8_t *acc, const czk_merkle_proof *p);
static void mix(uint8_t acc[32], const void *d, size_t n) {
    czk_bytes parts[2] = {{acc, 32}, {d, n}};
    czk_sha256_parts(acc, parts, 2);
}
static void hash_merkle(uint8_t *acc, const czk_merkle_proof *p) {
    size_t ns = 0;
    for (uint32_t l = 0; l < p->num_levels; l++)
        ns += p->arity[l] - 1u;
    mix(acc, &p->kind, sizeof p->kind);
    mix(acc, p->root.b, 32);
    mix(acc, p->leaf.b, 32);
    mix(acc, p->arity, p->num_levels);
    mix(acc, p->index, 4 * p->num_levels);
    mix(acc, p->siblings, 32 * ns);
}
static void hash_column(uint8_t *acc, const czk_column_proof *c) {
    mix(acc, &c->index, 4);
    mix(acc, c->rows, 32 * (size_t)c->num_rows);
    hash_merkle(acc, &c->inclusion);
}
static void c1_digest(uint8_t acc[32], const czk_c1 *c1) {
    memset(acc, 0, 32);
    mix(acc, &c1->registered_proof, 4);
    mix(acc, c1->comm_r.b, 32);
    mix(acc, c1->comm_d.b, 32);
    mix(acc, c1->replica_id.b, 32);
    mix(acc, c1->seed.b, 32);
    mix(acc, c1->ticket.b, 32);
    for (size_t i = 0; i < (size_t)c1->num_partitions * c1->challenges_per_partition; i++) {
        const czk_vanilla_proof *v = &c1->proofs[i];
        hash_merkle(acc, &v->comm_d_proof);
        hash_merkle(acc, &v->comm_r_last_proof);
        hash_column(acc, &v->c_x);
        for (int j = 0; j < 6; j++)
            hash_column(acc, &v->drg_parents[j]);
        for (int j = 0; j < 8; j++)
            hash_column(acc, &v->exp_parents[j]);
        for (uint32_t l = 0; l < v->num_labeling; l++) {
            mix(acc, &v->labeling[l].layer_index, 4);
            mix(acc, &v->labeling[l].node, 8);
            mix(acc, v->labeling[l].parents, 32 * (size_t)v->labeling[l].num_parents);
        }
        mix(acc, v->encoding.parents, 32 * (size_t)v->encoding.num_parents);
    }
}

/*
 * 2KiB V1_1, unpadded data (i·13 + 7) mod 256 for 1,500 bytes (zero-extended
 * to 2,032), miner 1000, sector 7, ticket 32×11, seed 32×22. comm_d,
 * replica_id and the two challenges by Python (hashlib; fr32 bit by bit;
 * challenges.rs InteractiveChallenges): see the literals.
 */
static void test_full_2k_known_data(void **state) {
    (void)state;
    uint8_t data[1500];
    for (int i = 0; i < 1500; i++)
        data[i] = (uint8_t)(i * 13 + 7);
    czk_seal_request r;
    vv_request(&r, 5);
    r.data_kind = CZK_SEAL_DATA_BYTES;
    r.data = data;
    r.data_len = sizeof data;
    czk_c1 *c1 = NULL;
    czk_seal_result res;
    czk_err err;
    czk_assert_ok(czk_seal_generate(&c1, &res, &r, g_pool, &err), &err);
    uint8_t want[32];
    czk_test_hex(want, 32, "3affa1d4660b0930ec5dbdd4bcfe4e48980c9f61c503ae767b6a130b555a2500");
    assert_memory_equal(res.comm_d, want, 32);
    assert_memory_equal(c1->comm_d.b, want, 32);
    czk_test_hex(want, 32, "7cbaa2a6915b42ba0af069d240befe1aed75f0d933b687458b1c757897056f11");
    assert_memory_equal(c1->replica_id.b, want, 32);
    assert_int_equal(c1->num_partitions, 1);
    assert_int_equal(c1->challenges_per_partition, 2);
    assert_int_equal(c1->proofs[0].labeling[0].node, 16);
    assert_int_equal(c1->proofs[1].labeling[0].node, 48);
    assert_memory_equal(c1->comm_r.b, res.comm_r, 32);
    assert_memory_equal(c1->proofs[0].c_x.inclusion.root.b, res.comm_c, 32);
    assert_memory_equal(c1->proofs[0].comm_r_last_proof.root.b, res.comm_r_last, 32);
    vv_verify_ok(c1);

    /* The same request again: the same C1, also on one thread. */
    uint8_t d1[32], d2[32];
    c1_digest(d1, c1);
    czk_c1 *again = NULL;
    czk_assert_ok(czk_seal_generate(&again, NULL, &r, NULL, &err), &err);
    c1_digest(d2, again);
    assert_memory_equal(d1, d2, 32);
    czk_c1_free(again);

    /* A changed label, column row or sibling is caught, naming the challenge. */
    char why[256];
    c1->proofs[1].c_x.rows[1].b[3] ^= 1;
    assert_false(vv_verify(c1, why, sizeof why));
    assert_non_null(strstr(why, "challenge 1"));
    c1->proofs[1].c_x.rows[1].b[3] ^= 1;
    c1->proofs[0].exp_parents[2].rows[0].b[0] ^= 1;
    assert_false(vv_verify(c1, why, sizeof why));
    assert_non_null(strstr(why, "challenge 0 exp_parents[2]"));
    c1->proofs[0].exp_parents[2].rows[0].b[0] ^= 1;
    c1->proofs[0].comm_d_proof.siblings[4].b[9] ^= 0x10;
    assert_false(vv_verify(c1, why, sizeof why));
    assert_non_null(strstr(why, "challenge 0 comm_d_proofs"));
    c1->proofs[0].comm_d_proof.siblings[4].b[9] ^= 0x10;
    vv_verify_ok(c1);
    czk_c1_free(c1);
}

/* Every kind of 2KiB proof in full: V1, V1_1, synthetic, NI (13 partitions). */
static void test_full_2k_kinds(void **state) {
    (void)state;
    static const uint64_t ids[] = {0, 5, 10, 15};
    for (size_t i = 0; i < 4; i++) {
        czk_seal_request r;
        vv_request(&r, ids[i]);
        r.data_kind = CZK_SEAL_DATA_RANDOM;
        r.random_seed = 42 + i;
        czk_c1 *c1 = NULL;
        czk_err err;
        czk_assert_ok(czk_seal_generate(&c1, NULL, &r, g_pool, &err), &err);
        assert_int_equal(c1->registered_proof, ids[i]);
        assert_int_equal(c1->num_partitions, ids[i] == 15 ? 13 : 1);
        vv_verify_ok(c1);
        czk_c1_free(c1);
    }
}

/* Sparse 2KiB: the block is the whole sector, so TreeD equals the full one. */
static void test_sparse_2k(void **state) {
    (void)state;
    czk_seal_request r;
    vv_request(&r, 5);
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 9;
    czk_seal_result full, sparse;
    czk_c1 *a = NULL, *b = NULL;
    czk_err err;
    czk_assert_ok(czk_seal_generate(&a, &full, &r, g_pool, &err), &err);
    r.sparse = true;
    czk_assert_ok(czk_seal_generate(&b, &sparse, &r, g_pool, &err), &err);
    assert_memory_equal(full.comm_d, sparse.comm_d, 32);
    assert_memory_equal(full.replica_id, sparse.replica_id, 32);
    assert_int_equal(a->proofs[1].labeling[0].node, b->proofs[1].labeling[0].node);
    vv_verify_ok(b);
    czk_c1_free(a);
    czk_c1_free(b);
}

/*
 * Sparse sectors of the small shapes (32GiB and 64GiB: tests/seal/sparse.c). Zero data: comm_d is
 * the CC comm_d (sealing-vectors.md §E; full values by Python hashlib).
 */
static void test_sparse_shapes(void **state) {
    (void)state;
    static const struct {
        uint64_t id;
        const char *cc;
    } v[] = {
        {6, "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c"}, /* 8MiB */
        {7, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"}, /* 512MiB */
        {2, "39560e7b13a93b07a243fd2720ffa7cb3e1d2e505ab3629e79f46313512cda06"}, /* 512MiB V1 */
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        czk_seal_request r;
        vv_request(&r, v[i].id);
        r.sparse = true;
        czk_c1 *c1 = NULL;
        czk_err err;
        czk_assert_ok(czk_seal_generate(&c1, NULL, &r, g_pool, &err), &err);
        uint8_t want[32];
        czk_test_hex(want, 32, v[i].cc);
        assert_memory_equal(c1->comm_d.b, want, 32);
        vv_verify_ok(c1);
        czk_c1_free(c1);
    }
    /* Random data: a repeated random block; still every proof verifies. */
    czk_seal_request r;
    vv_request(&r, 7);
    r.sparse = true;
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = 3;
    czk_c1 *c1 = NULL;
    czk_err err;
    czk_assert_ok(czk_seal_generate(&c1, NULL, &r, g_pool, &err), &err);
    vv_verify_ok(c1);
    czk_c1_free(c1);
}

static void test_refusals(void **state) {
    (void)state;
    czk_seal_request r;
    czk_c1 *c1 = NULL;
    czk_err err;
    vv_request(&r, 20);
    assert_int_equal(czk_seal_generate(&c1, NULL, &r, NULL, &err), CZK_ERR_UNSUPPORTED);
    assert_null(c1);
    vv_request(&r, 15);
    r.sparse = true;
    assert_int_equal(czk_seal_generate(&c1, NULL, &r, NULL, &err), CZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "interactive"));
    vv_request(&r, 5);
    uint8_t big[2033] = {0};
    r.data_kind = CZK_SEAL_DATA_BYTES;
    r.data = big;
    r.data_len = sizeof big; /* a 2KiB sector holds 2,032 unpadded bytes */
    assert_int_equal(czk_seal_generate(&c1, NULL, &r, NULL, &err), CZK_ERR_INVALID_ARG);
    r.data_len = 2032;
    r.sparse = true;
    assert_int_equal(czk_seal_generate(&c1, NULL, &r, NULL, &err), CZK_ERR_INVALID_ARG);
    vv_request(&r, 13); /* sparse synthetic: refused too */
    r.sparse = true;
    assert_int_equal(czk_seal_generate(&c1, NULL, &r, NULL, &err), CZK_ERR_UNSUPPORTED);
}

static int setup(void **state) {
    (void)state;
    g_pool = czk_pool_create(2, NULL);
    return g_pool ? 0 : -1;
}
static int teardown(void **state) {
    (void)state;
    czk_pool_destroy(g_pool);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_2k_known_data), cmocka_unit_test(test_full_2k_kinds),
        cmocka_unit_test(test_sparse_2k),          cmocka_unit_test(test_sparse_shapes),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
