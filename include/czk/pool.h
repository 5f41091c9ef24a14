/*
 * czk — a small pthreads pool for data-parallel loops.
 *
 * The caller sizes it; there is no global pool. czk_pool_for() splits
 * [0, n) into chunks of at least `grain` items, runs them on the workers and
 * on the calling thread, and returns when all are done. A call made from
 * inside a task of the same pool runs serially on that thread (no deadlock),
 * and a NULL pool means "run serially here". Calls from different threads on
 * one pool are serialized: a second caller waits for the first loop to end.
 */
#ifndef CZK_POOL_H
#define CZK_POOL_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_pool czk_pool;

/*
 * Runs items [begin, end) of a loop. `worker` is a dense index in
 * [0, czk_pool_threads(pool)) (the calling thread is 0), usable to pick
 * per-thread scratch space.
 */
typedef void (*czk_pool_fn)(void *arg, size_t begin, size_t end, unsigned worker);

/*
 * Creates a pool that runs loops on `threads` threads in all (the calling
 * thread included, so threads - 1 workers are started). src/util/pool.c.
 * Args: threads  0 means czk_cpu_count().
 * Returns: the pool (czk_pool_destroy); NULL with err CZK_ERR_NOMEM "thread
 *   pool..." when memory or a thread cannot be had (pthread_create's
 *   reason in the message; the threads already started are joined).
 */
czk_pool *czk_pool_create(unsigned threads, czk_err *err);
/*
 * Stops and joins the workers and frees the pool; no loop may be running on
 * it. NULL is allowed.
 */
void czk_pool_destroy(czk_pool *pool);
/* Threads a loop runs on (>= 1); 1 for a NULL pool. */
unsigned czk_pool_threads(const czk_pool *pool);

/*
 * Runs fn over [0, n) in chunks of >= grain items (grain 0 = pick one;
 * about 4 chunks per thread) and returns when all are done. Serially on
 * the calling thread (one call fn(arg, 0, n, 0)) for a NULL or one-thread
 * pool, a call from inside a task of the same pool, or n <= grain; nothing
 * for n = 0. Never fails: fn reports its own errors (through arg).
 */
void czk_pool_for(czk_pool *pool, size_t n, size_t grain, czk_pool_fn fn, void *arg);

/* Online CPUs (sysconf(_SC_NPROCESSORS_ONLN)), at least 1. Never fails. */
unsigned czk_cpu_count(void);

#ifdef __cplusplus
}
#endif
#endif
