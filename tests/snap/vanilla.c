/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * SnapDeals partition proofs: made from really sealed 2KiB sectors (and
 * sparse 8MiB and 32GiB ones) by czk_seal_snap_vanilla, parsed, held to the
 * bincode layout's sizes (spec post-snap.md §3: a 32GiB partition is
 * 561,768 bytes: 128 apex leafs, 86 × (2 × 2,484 + 1,516)), pre-checked,
 * and the circuit satisfied in CHECK mode with the public inputs computed
 * from the commitments as the verifier's; then refused: every parse error
 * names the partition, the challenge and the field, and every tampering
 * is refused by the pre-check naming the partition and the challenge (and
 * leaves the circuit unsatisfied, but for leaf_r_new, which the circuit
 * computes instead of reading).
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/seal.h"
#include "czk/snap.h"

static czk_pool *pool;

static int setup(void **state) {
    (void)state;
    czk_err err;
    pool = czk_pool_create(2, &err);
    return pool ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    czk_pool_destroy(pool);
    return 0;
}

/* A 2KiB CC sector (RegisteredSealProof 5) updated with random data. */
static void make_update(czk_seal_snap *out, uint64_t seal_proof, bool sparse, unsigned h,
                        uint64_t seed) {
    czk_seal_snap_request r;
    memset(&r, 0, sizeof r);
    r.sector.registered_proof = seal_proof;
    r.sector.miner_id = 1000;
    r.sector.sector_num = 3;
    memset(r.sector.ticket, 0x22, 32);
    r.sector.sparse = sparse;
    r.data_kind = CZK_SEAL_DATA_RANDOM;
    r.random_seed = seed;
    r.h = h;
    czk_err err;
    czk_assert_ok(czk_seal_snap_vanilla(out, &r, pool, &err), &err);
}

static void public_of(czk_snap_public *pub, const czk_seal_snap *u, uint64_t k) {
    pub->k = k;
    pub->h = u->h;
    memcpy(pub->comm_r_old, u->comm_r_old, 32);
    memcpy(pub->comm_d_new, u->comm_d_new, 32);
    memcpy(pub->comm_r_new, u->comm_r_new, 32);
}

static czk_snap_vanilla *parse_ok(const uint8_t *b, size_t n, const czk_snap_shape *s, uint64_t k) {
    czk_snap_vanilla *v = NULL;
    czk_err err;
    czk_assert_ok(czk_snap_vanilla_parse(&v, b, n, s, k, &err), &err);
    return v;
}

/* CHECK mode: the circuit of v with pub; returns the first unsatisfied constraint or UINT64_MAX. */
static uint64_t check_circuit(const czk_snap_shape *s, const czk_snap_public *pub,
                              const czk_snap_vanilla *v) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_non_null(cs);
    czk_snap_circuit c = {s, pub, v};
    czk_status st = czk_cs_run(cs, czk_snap_circuit_fn, &c, &err);
    if (st != CZK_OK && st != CZK_ERR_UNSATISFIED) fail_msg("%s", err.msg);
    uint64_t bad = czk_cs_first_unsatisfied(cs);
    /* the inputs the circuit made are the verifier's */
    if (bad == UINT64_MAX) {
        czk_witness w;
        czk_assert_ok(czk_cs_take_witness(cs, &w, &err), &err);
        czk_fr in[4];
        czk_assert_ok(czk_snap_public_inputs(in, s, pub, &err), &err);
        assert_int_equal(w.num_inputs, CZK_SNAP_INPUTS);
        for (int i = 0; i < 4; i++)
            assert_true(czk_fr_eq(&w.inputs[1 + i], &in[i]));
        czk_witness_free(&w);
    }
    czk_cs_free(cs);
    return bad;
}

static void expect_parse_fail(const uint8_t *b, size_t n, const czk_snap_shape *s, uint64_t k,
                              czk_status code, const char *msg) {
    czk_snap_vanilla *v = (czk_snap_vanilla *)1;
    czk_err err;
    czk_status st = czk_snap_vanilla_parse(&v, b, n, s, k, &err);
    if (st != code)
        fail_msg("%s, want %s: %s", czk_status_name(st), czk_status_name(code), err.msg);
    if (!strstr(err.msg, msg)) fail_msg("'%s' does not contain '%s'", err.msg, msg);
    assert_ptr_equal(v, (czk_snap_vanilla *)1);
}

static void expect_precheck_fail(const czk_snap_vanilla *v, const czk_snap_shape *s,
                                 const czk_snap_public *pub, const char *msg) {
    czk_err err;
    czk_status st = czk_snap_precheck(v, s, pub, &err);
    if (st != CZK_ERR_VERIFY) fail_msg("%s: %s", czk_status_name(st), err.msg);
    if (!strstr(err.msg, msg)) fail_msg("'%s' does not contain '%s'", err.msg, msg);
}

/* 2KiB: offsets of the bincode layout */
#define TREE_R_PROOF 556u /* Single: tag, root, leaf, 2 levels of (8 + 7·32 + 8) */
#define TREE_D_PROOF 364u /* Single: tag, root, leaf, 6 levels of (8 + 32 + 8) */
#define CHALLENGE (2 * TREE_R_PROOF + TREE_D_PROOF)
#define FIRST_CHALLENGE (32 + 8 + 8 * 32 + 8)
static size_t ch_off(unsigned j) {
    return FIRST_CHALLENGE + j * CHALLENGE;
}

static void test_sealed_2kib(void **state) {
    (void)state;
    const czk_snap_shape *s = czk_snap_shape_for_size(2048);
    czk_seal_snap u;
    make_update(&u, 5, false, 0, 7);
    assert_int_equal(u.partitions, 1);
    assert_int_equal(u.h, 1);
    assert_int_equal(u.lens[0], FIRST_CHALLENGE + 10 * CHALLENGE);
    /* the sector key is the sealed sector: comm_r_old is its comm_r */
    czk_seal_request r;
    memset(&r, 0, sizeof r);
    r.registered_proof = 5;
    r.miner_id = 1000;
    r.sector_num = 3;
    memset(r.ticket, 0x22, 32);
    czk_c1 *c1 = NULL;
    czk_seal_result sr;
    czk_err err;
    czk_assert_ok(czk_seal_generate(&c1, &sr, &r, pool, &err), &err);
    czk_c1_free(c1);
    assert_memory_equal(u.comm_r_old, sr.comm_r, 32);
    assert_memory_equal(u.comm_c, sr.comm_c, 32);
    assert_memory_equal(u.root_r_old, sr.comm_r_last, 32);
    assert_memory_not_equal(u.comm_r_new, u.comm_r_old, 32);

    czk_snap_vanilla *v = parse_ok(u.blobs[0], u.lens[0], s, 0);
    assert_memory_equal(v->comm_c, u.comm_c, 32);
    assert_int_equal(v->apex_count, 8);
    assert_int_equal(v->challenges, 10);
    uint64_t ch[10];
    czk_assert_ok(czk_snap_challenges(ch, s, u.comm_r_new, 0, &err), &err);
    for (unsigned j = 0; j < 10; j++) {
        assert_memory_equal(v->proofs[j].r_old.root, u.root_r_old, 32);
        assert_memory_equal(v->proofs[j].r_new.root, u.root_r_new, 32);
        assert_memory_equal(v->proofs[j].d_new.root, u.comm_d_new, 32);
        uint64_t idx = 0;
        for (unsigned l = 0; l < 6; l++)
            idx |= (uint64_t)v->proofs[j].d_new.positions[l] << l;
        assert_int_equal(idx, ch[j]);
    }
    czk_snap_public pub;
    public_of(&pub, &u, 0);
    czk_assert_ok(czk_snap_precheck(v, s, &pub, &err), &err);
    assert_int_equal(check_circuit(s, &pub, v), UINT64_MAX);

    /* tampered: each refused by the pre-check naming partition and challenge, and unsatisfied */
    czk_snap_vanilla *t = parse_ok(u.blobs[0], u.lens[0], s, 0);
    t->proofs[3].r_new.leaf[0] ^= 1;
    expect_precheck_fail(t, s, &pub, "SnapDeals partition 0 does not verify: challenge 3 (node ");
    expect_precheck_fail(t, s, &pub, "proof_r_new: the path does not hash to its root");
    /* (the circuit computes leaf_r_new itself: the proof's is checked here only) */
    assert_int_equal(check_circuit(s, &pub, t), UINT64_MAX);
    czk_snap_vanilla_free(t);
    t = parse_ok(u.blobs[0], u.lens[0], s, 0);
    t->proofs[5].d_new.siblings[32 * 1] ^= 4;
    expect_precheck_fail(t, s, &pub, "challenge 5 (node ");
    expect_precheck_fail(t, s, &pub, "proof_d_new: the path does not hash to its root");
    assert_int_not_equal(check_circuit(s, &pub, t), UINT64_MAX);
    czk_snap_vanilla_free(t);
    t = parse_ok(u.blobs[0], u.lens[0], s, 0);
    t->proofs[8].r_old.positions[0] ^= 1;
    expect_precheck_fail(t, s, &pub, "challenge 8 (node ");
    czk_snap_vanilla_free(t);
    t = parse_ok(u.blobs[0], u.lens[0], s, 0);
    t->apex_leafs[2][0] ^= 1;
    expect_precheck_fail(t, s, &pub, "the apex tree's root does not hash along the partition path");
    assert_int_not_equal(check_circuit(s, &pub, t), UINT64_MAX);
    czk_snap_vanilla_free(t);
    t = parse_ok(u.blobs[0], u.lens[0], s, 0);
    t->comm_c[0] ^= 1;
    expect_precheck_fail(t, s, &pub, "Poseidon-2(comm_c, root_r_old) is not comm_r_old");
    assert_int_not_equal(check_circuit(s, &pub, t), UINT64_MAX);
    czk_snap_vanilla_free(t);
    /* another update's comm_r_new: its challenges open other nodes */
    czk_snap_public other = pub;
    czk_seal_snap u2;
    make_update(&u2, 5, false, 0, 8);
    memcpy(other.comm_r_new, u2.comm_r_new, 32);
    expect_precheck_fail(v, s, &other, "Poseidon-2(comm_c, root_r_new) is not comm_r_new");
    assert_int_not_equal(check_circuit(s, &other, v), UINT64_MAX);
    czk_seal_snap_free(&u2);
    czk_snap_vanilla_free(v);

    /* parse errors name partition, challenge and field */
    const uint8_t *b = u.blobs[0];
    size_t n = u.lens[0];
    uint8_t *x = malloc(n + 1);
    assert_non_null(x);
#define COPY() memcpy(x, b, n)
    expect_parse_fail(b, 20, s, 0, CZK_ERR_TRUNCATED, "SnapDeals partition 0: bincode comm_c");
    expect_parse_fail(b, ch_off(4) + TREE_R_PROOF + 10, s, 0, CZK_ERR_TRUNCATED,
                      "SnapDeals partition 0: challenge 4: proof_d_new: bincode root");
    COPY();
    x[32] = 7;
    expect_parse_fail(x, n, s, 2, CZK_ERR_MISMATCH,
                      "SnapDeals partition 2: apex_leafs has 7 entries, the 2KiB circuit takes 8");
    COPY();
    x[FIRST_CHALLENGE - 8] = 11;
    expect_parse_fail(x, n, s, 0, CZK_ERR_MISMATCH, "challenge_proofs has 11 entries");
    COPY();
    x[ch_off(2) + TREE_R_PROOF] = 1;
    expect_parse_fail(x, n, s, 0, CZK_ERR_MISMATCH,
                      "challenge 2: proof_d_new: a Sub proof, the 2-0-0 tree has Single proofs");
    COPY();
    x[ch_off(6)] = 9;
    expect_parse_fail(x, n, s, 0, CZK_ERR_FORMAT,
                      "challenge 6: proof_r_old: proof variant 9: not Single (0)");
    /* path[1].index of proof_r_new of challenge 7 is 8 */
    COPY();
    x[ch_off(7) + TREE_R_PROOF + TREE_D_PROOF + 4 + 64 + 8 + 240 + 8 + 224] = 8;
    expect_parse_fail(x, n, s, 0, CZK_ERR_FORMAT,
                      "challenge 7: proof_r_new: path[1].index is 8, the arity is 8");
    /* 2 hashes at level 3 of proof_d_new of challenge 1 */
    COPY();
    x[ch_off(1) + TREE_R_PROOF + 4 + 64 + 8 + 3 * 48] = 2;
    expect_parse_fail(x, n, s, 0, CZK_ERR_MISMATCH,
                      "challenge 1: proof_d_new: path[3] has 2 hashes, the arity is 2");
    /* proof_d_new of 5 levels */
    COPY();
    x[ch_off(0) + TREE_R_PROOF + 4 + 64] = 5;
    expect_parse_fail(x, n, s, 0, CZK_ERR_MISMATCH,
                      "challenge 0: proof_d_new: path has 5 elements, the tree has 6 levels of 2");
    COPY();
    memset(x + 40 + 32 * 5, 0xff, 32);
    expect_parse_fail(x, n, s, 0, CZK_ERR_FR_RANGE, "apex_leafs[5] is not a canonical Fr");
    COPY();
    memset(x + ch_off(9) + 4 + 32, 0xff, 32);
    expect_parse_fail(x, n, s, 0, CZK_ERR_FR_RANGE, "challenge 9: proof_r_old: leaf is not");
    COPY();
    memset(x, 0xee, 32);
    expect_parse_fail(x, n, s, 0, CZK_ERR_FR_RANGE, "comm_c is not a canonical Fr");
    COPY();
    x[n] = 0;
    expect_parse_fail(x, n + 1, s, 0, CZK_ERR_FORMAT,
                      "bincode PartitionProof: 1 bytes after the end");
    /* an absurd length is refused before anything is allocated */
    COPY();
    x[32 + 6] = 0x7f;
    expect_parse_fail(x, n, s, 0, CZK_ERR_FORMAT, "apex_leafs: length");
    /* a 2KiB blob against the 8MiB shape */
    expect_parse_fail(
        b, n, czk_snap_shape_for_size(8 << 20), 1, CZK_ERR_MISMATCH,
        "SnapDeals partition 1: apex_leafs has 8 entries, the 8MiB circuit takes 128");
    expect_parse_fail(NULL, 0, s, 0, CZK_ERR_TRUNCATED, "comm_c");
#undef COPY
    free(x);
    czk_seal_snap_free(&u);
}

/* Sparse 8MiB (4 partitions): every partition pre-checks; another h breaks the encoding only. */
static void test_sparse_8mib(void **state) {
    (void)state;
    const czk_snap_shape *s = czk_snap_shape_for_size(8 << 20);
    czk_seal_snap u;
    make_update(&u, 6, true, 0, 9);
    assert_int_equal(u.partitions, 4);
    assert_int_equal(u.h, 10);
    czk_err err;
    for (uint64_t k = 0; k < 4; k++) {
        czk_snap_vanilla *v = parse_ok(u.blobs[k], u.lens[k], s, k);
        czk_snap_public pub;
        public_of(&pub, &u, k);
        czk_assert_ok(czk_snap_precheck(v, s, &pub, &err), &err);
        /* the partition index is bound: partition k's proof is not partition k+1's */
        pub.k = (k + 1) % 4;
        expect_precheck_fail(v, s, &pub, "does not verify");
        czk_snap_vanilla_free(v);
    }
    czk_seal_snap w;
    make_update(&w, 6, true, 9, 9);
    assert_int_equal(w.h, 9);
    czk_snap_vanilla *v = parse_ok(w.blobs[2], w.lens[2], s, 2);
    czk_snap_public pub;
    public_of(&pub, &w, 2);
    czk_assert_ok(czk_snap_precheck(v, s, &pub, &err), &err);
    pub.h = 10; /* proved with h = 9, checked with 10: only the encoding fails */
    expect_precheck_fail(v, s, &pub, "partition 2 does not verify: challenge 0 (node ");
    expect_precheck_fail(v, s, &pub, "leaf_r_new is not leaf_r_old + leaf_d_new · rho");
    czk_snap_vanilla_free(v);
    czk_seal_snap_free(&w);
    czk_seal_snap_free(&u);
}

/* Sparse 32GiB: 16 partitions of 561,768 bytes (spec §3), pre-checked. */
static void test_sparse_32gib(void **state) {
    (void)state;
    const czk_snap_shape *s = czk_snap_shape_for_size(32ull << 30);
    czk_seal_snap u;
    make_update(&u, 8, true, 0, 10);
    assert_int_equal(u.partitions, 16);
    czk_err err;
    for (uint64_t k = 0; k < 16; k += 5) {
        assert_int_equal(u.lens[k], 561768);
        czk_snap_vanilla *v = parse_ok(u.blobs[k], u.lens[k], s, k);
        czk_snap_public pub;
        public_of(&pub, &u, k);
        czk_assert_ok(czk_snap_precheck(v, s, &pub, &err), &err);
        /* the same counts as 64GiB, another tree: refused, not read past its paths */
        assert_int_equal(czk_snap_precheck(v, czk_snap_shape_for_size(64ull << 30), &pub, &err),
                         CZK_ERR_MISMATCH);
        assert_non_null(strstr(err.msg, "parsed as 32GiB"));
        czk_snap_vanilla_free(v);
    }
    czk_seal_snap_free(&u);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sealed_2kib),
        cmocka_unit_test(test_sparse_8mib),
        cmocka_unit_test(test_sparse_32gib),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
