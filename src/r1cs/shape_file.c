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
 * Files are read with read(2) straight into the shape's arrays (no mmap),
 * 64 MiB at a time, each piece checksummed while it is in cache; writes go to
 * "<path>.tmp", are fsync'ed and renamed into place.
 */
#include "r1cs_internal.h"

#include <errno.h>
#include <fcntl.h>
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
    uint64_t pos, len;
    const char *what; /* for messages: the path or "buffer" */
} source;

/* Reads exactly n bytes; the length was checked, so a short read means the
 * file changed under us (still reported as truncation). */
static czk_status src_read(source *s, void *dst, size_t n, int region, czk_err *err) {
    if (s->buf) {
        if (n > s->len - s->pos)
            return czk_errf(err, CZK_ERR_TRUNCATED, "%s: ends inside %s", s->what,
                            region < 0 ? "the header" : REGION_NAMES[region]);
        memcpy(dst, s->buf + s->pos, n);
        s->pos += n;
        return CZK_OK;
    }
    uint8_t *p = dst;
    while (n) {
        size_t k = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
        ssize_t r = read(s->fd, p, k);
        if (r < 0) {
            if (errno == EINTR) continue;
            return czk_errf(err, CZK_ERR_IO, "read %s: %s", s->what, strerror(errno));
        }
        if (r == 0)
            return czk_errf(err, CZK_ERR_TRUNCATED, "%s: ends inside %s", s->what,
                            region < 0 ? "the header" : REGION_NAMES[region]);
        p += r;
        n -= (size_t)r;
        s->pos += (uint64_t)r;
    }
    return CZK_OK;
}

/* Reads region r into dst, checksumming it piece by piece. */
static czk_status read_region(source *s, void *dst, uint64_t size, int r, uint64_t want,
                              bool verify, czk_err *err) {
    hash_state hs;
    hash_init(&hs, (uint64_t)r);
    uint8_t *p = dst;
    for (uint64_t off = 0; off < size; off += CHUNK) {
        size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
        czk_status st = src_read(s, p + off, n, r, err);
        if (st) return st;
        if (verify) hash_update(&hs, p + off, n);
    }
    if (verify && hash_final(&hs) != want)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: checksum mismatch in %s", s->what,
                        REGION_NAMES[r]);
    return CZK_OK;
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

/* Builds the density a matrix implies and compares with the stored bitmap. */
static czk_status check_density(const czk_shape *s, int mi, bool inputs, const czk_bitmap *bm,
                                const char *name, const char *what, czk_err *err) {
    uint64_t words = (bm->len + 63) / 64;
    uint64_t *want = calloc(words ? words : 1, 8);
    if (!want) return czk_errf(err, CZK_ERR_NOMEM, "out of memory checking %s", name);
    const czk_csr *m = &s->m[mi];
    uint32_t ni = s->num_inputs;
    for (uint64_t k = 0; k < m->nnz; k++) {
        uint32_t c = m->col[k];
        if (inputs && c < ni) want[c >> 6] |= 1ull << (c & 63);
        if (!inputs && c >= ni) want[(c - ni) >> 6] |= 1ull << ((c - ni) & 63);
    }
    czk_status st = CZK_OK;
    for (uint64_t w = 0; w < words; w++) {
        if (want[w] != bm->words[w]) {
            uint64_t bit = (uint64_t)__builtin_ctzll(want[w] ^ bm->words[w]);
            uint64_t var = w * 64 + bit;
            if (var >= bm->len)
                st = czk_errf(err, CZK_ERR_FORMAT, "%s: %s has bit %llu set beyond its length %llu",
                              what, name, (unsigned long long)var, (unsigned long long)bm->len);
            else
                st = czk_errf(err, CZK_ERR_FORMAT,
                              "%s: %s bit %llu is %d, but matrix %c %s that variable", what, name,
                              (unsigned long long)var, (int)((bm->words[w] >> bit) & 1), MAT[mi],
                              ((want[w] >> bit) & 1) ? "uses" : "does not use");
            break;
        }
    }
    free(want);
    if (st) return st;
    uint64_t pc = 0;
    for (uint64_t w = 0; w < words; w++)
        pc += (uint64_t)__builtin_popcountll(bm->words[w]);
    if (pc != bm->popcount)
        return czk_errf(err, CZK_ERR_FORMAT, "%s: %s popcount is %llu, the header says %llu", what,
                        name, (unsigned long long)pc, (unsigned long long)bm->popcount);
    return CZK_OK;
}

/* Everything the prover relies on, once the bytes are known to be intact. */
static czk_status validate(const czk_shape *s, const char *what, czk_err *err) {
    for (uint32_t i = 0; i < s->num_coeffs; i++)
        if (czk_fr_is_zero(&s->coeffs[i]))
            return czk_errf(err, CZK_ERR_FORMAT, "%s: coefficient %u is zero", what, i);
    uint64_t ncols = (uint64_t)s->num_inputs + s->num_aux, n = s->num_constraints;
    for (int mi = 0; mi < 3; mi++) {
        const czk_csr *m = &s->m[mi];
        char c = MAT[mi];
        if (m->row_ptr[0] != 0)
            return czk_errf(err, CZK_ERR_FORMAT, "%s: %c.row_ptr[0] is %llu, not 0", what, c,
                            (unsigned long long)m->row_ptr[0]);
        for (uint64_t r = 0; r < n; r++) {
            uint64_t b = m->row_ptr[r], e = m->row_ptr[r + 1];
            if (e < b || e > m->nnz)
                return czk_errf(err, CZK_ERR_FORMAT,
                                "%s: %c.row_ptr is not monotone within nnz at row %llu (%llu -> "
                                "%llu, nnz %llu)",
                                what, c, (unsigned long long)r, (unsigned long long)b,
                                (unsigned long long)e, (unsigned long long)m->nnz);
            for (uint64_t k = b; k < e; k++) {
                if (m->col[k] >= ncols)
                    return czk_errf(err, CZK_ERR_FORMAT,
                                    "%s: %c.col[%llu] = %u is out of range (%llu columns)", what, c,
                                    (unsigned long long)k, m->col[k], (unsigned long long)ncols);
                if (k > b && m->col[k] <= m->col[k - 1])
                    return czk_errf(err, CZK_ERR_FORMAT,
                                    "%s: %c.col is not strictly increasing in row %llu", what, c,
                                    (unsigned long long)r);
                if (m->coeff[k] >= s->num_coeffs)
                    return czk_errf(err, CZK_ERR_FORMAT,
                                    "%s: %c.coeff[%llu] = %u is not below num_coeffs %u", what, c,
                                    (unsigned long long)k, m->coeff[k], s->num_coeffs);
            }
        }
        if (m->row_ptr[n] != m->nnz)
            return czk_errf(err, CZK_ERR_FORMAT, "%s: %c.row_ptr ends at %llu, not at nnz %llu",
                            what, c, (unsigned long long)m->row_ptr[n], (unsigned long long)m->nnz);
    }
    /* the finalization rows: input_i · 0 = 0 */
    for (uint32_t i = 0; i < s->num_inputs; i++) {
        uint64_t r = n - s->num_inputs + i;
        const czk_csr *a = &s->m[0];
        uint64_t k = a->row_ptr[r];
        bool ok = a->row_ptr[r + 1] == k + 1 && a->col[k] == i &&
                  czk_fr_is_one(&s->coeffs[a->coeff[k]]) &&
                  s->m[1].row_ptr[r + 1] == s->m[1].row_ptr[r] &&
                  s->m[2].row_ptr[r + 1] == s->m[2].row_ptr[r];
        if (!ok)
            return czk_errf(
                err, CZK_ERR_FORMAT,
                "%s: constraint %llu is not the finalization constraint input_%u * 0 = 0", what,
                (unsigned long long)r, i);
    }
    czk_status st = check_density(s, 0, false, &s->a_aux, "a_aux density", what, err);
    if (!st) st = check_density(s, 1, true, &s->b_input, "b_input density", what, err);
    if (!st) st = check_density(s, 1, false, &s->b_aux, "b_aux density", what, err);
    return st;
}

static czk_status decode(source *src, bool verify, czk_shape **out, czk_err *err) {
    *out = NULL;
    const char *what = src->what;
    file_header h;
    memset(&h, 0, sizeof h);
    size_t hlen = src->len < HEADER_BYTES ? (size_t)src->len : HEADER_BYTES;
    czk_status st = src_read(src, &h, hlen, -1, err);
    if (st) return st;
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
    st = read_region(src, ctab, size[0], 0, h.region_hash[0], verify, err);
    for (int r = 1; r < NUM_REGIONS && !st; r++)
        st = read_region(src, (void *)region_ptr(s, r), size[r], r, h.region_hash[r], verify, err);
    if (st) goto fail;
    for (uint32_t i = 0; i < h.num_coeffs; i++) {
        if (czk_fr_from_bytes(&s->coeffs[i], ctab + 32 * (size_t)i, NULL) != CZK_OK) {
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: coefficient %u is not below r", what, i);
            goto fail;
        }
    }
    free(ctab);
    ctab = NULL;
    st = validate(s, what, err);
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
    return decode(&src, verify_checksums, out, err);
}

czk_status czk_shape_decode(czk_shape **out, const uint8_t *buf, size_t len, czk_err *err) {
    return czk_shape_decode_ex(out, buf, len, true, err);
}

czk_status czk_shape_read(czk_shape **out, const char *path, czk_err *err) {
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
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        source src = {.fd = fd, .len = (uint64_t)stt.st_size, .what = path};
        st = decode(&src, true, out, err);
    }
    close(fd);
    return st;
}
