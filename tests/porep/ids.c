/* CZK_TEST_LABELS: unit */
/*
 * Sealing identifiers (prover_id, porep_id, replica_id), PoRep challenges
 * (interactive, non-interactive, synthetic) and the sector-shape table.
 */
#include "support.h"
#include "czk/groth16.h"

#include <string.h>

#include "czk/porep_graph.h"
#include "czk/porep_shapes.h"

/* sealing-vectors.md conventions: miner 1000 -> e807 00…; others computed with Python (LEB128). */
static void test_prover_id(void **state) {
    (void)state;
    static const struct {
        uint64_t miner;
        const char *hex;
    } v[] = {
        {1000, "e807000000000000000000000000000000000000000000000000000000000000"},
        {0, "0000000000000000000000000000000000000000000000000000000000000000"},
        {127, "7f00000000000000000000000000000000000000000000000000000000000000"},
        {128, "8001000000000000000000000000000000000000000000000000000000000000"},
        {UINT64_MAX, "ffffffffffffffffff0100000000000000000000000000000000000000000000"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t got[32], want[32];
        czk_test_hex(want, 32, v[i].hex);
        czk_porep_prover_id(got, v[i].miner);
        assert_memory_equal(got, want, 32);
    }
}

static void test_porep_id_and_lookup(void **state) {
    (void)state;
    uint8_t want[32] = {8}, got[32];
    czk_porep_id(got, 8); /* 32GiB V1_1 = 08 00… (sealing-vectors.md conventions) */
    assert_memory_equal(got, want, 32);
    czk_porep_proof p;
    czk_err err;
    /* registry.rs: id -> (size, version); constants.rs partitions. */
    static const struct {
        uint64_t id, size;
        czk_porep_api api;
        czk_porep_kind kind;
        unsigned partitions, cpp;
    } v[] = {
        {0, 2048, CZK_POREP_API_1_0, CZK_POREP_INTERACTIVE, 1, 2},
        {4, 1ULL << 36, CZK_POREP_API_1_0, CZK_POREP_INTERACTIVE, 10, 18},
        {5, 2048, CZK_POREP_API_1_1, CZK_POREP_INTERACTIVE, 1, 2},
        {8, 1ULL << 35, CZK_POREP_API_1_1, CZK_POREP_INTERACTIVE, 10, 18},
        {12, 1ULL << 29, CZK_POREP_API_1_2, CZK_POREP_SYNTHETIC, 1, 2},
        {13, 1ULL << 35, CZK_POREP_API_1_2, CZK_POREP_SYNTHETIC, 10, 18},
        {15, 2048, CZK_POREP_API_1_2, CZK_POREP_NON_INTERACTIVE, 13, 2},
        {16, 1ULL << 23, CZK_POREP_API_1_2, CZK_POREP_NON_INTERACTIVE, 13, 2},
        {18, 1ULL << 35, CZK_POREP_API_1_2, CZK_POREP_NON_INTERACTIVE, 126, 18},
        {19, 1ULL << 36, CZK_POREP_API_1_2, CZK_POREP_NON_INTERACTIVE, 126, 18},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        czk_assert_ok(czk_porep_proof_lookup(v[i].id, &p, &err), &err);
        assert_int_equal(p.id, v[i].id);
        assert_int_equal(p.shape->sector_size, v[i].size);
        assert_int_equal(p.api, v[i].api);
        assert_int_equal(p.kind, v[i].kind);
        assert_int_equal(p.partitions, v[i].partitions);
        assert_int_equal(p.challenges_per_partition, v[i].cpp);
        assert_int_equal(p.porep_id[0], v[i].id);
        assert_true(p.shape->proof_ids[v[i].id / 5] == v[i].id);
    }
    assert_int_equal(czk_porep_proof_lookup(20, &p, &err), CZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "20"));
}

static void test_shapes(void **state) {
    (void)state;
    /* porep-circuit.md §1 sector table. */
    static const struct {
        uint64_t size, nodes;
        unsigned log2, layers, b, s, t;
    } v[] = {
        {2048, 64, 6, 2, 8, 0, 0},
        {1ULL << 23, 1ULL << 18, 18, 2, 8, 0, 0},
        {1ULL << 29, 1ULL << 24, 24, 2, 8, 0, 0},
        {1ULL << 35, 1ULL << 30, 30, 11, 8, 8, 0},
        {1ULL << 36, 1ULL << 31, 31, 11, 8, 8, 2},
    };
    for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++) {
        const czk_porep_shape *s = &czk_porep_shapes[i];
        assert_ptr_equal(czk_porep_shape_for_size(v[i].size), s);
        assert_int_equal(s->nodes, v[i].nodes);
        assert_int_equal(s->log2_nodes, v[i].log2);
        assert_int_equal(s->layers, v[i].layers);
        assert_int_equal(s->column_arity, v[i].layers);
        assert_int_equal(s->tree_base_arity, v[i].b);
        assert_int_equal(s->tree_sub_arity, v[i].s);
        assert_int_equal(s->tree_top_arity, v[i].t);
        /* challenges per partition = div_ceil(min challenges, partitions) (filecoin-proofs). */
        assert_int_equal(s->challenges_per_partition,
                         (s->min_challenges + s->partitions - 1) / s->partitions);
        assert_int_equal(s->ni_challenges_per_partition,
                         (s->ni_min_challenges + s->ni_partitions - 1) / s->ni_partitions);
        assert_int_equal(strlen(s->param_id), 64);
    }
    /* The published v28 digests (porep-circuit.md §1) name exactly the files
     * czk_porep_param_file_name() gives for each shape. */
    static const char *digests[5][2] = {
        {"434fb1338ecfaf0f59256f30dde4968f", "dc1ade9929ade1708238f155343044ac"},
        {"09e612e4eeb7a0eb95679a88404f960c", "b687beb9adbd9dabe265a7e3620813e4"},
        {"6c77597eb91ab936c1cef4cf19eba1b3", "065179da19fbe515507267677f02823e"},
        {"6a388072a518cf46ebd661f5cc46900a", "0c7b4aac1c40fdb7eb82bc355b41addf"},
        {"1801f8a6e1b00bceb00cc27314bb5ce3", "a89884252c04c298d0b3c81bfd884164"},
    };
    for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++) {
        for (int e = 0; e < 2; e++) {
            char want[200];
            czk_err err;
            czk_assert_ok(czk_porep_param_file_name(want, sizeof want, &czk_porep_shapes[i],
                                                    e ? ".vk" : ".params", &err),
                          &err);
            const char *got = czk_params_known_digest(digests[i][e]);
            assert_non_null(got);
            assert_string_equal(got, want);
        }
    }
    assert_null(czk_porep_shape_for_size(4096));
    /* parameters.json key for 32GiB. */
    char name[160];
    czk_err err;
    czk_assert_ok(czk_porep_param_file_name(name, sizeof name, czk_porep_shape_for_size(1ULL << 35),
                                            ".vk", &err),
                  &err);
    assert_string_equal(name, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-"
                              "sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a"
                              "01bfef7820.vk");
    assert_int_equal(czk_porep_param_file_name(name, 40, &czk_porep_shapes[0], ".params", &err),
                     CZK_ERR_INVALID_ARG);
}

static void test_replica_id(void **state) {
    (void)state;
    uint8_t prover[32], ticket[32], comm_d[32], porep[32], got[32], want[32];
    /*
     * curio extern/supraseal demos/main.cpp replica_id_buf_32G (sealing-vectors.md §D):
     * prover 32×09, sector 0, ticket 32×01, 32GiB CC comm_d (§E), porep_id 08 (32GiB V1_1).
     */
    memset(prover, 9, 32);
    memset(ticket, 1, 32);
    czk_test_hex(comm_d, 32, "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e");
    czk_porep_id(porep, 8);
    czk_porep_replica_id(got, prover, 0, ticket, comm_d, porep);
    czk_test_hex(want, 32, "799187fbbb75336d586350694feb55f0939978e790f7f4c92a0a958ecb97bc2b");
    assert_memory_equal(got, want, 32);
    /*
     * Python (hashlib): miner 1000, sector 0x1122334455667788 (BE), ticket 00..1f, 2KiB CC
     * comm_d (SHA-256 tree over 64 zero nodes, trunc; prefix fc7e9282 as in §E), porep_id 05.
     */
    czk_porep_prover_id(prover, 1000);
    for (int i = 0; i < 32; i++)
        ticket[i] = (uint8_t)i;
    czk_test_hex(comm_d, 32, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
    czk_porep_id(porep, 5);
    czk_porep_replica_id(got, prover, 0x1122334455667788ULL, ticket, comm_d, porep);
    czk_test_hex(want, 32, "4d403718fd618a2e4db99be916dee5d28c95bc606eaafc1c62f4e9431d90e10d");
    assert_memory_equal(got, want, 32);
}

/* The replica_id of test_replica_id's second case; comm_r = 100..131; seed = 32×ab. */
static const char *RID = "4d403718fd618a2e4db99be916dee5d28c95bc606eaafc1c62f4e9431d90e10d";

/*
 * No public known-answer values exist for interactive or NI challenges
 * (sealing-vectors.md §F); these were computed with Python from
 * challenges.rs: int.from_bytes(sha256(...), "little") % (nodes - 1) + 1.
 */
static void test_interactive_challenges(void **state) {
    (void)state;
    uint8_t rid[32], seed[32];
    czk_test_hex(rid, 32, RID);
    memset(seed, 0xab, 32);
    static const uint64_t want32g_k3[18] = {324310427, 288015222, 891702424, 858683372,  800982325,
                                            921757227, 423261197, 421120199, 806362402,  901837046,
                                            385860732, 742760438, 79383339,  1044069105, 133025754,
                                            803251929, 363728285, 319966196};
    uint64_t got[18];
    czk_err err;
    czk_assert_ok(czk_porep_interactive_challenges(got, 1ULL << 30, rid, seed, 18, 3, &err), &err);
    assert_memory_equal(got, want32g_k3, sizeof got);
    czk_assert_ok(czk_porep_interactive_challenges(got, 64, rid, seed, 2, 0, &err), &err);
    assert_int_equal(got[0], 59);
    assert_int_equal(got[1], 1);
    /* Through the proof table: 32GiB V1_1 (id 8), partition 3. */
    czk_porep_proof p;
    czk_assert_ok(czk_porep_proof_lookup(8, &p, &err), &err);
    memset(got, 0, sizeof got);
    czk_assert_ok(czk_porep_challenges(got, &p, rid, seed, NULL, 3, &err), &err);
    assert_memory_equal(got, want32g_k3, sizeof got);
    assert_int_equal(czk_porep_challenges(got, &p, rid, NULL, NULL, 3, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_porep_challenges(got, &p, rid, seed, NULL, 10, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_porep_interactive_challenges(got, 1, rid, seed, 2, 0, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_porep_interactive_challenges(got, 64, rid, seed, 2, 256, &err),
                     CZK_ERR_INVALID_ARG);
}

static void test_ni_challenges(void **state) {
    (void)state;
    uint8_t rid[32], comm_r[32];
    czk_test_hex(rid, 32, RID);
    for (int i = 0; i < 32; i++)
        comm_r[i] = (uint8_t)(100 + i);
    static const uint64_t want32g_k125[18] = {
        409353326, 1067928161, 902775916, 505873583, 962278824, 510823789,
        440160952, 346253729,  448828609, 519552376, 483880782, 260020844,
        184396079, 1058822713, 345857602, 632922861, 166198404, 715614778};
    uint64_t got[18];
    czk_err err;
    czk_assert_ok(czk_porep_ni_challenges(got, 1ULL << 30, rid, comm_r, 18, 125, &err), &err);
    assert_memory_equal(got, want32g_k125, sizeof got);
    czk_porep_proof p;
    czk_assert_ok(czk_porep_proof_lookup(15, &p, &err), &err); /* 2KiB NI: 13 partitions of 2 */
    czk_assert_ok(czk_porep_challenges(got, &p, rid, NULL, comm_r, 12, &err), &err);
    assert_int_equal(got[0], 11);
    assert_int_equal(got[1], 16);
}

/*
 * challenges.rs test_synth_challenges_against_hardcoded (sealing-vectors.md §F):
 * 1024 nodes, replica_id Fr(55), comm_r Fr(101), 21 synthetic challenges;
 * PoRep challenges with rand 32×01: 10 from partition 0.
 */
static void test_synth_challenges(void **state) {
    (void)state;
    uint8_t rid[32] = {55}, comm_r[32] = {101}, rand[32];
    memset(rand, 1, 32);
    static const uint64_t synth[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                       801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    czk_err err;
    for (uint64_t i = 0; i < 21; i++) {
        uint64_t c;
        czk_assert_ok(czk_porep_synth_challenge(&c, 1024, rid, comm_r, 21, i, &err), &err);
        assert_int_equal(c, synth[i]);
    }
    uint64_t c;
    assert_int_equal(czk_porep_synth_challenge(&c, 1024, rid, comm_r, 21, 21, &err),
                     CZK_ERR_INVALID_ARG);
    uint64_t got[10];
    czk_assert_ok(czk_porep_synth_challenges(got, 1024, rid, comm_r, rand, 21, 10, 0, &err), &err);
    assert_memory_equal(got, porep, sizeof got);
    /* Partitions are consecutive slices of one selection stream (test_synth_challenges_32gib). */
    uint64_t part[5];
    czk_assert_ok(czk_porep_synth_challenges(part, 1024, rid, comm_r, rand, 21, 5, 1, &err), &err);
    assert_memory_equal(part, porep + 5, sizeof part);
    assert_int_equal(czk_porep_synth_count(64), 64);
    assert_int_equal(czk_porep_synth_count(1ULL << 30), 1u << 18);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prover_id),
        cmocka_unit_test(test_porep_id_and_lookup),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_replica_id),
        cmocka_unit_test(test_interactive_challenges),
        cmocka_unit_test(test_ni_challenges),
        cmocka_unit_test(test_synth_challenges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
