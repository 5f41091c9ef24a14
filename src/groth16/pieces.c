/*
 * Parameter files in 64 MiB pieces: the tree digest, a reader that reads
 * ahead and hashes while the caller decodes, and a writer that hashes and
 * writes while the caller encodes.
 *
 * A 44 GiB file hashed with BLAKE2b-512 on one thread takes ~50 s (libb2
 * runs at ~0.8–1 GB/s per core), more than reading or decoding it on 16
 * cores. The tree digest (include/czk/groth16.h) hashes fixed pieces of the
 * file independently, so both sides run it on several threads: the reader
 * and the writer keep a small ring of piece buffers (CZK_TREE_PIECE_BYTES
 * each) and hand every complete piece to hasher threads of their own (not
 * the caller's pool, which decodes or encodes at the same time). The
 * plain digest, which only the published-digest check needs, is a thread
 * of its own that hashes the pieces in order, when asked for.
 *
 * Reader: a loader thread read(2)s the pieces in order into free buffers
 * (read-ahead up to the ring's size); the caller asks for byte ranges in
 * non-decreasing order and gets a pointer into a piece, or into a bounce
 * buffer when the range straddles two pieces. A buffer is reused once the
 * caller has moved past it and every hasher is done with it.
 *
 * Parallel raw read (encoded vectors, czk_g16_read_segments): no ring and
 * no loader; the pool's threads claim whole pieces in file order and
 * pread(2) each one, in 1 MiB steps hashed while in the cache, straight
 * into its final place (the parameter arrays), so that reading and hashing
 * scale with the threads and no byte is copied twice.
 *
 * Writer: the caller asks for space (the rest of the current piece plus a
 * little slack, so that a point may run over the piece's end), fills it and
 * commits what it wrote; a full piece (its overflow copied into the next
 * buffer) goes to the worker threads, which hash it and pwrite(2) it at its
 * offset. The file is created under a temporary name, its size reserved
 * with fallocate, and synced and renamed on close.
 */
#define _GNU_SOURCE /* mkostemp, fallocate */
#include "groth16/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE ((size_t)CZK_TREE_PIECE_BYTES)
#define MAX_HASHERS 8u

unsigned czk_g16_hash_threads(void) {
    unsigned n = czk_cpu_count() / 2;
    return n < 1 ? 1 : n > MAX_HASHERS ? MAX_HASHERS : n;
}

static uint64_t npieces_of(uint64_t size) {
    return (size + PIECE - 1) / PIECE;
}

static size_t piece_len(uint64_t size, uint64_t k) {
    uint64_t b = k * PIECE;
    return (size_t)(size - b < PIECE ? size - b : PIECE);
}

static void tree_final(uint8_t out[64], const uint8_t (*digests)[64], uint64_t n) {
    blake2b_state st;
    blake2b_init(&st, 64);
    if (n) blake2b_update(&st, (const uint8_t *)digests, (size_t)n * 64);
    blake2b_final(&st, out, 64);
}

/* ---- the tree digest of a buffer ---- */

typedef struct tree_job {
    const uint8_t *data;
    size_t len;
    uint8_t (*d)[64];
} tree_job;

static void tree_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    tree_job *j = arg;
    for (size_t k = b; k < e; k++)
        blake2b(j->d[k], j->data + k * PIECE, NULL, 64, piece_len(j->len, k), 0);
}

czk_status czk_tree_digest(uint8_t out[64], const void *data, size_t len, czk_pool *pool,
                           czk_err *err) {
    uint64_t n = npieces_of(len);
    uint8_t(*d)[64] = malloc((n ? n : 1) * 64);
    if (!d) return czk_errf(err, CZK_ERR_NOMEM, "tree digest: %llu pieces", (unsigned long long)n);
    tree_job j = {data, len, d};
    czk_pool_for(pool, n, 1, tree_fn, &j);
    tree_final(out, (const uint8_t(*)[64])d, n);
    free(d);
    return CZK_OK;
}

/* ---- the reader ---- */

typedef struct rd_buf {
    uint8_t *p;
    uint64_t piece;
    unsigned refs; /* 0: free; else the caller, the tree hasher and the plain hasher to come */
    bool loaded;
} rd_buf;

struct czk_g16_reader {
    int fd;
    uint64_t size, npieces;
    bool plain;
    rd_buf *b;
    unsigned nb;
    uint8_t *bounce;
    size_t bounce_cap;
    uint64_t held_from; /* the caller holds pieces >= held_from that are loaded */
    uint8_t (*digests)[64];
    blake2b_state pst;
    /* threads */
    pthread_t loader, plain_tid, *tree_tid;
    unsigned ntree, started_tree;
    bool loader_started, plain_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next_load, next_tree, next_plain;
    bool stop;
    czk_status load_st; /* the loader's failure, if any */
    czk_err load_err;
};

static rd_buf *rd_find(czk_g16_reader *r, uint64_t piece) {
    for (unsigned i = 0; i < r->nb; i++)
        if (r->b[i].refs && r->b[i].piece == piece) return &r->b[i];
    return NULL;
}

/* Drops one reference (mu held). */
static void rd_unref(czk_g16_reader *r, rd_buf *b) {
    if (--b->refs == 0) pthread_cond_broadcast(&r->cv);
}

static czk_status rd_read_full(int fd, uint8_t *dst, size_t n, uint64_t off, uint64_t size,
                               czk_err *err) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, dst + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0)
            return czk_errf(err, CZK_ERR_IO, "read at byte %llu: %s",
                            (unsigned long long)(off + got), strerror(errno));
        if (k == 0)
            return czk_errf(err, CZK_ERR_TRUNCATED,
                            "the file ends at byte %llu, before its size when opened (%llu): it "
                            "changed while being read",
                            (unsigned long long)(off + got), (unsigned long long)size);
        got += (size_t)k;
    }
    return CZK_OK;
}

static void *rd_loader(void *v) {
    czk_g16_reader *r = v;
    pthread_mutex_lock(&r->mu);
    while (!r->stop && r->next_load < r->npieces) {
        rd_buf *b = NULL;
        for (unsigned i = 0; i < r->nb && !b; i++)
            if (r->b[i].refs == 0) b = &r->b[i];
        if (!b) {
            pthread_cond_wait(&r->cv, &r->mu);
            continue;
        }
        uint64_t k = r->next_load++;
        b->piece = k;
        b->loaded = false;
        b->refs = 2 + (r->plain ? 1 : 0);
        pthread_mutex_unlock(&r->mu);
        czk_err e;
        czk_status st = rd_read_full(r->fd, b->p, piece_len(r->size, k), k * PIECE, r->size, &e);
        pthread_mutex_lock(&r->mu);
        if (st) {
            r->load_st = st;
            r->load_err = e;
            r->stop = true;
        } else {
            b->loaded = true;
        }
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Waits for piece k to be loaded (mu held); NULL when the reader stopped. */
static rd_buf *rd_wait(czk_g16_reader *r, uint64_t k) {
    for (;;) {
        rd_buf *b = rd_find(r, k);
        if (b && b->loaded) return b;
        if (r->stop) return NULL;
        pthread_cond_wait(&r->cv, &r->mu);
    }
}

static void *rd_tree(void *v) {
    czk_g16_reader *r = v;
    pthread_mutex_lock(&r->mu);
    while (r->next_tree < r->npieces) {
        uint64_t k = r->next_tree++;
        rd_buf *b = rd_wait(r, k);
        if (!b) break;
        pthread_mutex_unlock(&r->mu);
        blake2b(r->digests[k], b->p, NULL, 64, piece_len(r->size, k), 0);
        pthread_mutex_lock(&r->mu);
        rd_unref(r, b);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void *rd_plain(void *v) {
    czk_g16_reader *r = v;
    pthread_mutex_lock(&r->mu);
    while (r->next_plain < r->npieces) {
        uint64_t k = r->next_plain;
        rd_buf *b = rd_wait(r, k);
        if (!b) break;
        pthread_mutex_unlock(&r->mu);
        blake2b_update(&r->pst, b->p, piece_len(r->size, k));
        pthread_mutex_lock(&r->mu);
        r->next_plain++;
        rd_unref(r, b);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void rd_stop_join(czk_g16_reader *r) {
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->loader_started) pthread_join(r->loader, NULL);
    if (r->plain_started) pthread_join(r->plain_tid, NULL);
    for (unsigned i = 0; i < r->started_tree; i++)
        pthread_join(r->tree_tid[i], NULL);
    r->loader_started = r->plain_started = false;
    r->started_tree = 0;
}

static void rd_free(czk_g16_reader *r) {
    for (unsigned i = 0; i < r->nb; i++)
        free(r->b[i].p);
    free(r->b);
    free(r->bounce);
    free(r->digests);
    free(r->tree_tid);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

czk_status czk_g16_reader_open(czk_g16_reader **out, int fd, uint64_t size, bool plain,
                               czk_err *err) {
    *out = NULL;
    czk_g16_reader *r = calloc(1, sizeof *r);
    if (!r) return czk_errf(err, CZK_ERR_NOMEM, "params: out of memory");
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->fd = fd;
    r->size = size;
    r->npieces = npieces_of(size);
    r->plain = plain;
    r->ntree = czk_g16_hash_threads();
    uint64_t nb = r->ntree + 4;
    if (nb > r->npieces) nb = r->npieces ? r->npieces : 1;
    r->nb = (unsigned)nb;
    size_t cap = size < PIECE ? (size_t)size : PIECE;
    r->b = calloc(r->nb, sizeof *r->b);
    r->digests = malloc((r->npieces ? r->npieces : 1) * 64);
    r->tree_tid = calloc(r->ntree, sizeof *r->tree_tid);
    bool ok = r->b && r->digests && r->tree_tid;
    for (unsigned i = 0; ok && i < r->nb; i++)
        ok = (r->b[i].p = malloc(cap ? cap : 1)) != NULL;
    if (!ok) {
        rd_free(r);
        return czk_errf(err, CZK_ERR_NOMEM, "params: cannot allocate %u read buffers of %zu bytes",
                        (unsigned)nb, cap);
    }
    blake2b_init(&r->pst, 64);
    int e = pthread_create(&r->loader, NULL, rd_loader, r);
    r->loader_started = e == 0;
    if (!e && plain) {
        e = pthread_create(&r->plain_tid, NULL, rd_plain, r);
        r->plain_started = e == 0;
    }
    for (unsigned i = 0; !e && i < r->ntree; i++) {
        e = pthread_create(&r->tree_tid[i], NULL, rd_tree, r);
        if (!e) r->started_tree++;
    }
    if (e) {
        rd_stop_join(r);
        rd_free(r);
        return czk_errf(err, CZK_ERR_INTERNAL, "params: cannot start a reader thread: %s",
                        strerror(e));
    }
    *out = r;
    return CZK_OK;
}

czk_status czk_g16_reader_get(czk_g16_reader *r, uint64_t off, size_t n, const uint8_t **out,
                              czk_err *err) {
    pthread_mutex_lock(&r->mu);
    /* what the caller read before off is no longer needed */
    uint64_t first = off / PIECE;
    for (; r->held_from < first && r->held_from < r->next_load; r->held_from++) {
        rd_buf *b = rd_find(r, r->held_from);
        if (b) rd_unref(r, b);
    }
    czk_status st = CZK_OK;
    if (n == 0 || off + n > r->size) {
        pthread_mutex_unlock(&r->mu);
        static const uint8_t none[1];
        *out = none;
        if (n == 0) return CZK_OK;
        return czk_errf(err, CZK_ERR_INTERNAL, "params: read of %zu bytes at %llu past the end", n,
                        (unsigned long long)off);
    }
    uint64_t last = (off + n - 1) / PIECE;
    rd_buf *a = rd_wait(r, first), *b = a && last != first ? rd_wait(r, last) : a;
    if (!a || !b) {
        st = r->load_st ? r->load_st : CZK_ERR_INTERNAL;
        if (err) *err = r->load_st ? r->load_err : (czk_err){0};
        if (!r->load_st) czk_errf(err, CZK_ERR_INTERNAL, "params: reader stopped");
    }
    pthread_mutex_unlock(&r->mu);
    if (st) return st;
    size_t at = (size_t)(off - first * PIECE);
    if (a == b) {
        *out = a->p + at;
        return CZK_OK;
    }
    if (n > r->bounce_cap) {
        uint8_t *nb = realloc(r->bounce, n);
        if (!nb) return czk_errf(err, CZK_ERR_NOMEM, "params: cannot allocate %zu bytes", n);
        r->bounce = nb;
        r->bounce_cap = n;
    }
    size_t head = PIECE - at;
    memcpy(r->bounce, a->p + at, head);
    memcpy(r->bounce + head, b->p, n - head);
    *out = r->bounce;
    return CZK_OK;
}

czk_status czk_g16_reader_finish(czk_g16_reader *r, bool complete, uint8_t tree[64],
                                 uint8_t plain[64], czk_err *err) {
    czk_status st = CZK_OK;
    pthread_mutex_lock(&r->mu);
    for (; r->held_from < r->next_load; r->held_from++) {
        rd_buf *b = rd_find(r, r->held_from);
        if (b) rd_unref(r, b);
    }
    pthread_mutex_unlock(&r->mu);
    if (complete) {
        /* the threads end by themselves once every piece is loaded and hashed */
        if (r->loader_started) pthread_join(r->loader, NULL);
        if (r->plain_started) pthread_join(r->plain_tid, NULL);
        for (unsigned i = 0; i < r->started_tree; i++)
            pthread_join(r->tree_tid[i], NULL);
        r->loader_started = r->plain_started = false;
        r->started_tree = 0;
        if (r->load_st) {
            st = r->load_st;
            if (err) *err = r->load_err;
        } else {
            if (tree) tree_final(tree, (const uint8_t(*)[64])r->digests, r->npieces);
            if (plain && r->plain) blake2b_final(&r->pst, plain, 64);
        }
    } else {
        rd_stop_join(r);
    }
    rd_free(r);
    return st;
}

/* ---- the parallel raw read (encoded vectors) ---- */

#define SEG_STEP ((size_t)1 << 20) /* bytes per pread, hashed while still in the cache */

typedef struct seg_job {
    int fd;
    uint64_t size, npieces;
    const czk_g16_seg *seg;
    size_t nseg;
    uint8_t (*d)[64];
    atomic_uchar *done; /* per piece: read and hashed */
    atomic_uint_fast64_t next;
    atomic_bool stop;
    czk_g16_seg_progress_fn progress;
    void *ctx;
    uint64_t prefix; /* pieces done without a gap, as the calling thread last saw them */
    pthread_mutex_t mu;
    uint64_t bad; /* lowest failing piece */
    czk_status st;
    czk_err e;
} seg_job;

static czk_status seg_pread(int fd, uint8_t *dst, size_t n, uint64_t off, uint64_t size,
                            czk_err *err) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, dst + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k < 0)
            return czk_errf(err, CZK_ERR_IO, "read at byte %llu: %s",
                            (unsigned long long)(off + got), strerror(errno));
        if (k == 0)
            return czk_errf(err, CZK_ERR_TRUNCATED,
                            "the file ends at byte %llu, before its size when opened (%llu): it "
                            "changed while being read",
                            (unsigned long long)(off + got), (unsigned long long)size);
        got += (size_t)k;
    }
    return CZK_OK;
}

/* Reads and hashes piece k. */
static czk_status seg_piece(seg_job *j, uint64_t k, czk_err *err) {
    uint64_t lo = k * PIECE, hi = lo + piece_len(j->size, k);
    blake2b_state st;
    blake2b_init(&st, 64);
    for (size_t i = 0; i < j->nseg; i++) {
        const czk_g16_seg *g = &j->seg[i];
        uint64_t a = g->off > lo ? g->off : lo, b = g->off + g->len < hi ? g->off + g->len : hi;
        for (uint64_t at = a; at < b; at += SEG_STEP) {
            size_t n = (size_t)(b - at < SEG_STEP ? b - at : SEG_STEP);
            uint8_t *p = g->dst + (at - g->off);
            if (!g->have) {
                czk_status rs = seg_pread(j->fd, p, n, at, j->size, err);
                if (rs) return rs;
            }
            blake2b_update(&st, p, n);
        }
    }
    blake2b_final(&st, j->d[k], 64);
    return CZK_OK;
}

/* One runner per thread: claims pieces in order until none are left (dynamic balance). */
static void seg_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)b, (void)e;
    seg_job *j = arg;
    for (;;) {
        if (atomic_load_explicit(&j->stop, memory_order_relaxed)) return;
        uint64_t k = atomic_fetch_add(&j->next, 1);
        if (k >= j->npieces) return;
        czk_err pe;
        czk_status st = seg_piece(j, k, &pe);
        if (st) {
            pthread_mutex_lock(&j->mu);
            if (k < j->bad) {
                j->bad = k;
                j->st = st;
                j->e = pe;
            }
            pthread_mutex_unlock(&j->mu);
            atomic_store(&j->stop, true);
            return;
        }
        atomic_store_explicit(&j->done[k], 1, memory_order_release);
        if (worker == 0 && j->progress) { /* worker 0 is the calling thread (pool.h) */
            uint64_t p0 = j->prefix;
            while (j->prefix < j->npieces &&
                   atomic_load_explicit(&j->done[j->prefix], memory_order_acquire))
                j->prefix++;
            if (j->prefix > p0) {
                uint64_t bytes = j->prefix * PIECE;
                j->progress(j->ctx, bytes < j->size ? bytes : j->size);
            }
        }
    }
}

czk_status czk_g16_read_segments(int fd, uint64_t size, const czk_g16_seg *seg, size_t nseg,
                                 czk_pool *pool, czk_g16_seg_progress_fn progress, void *ctx,
                                 uint8_t tree[64], czk_err *err) {
    uint64_t at = 0;
    for (size_t i = 0; i < nseg; i++) {
        if (seg[i].off != at || (seg[i].len && !seg[i].dst))
            return czk_errf(err, CZK_ERR_INTERNAL, "params: segment %zu does not follow on", i);
        at += seg[i].len;
    }
    if (at != size)
        return czk_errf(err, CZK_ERR_INTERNAL, "params: segments cover %llu of %llu bytes",
                        (unsigned long long)at, (unsigned long long)size);
    seg_job j = {.fd = fd,
                 .size = size,
                 .npieces = npieces_of(size),
                 .seg = seg,
                 .nseg = nseg,
                 .progress = progress,
                 .ctx = ctx,
                 .bad = UINT64_MAX};
    j.d = malloc((j.npieces ? j.npieces : 1) * 64);
    j.done = calloc(j.npieces ? j.npieces : 1, sizeof *j.done);
    if (!j.d || !j.done) {
        free(j.d);
        free(j.done);
        return czk_errf(err, CZK_ERR_NOMEM, "params: %llu piece digests",
                        (unsigned long long)j.npieces);
    }
    atomic_init(&j.next, 0);
    atomic_init(&j.stop, false);
    pthread_mutex_init(&j.mu, NULL);
    unsigned runners = czk_pool_threads(pool);
    czk_pool_for(pool, runners, 1, seg_fn, &j);
    pthread_mutex_destroy(&j.mu);
    czk_status st = j.st;
    if (st) {
        if (err) *err = j.e;
    } else {
        tree_final(tree, (const uint8_t(*)[64])j.d, j.npieces);
    }
    free(j.d);
    free(j.done);
    return st;
}

/* ---- the writer ---- */

#define WR_SLACK CZK_G16_WRITER_SLACK

typedef struct wr_buf {
    uint8_t *p;
    uint64_t piece;
    int state; /* 0 free, 1 filling, 2 queued or being written */
} wr_buf;

struct czk_g16_writer {
    int fd;
    char path[PATH_MAX], tmp[PATH_MAX];
    uint64_t total, done; /* bytes committed */
    uint64_t npieces;
    uint8_t (*digests)[64];
    wr_buf *b;
    unsigned nb;
    size_t cap;
    wr_buf *cur; /* being filled: piece done / PIECE */
    czk_g16_host_alloc_fn alloc;
    czk_g16_host_free_fn release;
    void *actx;
    pthread_t *tid;
    unsigned nthreads, started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned *queue; /* indices into b, FIFO */
    unsigned qhead, qlen;
    bool stop;
    czk_status wst; /* a worker's failure */
    czk_err werr;
};

static void *wr_worker(void *v) {
    czk_g16_writer *w = v;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->qlen && !w->stop)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->qlen) break;
        wr_buf *b = &w->b[w->queue[w->qhead]];
        w->qhead = (w->qhead + 1) % w->nb;
        w->qlen--;
        bool failed = w->wst != CZK_OK;
        pthread_mutex_unlock(&w->mu);
        size_t len = piece_len(w->total, b->piece);
        czk_status st = CZK_OK;
        czk_err e;
        if (!failed) {
            blake2b(w->digests[b->piece], b->p, NULL, 64, len, 0);
            size_t put = 0;
            while (put < len) {
                ssize_t k = pwrite(w->fd, b->p + put, len - put, (off_t)(b->piece * PIECE + put));
                if (k < 0 && errno == EINTR) continue;
                if (k < 0) {
                    st = czk_errf(&e, CZK_ERR_IO, "write %s at byte %llu: %s", w->tmp,
                                  (unsigned long long)(b->piece * PIECE + put), strerror(errno));
                    break;
                }
                put += (size_t)k;
            }
        }
        pthread_mutex_lock(&w->mu);
        if (st && !w->wst) {
            w->wst = st;
            w->werr = e;
        }
        b->state = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void wr_join(czk_g16_writer *w) {
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    for (unsigned i = 0; i < w->started; i++)
        pthread_join(w->tid[i], NULL);
    w->started = 0;
}

static void wr_free(czk_g16_writer *w) {
    for (unsigned i = 0; i < w->nb && w->b; i++) {
        if (!w->b[i].p) continue;
        if (w->release)
            w->release(w->actx, w->b[i].p, w->cap);
        else
            free(w->b[i].p);
    }
    free(w->b);
    free(w->queue);
    free(w->digests);
    free(w->tid);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

void czk_g16_writer_abort(czk_g16_writer *w) {
    if (!w) return;
    wr_join(w);
    close(w->fd);
    unlink(w->tmp);
    wr_free(w);
}

czk_status czk_g16_writer_open(czk_g16_writer **out, const char *path, uint64_t total,
                               czk_g16_host_alloc_fn alloc, czk_g16_host_free_fn release,
                               void *actx, czk_err *err) {
    *out = NULL;
    czk_g16_writer *w = calloc(1, sizeof *w);
    if (!w) return czk_errf(err, CZK_ERR_NOMEM, "params %s: out of memory", path);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->fd = -1;
    w->total = total;
    w->npieces = npieces_of(total);
    w->alloc = alloc;
    w->release = release;
    w->actx = actx;
    w->nthreads = czk_g16_hash_threads();
    uint64_t nb = w->nthreads + 3;
    if (nb > w->npieces + 1) nb = w->npieces + 1;
    w->nb = (unsigned)nb;
    w->cap = (total < PIECE ? (size_t)total : PIECE) + WR_SLACK;
    if (snprintf(w->path, sizeof w->path, "%s", path) >= (int)sizeof w->path ||
        snprintf(w->tmp, sizeof w->tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof w->tmp) {
        wr_free(w);
        return czk_errf(err, CZK_ERR_INVALID_ARG, "path too long: %s", path);
    }
    w->b = calloc(w->nb, sizeof *w->b);
    w->queue = calloc(w->nb, sizeof *w->queue);
    w->digests = malloc((w->npieces ? w->npieces : 1) * 64);
    w->tid = calloc(w->nthreads, sizeof *w->tid);
    bool ok = w->b && w->queue && w->digests && w->tid;
    /* page-locked buffers where the caller offers them (a GPU copies into them), else malloc */
    for (unsigned i = 0; ok && alloc && i < w->nb; i++)
        if (!(w->b[i].p = alloc(actx, w->cap))) {
            for (unsigned j = 0; j < i; j++) {
                release(actx, w->b[j].p, w->cap);
                w->b[j].p = NULL;
            }
            w->alloc = NULL;
            w->release = NULL;
            break;
        }
    for (unsigned i = 0; ok && !w->alloc && i < w->nb; i++)
        ok = (w->b[i].p = malloc(w->cap)) != NULL;
    if (!ok) {
        wr_free(w);
        return czk_errf(err, CZK_ERR_NOMEM, "params %s: cannot allocate %u write buffers", path,
                        (unsigned)nb);
    }
    w->fd = mkostemp(w->tmp, O_CLOEXEC);
    if (w->fd < 0) {
        czk_status st = czk_errf(err, CZK_ERR_IO, "create %s: %s", w->tmp, strerror(errno));
        wr_free(w);
        return st;
    }
    czk_status st = CZK_OK;
    if (fchmod(w->fd, 0644))
        st = czk_errf(err, CZK_ERR_IO, "chmod %s: %s", w->tmp, strerror(errno));
    /* reserve the space now: a full disk fails here, not after minutes of work (a file system
     * that cannot reserve just writes) */
    if (!st && total && fallocate(w->fd, 0, 0, (off_t)total) && (errno == ENOSPC || errno == EFBIG))
        st = czk_errf(err, CZK_ERR_IO, "%s: cannot reserve %llu bytes: %s", w->tmp,
                      (unsigned long long)total, strerror(errno));
    for (unsigned i = 0; !st && i < w->nthreads; i++) {
        int e = pthread_create(&w->tid[i], NULL, wr_worker, w);
        if (e)
            st = czk_errf(err, CZK_ERR_INTERNAL, "params %s: cannot start a writer thread: %s",
                          path, strerror(e));
        else
            w->started++;
    }
    if (st) {
        czk_g16_writer_abort(w);
        return st;
    }
    *out = w;
    return CZK_OK;
}

/* A free buffer for the piece being started (mu not held); NULL if a worker failed. */
static wr_buf *wr_take(czk_g16_writer *w, uint64_t piece) {
    pthread_mutex_lock(&w->mu);
    wr_buf *b = NULL;
    while (!b && !w->wst) {
        for (unsigned i = 0; i < w->nb && !b; i++)
            if (w->b[i].state == 0) b = &w->b[i];
        if (!b && !w->wst) pthread_cond_wait(&w->cv, &w->mu);
    }
    if (b) {
        b->state = 1;
        b->piece = piece;
    }
    pthread_mutex_unlock(&w->mu);
    return b;
}

static czk_status wr_failed(czk_g16_writer *w, czk_err *err) {
    pthread_mutex_lock(&w->mu);
    czk_status st = w->wst;
    if (st && err) *err = w->werr;
    pthread_mutex_unlock(&w->mu);
    return st;
}

czk_status czk_g16_writer_reserve(czk_g16_writer *w, uint8_t **p, size_t *rest, czk_err *err) {
    if (w->done >= w->total)
        return czk_errf(err, CZK_ERR_INTERNAL, "params %s: writing past the %llu bytes announced",
                        w->path, (unsigned long long)w->total);
    uint64_t piece = w->done / PIECE;
    if (!w->cur && !(w->cur = wr_take(w, piece))) return wr_failed(w, err);
    size_t fill = (size_t)(w->done - piece * PIECE);
    *p = w->cur->p + fill;
    *rest = piece_len(w->total, piece) - fill; /* and WR_SLACK bytes beyond */
    return CZK_OK;
}

czk_status czk_g16_writer_commit(czk_g16_writer *w, size_t n, czk_err *err) {
    uint64_t piece = w->done / PIECE;
    size_t fill = (size_t)(w->done - piece * PIECE), plen = piece_len(w->total, piece);
    if (!w->cur || fill + n > plen + WR_SLACK || w->done + n > w->total)
        return czk_errf(err, CZK_ERR_INTERNAL,
                        "params %s: %zu bytes committed past the space reserved", w->path, n);
    w->done += n;
    fill += n;
    while (fill >= plen && w->cur) {
        /* the piece is complete: its overflow starts the next one, then it is queued */
        wr_buf *full = w->cur, *next = NULL;
        size_t over = fill - plen;
        w->cur = NULL;
        if (w->done < w->total) {
            if (!(next = wr_take(w, piece + 1))) {
                pthread_mutex_lock(&w->mu);
                full->state = 0;
                pthread_mutex_unlock(&w->mu);
                return wr_failed(w, err);
            }
            memcpy(next->p, full->p + plen, over);
            w->cur = next;
        }
        pthread_mutex_lock(&w->mu);
        full->state = 2;
        w->queue[(w->qhead + w->qlen) % w->nb] = (unsigned)(full - w->b);
        w->qlen++;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        piece++;
        fill = over;
        plen = w->cur ? piece_len(w->total, piece) : 0;
    }
    return wr_failed(w, err);
}

czk_status czk_g16_writer_put(czk_g16_writer *w, const void *data, size_t n, czk_err *err) {
    const uint8_t *s = data;
    while (n) {
        uint8_t *p = NULL;
        size_t rest = 0;
        czk_status st = czk_g16_writer_reserve(w, &p, &rest, err);
        if (st) return st;
        size_t k = n < rest ? n : rest;
        memcpy(p, s, k);
        if ((st = czk_g16_writer_commit(w, k, err))) return st;
        s += k;
        n -= k;
    }
    return CZK_OK;
}

czk_status czk_g16_writer_close(czk_g16_writer *w, uint8_t tree[64], czk_err *err) {
    czk_status st = CZK_OK;
    if (w->done != w->total)
        st = czk_errf(err, CZK_ERR_INTERNAL, "params %s: %llu bytes written of %llu announced",
                      w->path, (unsigned long long)w->done, (unsigned long long)w->total);
    if (!st) {
        /* the workers drain the queue before they stop */
        wr_join(w);
        st = wr_failed(w, err);
    }
    if (!st && fdatasync(w->fd))
        st = czk_errf(err, CZK_ERR_IO, "sync %s: %s", w->tmp, strerror(errno));
    if (st) {
        czk_g16_writer_abort(w);
        return st;
    }
    int fd = w->fd;
    w->fd = -1;
    if (close(fd)) st = czk_errf(err, CZK_ERR_IO, "close %s: %s", w->tmp, strerror(errno));
    if (!st && rename(w->tmp, w->path))
        st = czk_errf(err, CZK_ERR_IO, "rename %s to %s: %s", w->tmp, w->path, strerror(errno));
    if (st)
        unlink(w->tmp);
    else if (tree)
        tree_final(tree, (const uint8_t(*)[64])w->digests, w->npieces);
    wr_free(w);
    return st;
}
