/* CZK_TEST_LABELS: unit */
/*
 * The vanilla pre-check (czk_c1_precheck) and the public inputs of a C1
 * (czk_c1_public_inputs), on consistent 2KiB sectors sealed by the test
 * builder (c1_sector.h), and on sectors and C1s corrupted one value at a
 * time. The builder itself is checked first against the label and comm_d
 * known answers of spec/sealing-vectors.md §C and §E.
 */
#include "support.h"

#include "c1_sector.h"
#include "czk/porep_precheck.h"

#include <stdio.h>
#include <string.h>

static const uint8_t TICKET[32] = {7, 1, 2, 3};
static const uint8_t SEED[32] = {9, 8, 7, 6, 5};
#define MINER 1000u
#define SECTOR 42u

/* ---- the builder against known answers ---- */

/* sealing-vectors.md §C: 64 nodes, 11 layers, replica_id 32×09; the last label of the last node. */
static void test_builder_label_kat(void **state) {
    (void)state;
    static const struct {
        uint8_t porep_byte;
        czk_porep_api api;
        const char *last;
    } v[] = {
        {0x00, CZK_POREP_API_1_0,
         "04ba0f9a6ba9fad35e4806d183a281eab3c25afa9a1bd5e3378da6f1f4f46204"},
        {0x7b, CZK_POREP_API_1_1,
         "cfef0db78bf3b3ab9f1169774d2e7a77bc9054499d954834b51ca7c788110206"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t pid[32], rid[32], want[32];
        memset(pid, v[i].porep_byte, 32);
        memset(rid, 9, 32);
        czk_test_hex(want, 32, v[i].last);
        czk_porep_graph *g;
        czk_err err;
        czk_assert_ok(czk_porep_graph_create(&g, 64, pid, v[i].api, NULL, &err), &err);
        czk_domain *labels = calloc(64 * 11, sizeof *labels);
        assert_non_null(labels);
        assert_true(ts_labels(labels, g, 11, rid));
        assert_memory_equal(labels[10 * 64 + 63].b, want, 32);
        free(labels);
        czk_porep_graph_destroy(g);
    }
}

/* sealing-vectors.md §E: 2KiB TreeD of data whose byte 0 is 01 and the rest zero. */
static void test_builder_tree_d_kat(void **state) {
    (void)state;
    czk_domain data[64];
    memset(data, 0, sizeof data);
    data[0].b[0] = 1;
    unsigned ar[6] = {2, 2, 2, 2, 2, 2};
    ts_tree t;
    assert_true(ts_tree_build(&t, data, 64, true, ar, 6));
    uint8_t want[32];
    czk_test_hex(want, 32, "ea995c54784720b449fc92b070adb6cf6635c2619a7a5e0054a24e88f252ec0d");
    assert_memory_equal(ts_root(&t)->b, want, 32);
    free(t.nodes);
}

/* ---- helpers ---- */

static czk_c1 *sealed_c1(uint32_t id, ts_sector *s, ts_tamper_fn tamper, void *arg) {
    assert_true(ts_seal(s, id, MINER, SECTOR, TICKET, SEED, 0x5eed + id, tamper, arg));
    czk_c1 *c1 = ts_c1(s);
    assert_non_null(c1);
    return c1;
}

static czk_status precheck(const czk_c1 *c1, bool ids, uint64_t miner, czk_pool *pool,
                           czk_err *err) {
    czk_precheck_opts o = {.have_ids = ids, .sector_num = SECTOR, .miner_id = miner};
    return czk_c1_precheck(c1, &o, pool, err);
}

static void expect_refused(const czk_c1 *c1, czk_status code, const char *prefix,
                           const char *substr) {
    czk_err err;
    czk_status st = precheck(c1, true, MINER, NULL, &err);
    if (st != code || strncmp(err.msg, prefix, strlen(prefix)) || !strstr(err.msg, substr))
        fail_msg("expected %s \"%s...%s...\", got %s \"%s\"", czk_status_name(code), prefix, substr,
                 czk_status_name(st), err.msg);
}

/* "partition K, challenge I (node C): " for the C1's challenge (k, i). */
static void challenge_prefix(char *out, size_t cap, const czk_c1 *c1, unsigned k, unsigned i) {
    snprintf(out, cap, "partition %u, challenge %u (node %llu): ", k, i,
             (unsigned long long)c1->proofs[k * c1->challenges_per_partition + i].labeling[0].node);
}

/* ---- consistent sectors pass ---- */

static void test_precheck_consistent(void **state) {
    (void)state;
    /* V1 (API 1.0 graph), V1_1, synthetic (challenges from seed and comm_r), NI (13 partitions) */
    static const uint32_t ids[] = {0, 5, 10, 15};
    czk_err err;
    czk_pool *pool = czk_pool_create(3, &err);
    assert_non_null(pool);
    for (size_t j = 0; j < sizeof ids / sizeof ids[0]; j++) {
        ts_sector s;
        czk_c1 *c1 = sealed_c1(ids[j], &s, NULL, NULL);
        czk_assert_ok(precheck(c1, true, MINER, NULL, &err), &err);
        czk_assert_ok(precheck(c1, true, MINER, pool, &err), &err);
        czk_assert_ok(precheck(c1, false, 0, pool, &err), &err);
        czk_assert_ok(czk_c1_precheck(c1, NULL, NULL, &err), &err);
        /* a graph passed in */
        czk_porep_graph *g;
        czk_assert_ok(czk_c1_graph(&g, c1, NULL, &err), &err);
        czk_precheck_opts o = {.graph = g};
        czk_assert_ok(czk_c1_precheck(c1, &o, pool, &err), &err);
        czk_porep_graph_destroy(g);
        /* and the same after a JSON round trip */
        char *json;
        size_t len;
        czk_assert_ok(czk_c1_to_json(c1, &json, &len, &err), &err);
        czk_c1 *back;
        czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)json, len, &err), &err);
        czk_assert_ok(precheck(back, true, MINER, pool, &err), &err);
        free(json);
        czk_c1_free(back);
        czk_c1_free(c1);
        ts_free(&s);
    }
    czk_pool_destroy(pool);
}

/* ---- corrupted C1s ---- */

static void test_precheck_wrong_ids(void **state) {
    (void)state;
    ts_sector s;
    czk_c1 *c1 = sealed_c1(5, &s, NULL, NULL);
    czk_err err;
    assert_int_equal(precheck(c1, true, MINER + 1, NULL, &err), CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "replica_id"));
    assert_non_null(strstr(err.msg, "miner f01001, sector 42"));
    czk_precheck_opts o = {.have_ids = true, .sector_num = SECTOR + 1, .miner_id = MINER};
    assert_int_equal(czk_c1_precheck(c1, &o, NULL, &err), CZK_ERR_MISMATCH);
    /* without the ids, replica_id is taken as given */
    czk_assert_ok(precheck(c1, false, MINER + 1, NULL, &err), &err);
    czk_c1_free(c1);
    ts_free(&s);
}

/* Flips one byte of one value in vanilla proof (0, 1), expects the named refusal. */
static void test_precheck_flipped_values(void **state) {
    (void)state;
    static const struct {
        int what;
        const char *msg;
    } cases[] = {
        {0, "c_x.inclusion_proof.leaf is not the Poseidon hash of c_x.column.rows"},
        {1, "labeling_proofs[1].parents[3] is not drg_parents[3].column.rows[1]"},
        {2, "drg_parents[2].inclusion_proof.leaf is not the Poseidon hash of "
            "drg_parents[2].column.rows"},
        {3, "comm_d_proofs does not verify against comm_d"},
        {4, "exp_parents[3].inclusion_proof does not verify against comm_c"},
        {5, "comm_r_last_proof does not verify against comm_r_last"},
        {6, "comm_d_proofs.root is not comm_d"},
        {7, "exp_parents[7].inclusion_proof.root is not comm_c"},
        {8, "comm_r_last_proof.leaf is not the encoding c_x.column.rows[1] + comm_d_proofs.leaf"},
        {9, "encoding_proof.parents[36] is not labeling_proofs[1].parents[36]"},
        {10, "labeling_proofs[0].parents[0] is not drg_parents[0].column.rows[0]"},
    };
    for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
        ts_sector s;
        czk_c1 *c1 = sealed_c1(5, &s, NULL, NULL);
        czk_vanilla_proof *v = &c1->proofs[1];
        switch (cases[j].what) {
        case 0:
            v->c_x.rows[0].b[5] ^= 1;
            break;
        case 1:
            v->labeling[1].parents[3].b[0] ^= 0x10;
            break;
        case 2:
            v->drg_parents[2].rows[1].b[30] ^= 1;
            break;
        case 3:
            v->comm_d_proof.siblings[2].b[7] ^= 4;
            break;
        case 4:
            v->exp_parents[3].inclusion.siblings[9].b[0] ^= 1;
            break;
        case 5:
            v->comm_r_last_proof.siblings[0].b[3] ^= 1;
            break;
        case 6:
            v->comm_d_proof.root.b[1] ^= 1;
            break;
        case 7:
            v->exp_parents[7].inclusion.root.b[1] ^= 1;
            break;
        case 8:
            v->comm_r_last_proof.leaf.b[2] ^= 1;
            break;
        case 9: {
            /* the encoding proof has its own parents (ts_c1 shares them; copy first) */
            czk_domain *p = czk_c1_alloc(c1, 37 * sizeof *p);
            memcpy(p, v->encoding.parents, 37 * sizeof *p);
            p[36].b[0] ^= 1;
            v->encoding.parents = p;
            break;
        }
        case 10:
            v->labeling[0].parents[0].b[9] ^= 1;
            break;
        }
        char prefix[96];
        challenge_prefix(prefix, sizeof prefix, c1, 0, 1);
        expect_refused(c1, CZK_ERR_VERIFY, prefix, cases[j].msg);
        czk_c1_free(c1);
        ts_free(&s);
    }
}

static void test_precheck_wrong_indices(void **state) {
    (void)state;
    char prefix[96];
    ts_sector s;
    czk_err err;
    /* two DRG parent columns swapped: both are valid columns of TreeC */
    czk_c1 *c1 = sealed_c1(5, &s, NULL, NULL);
    czk_vanilla_proof *v = &c1->proofs[1];
    unsigned a = 0, b = 1;
    while (b < 6 && v->drg_parents[b].index == v->drg_parents[a].index)
        b++;
    assert_true(b < 6);
    czk_column_proof t = v->drg_parents[a];
    v->drg_parents[a] = v->drg_parents[b];
    v->drg_parents[b] = t;
    challenge_prefix(prefix, sizeof prefix, c1, 0, 1);
    expect_refused(c1, CZK_ERR_VERIFY, prefix, "drg_parents[0].column.index is");
    czk_c1_free(c1);
    ts_free(&s);

    /* a labeling proof for another node */
    c1 = sealed_c1(5, &s, NULL, NULL);
    challenge_prefix(prefix, sizeof prefix, c1, 0, 1);
    c1->proofs[1].labeling[1].node ^= 1;
    expect_refused(c1, CZK_ERR_VERIFY, prefix, "labeling_proofs[1].node is");
    czk_c1_free(c1);
    ts_free(&s);

    /* challenge 0's vanilla proof for another challenge: swap the first two */
    c1 = sealed_c1(5, &s, NULL, NULL);
    if (c1->proofs[0].labeling[0].node != c1->proofs[1].labeling[0].node) {
        czk_vanilla_proof tv = c1->proofs[0];
        c1->proofs[0] = c1->proofs[1];
        c1->proofs[1] = tv;
        assert_int_equal(precheck(c1, true, MINER, NULL, &err), CZK_ERR_VERIFY);
        assert_non_null(strstr(err.msg, "partition 0, challenge 0 (node "));
        assert_non_null(strstr(err.msg, "labeling_proofs[0].node is"));
    }
    czk_c1_free(c1);
    ts_free(&s);

    /* comm_r that is not Poseidon2(comm_c, comm_r_last) */
    c1 = sealed_c1(5, &s, NULL, NULL);
    c1->comm_r.b[0] ^= 1;
    czk_precheck_opts o = {0};
    assert_int_equal(czk_c1_precheck(c1, &o, NULL, &err), CZK_ERR_VERIFY);
    assert_non_null(strstr(err.msg, "comm_r is not Poseidon2(comm_c, comm_r_last)"));
    czk_c1_free(c1);
    ts_free(&s);

    /* the shape is checked for built C1s too */
    c1 = sealed_c1(5, &s, NULL, NULL);
    c1->proofs[1].c_x.num_rows = 1;
    assert_int_equal(czk_c1_precheck(c1, NULL, NULL, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg,
                        "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.c_x.column."
                        "rows: 1 rows, expected 2");
    czk_c1_free(c1);
    ts_free(&s);
}

/* Sector-level corruption before the trees: every path verifies, the SDR relation does not. */
typedef struct tamper_arg {
    int what;
    uint64_t node;
} tamper_arg;

static void tamper(ts_sector *s, void *arg) {
    tamper_arg *t = arg;
    uint64_t ch[2];
    /* the challenges of an interactive proof depend on replica_id and seed only */
    assert_int_equal(
        czk_porep_interactive_challenges(ch, s->nodes, s->replica_id.b, s->seed.b, 2, 0, NULL),
        CZK_OK);
    t->node = ch[0];
    if (t->what == 0) s->labels[0 * s->nodes + ch[0]].b[4] ^= 1; /* a layer-1 label */
    if (t->what == 1) s->labels[1 * s->nodes + ch[0]].b[4] ^= 1; /* a layer-2 label */
    if (t->what == 2) s->replica[ch[0]].b[4] ^= 1;               /* the encoding */
    if (t->what == 3) s->data[ch[0]].b[4] ^= 1;                  /* data after TreeD */
}

static void test_precheck_inconsistent_sector(void **state) {
    (void)state;
    static const char *const msg[] = {
        "labeling_proofs[0]: the label of layer 1 computed from its parents is not "
        "c_x.column.rows[0]",
        "labeling_proofs[1]: the label of layer 2 computed from its parents is not "
        "c_x.column.rows[1]",
        "comm_r_last_proof.leaf is not the encoding c_x.column.rows[1] + comm_d_proofs.leaf",
        "comm_d_proofs does not verify against comm_d",
    };
    for (int w = 0; w < 4; w++) {
        ts_sector s;
        tamper_arg t = {.what = w};
        czk_c1 *c1 = sealed_c1(5, &s, tamper, &t);
        char prefix[96];
        snprintf(prefix, sizeof prefix,
                 "partition 0, challenge 0 (node %llu): ", (unsigned long long)t.node);
        if (w == 3) {
            /* the data leaf was changed after TreeD: rebuild the proofs' leaves from it */
            czk_domain *leaf = &c1->proofs[0].comm_d_proof.leaf;
            assert_memory_not_equal(leaf->b, s.data[t.node].b, 32); /* proofs from TreeD */
            *leaf = s.data[t.node];
            /* the encoding still holds with the TreeD leaf: refused at the TreeD path */
        }
        expect_refused(c1, CZK_ERR_VERIFY, prefix, msg[w]);
        czk_c1_free(c1);
        ts_free(&s);
    }
}

/* ---- Merkle paths of every kind ---- */

static void test_merkle_root_kinds(void **state) {
    (void)state;
    /* Poseidon trees with levels 8 (Single), 8-8 (Sub) and 8-8-2 (Top), 128 leaves */
    czk_domain leaves[128];
    uint64_t st = 77;
    for (int i = 0; i < 128; i++) {
        for (int j = 0; j < 4; j++) {
            uint64_t r = ts_rng(&st);
            memcpy(leaves[i].b + 8 * j, &r, 8);
        }
        leaves[i].b[31] &= 0x3f;
    }
    static const struct {
        unsigned levels, arity[3];
        uint64_t n;
        czk_merkle_kind kind;
        uint32_t parts[3];
    } v[] = {{2, {8, 8}, 64, CZK_MERKLE_SINGLE, {2, 0, 0}},
             {2, {8, 8}, 64, CZK_MERKLE_SUB, {1, 1, 0}},
             {3, {8, 8, 2}, 128, CZK_MERKLE_TOP, {1, 1, 1}}};
    for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
        ts_tree t = {0};
        assert_true(ts_tree_build(&t, leaves, v[j].n, false, v[j].arity, v[j].levels));
        czk_c1 *c1 = czk_c1_create(5, 1, 1, NULL);
        assert_non_null(c1);
        for (uint64_t x = 0; x < v[j].n; x += 13) {
            czk_merkle_proof p;
            memset(&p, 0, sizeof p);
            assert_true(ts_tree_proof(c1, &p, &t, x, v[j].kind, v[j].parts));
            assert_int_equal(czk_merkle_proof_leaf_index(&p), x);
            czk_domain root;
            assert_true(czk_c1_merkle_root(&p, false, &root));
            assert_memory_equal(root.b, ts_root(&t)->b, 32);
            p.siblings[p.num_levels - 1].b[0] ^= 1; /* a sibling in the last level */
            assert_true(czk_c1_merkle_root(&p, false, &root));
            assert_memory_not_equal(root.b, ts_root(&t)->b, 32);
            p.index[0] = p.arity[0]; /* a position past the arity */
            assert_false(czk_c1_merkle_root(&p, false, &root));
        }
        czk_c1_free(c1);
        free(t.nodes);
    }
}

/* ---- public inputs ---- */

static void test_public_inputs(void **state) {
    (void)state;
    static const uint32_t ids[] = {0, 5, 10, 15};
    for (size_t j = 0; j < sizeof ids / sizeof ids[0]; j++) {
        ts_sector s;
        czk_c1 *c1 = sealed_c1(ids[j], &s, NULL, NULL);
        czk_err err;
        uint32_t n = czk_c1_num_public_inputs(c1);
        assert_int_equal(n, 3 + 18 * 2); /* spec §1: 40 inputs with ONE for 2KiB */
        czk_fr *in = calloc(n, sizeof *in);
        assert_non_null(in);
        for (unsigned k = 0; k < c1->num_partitions; k++) {
            czk_assert_ok(czk_c1_public_inputs(in, c1, k ? s.graph : NULL, k, &err), &err);
            /* spec §2: the values equal the path indices the vanilla proofs carry */
            czk_fr want;
            assert_int_equal(czk_fr_from_bytes(&want, c1->replica_id.b, NULL), CZK_OK);
            assert_true(czk_fr_eq(&in[0], &want));
            assert_int_equal(czk_fr_from_bytes(&want, c1->comm_d.b, NULL), CZK_OK);
            assert_true(czk_fr_eq(&in[1], &want));
            assert_int_equal(czk_fr_from_bytes(&want, c1->comm_r.b, NULL), CZK_OK);
            assert_true(czk_fr_eq(&in[2], &want));
            for (unsigned i = 0; i < 2; i++) {
                const czk_vanilla_proof *v = &c1->proofs[k * 2 + i];
                uint64_t w[18];
                w[0] = czk_merkle_proof_leaf_index(&v->comm_d_proof);
                for (int p = 0; p < 6; p++)
                    w[1 + p] = czk_merkle_proof_leaf_index(&v->drg_parents[p].inclusion);
                for (int p = 0; p < 8; p++)
                    w[7 + p] = v->exp_parents[p].index;
                w[15] = v->labeling[0].node;
                w[16] = czk_merkle_proof_leaf_index(&v->comm_r_last_proof);
                w[17] = czk_merkle_proof_leaf_index(&v->c_x.inclusion);
                for (int q = 0; q < 18; q++) {
                    czk_fr_from_u64(&want, w[q]);
                    if (!czk_fr_eq(&in[3 + 18 * i + q], &want))
                        fail_msg("proof %u, partition %u, challenge %u: input %d", ids[j], k, i,
                                 3 + 18 * i + q);
                }
            }
        }
        assert_int_equal(czk_c1_public_inputs(in, c1, NULL, c1->num_partitions, &err),
                         CZK_ERR_INVALID_ARG);
        c1->comm_r.b[31] = 0xff;
        assert_int_equal(czk_c1_public_inputs(in, c1, s.graph, 0, &err), CZK_ERR_FR_RANGE);
        assert_non_null(strstr(err.msg, "comm_r"));
        free(in);
        czk_c1_free(c1);
        ts_free(&s);
    }
}

/* 2KiB V1_1, node 2: parents [1,1,1,0,1,0 | 30,28,55,63,63,36,37,36] (sealing-vectors.md §B). */
static void test_public_inputs_graph_values(void **state) {
    (void)state;
    ts_sector s;
    czk_c1 *c1 = sealed_c1(5, &s, NULL, NULL);
    /* find the seed for which challenge 0 of partition 0 is node 2 (interactive: SHA-256 only) */
    uint64_t ch[2];
    uint32_t tries = 0;
    do {
        c1->seed.b[31] = (uint8_t)tries;
        c1->seed.b[30] = (uint8_t)(tries >> 8);
        assert_int_equal(
            czk_porep_interactive_challenges(ch, 64, c1->replica_id.b, c1->seed.b, 2, 0, NULL),
            CZK_OK);
    } while (ch[0] != 2 && ++tries < 65536);
    assert_int_equal(ch[0], 2);
    czk_fr in[39], want;
    czk_err err;
    czk_assert_ok(czk_c1_public_inputs(in, c1, NULL, 0, &err), &err);
    static const uint64_t w[18] = {2, 1, 1, 1, 0, 1, 0, 30, 28, 55, 63, 63, 36, 37, 36, 2, 2, 2};
    for (int q = 0; q < 18; q++) {
        czk_fr_from_u64(&want, w[q]);
        assert_true(czk_fr_eq(&in[3 + q], &want));
    }
    czk_c1_free(c1);
    ts_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_label_kat),
        cmocka_unit_test(test_builder_tree_d_kat),
        cmocka_unit_test(test_precheck_consistent),
        cmocka_unit_test(test_precheck_wrong_ids),
        cmocka_unit_test(test_precheck_flipped_values),
        cmocka_unit_test(test_precheck_wrong_indices),
        cmocka_unit_test(test_precheck_inconsistent_sector),
        cmocka_unit_test(test_merkle_root_kinds),
        cmocka_unit_test(test_public_inputs),
        cmocka_unit_test(test_public_inputs_graph_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
