/* CZK_TEST_LABELS: unit */
/* Thread pool: every index visited exactly once, nested loops run inline, worker ids in range. */
#include "support.h"
#include "czk/pool.h"

#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
    atomic_uint *hits;
    unsigned threads;
    atomic_uint bad_worker;
    czk_pool *pool;
    atomic_uint nested_total;
} ctx;

static void visit(void *arg, size_t b, size_t e, unsigned worker) {
    ctx *c = arg;
    if (worker >= c->threads) atomic_fetch_add(&c->bad_worker, 1);
    for (size_t i = b; i < e; i++) atomic_fetch_add(&c->hits[i], 1);
}

static void inner(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    ctx *c = arg;
    atomic_fetch_add(&c->nested_total, (unsigned)(e - b));
}

static void outer(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    ctx *c = arg;
    for (size_t i = b; i < e; i++) czk_pool_for(c->pool, 10, 1, inner, c);
}

static void test_pool(void **state) {
    (void)state;
    for (unsigned threads = 1; threads <= 5; threads++) {
        czk_err err;
        czk_pool *pool = czk_pool_create(threads, &err);
        assert_non_null(pool);
        assert_int_equal(czk_pool_threads(pool), threads);
        for (size_t n = 0; n < 3000; n += 997) {
            ctx c = {.threads = threads, .pool = pool};
            c.hits = calloc(n + 1, sizeof *c.hits);
            for (int rep = 0; rep < 3; rep++) czk_pool_for(pool, n, rep, visit, &c);
            for (size_t i = 0; i < n; i++) assert_int_equal(c.hits[i], 3);
            assert_int_equal(c.bad_worker, 0);
            free(c.hits);
        }
        ctx c = {.threads = threads, .pool = pool};
        czk_pool_for(pool, 50, 1, outer, &c);
        assert_int_equal(c.nested_total, 500);
        czk_pool_destroy(pool);
    }
    /* NULL pool runs serially */
    ctx c = {.threads = 1};
    c.hits = calloc(100, sizeof *c.hits);
    czk_pool_for(NULL, 100, 0, visit, &c);
    for (size_t i = 0; i < 100; i++) assert_int_equal(c.hits[i], 1);
    free(c.hits);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pool)};
    return cmocka_run_group_tests_name("util.pool", tests, NULL, NULL);
}
