/*
 * The shape file (czk's own format; little-endian throughout).
 *
 *   header, 192 bytes:
 *     0  magic "CZKSHAPE"
 *     8  u32 version (1)
 *    12  u32 num_inputs, u32 num_aux, u32 num_coeffs
 *    24  u64 num_constraints
 *    32  u64 nnz of A, B, C
 *    56  u64 popcounts of a_aux, b_input, b_aux
 *    80  u64 checksum of each of the 13 regions below (czk_hash64, seed = region number)
 *   184  u64 checksum of bytes 0..183 (seed 0x48)
 *   regions, back to back, in this order:
 *     0     coefficient table: num_coeffs × 32 bytes, canonical little-endian Fr
 *     1..3  A: row_ptr (num_constraints + 1 u64), col (nnz u32), coeff (nnz u32)
 *     4..6  B, the same
 *     7..9  C, the same
 *     10    a_aux density:   ⌈num_aux/64⌉ u64 words
 *     11    b_input density: ⌈num_inputs/64⌉ u64 words
 *     12    b_aux density:   ⌈num_aux/64⌉ u64 words
 *
 * Reading checks, in order: magic, version, the header checksum, the counts,
 * the file length against the counts (shorter: CZK_ERR_TRUNCATED), each
 * region's checksum as it arrives, then everything the prover relies on:
 * coefficients non-zero and below r, row pointers from 0, monotone, ending
 * at nnz, columns in range and strictly increasing within a row, coefficient
 * indices in the table, the finalization rows (input_i · 0 = 0), density
 * bitmaps equal to the variables present in A and B, and their popcounts.
 * Files are read with pread(2) straight into the shape's arrays (no mmap) in
 * 32 MiB pieces on a pool of threads (the online CPUs, at most 32), then the
 * 13 region checksums are computed one region per thread and the matrices
 * checked row range by row range, also in parallel; every failure is reported
 * as a serial read would report it (the first in the order above, with the
 * same message). The 32GiB shape (8.3 GiB) was 11-12 s on one thread (read
 * ~3 GB/s, checksums, then ~2.2 G non-zeros of checks); on 16 cores the read
 * is bound by the page cache copy (~10+ GB/s) and the rest by the largest
 * region's checksum (1.24 GB). Writes go to "<path>.tmp", are fsync'ed and
 * renamed into place.
 */
#include "r1cs_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHAPE_VERSION 1u
#define HEADER_BYTES 192u
#define NUM_REGIONS 13
#define HEADER_SEED 0x48u
#define CHUNK ((size_t)64 << 20)
#define READ_PIECE ((size_t)32 << 20)
#define READ_MAX_THREADS 32u
#define MAX_VARS 0x7fffffffu

typedef struct file_header {
    char magic[8];
    uint32_t version;
    uint32_t num_inputs, num_aux, num_coeffs;
    uint64_t num_constraints;
    uint64_t nnz[3];
    uint64_t popcount[3];
    uint64_t region_hash[NUM_REGIONS];
    uint64_t header_hash;
} file_header;
_Static_assert(sizeof(file_header) == HEADER_BYTES, "shape file header layout");

static const char MAGIC[8] = {'C', 'Z', 'K', 'S', 'H', 'A', 'P', 'E'};
static const char *const REGION_NAMES[NUM_REGIONS] = {
    "coefficient table", "A.row_ptr", "A.col", "A.coeff", "B.row_ptr",     "B.col",
    "B.coeff",           "C.row_ptr", "C.col", "C.coeff", "a_aux density", "b_input density",
    "b_aux density"};
static const char MAT[3] = {'A', 'B', 'C'};

/* ---- the checksum ---- */

#define K0 0x9e3779b97f4a7c15ull
#define K1 0xbf58476d1ce4e5b9ull
#define K2 0x94d049bb133111ebull

static inline uint64_t rotl64(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}
/* splitmix64's finalizer: a bijection of u64. */
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= K1;
    x ^= x >> 27;
    x *= K2;
    return x ^ (x >> 31);
}
/* Bijective in v for fixed w and in w for fixed v (K0, K1 odd). */
static inline uint64_t lane_round(uint64_t v, uint64_t w) {
    return rotl64(v + w * K1, 31) * K0;
}

typedef struct hash_state {
    uint64_t v[4], total, seed;
    uint8_t buf[32];
    size_t buflen;
} hash_state;

static void hash_init(hash_state *h, uint64_t seed) {
    memset(h, 0, sizeof *h);
    h->seed = seed;
    for (int i = 0; i < 4; i++)
        h->v[i] = seed + (uint64_t)(i + 1) * K2;
}

static inline uint64_t load64(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static void hash_blocks(hash_state *h, const uint8_t *p, size_t nblocks) {
    uint64_t v0 = h->v[0], v1 = h->v[1], v2 = h->v[2], v3 = h->v[3];
    for (size_t i = 0; i < nblocks; i++, p += 32) {
        v0 = lane_round(v0, load64(p));
        v1 = lane_round(v1, load64(p + 8));
        v2 = lane_round(v2, load64(p + 16));
        v3 = lane_round(v3, load64(p + 24));
    }
    h->v[0] = v0, h->v[1] = v1, h->v[2] = v2, h->v[3] = v3;
}

static void hash_update(hash_state *h, const void *data, size_t len) {
    const uint8_t *p = data;
    h->total += len;
    if (h->buflen) {
        size_t take = 32 - h->buflen < len ? 32 - h->buflen : len;
        memcpy(h->buf + h->buflen, p, take);
        h->buflen += take;
        p += take;
        len -= take;
        if (h->buflen < 32) return;
        hash_blocks(h, h->buf, 1);
        h->buflen = 0;
    }
    hash_blocks(h, p, len / 32);
    p += len / 32 * 32;
    len %= 32;
    memcpy(h->buf, p, len);
    h->buflen = len;
}

static uint64_t hash_final(const hash_state *h) {
    uint64_t x = h->seed ^ (h->total * K1);
    for (int i = 0; i < 4; i++)
        x = rotl64(x ^ mix64(h->v[i]), 29) * K0;
    size_t i = 0;
    for (; i + 8 <= h->buflen; i += 8)
        x = rotl64(x ^ mix64(load64(h->buf + i)), 29) * K0;
    if (i < h->buflen) {
        uint8_t last[8] = {0};
        memcpy(last, h->buf + i, h->buflen - i);
        x = rotl64(x ^ mix64(load64(last)), 29) * K0;
    }
    return mix64(x);
}

uint64_t czk_hash64(const void *data, size_t len, uint64_t seed) {
    hash_state h;
    hash_init(&h, seed);
    hash_update(&h, data, len);
    return hash_final(&h);
}

/* ---- layout ---- */

/* Region sizes in bytes from the header's counts; false if they overflow. */
static bool region_sizes(const file_header *h, uint64_t size[NUM_REGIONS], uint64_t *total) {
    uint64_t rp;
    if (h->num_constraints == UINT64_MAX || __builtin_mul_overflow(h->num_constraints + 1, 8, &rp))
        return false;
    size[0] = (uint64_t)h->num_coeffs * 32;
    for (int m = 0; m < 3; m++) {
        size[1 + 3 * m] = rp;
        if (__builtin_mul_overflow(h->nnz[m], 4, &size[2 + 3 * m])) return false;
        size[3 + 3 * m] = size[2 + 3 * m];
    }
    size[10] = ((uint64_t)h->num_aux + 63) / 64 * 8;
    size[11] = ((uint64_t)h->num_inputs + 63) / 64 * 8;
    size[12] = size[10];
    uint64_t t = HEADER_BYTES;
    for (int i = 0; i < NUM_REGIONS; i++)
        if (__builtin_add_overflow(t, size[i], &t)) return false;
    *total = t;
    return true;
}

/* The region's bytes in memory (the coefficient table is converted separately). */
static const void *region_ptr(const czk_shape *s, int r) {
    if (r >= 1 && r <= 9) {
        const czk_csr *m = &s->m[(r - 1) / 3];
        switch ((r - 1) % 3) {
        case 0:
            return m->row_ptr;
        case 1:
            return m->col;
        default:
            return m->coeff;
        }
    }
    switch (r) {
    case 10:
        return s->a_aux.words;
    case 11:
        return s->b_input.words;
    case 12:
        return s->b_aux.words;
    default:
        return NULL;
    }
}

static void header_from_shape(file_header *h, const czk_shape *s) {
    memset(h, 0, sizeof *h);
    memcpy(h->magic, MAGIC, 8);
    h->version = SHAPE_VERSION;
    h->num_inputs = s->num_inputs;
    h->num_aux = s->num_aux;
    h->num_coeffs = s->num_coeffs;
    h->num_constraints = s->num_constraints;
    for (int m = 0; m < 3; m++)
        h->nnz[m] = s->m[m].nnz;
    h->popcount[0] = s->a_aux.popcount;
    h->popcount[1] = s->b_input.popcount;
    h->popcount[2] = s->b_aux.popcount;
}

/* ---- writing ---- */

typedef struct sink {
    int fd;       /* -1: memory */
    uint8_t *buf; /* memory sink */
    uint64_t pos;
    const char *path;
} sink;

static czk_status sink_write(sink *o, const void *data, uint64_t len, czk_err *err) {
    if (o->fd < 0) {
        if (len) memcpy(o->buf + o->pos, data, len);
        o->pos += len;
        return CZK_OK;
    }
    const uint8_t *p = data;
    while (len) {
        size_t n = len < ((size_t)1 << 30) ? (size_t)len : (size_t)1 << 30;
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return czk_errf(err, CZK_ERR_IO, "write %s: %s", o->path, strerror(errno));
        }
        p += w;
        len -= (uint64_t)w;
        o->pos += (uint64_t)w;
    }
    return CZK_OK;
}

/* Writes all regions after the header, filling h->region_hash. */
static czk_status write_regions(const czk_shape *s, file_header *h,
                                const uint64_t size[NUM_REGIONS], sink *o, czk_err *err) {
    /* region 0: canonical bytes, converted a piece at a time */
    hash_state hs;
    hash_init(&hs, 0);
    uint8_t tmp[32 * 256];
    for (uint32_t i = 0; i < s->num_coeffs;) {
        uint32_t n = s->num_coeffs - i < 256 ? s->num_coeffs - i : 256;
        for (uint32_t j = 0; j < n; j++)
            czk_fr_to_bytes(tmp + 32 * j, &s->coeffs[i + j]);
        hash_update(&hs, tmp, 32 * (size_t)n);
        czk_status st = sink_write(o, tmp, 32 * (uint64_t)n, err);
        if (st) return st;
        i += n;
    }
    h->region_hash[0] = hash_final(&hs);
    for (int r = 1; r < NUM_REGIONS; r++) {
        const uint8_t *p = region_ptr(s, r);
        hash_init(&hs, (uint64_t)r);
        for (uint64_t off = 0; off < size[r]; off += CHUNK) {
            size_t n = size[r] - off < CHUNK ? (size_t)(size[r] - off) : CHUNK;
            hash_update(&hs, p + off, n);
            czk_status st = sink_write(o, p + off, n, err);
            if (st) return st;
        }
        h->region_hash[r] = hash_final(&hs);
    }
    return CZK_OK;
}

static void seal_header(file_header *h) {
    h->header_hash = czk_hash64(h, offsetof(file_header, header_hash), HEADER_SEED);
}

czk_status czk_shape_encode(const czk_shape *s, uint8_t **out, size_t *out_len, czk_err *err) {
    *out = NULL;
    *out_len = 0;
    file_header h;
    header_from_shape(&h, s);
    uint64_t size[NUM_REGIONS], total;
    if (!region_sizes(&h, size, &total) || total > SIZE_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "shape too large to encode in memory");
    uint8_t *buf = malloc(total);
    if (!buf)
        return czk_errf(err, CZK_ERR_NOMEM, "out of memory encoding a %llu-byte shape",
                        (unsigned long long)total);
    sink o = {.fd = -1, .buf = buf, .pos = HEADER_BYTES};
    czk_status st = write_regions(s, &h, size, &o, err);
    if (st) {
        free(buf);
        return st;
    }
    seal_header(&h);
    memcpy(buf, &h, HEADER_BYTES);
    *out = buf;
    *out_len = total;
    return CZK_OK;
}

czk_status czk_shape_write(const czk_shape *s, const char *path, czk_err *err) {
    file_header h;
    header_from_shape(&h, s);
    uint64_t size[NUM_REGIONS], total;
    if (!region_sizes(&h, size, &total))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "shape counts overflow the file format");
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp) return czk_errf(err, CZK_ERR_NOMEM, "out of memory");
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        czk_status st = czk_errf(err, CZK_ERR_IO, "open %s: %s", tmp, strerror(errno));
        free(tmp);
        return st;
    }
    sink o = {.fd = fd, .path = tmp};
    file_header blank;
    memset(&blank, 0, sizeof blank);
    czk_status st = sink_write(&o, &blank, HEADER_BYTES, err);
    if (!st) st = write_regions(s, &h, size, &o, err);
    if (!st) {
        seal_header(&h);
        ssize_t w = pwrite(fd, &h, HEADER_BYTES, 0);
        if (w != (ssize_t)HEADER_BYTES)
            st = czk_errf(err, CZK_ERR_IO, "write %s: %s", tmp,
                          w < 0 ? strerror(errno) : "short write");
    }
    if (!st && fdatasync(fd) != 0)
        st = czk_errf(err, CZK_ERR_IO, "fsync %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && !st) st = czk_errf(err, CZK_ERR_IO, "close %s: %s", tmp, strerror(errno));
    if (!st && rename(tmp, path) != 0)
        st = czk_errf(err, CZK_ERR_IO, "rename %s to %s: %s", tmp, path, strerror(errno));
    if (st) unlink(tmp);
    free(tmp);
    return st;
}

/* ---- reading ---- */

typedef struct source {
    const uint8_t *buf; /* memory source, or NULL */
    int fd;
    uint64_t len;
    const char *what; /* for messages: the path or "shape" */
} source;

/* Reads n bytes at offset at: CZK_OK, CZK_ERR_IO (*errnum set) or CZK_ERR_TRUNCATED (the end
 * came first: the length was checked, so the file changed under us). No message. */
static czk_status read_at(const source *s, void *dst, size_t n, uint64_t at, int *errnum) {
    if (s->buf) {
        if (at > s->len || n > s->len - at) return CZK_ERR_TRUNCATED;
        if (n) memcpy(dst, s->buf + at, n);
        return CZK_OK;
    }
    uint8_t *p = dst;
    while (n) {
        size_t k = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
        ssize_t r = pread(s->fd, p, k, (off_t)at);
        if (r < 0) {
            if (errno == EINTR) continue;
            *errnum = errno;
            return CZK_ERR_IO;
        }
        if (r == 0) return CZK_ERR_TRUNCATED;
        p += r;
        n -= (size_t)r;
        at += (uint64_t)r;
    }
    return CZK_OK;
}

/* The message of a failed read_at in region r (-1: the header). */
static czk_status read_error(const source *s, czk_status st, int errnum, int region, czk_err *err) {
    if (st == CZK_ERR_IO)
        return czk_errf(err, CZK_ERR_IO, "read %s: %s", s->what, strerror(errnum));
    return czk_errf(err, CZK_ERR_TRUNCATED, "%s: ends inside %s", s->what,
                    region < 0 ? "the header" : REGION_NAMES[region]);
}

/*
 * The regions are read in pieces (piece_bytes each, the last of a region shorter) on the
 * pool's threads with pread (or memcpy from a buffer), straight into the shape's arrays;
 * then each region's checksum is computed over its array, one region per thread, the
 * largest first. Failures are reported afterwards in file order, region by region (a read
 * error of a region before its checksum), which is the order of a serial read.
 */
typedef struct piece {
    uint8_t *dst;
    uint64_t at; /* offset in the source */
    size_t n;
    int region;
    czk_status st; /* of its read_at */
    int errnum;
} piece;

typedef struct loader {
    const source *src;
    piece *pieces;
    uint8_t *dst[NUM_REGIONS];
    uint64_t size[NUM_REGIONS];
    uint64_t hash[NUM_REGIONS];
    int order[NUM_REGIONS]; /* regions by size, largest first */
} loader;

static void load_pieces(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    loader *l = arg;
    for (size_t i = b; i < e; i++) {
        piece *p = &l->pieces[i];
        p->st = read_at(l->src, p->dst, p->n, p->at, &p->errnum);
    }
}

static void hash_regions(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    loader *l = arg;
    for (size_t i = b; i < e; i++) {
        int r = l->order[i];
        l->hash[r] = czk_hash64(l->dst[r], (size_t)l->size[r], (uint64_t)r);
    }
}

static czk_status load_regions(const source *src, uint8_t *const dst[NUM_REGIONS],
                               const uint64_t size[NUM_REGIONS], const file_header *h, bool verify,
                               czk_pool *pool, const czk_shape_read_opts *o, czk_err *err) {
    size_t piece_bytes = o->piece_bytes ? o->piece_bytes : READ_PIECE;
    loader l;
    memset(&l, 0, sizeof l);
    l.src = src;
    size_t np = 0;
    for (int r = 0; r < NUM_REGIONS; r++)
        np += (size_t)((size[r] + piece_bytes - 1) / piece_bytes);
    l.pieces = calloc(np ? np : 1, sizeof *l.pieces);
    if (!l.pieces) return czk_errf(err, CZK_ERR_NOMEM, "out of memory reading %s", src->what);
    uint64_t at = HEADER_BYTES;
    size_t k = 0;
    for (int r = 0; r < NUM_REGIONS; r++) {
        l.dst[r] = dst[r];
        l.size[r] = size[r];
        l.order[r] = r;
        for (uint64_t off = 0; off < size[r]; off += piece_bytes, k++) {
            l.pieces[k].dst = dst[r] + off;
            l.pieces[k].at = at + off;
            l.pieces[k].n = size[r] - off < piece_bytes ? (size_t)(size[r] - off) : piece_bytes;
            l.pieces[k].region = r;
        }
        at += size[r];
    }
    czk_pool_for(pool, np, 1, load_pieces, &l);
    if (verify) {
        for (int i = 1; i < NUM_REGIONS; i++) /* largest first: the longest runs start first */
            for (int j = i; j > 0 && size[l.order[j]] > size[l.order[j - 1]]; j--) {
                int t = l.order[j];
                l.order[j] = l.order[j - 1];
                l.order[j - 1] = t;
            }
        czk_pool_for(pool, NUM_REGIONS, 1, hash_regions, &l);
    }
    czk_status st = CZK_OK;
    k = 0;
    for (int r = 0; r < NUM_REGIONS && !st; r++) {
        for (; k < np && l.pieces[k].region == r && !st; k++)
            if (l.pieces[k].st) st = read_error(src, l.pieces[k].st, l.pieces[k].errnum, r, err);
        if (!st && verify && l.hash[r] != h->region_hash[r])
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: checksum mismatch in %s", src->what,
                          REGION_NAMES[r]);
    }
    free(l.pieces);
    return st;
}

static czk_status check_header(const file_header *h, const char *what, czk_err *err) {
    if (h->num_inputs == 0)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: num_inputs is 0 (ONE is always input 0)", what);
    if (h->num_inputs > MAX_VARS)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: num_inputs %u exceeds 2^31 - 1", what,
                        h->num_inputs);
    if (h->num_aux > MAX_VARS)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: num_aux %u exceeds 2^31 - 1", what, h->num_aux);
    if (h->num_constraints < h->num_inputs)
        return czk_errf(
            err, CZK_ERR_FORMAT,
            "%s: num_constraints %llu is below num_inputs %u (finalization rows missing)", what,
            (unsigned long long)h->num_constraints, h->num_inputs);
    if (h->popcount[0] > h->num_aux || h->popcount[1] > h->num_inputs ||
        h->popcount[2] > h->num_aux)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: a density popcount exceeds its variable count",
                        what);
    return CZK_OK;
}

/*
 * The matrices are checked row range by row range on the pool's threads: each range stops
 * at its first failure and records it, and the failure reported is the first in the
 * serial order (matrix A, B, C; within one, by row). The same pass marks the variables
 * that A and B use (atomic OR into shared bitmaps: ranges of rows touch mostly their own
 * words), which are then compared with the stored densities word range by word range.
 */
enum { ROW_OK, ROW_MONOTONE, ROW_COL_RANGE, ROW_COL_ORDER, ROW_COEFF };

typedef struct row_fail {
    int kind;
    uint64_t row, k;
} row_fail;

typedef struct row_scan {
    const czk_shape *s;
    uint64_t rows_per_task, tasks_per_matrix;
    row_fail *fail;            /* per task */
    _Atomic uint64_t *want[3]; /* variables used: aux in A, inputs in B, aux in B */
} row_scan;

#define SCAN_TASKS 64 /* row ranges per matrix */
#define SCAN_MIN_ROWS (1u << 14)
#define CMP_WORDS 4096 /* density words per range */

static inline void mark(_Atomic uint64_t *bm, uint64_t i) {
    _Atomic uint64_t *w = &bm[i >> 6];
    uint64_t bit = 1ull << (i & 63);
    if (!(atomic_load_explicit(w, memory_order_relaxed) & bit))
        atomic_fetch_or_explicit(w, bit, memory_order_relaxed);
}

static void scan_rows(void *arg, size_t tb, size_t te, unsigned worker) {
    (void)worker;
    const row_scan *rs = arg;
    const czk_shape *s = rs->s;
    const uint64_t n = s->num_constraints, ncols = (uint64_t)s->num_inputs + s->num_aux;
    const uint32_t ni = s->num_inputs, nc = s->num_coeffs;
    for (size_t t = tb; t < te; t++) {
        int mi = (int)(t / rs->tasks_per_matrix);
        uint64_t r0 = (t % rs->tasks_per_matrix) * rs->rows_per_task;
        uint64_t r1 = n - r0 < rs->rows_per_task ? n : r0 + rs->rows_per_task;
        const czk_csr *m = &s->m[mi];
        const uint64_t *rp = m->row_ptr;
        const uint32_t *col = m->col, *coeff = m->coeff;
        _Atomic uint64_t *wa = mi == 0 ? rs->want[0] : NULL;
        _Atomic uint64_t *wbi = mi == 1 ? rs->want[1] : NULL, *wba = mi == 1 ? rs->want[2] : NULL;
        row_fail f = {ROW_OK, 0, 0};
        for (uint64_t r = r0; r < r1 && !f.kind; r++) {
            uint64_t b = rp[r], e = rp[r + 1];
            if (e < b || e > m->nnz) {
                f = (row_fail){ROW_MONOTONE, r, 0};
                break;
            }
            for (uint64_t k = b; k < e; k++) {
                uint32_t c = col[k];
                int kind = c >= ncols                 ? ROW_COL_RANGE
                           : k > b && c <= col[k - 1] ? ROW_COL_ORDER
                           : coeff[k] >= nc           ? ROW_COEFF
                                                      : ROW_OK;
                if (kind) {
                    f = (row_fail){kind, r, k};
                    break;
                }
                if (wa) {
                    if (c >= ni) mark(wa, c - ni);
                } else if (wbi) {
                    if (c < ni)
                        mark(wbi, c);
                    else
                        mark(wba, c - ni);
                }
            }
        }
        rs->fail[t] = f;
    }
}

typedef struct bm_cmp {
    _Atomic uint64_t *want;
    const uint64_t *have;
    uint64_t words, per_task;
    uint64_t *first; /* per task: the first word that differs, UINT64_MAX for none */
    uint64_t *pc;    /* per task: popcount of the stored words */
} bm_cmp;

static void cmp_words(void *arg, size_t tb, size_t te, unsigned worker) {
    (void)worker;
    bm_cmp *c = arg;
    for (size_t t = tb; t < te; t++) {
        uint64_t w0 = t * c->per_task,
                 w1 = c->words - w0 < c->per_task ? c->words : w0 + c->per_task;
        uint64_t first = UINT64_MAX, pc = 0;
        for (uint64_t w = w0; w < w1; w++) {
            if (first == UINT64_MAX &&
                atomic_load_explicit(&c->want[w], memory_order_relaxed) != c->have[w])
                first = w;
            pc += (uint64_t)__builtin_popcountll(c->have[w]);
        }
        c->first[t] = first;
        c->pc[t] = pc;
    }
}

/* Compares the density a matrix implies (want) with the stored bitmap. */
static czk_status check_density(_Atomic uint64_t *want, int mi, const czk_bitmap *bm,
                                const char *name, const char *what, czk_pool *pool,
                                uint64_t per_task, czk_err *err) {
    uint64_t words = (bm->len + 63) / 64;
    size_t tasks = (size_t)((words + per_task - 1) / per_task);
    bm_cmp c = {want,
                bm->words,
                words,
                per_task,
                calloc(tasks ? tasks : 1, 8),
                calloc(tasks ? tasks : 1, 8)};
    if (!c.first || !c.pc) {
        free(c.first);
        free(c.pc);
        return czk_errf(err, CZK_ERR_NOMEM, "out of memory checking %s", name);
    }
    czk_pool_for(pool, tasks, 1, cmp_words, &c);
    czk_status st = CZK_OK;
    uint64_t pc = 0;
    for (size_t t = 0; t < tasks && !st; t++) {
        pc += c.pc[t];
        uint64_t w = c.first[t];
        if (w == UINT64_MAX) continue;
        uint64_t wv = atomic_load_explicit(&want[w], memory_order_relaxed);
        uint64_t bit = (uint64_t)__builtin_ctzll(wv ^ bm->words[w]);
        uint64_t var = w * 64 + bit;
        if (var >= bm->len)
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: %s has bit %llu set beyond its length %llu",
                          what, name, (unsigned long long)var, (unsigned long long)bm->len);
        else
            st = czk_errf(err, CZK_ERR_FORMAT,
                          "%s: %s bit %llu is %d, but matrix %c %s that variable", what, name,
                          (unsigned long long)var, (int)((bm->words[w] >> bit) & 1), MAT[mi],
                          ((wv >> bit) & 1) ? "uses" : "does not use");
    }
    free(c.first);
    free(c.pc);
    if (st) return st;
    if (pc != bm->popcount)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: %s popcount is %llu, the header says %llu", what,
                        name, (unsigned long long)pc, (unsigned long long)bm->popcount);
    return CZK_OK;
}

/* The first failure a row range recorded, as its message. */
static czk_status row_error(const czk_shape *s, int mi, const row_fail *f, const char *what,
                            czk_err *err) {
    const czk_csr *m = &s->m[mi];
    char c = MAT[mi];
    uint64_t ncols = (uint64_t)s->num_inputs + s->num_aux;
    switch (f->kind) {
    case ROW_MONOTONE:
        return czk_errf(err, CZK_ERR_FORMAT,
                        "%s: %c.row_ptr is not monotone within nnz at row %llu (%llu -> %llu, "
                        "nnz %llu)",
                        what, c, (unsigned long long)f->row, (unsigned long long)m->row_ptr[f->row],
                        (unsigned long long)m->row_ptr[f->row + 1], (unsigned long long)m->nnz);
    case ROW_COL_RANGE:
        return czk_errf(err, CZK_ERR_FORMAT, "%s: %c.col[%llu] = %u is out of range (%llu columns)",
                        what, c, (unsigned long long)f->k, m->col[f->k], (unsigned long long)ncols);
    case ROW_COL_ORDER:
        return czk_errf(err, CZK_ERR_FORMAT, "%s: %c.col is not strictly increasing in row %llu",
                        what, c, (unsigned long long)f->row);
    default:
        return czk_errf(err, CZK_ERR_FORMAT, "%s: %c.coeff[%llu] = %u is not below num_coeffs %u",
                        what, c, (unsigned long long)f->k, m->coeff[f->k], s->num_coeffs);
    }
}

/* Everything the prover relies on, once the bytes are known to be intact. */
static czk_status validate(const czk_shape *s, const char *what, czk_pool *pool,
                           const czk_shape_read_opts *o, czk_err *err) {
    for (uint32_t i = 0; i < s->num_coeffs; i++)
        if (czk_fr_is_zero(&s->coeffs[i]))
            return czk_errf(err, CZK_ERR_FORMAT, "%s: coefficient %u is zero", what, i);
    const uint64_t n = s->num_constraints; /* >= num_inputs >= 1 (check_header) */
    row_scan rs = {.s = s};
    rs.rows_per_task = o->scan_rows;
    if (!rs.rows_per_task) {
        rs.rows_per_task = (n + SCAN_TASKS - 1) / SCAN_TASKS;
        if (rs.rows_per_task < SCAN_MIN_ROWS) rs.rows_per_task = SCAN_MIN_ROWS;
    }
    rs.tasks_per_matrix = (n + rs.rows_per_task - 1) / rs.rows_per_task;
    const czk_bitmap *bms[3] = {&s->a_aux, &s->b_input, &s->b_aux};
    static const char *const names[3] = {"a_aux density", "b_input density", "b_aux density"};
    czk_status st = CZK_OK;
    rs.fail = calloc((size_t)(3 * rs.tasks_per_matrix), sizeof *rs.fail);
    if (!rs.fail) st = czk_errf(err, CZK_ERR_NOMEM, "out of memory checking %s", what);
    for (int i = 0; i < 3 && !st; i++) {
        uint64_t words = (bms[i]->len + 63) / 64;
        rs.want[i] = calloc(words ? (size_t)words : 1, sizeof *rs.want[i]);
        if (!rs.want[i]) st = czk_errf(err, CZK_ERR_NOMEM, "out of memory checking %s", names[i]);
    }
    if (!st) czk_pool_for(pool, (size_t)(3 * rs.tasks_per_matrix), 1, scan_rows, &rs);
    for (int mi = 0; mi < 3 && !st; mi++) {
        const czk_csr *m = &s->m[mi];
        char c = MAT[mi];
        if (m->row_ptr[0] != 0) {
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: %c.row_ptr[0] is %llu, not 0", what, c,
                          (unsigned long long)m->row_ptr[0]);
            break;
        }
        for (uint64_t t = 0; t < rs.tasks_per_matrix && !st; t++) {
            const row_fail *f = &rs.fail[mi * rs.tasks_per_matrix + t];
            if (f->kind) st = row_error(s, mi, f, what, err);
        }
        if (!st && m->row_ptr[n] != m->nnz)
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: %c.row_ptr ends at %llu, not at nnz %llu", what,
                          c, (unsigned long long)m->row_ptr[n], (unsigned long long)m->nnz);
    }
    /* the finalization rows: input_i · 0 = 0 */
    for (uint32_t i = 0; i < s->num_inputs && !st; i++) {
        uint64_t r = n - s->num_inputs + i;
        const czk_csr *a = &s->m[0];
        uint64_t k = a->row_ptr[r];
        bool ok = a->row_ptr[r + 1] == k + 1 && a->col[k] == i &&
                  czk_fr_is_one(&s->coeffs[a->coeff[k]]) &&
                  s->m[1].row_ptr[r + 1] == s->m[1].row_ptr[r] &&
                  s->m[2].row_ptr[r + 1] == s->m[2].row_ptr[r];
        if (!ok)
            st = czk_errf(err, CZK_ERR_FORMAT,
                          "%s: constraint %llu is not the finalization constraint input_%u * 0 = 0",
                          what, (unsigned long long)r, i);
    }
    static const int mat_of[3] = {0, 1, 1};
    for (int i = 0; i < 3 && !st; i++)
        st = check_density(rs.want[i], mat_of[i], bms[i], names[i], what, pool,
                           o->scan_words ? o->scan_words : CMP_WORDS, err);
    for (int i = 0; i < 3; i++)
        free(rs.want[i]);
    free(rs.fail);
    return st;
}

static czk_status decode(const source *src, bool verify, czk_pool *pool,
                         const czk_shape_read_opts *o, czk_shape **out, czk_err *err) {
    *out = NULL;
    const char *what = src->what;
    file_header h;
    memset(&h, 0, sizeof h);
    size_t hlen = src->len < HEADER_BYTES ? (size_t)src->len : HEADER_BYTES;
    int errnum = 0;
    czk_status st = read_at(src, &h, hlen, 0, &errnum);
    if (st) return read_error(src, st, errnum, -1, err);
    if (memcmp(h.magic, MAGIC, hlen < 8 ? hlen : 8) != 0)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: bad magic (not a czk shape file)", what);
    if (hlen < 12)
        return czk_errf(err, CZK_ERR_TRUNCATED, "%s: %zu bytes, shorter than the %u-byte header",
                        what, hlen, HEADER_BYTES);
    if (h.version != SHAPE_VERSION)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: unsupported shape file version %u (expected %u)",
                        what, h.version, SHAPE_VERSION);
    if (hlen < HEADER_BYTES)
        return czk_errf(err, CZK_ERR_TRUNCATED, "%s: %zu bytes, shorter than the %u-byte header",
                        what, hlen, HEADER_BYTES);
    if (verify && czk_hash64(&h, offsetof(file_header, header_hash), HEADER_SEED) != h.header_hash)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: header checksum mismatch", what);
    st = check_header(&h, what, err);
    if (st) return st;
    uint64_t size[NUM_REGIONS], total;
    if (!region_sizes(&h, size, &total))
        return czk_errf(err, CZK_ERR_FORMAT, "%s: header counts overflow", what);
    if (src->len < total)
        return czk_errf(err, CZK_ERR_TRUNCATED,
                        "%s: truncated: %llu bytes, the header describes %llu", what,
                        (unsigned long long)src->len, (unsigned long long)total);
    if (src->len > total)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: %llu trailing bytes after the shape", what,
                        (unsigned long long)(src->len - total));

    czk_shape *s = calloc(1, sizeof *s);
    uint8_t *ctab = NULL;
    if (!s) return czk_errf(err, CZK_ERR_NOMEM, "out of memory reading %s", what);
    s->num_inputs = h.num_inputs;
    s->num_aux = h.num_aux;
    s->num_constraints = h.num_constraints;
    s->num_coeffs = h.num_coeffs;
    ctab = malloc(size[0] ? size[0] : 1);
    s->coeffs = malloc(size[0] ? size[0] : 1);
    bool ok = ctab && s->coeffs;
    for (int m = 0; m < 3 && ok; m++) {
        s->m[m].nnz = h.nnz[m];
        s->m[m].row_ptr = malloc(size[1 + 3 * m]);
        s->m[m].col = malloc(size[2 + 3 * m] ? size[2 + 3 * m] : 1);
        s->m[m].coeff = malloc(size[3 + 3 * m] ? size[3 + 3 * m] : 1);
        ok = s->m[m].row_ptr && s->m[m].col && s->m[m].coeff;
    }
    czk_bitmap *bms[3] = {&s->a_aux, &s->b_input, &s->b_aux};
    uint64_t lens[3] = {h.num_aux, h.num_inputs, h.num_aux};
    for (int i = 0; i < 3 && ok; i++) {
        bms[i]->len = lens[i];
        bms[i]->popcount = h.popcount[i];
        bms[i]->words = malloc(size[10 + i] ? size[10 + i] : 8);
        ok = bms[i]->words != NULL;
    }
    if (!ok) {
        st = czk_errf(err, CZK_ERR_NOMEM, "out of memory reading a %llu-byte shape from %s",
                      (unsigned long long)total, what);
        goto fail;
    }
    uint8_t *dst[NUM_REGIONS];
    dst[0] = ctab;
    for (int r = 1; r < NUM_REGIONS; r++)
        dst[r] = (uint8_t *)region_ptr(s, r);
    st = load_regions(src, dst, size, &h, verify, pool, o, err);
    if (st) goto fail;
    for (uint32_t i = 0; i < h.num_coeffs; i++) {
        if (czk_fr_from_bytes(&s->coeffs[i], ctab + 32 * (size_t)i, NULL) != CZK_OK) {
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: coefficient %u is not below r", what, i);
            goto fail;
        }
    }
    free(ctab);
    ctab = NULL;
    st = validate(s, what, pool, o, err);
    if (st) goto fail;
    *out = s;
    return CZK_OK;
fail:
    free(ctab);
    czk_shape_free(s);
    return st;
}

czk_status czk_shape_decode_ex(czk_shape **out, const uint8_t *buf, size_t len,
                               bool verify_checksums, czk_err *err) {
    *out = NULL;
    if (!buf && len) return czk_errf(err, CZK_ERR_INVALID_ARG, "NULL buffer");
    static const uint8_t empty[1];
    source src = {.buf = buf ? buf : empty, .fd = -1, .len = len, .what = "shape"};
    czk_shape_read_opts serial = {1, 0, 0, 0};
    return decode(&src, verify_checksums, NULL, &serial, out, err);
}

czk_status czk_shape_decode(czk_shape **out, const uint8_t *buf, size_t len, czk_err *err) {
    return czk_shape_decode_ex(out, buf, len, true, err);
}

czk_status czk_shape_read_ex(czk_shape **out, const char *path, const czk_shape_read_opts *opts,
                             czk_err *err) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return czk_errf(err, CZK_ERR_IO, "open %s: %s", path, strerror(errno));
    struct stat stt;
    czk_status st;
    if (fstat(fd, &stt) != 0) {
        st = czk_errf(err, CZK_ERR_IO, "stat %s: %s", path, strerror(errno));
    } else if (!S_ISREG(stt.st_mode)) {
        st = czk_errf(err, CZK_ERR_IO, "%s: not a regular file", path);
    } else {
        unsigned threads = opts->threads;
        if (!threads) { /* a small file is not worth the threads */
            threads = czk_cpu_count() < READ_MAX_THREADS ? czk_cpu_count() : READ_MAX_THREADS;
            if ((uint64_t)stt.st_size < READ_PIECE) threads = 1;
        }
        /* a pool that cannot start: read serially */
        czk_err perr;
        czk_pool *pool = threads > 1 ? czk_pool_create(threads, &perr) : NULL;
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        source src = {.fd = fd, .len = (uint64_t)stt.st_size, .what = path};
        st = decode(&src, true, pool, opts, out, err);
        czk_pool_destroy(pool);
    }
    close(fd);
    return st;
}

czk_status czk_shape_read(czk_shape **out, const char *path, czk_err *err) {
    czk_shape_read_opts o = {0, 0, 0, 0};
    return czk_shape_read_ex(out, path, &o, err);
}
