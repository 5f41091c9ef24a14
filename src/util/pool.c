/*
 * A fixed set of pthreads that run one data-parallel loop at a time.
 *
 * czk_pool_for() publishes the loop (fn, arg, n, chunk size), wakes the
 * workers and works on it itself; every thread claims chunks from an atomic
 * counter until none are left, and the caller waits until all claimed chunks
 * are finished. Loops from different callers are serialized by a mutex. A
 * loop started from inside one of the pool's own tasks runs inline (a
 * thread-local marks pool threads), so nested parallelism cannot deadlock.
 */
#include "czk/pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct czk_pool {
    unsigned threads; /* including the caller */
    pthread_t *tids;
    pthread_mutex_t call_lock; /* serializes czk_pool_for callers */
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    uint64_t generation; /* bumped per loop */
    bool stop;
    /* the current loop */
    czk_pool_fn fn;
    void *arg;
    size_t n, chunk;
    atomic_size_t next;
    unsigned active; /* workers still inside the current loop */
};

static _Thread_local const czk_pool *tl_pool;

unsigned czk_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static void run_chunks(czk_pool *p, unsigned worker) {
    for (;;) {
        size_t b = atomic_fetch_add(&p->next, p->chunk);
        if (b >= p->n) break;
        size_t e = b + p->chunk < p->n ? b + p->chunk : p->n;
        p->fn(p->arg, b, e, worker);
    }
}

struct worker_arg {
    czk_pool *pool;
    unsigned index;
};

static void *worker_main(void *v) {
    struct worker_arg wa = *(struct worker_arg *)v;
    free(v);
    czk_pool *p = wa.pool;
    tl_pool = p;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop) break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        run_chunks(p, wa.index);
        pthread_mutex_lock(&p->lock);
        if (--p->active == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

czk_pool *czk_pool_create(unsigned threads, czk_err *err) {
    if (threads == 0) threads = czk_cpu_count();
    czk_pool *p = calloc(1, sizeof *p);
    if (!p) {
        czk_errf(err, CZK_ERR_NOMEM, "thread pool");
        return NULL;
    }
    p->threads = threads;
    pthread_mutex_init(&p->call_lock, NULL);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->tids = calloc(threads, sizeof *p->tids);
    if (!p->tids) {
        czk_errf(err, CZK_ERR_NOMEM, "thread pool");
        free(p);
        return NULL;
    }
    for (unsigned i = 1; i < threads; i++) {
        struct worker_arg *wa = malloc(sizeof *wa);
        int rc = wa ? 0 : -1;
        if (wa) {
            wa->pool = p;
            wa->index = i;
            rc = pthread_create(&p->tids[i], NULL, worker_main, wa);
            if (rc) free(wa);
        }
        if (rc) {
            czk_errf(err, CZK_ERR_NOMEM, "thread pool: could not start thread %u of %u: %s", i,
                     threads, strerror(rc > 0 ? rc : ENOMEM));
            p->threads = i; /* destroy joins the ones that started */
            czk_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void czk_pool_destroy(czk_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 1; i < p->threads; i++) pthread_join(p->tids[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    pthread_mutex_destroy(&p->call_lock);
    free(p->tids);
    free(p);
}

unsigned czk_pool_threads(const czk_pool *p) {
    return p ? p->threads : 1;
}

void czk_pool_for(czk_pool *p, size_t n, size_t grain, czk_pool_fn fn, void *arg) {
    if (n == 0) return;
    if (!p || p->threads == 1 || tl_pool == p || n <= (grain ? grain : 1)) {
        fn(arg, 0, n, 0);
        return;
    }
    /* About 4 chunks per thread balances load without much claiming traffic. */
    size_t chunk = n / (4 * (size_t)p->threads);
    if (chunk < grain) chunk = grain;
    if (chunk == 0) chunk = 1;
    pthread_mutex_lock(&p->call_lock);
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->chunk = chunk;
    atomic_store(&p->next, 0);
    p->active = p->threads - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    const czk_pool *saved = tl_pool;
    tl_pool = p;
    run_chunks(p, 0);
    tl_pool = saved;

    pthread_mutex_lock(&p->lock);
    while (p->active) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_unlock(&p->call_lock);
}
