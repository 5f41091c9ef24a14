/* CZK_TEST_LABELS: slow */
/* CZK_TEST_TIMEOUT: 1800 */
/*
 * Whole 512MiB parent caches (2^24 nodes, 896 MiB each, hashed in chunks)
 * against parent_cache.json (sealing-vectors.md §B).
 */
#include "support.h"

#include <string.h>

#include "czk/porep_graph.h"
#include "czk/pool.h"

static void check(czk_pool *pool, uint64_t proof, czk_porep_api api, const char *hex) {
    uint8_t pid[32] = {0}, want[32], got[32];
    pid[0] = (uint8_t)proof;
    czk_test_hex(want, 32, hex);
    czk_porep_graph *g;
    czk_err err;
    czk_assert_ok(czk_porep_graph_create(&g, 1ULL << 24, pid, api, pool, &err), &err);
    czk_assert_ok(czk_porep_graph_cache_digest(g, pool, got, &err), &err);
    assert_memory_equal(got, want, 32);
    czk_porep_graph_destroy(g);
}

static void test_digest_512mib(void **state) {
    (void)state;
    czk_err err;
    czk_pool *pool = czk_pool_create(0, &err);
    assert_non_null(pool);
    /* StackedDrg512MiBV1_1 (id 7), then StackedDrg512MiBV1 (id 2). */
    check(pool, 7, CZK_POREP_API_1_1,
          "b5877d1963793efebc261fd8fde4dd6bc59e6b5c7abf52617a4ee023b8dc173a");
    check(pool, 2, CZK_POREP_API_1_0,
          "3adcc092423aa76d6a7184016893406da44dd974b219a89cd3ece25e4e3018f5");
    czk_pool_destroy(pool);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_digest_512mib)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
