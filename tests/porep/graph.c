/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * The SDR parent graph against published parent-cache digests and names
 * (rust-fil-proofs storage-proofs-porep/parent_cache.json, spec
 * sealing-vectors.md §B), explicit parents (§B), upstream graph.rs test
 * assertions, and a naive Feistel permutation.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "czk/porep_graph.h"
#include "czk/pool.h"

/* The Feistel round function without tables (src/porep/graph.c). */
uint64_t czk_porep_feistel_f(uint64_t right, uint64_t key, uint64_t right_mask);

static void porep_id_of(uint8_t out[32], uint64_t id) {
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(id >> (8 * i));
}

static czk_porep_graph *make(uint64_t nodes, uint64_t proof_id, czk_porep_api api, czk_pool *pool) {
    uint8_t pid[32];
    porep_id_of(pid, proof_id);
    czk_porep_graph *g = NULL;
    czk_err err;
    czk_assert_ok(czk_porep_graph_create(&g, nodes, pid, api, pool, &err), &err);
    return g;
}

static void assert_digest(const czk_porep_graph *g, czk_pool *pool, const char *hex) {
    uint8_t want[32], got[32];
    czk_test_hex(want, 32, hex);
    czk_err err;
    czk_assert_ok(czk_porep_graph_cache_digest(g, pool, got, &err), &err);
    assert_memory_equal(got, want, 32);
    /* The shape table carries the same digest. */
    const czk_porep_shape *s = czk_porep_shape_for_size(czk_porep_graph_nodes(g) * 32);
    assert_non_null(s);
    assert_string_equal(s->parent_cache_digest[czk_porep_graph_api(g) == CZK_POREP_API_1_0 ? 0 : 1],
                        hex);
}

/* parent_cache.json digests (SHA-256 of the cache file), sealing-vectors.md §B. */
static void test_digest_2kib(void **state) {
    (void)state;
    czk_porep_graph *g = make(64, 0, CZK_POREP_API_1_0, NULL); /* StackedDrg2KiBV1 */
    assert_digest(g, NULL, "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d");
    czk_porep_graph_destroy(g);
    g = make(64, 5, CZK_POREP_API_1_1, NULL); /* StackedDrg2KiBV1_1 */
    assert_digest(g, NULL, "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97");
    czk_porep_graph_destroy(g);
}

static void test_digest_8mib(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    assert_non_null(pool);
    czk_porep_graph *g = make(1 << 18, 6, CZK_POREP_API_1_1, pool); /* StackedDrg8MiBV1_1 */
    assert_digest(g, pool, "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab");
    czk_porep_graph_destroy(g);
    g = make(1 << 18, 1, CZK_POREP_API_1_0, pool); /* StackedDrg8MiBV1 */
    assert_digest(g, pool, "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce");
    czk_porep_graph_destroy(g);
    czk_pool_destroy(pool);
}

/* sealing-vectors.md §B: 2KiB V1_1 parents of nodes 2 and 63 (6 DRG | 8 expander). */
static void test_explicit_parents(void **state) {
    (void)state;
    czk_porep_graph *g = make(64, 5, CZK_POREP_API_1_1, NULL);
    static const uint32_t want2[14] = {1, 1, 1, 0, 1, 0, 30, 28, 55, 63, 63, 36, 37, 36};
    static const uint32_t want63[14] = {62, 15, 42, 62, 61, 62, 0, 15, 30, 30, 28, 42, 49, 38};
    uint32_t p[14];
    czk_err err;
    czk_assert_ok(czk_porep_graph_parents(g, 2, p, &err), &err);
    assert_memory_equal(p, want2, sizeof want2);
    czk_assert_ok(czk_porep_graph_parents(g, 63, p, &err), &err);
    assert_memory_equal(p, want63, sizeof want63);
    uint32_t b[6], e[8];
    czk_assert_ok(czk_porep_graph_base_parents(g, 63, b, &err), &err);
    czk_assert_ok(czk_porep_graph_exp_parents(g, 63, e, &err), &err);
    assert_memory_equal(b, want63, sizeof b);
    assert_memory_equal(e, want63 + 6, sizeof e);
    /* drgraph.rs: nodes 0 and 1 have six parents 0. */
    static const uint32_t zero[6] = {0};
    czk_assert_ok(czk_porep_graph_base_parents(g, 1, b, &err), &err);
    assert_memory_equal(b, zero, sizeof zero);
    czk_porep_graph_destroy(g);
}

/* API 1.0 puts the predecessor last, 1.1 first; the sampled parents are the same draws. */
static void test_predecessor_order(void **state) {
    (void)state;
    uint8_t pid[32];
    porep_id_of(pid, 5);
    czk_porep_graph *g0, *g1;
    czk_err err;
    czk_assert_ok(czk_porep_graph_create(&g0, 4096, pid, CZK_POREP_API_1_0, NULL, &err), &err);
    czk_assert_ok(czk_porep_graph_create(&g1, 4096, pid, CZK_POREP_API_1_1, NULL, &err), &err);
    for (uint64_t v = 2; v < 4096; v += 37) {
        uint32_t a[6], b[6];
        czk_assert_ok(czk_porep_graph_base_parents(g0, v, a, &err), &err);
        czk_assert_ok(czk_porep_graph_base_parents(g1, v, b, &err), &err);
        assert_int_equal(a[5], v - 1);
        assert_int_equal(b[0], v - 1);
        assert_memory_equal(a, b + 1, 5 * sizeof *a);
        for (int i = 0; i < 6; i++)
            assert_true(a[i] < v); /* DRG parents precede the node */
    }
    czk_porep_graph_destroy(g0);
    czk_porep_graph_destroy(g1);
}

/* parent_cache.json keys (full names; sealing-vectors.md §B lists their prefixes). */
static void test_cache_ids(void **state) {
    (void)state;
    static const struct {
        uint64_t nodes, proof;
        czk_porep_api api;
        const char *id;
    } v[] = {
        {64, 0, CZK_POREP_API_1_0,
         "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899"},
        {64, 5, CZK_POREP_API_1_1,
         "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b"},
        {1 << 18, 1, CZK_POREP_API_1_0,
         "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc"},
        {1 << 18, 6, CZK_POREP_API_1_1,
         "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5"},
        {1 << 24, 2, CZK_POREP_API_1_0,
         "v28-sdr-parent-2aa9c77c3e58259481351cc4be2079cc71e1c9af39700866545c043bfa30fb42"},
        {1 << 24, 7, CZK_POREP_API_1_1,
         "v28-sdr-parent-7ba215a1d2345774ab90b8cb1158d296e409d6068819d7b8c7baf0b25d63dc34"},
        {1ULL << 30, 3, CZK_POREP_API_1_0,
         "v28-sdr-parent-e1fa5d5b811ddbd118be3412c4a8c329156b8b8acc72632bca459455b5a05a13"},
        {1ULL << 30, 8, CZK_POREP_API_1_1,
         "v28-sdr-parent-21981246c370f9d76c7a77ab273d94bde0ceb4e938292334960bce05585dc117"},
        {1ULL << 31, 4, CZK_POREP_API_1_0,
         "v28-sdr-parent-8a99e8d6b6be7ab87a56b632e6739ff201c23ea14e99737c74690f0e265574d6"},
        {1ULL << 31, 9, CZK_POREP_API_1_1,
         "v28-sdr-parent-4905486b7af19558ac3649bc6261411858b6add534438878c4ee3b29d8b9de0b"},
    };
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        czk_porep_graph *g = make(v[i].nodes, v[i].proof, v[i].api, pool);
        char id[CZK_POREP_CACHE_ID_LEN + 1];
        czk_porep_graph_cache_id(g, id);
        assert_string_equal(id, v[i].id);
        /* The shape table carries the same ids. */
        const czk_porep_shape *s = czk_porep_shape_for_size(v[i].nodes * 32);
        assert_non_null(s);
        assert_string_equal(s->parent_cache_id[v[i].api == CZK_POREP_API_1_0 ? 0 : 1], v[i].id);
        czk_porep_graph_destroy(g);
    }
    czk_pool_destroy(pool);
}

/* A naive permutation (feistel.rs permute, F hashed every time) against the tables. */
static uint64_t naive_permute(uint64_t n, uint64_t idx, const uint64_t keys[4]) {
    uint64_t next = 4;
    unsigned h = 1;
    while (next < n) {
        next *= 4;
        h++;
    }
    uint64_t rmask = ((uint64_t)1 << h) - 1, lmask = rmask << h;
    uint64_t u = idx;
    do {
        uint64_t l = (u & lmask) >> h, r = u & rmask;
        for (int i = 0; i < 3; i++) {
            uint64_t t = r;
            r = l ^ czk_porep_feistel_f(r, keys[i], rmask);
            l = t;
        }
        u = l << h | r;
    } while (u >= n);
    return u;
}

static void test_expander_vs_naive(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    /* 32GiB: 8·2^30 = 2^33 > 2^32, so API 1.0's u32 truncation shows. */
    const uint64_t nodes = 1ULL << 30;
    for (int api = 0; api < 2; api++) {
        czk_porep_graph *g =
            make(nodes, api ? 8 : 3, api ? CZK_POREP_API_1_1 : CZK_POREP_API_1_0, pool);
        uint64_t keys[4];
        czk_porep_graph_feistel_keys(g, keys);
        for (uint64_t v = 0; v < nodes; v += nodes / 61 + 12345) {
            uint32_t e[8];
            czk_assert_ok(czk_porep_graph_exp_parents(g, v, e, &err), &err);
            for (unsigned i = 0; i < 8; i++) {
                uint64_t t = naive_permute(8 * nodes, 8 * v + i, keys);
                uint32_t want = api ? (uint32_t)(t / 8) : (uint32_t)t / 8;
                assert_int_equal(e[i], want);
            }
        }
        czk_porep_graph_destroy(g);
    }
    czk_pool_destroy(pool);
}

/*
 * graph.rs test_graph_distribution_pathology: among the first 1000 nodes,
 * legacy graphs (API 1.0, 32GiB id 3, 64GiB id 4) never have an expander
 * parent >= nodes/2; V1_1 graphs (ids 8, 9) do. test_high_parent_bits: the
 * 64GiB graph for porep_id 5 (API 1.2) has an expander parent >= 2^29 among
 * nodes 0..2.
 */
static void test_pathology(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    static const struct {
        uint64_t proof, nodes;
        czk_porep_api api;
        bool pathological;
    } v[] = {
        {3, 1ULL << 30, CZK_POREP_API_1_0, true},  {4, 1ULL << 31, CZK_POREP_API_1_0, true},
        {8, 1ULL << 30, CZK_POREP_API_1_1, false}, {9, 1ULL << 31, CZK_POREP_API_1_1, false},
        {8, 1ULL << 30, CZK_POREP_API_1_2, false}, {9, 1ULL << 31, CZK_POREP_API_1_2, false},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        /* graph.rs builds these with porep_id[0] = id, i.e. the registered porep_id. */
        czk_porep_graph *g = make(v[i].nodes, v[i].proof, v[i].api, pool);
        bool large = false;
        for (uint64_t n = 0; n < 1000 && !large; n++) {
            uint32_t e[8];
            czk_assert_ok(czk_porep_graph_exp_parents(g, n, e, &err), &err);
            for (int j = 0; j < 8; j++)
                large |= e[j] >= v[i].nodes / 2;
        }
        assert_int_equal(large, !v[i].pathological);
        czk_porep_graph_destroy(g);
    }
    czk_porep_graph *g = make(1ULL << 31, 5, CZK_POREP_API_1_2, pool);
    bool high = false;
    for (uint64_t n = 0; n < 3; n++) {
        uint32_t e[8];
        czk_assert_ok(czk_porep_graph_exp_parents(g, n, e, &err), &err);
        for (int j = 0; j < 8; j++)
            high |= e[j] >= (1u << 29);
    }
    assert_true(high);
    czk_porep_graph_destroy(g);
    czk_pool_destroy(pool);
}

/* fill_cache (threaded, any range) equals the per-node parents. */
static void test_fill_matches_parents(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(4, &err);
    const uint64_t nodes = 1 << 14, first = 1000, count = 9000;
    czk_porep_graph *g = make(nodes, 7, CZK_POREP_API_1_1, pool);
    uint32_t *a = malloc(count * 14 * sizeof *a), *b = malloc(count * 14 * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    czk_assert_ok(czk_porep_graph_fill_cache(g, first, count, a, pool, &err), &err);
    czk_assert_ok(czk_porep_graph_fill_cache(g, first, count, b, NULL, &err), &err);
    assert_memory_equal(a, b, count * 14 * sizeof *a);
    for (uint64_t v = first; v < first + count; v += 97) {
        uint32_t p[14];
        czk_assert_ok(czk_porep_graph_parents(g, v, p, &err), &err);
        assert_memory_equal(p, a + 14 * (v - first), sizeof p);
    }
    free(a);
    free(b);
    czk_porep_graph_destroy(g);
    czk_pool_destroy(pool);
}

static void test_errors(void **state) {
    (void)state;
    uint8_t pid[32] = {5};
    czk_porep_graph *g = NULL;
    czk_err err;
    assert_int_equal(czk_porep_graph_create(&g, 1, pid, CZK_POREP_API_1_1, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    assert_null(g);
    assert_int_equal(czk_porep_graph_create(&g, 1ULL << 32, pid, CZK_POREP_API_1_1, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_porep_graph_create(&g, 64, pid, (czk_porep_api)7, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    czk_assert_ok(czk_porep_graph_create(&g, 64, pid, CZK_POREP_API_1_1, NULL, &err), &err);
    assert_int_equal(czk_porep_graph_nodes(g), 64);
    assert_int_equal(czk_porep_graph_api(g), CZK_POREP_API_1_1);
    uint32_t p[14];
    assert_int_equal(czk_porep_graph_parents(g, 64, p, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "node 64"));
    assert_int_equal(czk_porep_graph_fill_cache(g, 60, 5, p, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_int_equal(czk_porep_graph_fill_cache(g, 65, 0, p, NULL, &err), CZK_ERR_INVALID_ARG);
    czk_assert_ok(czk_porep_graph_fill_cache(g, 64, 0, NULL, NULL, &err), &err);
    czk_porep_graph_destroy(g);
    czk_porep_graph_destroy(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest_2kib),      cmocka_unit_test(test_digest_8mib),
        cmocka_unit_test(test_explicit_parents), cmocka_unit_test(test_predecessor_order),
        cmocka_unit_test(test_cache_ids),        cmocka_unit_test(test_expander_vs_naive),
        cmocka_unit_test(test_pathology),        cmocka_unit_test(test_fill_matches_parents),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
