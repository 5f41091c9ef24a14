/*
 * A counting stand-in for a backend's host_alloc/host_free (page-locked
 * memory on a GPU): malloc'ed blocks, each remembered with its size, so that
 * a test can check that witnesses lie in blocks the backend gave out, how
 * many were allocated, and that every one came back once with its size.
 */
#ifndef CZK_TEST_HOST_BLOCKS_H
#define CZK_TEST_HOST_BLOCKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define HB_MAX 64

typedef struct host_blocks {
    pthread_mutex_t mu;
    void *block[HB_MAX];
    size_t bytes[HB_MAX];
    bool live[HB_MAX];
    int allocs, frees, bad_frees; /* bad: not one of ours, freed twice, or another size */
} host_blocks;

static inline void hb_init(host_blocks *h) {
    pthread_mutex_init(&h->mu, NULL);
    h->allocs = h->frees = h->bad_frees = 0;
}

static inline void *hb_alloc(host_blocks *h, size_t bytes) {
    pthread_mutex_lock(&h->mu);
    void *p = h->allocs < HB_MAX ? malloc(bytes) : NULL;
    if (p) {
        h->block[h->allocs] = p;
        h->bytes[h->allocs] = bytes;
        h->live[h->allocs++] = true;
    }
    pthread_mutex_unlock(&h->mu);
    return p;
}

static inline void hb_free(host_blocks *h, void *p, size_t bytes) {
    pthread_mutex_lock(&h->mu);
    int i = 0;
    while (i < h->allocs && !(h->live[i] && h->block[i] == p))
        i++;
    if (i == h->allocs || h->bytes[i] != bytes) {
        h->bad_frees++;
    } else {
        h->live[i] = false;
        h->frees++;
        free(p);
    }
    pthread_mutex_unlock(&h->mu);
}

/* True if [p, p + n) lies in a live block. */
static inline bool hb_contains(host_blocks *h, const void *p, size_t n) {
    bool ok = false;
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < h->allocs && !ok; i++)
        ok = h->live[i] && (const uint8_t *)p >= (const uint8_t *)h->block[i] &&
             (const uint8_t *)p + n <= (const uint8_t *)h->block[i] + h->bytes[i];
    pthread_mutex_unlock(&h->mu);
    return ok;
}

#endif
