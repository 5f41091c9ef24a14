/* CZK_TEST_LABELS: unit */
/*
 * SDR labeling known answers: rust-fil-proofs storage-proofs-porep
 * tests/stacked_vanilla.rs `test_stacked_porep_generate_labels` and
 * create_label/multi.rs `test_create_labels` (sealing-vectors.md §C):
 * replica_id = 32×09, 11 layers, 64 or 128 nodes; the expected value is the
 * last layer's label of the last node.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/seal.h"

static void check_last_label(uint64_t nodes, uint8_t porep_byte, czk_porep_api api,
                             const char *want_hex, czk_pool *pool) {
    uint8_t porep_id[32], replica_id[32], want[32];
    memset(porep_id, porep_byte, 32);
    memset(replica_id, 9, 32);
    czk_test_hex(want, 32, want_hex);
    czk_err err;
    czk_porep_graph *g = NULL;
    czk_assert_ok(czk_porep_graph_create(&g, nodes, porep_id, api, NULL, &err), &err);
    const unsigned layers = 11;
    uint8_t *labels = malloc(layers * nodes * 32);
    assert_non_null(labels);
    czk_assert_ok(czk_seal_labels(labels, g, replica_id, layers, pool, &err), &err);
    assert_memory_equal(labels + ((layers - 1) * nodes + nodes - 1) * 32, want, 32);
    free(labels);
    czk_porep_graph_destroy(g);
}

/* sealing-vectors.md §C, four rows. */
static void run_kats(czk_pool *pool) {
    check_last_label(64, 0x00, CZK_POREP_API_1_0,
                     "04ba0f9a6ba9fad35e4806d183a281eab3c25afa9a1bd5e3378da6f1f4f46204", pool);
    check_last_label(128, 0x00, CZK_POREP_API_1_0,
                     "86daa8c4521e197e48c1fae6c9a1e85ab894a8883b9f23cebe531ddcd1004c23", pool);
    check_last_label(64, 0x7b, CZK_POREP_API_1_1,
                     "cfef0db78bf3b3ab9f1169774d2e7a77bc9054499d954834b51ca7c788110206", pool);
    check_last_label(128, 0x7b, CZK_POREP_API_1_1,
                     "6d67c468cf81ab2289c1c9c72fa8777a232de4c1323dc0c6bd552ccc187c770f", pool);
    /* V1_2 builds the V1_1 graph (§C: "V1_2 same"). */
    check_last_label(64, 0x7b, CZK_POREP_API_1_2,
                     "cfef0db78bf3b3ab9f1169774d2e7a77bc9054499d954834b51ca7c788110206", pool);
}

static void test_label_kats_serial(void **state) {
    (void)state;
    run_kats(NULL);
}

static void test_label_kats_pool(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(3, &err);
    assert_non_null(pool);
    run_kats(pool);
    czk_pool_destroy(pool);
}

/*
 * Naive labeling (one czk_seal_label per node, parents from
 * czk_porep_graph_parents, expanded as graph.rs does) against the windowed
 * pipeline, over several windows so that the patching of recent parents is
 * exercised, serially and on a pool.
 */
static void naive_labels(uint8_t *out, const czk_porep_graph *g, const uint8_t rid[32],
                         unsigned layers) {
    uint64_t n = czk_porep_graph_nodes(g);
    uint8_t parents[37 * 32];
    for (unsigned l = 1; l <= layers; l++) {
        uint8_t *cur = out + (uint64_t)(l - 1) * n * 32, *prev = cur - n * 32;
        unsigned deg = l == 1 ? 6 : 14;
        for (uint64_t v = 0; v < n; v++) {
            uint32_t p[14];
            czk_err err;
            czk_assert_ok(czk_porep_graph_parents(g, v, p, &err), &err);
            for (unsigned q = 0; q < 37; q++) {
                unsigned k = q % deg;
                memcpy(parents + 32 * q, (k < 6 ? cur : prev) + 32 * (uint64_t)p[k], 32);
            }
            czk_seal_label(cur + 32 * v, rid, l, v, v ? parents : NULL);
        }
    }
}

static void test_labels_vs_naive(void **state) {
    (void)state;
    const uint64_t nodes = 1 << 13;
    const unsigned layers = 3;
    uint8_t porep_id[32] = {6}, rid[32];
    for (int i = 0; i < 32; i++)
        rid[i] = (uint8_t)(i * 7 + 1);
    rid[31] &= 0x3f;
    czk_err err;
    for (int api = 0; api < 2; api++) {
        czk_porep_graph *g = NULL;
        czk_assert_ok(czk_porep_graph_create(&g, nodes, porep_id, (czk_porep_api)api, NULL, &err),
                      &err);
        size_t len = layers * nodes * 32;
        uint8_t *want = malloc(len), *got = malloc(len);
        assert_non_null(want);
        assert_non_null(got);
        naive_labels(want, g, rid, layers);
        czk_assert_ok(czk_seal_labels(got, g, rid, layers, NULL, &err), &err);
        assert_memory_equal(got, want, len);
        czk_pool *pool = czk_pool_create(4, &err);
        assert_non_null(pool);
        memset(got, 0, len);
        czk_assert_ok(czk_seal_labels(got, g, rid, layers, pool, &err), &err);
        assert_memory_equal(got, want, len);
        czk_pool_destroy(pool);
        assert_int_equal(czk_seal_labels(got, g, rid, 0, NULL, &err), CZK_ERR_INVALID_ARG);
        free(want);
        free(got);
        czk_porep_graph_destroy(g);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_kats_serial),
        cmocka_unit_test(test_label_kats_pool),
        cmocka_unit_test(test_labels_vs_naive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
