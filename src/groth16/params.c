/*
 * .params and .vk files: reading with validation, writing (layout in
 * include/czk/groth16.h).
 *
 * Reading is one sequential pass. A small "source" hands the parser the
 * next n bytes of the file: from memory (czk_params_decode) or from the
 * piece reader of pieces.c (czk_params_read), which reads ahead into a ring
 * of 64 MiB pieces and hashes each piece on threads of its own (the tree
 * digest, and the plain BLAKE2b-512 when it is needed) while the pool
 * decodes the points into the final vectors: so hashing, reading and
 * decoding overlap, and the raw file is never held in memory whole.
 * Writing goes through the piece writer (pieces.c): the pool encodes into
 * a piece buffer while the writer's threads hash and write earlier pieces.
 *
 * Points of the five large vectors are first decoded with the range and
 * on-curve checks only; once the digest is known, either it is trusted (a
 * published v28 digest, or a stamp of an earlier full check) or a second
 * parallel pass checks subgroup membership. With CZK_PARAMS_FULL_CHECK the
 * subgroup check runs inline instead. A defect found by a parallel pass is
 * reported for the lowest index in the section, so errors do not depend on
 * thread timing.
 *
 * Encoded reads (CZK_PARAMS_ENCODED, a stamp with the tree digest) skip
 * the decoding: the layout comes from the vk, ic and the five length
 * prefixes (pread), the vectors' bytes go raw into their arrays on the
 * pool (pieces.c, czk_g16_read_segments), and the stamp's tree digest is
 * compared once every byte is read. Expected on the H200 host (16 threads,
 * 47 GB in the page cache): pread ~5 GB/s and BLAKE2b ~0.9 GB/s per
 * thread give ~10 GB/s, ~5 s, instead of ~30 s of decoding. Whatever
 * would make the usual read fail (a bad vk point, length prefix or size)
 * sends the read down the usual path, which names it. The vectors are
 * then decoded in place on first use (czk_params_decode_vectors: the same
 * per-point code, decoding aside and overwriting the encoding, as
 * encodings and affine points have the same size), or on the GPU.
 */
#define _GNU_SOURCE /* mkostemp */
#include "groth16/internal.h"
#include "util/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- allocation, hex, group operations ---- */

void *czk_g16_alloc(size_t bytes) {
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes ? bytes : 1)) return NULL;
    return p;
}

void czk_g16_free(void *p) {
    free(p);
}

void czk_g16_hex(char *out, const uint8_t *in, size_t n) {
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * n] = 0;
}

#define CZK_G16_GROUP_IMPL(G, P, ENC)                                                              \
    static czk_status g##G##_decode(void *o, const uint8_t *in, size_t len, czk_err *err) {        \
        return czk_g##G##_decode(o, in, len, err);                                                 \
    }                                                                                              \
    static czk_status g##G##_decode_trusted(void *o, const uint8_t *in, size_t len,                \
                                            czk_err *err) {                                        \
        return czk_g##G##_decode_trusted(o, in, len, err);                                         \
    }                                                                                              \
    static bool g##G##_is_inf(const void *p) {                                                     \
        return blst_##P##_affine_is_inf(p);                                                        \
    }                                                                                              \
    static bool g##G##_in_group(const void *p) {                                                   \
        return blst_##P##_affine_in_g##G(p);                                                       \
    }                                                                                              \
    static void g##G##_serialize(uint8_t *out, const void *p) {                                    \
        blst_##P##_affine_serialize(out, p);                                                       \
    }                                                                                              \
    const czk_g16_group czk_g16_g##G = {"G" #G,                                                    \
                                        ENC,                                                       \
                                        sizeof(blst_##P##_affine),                                 \
                                        g##G##_decode,                                             \
                                        g##G##_decode_trusted,                                     \
                                        g##G##_is_inf,                                             \
                                        g##G##_in_group,                                           \
                                        g##G##_serialize};

CZK_G16_GROUP_IMPL(1, p1, CZK_G1_UNCOMPRESSED)
CZK_G16_GROUP_IMPL(2, p2, CZK_G2_UNCOMPRESSED)

/* ---- freeing and sizes ---- */

void czk_vk_free(czk_vk *vk) {
    if (!vk) return;
    czk_g16_free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

/* The decoding state of encoded params (czk_params.lazy). */
struct czk_params_lazy {
    pthread_mutex_t mu;
    czk_status st; /* the first decoding failure: final */
    czk_err err;
};

void czk_params_free(czk_params *p) {
    if (!p) return;
    if (p->lazy) {
        pthread_mutex_destroy(&p->lazy->mu);
        free(p->lazy);
    }
    czk_vk_free(&p->vk);
    czk_params_lagrange_free(p->lagrange);
    czk_g16_free(p->h);
    czk_g16_free(p->l);
    czk_g16_free(p->a);
    czk_g16_free(p->b_g1);
    czk_g16_free(p->b_g2);
    free(p);
}

unsigned czk_params_drop_host(czk_params *p, unsigned mask, uint64_t *freed_bytes) {
    struct {
        unsigned bit;
        void **v;
        uint64_t bytes;
    } v[] = {
        {CZK_SRS_H, (void **)&p->h, (uint64_t)p->h_len * sizeof(czk_g1_affine)},
        {CZK_SRS_L, (void **)&p->l, (uint64_t)p->l_len * sizeof(czk_g1_affine)},
        {CZK_SRS_A, (void **)&p->a, (uint64_t)p->a_len * sizeof(czk_g1_affine)},
        {CZK_SRS_B_G1, (void **)&p->b_g1, (uint64_t)p->b_g1_len * sizeof(czk_g1_affine)},
        {CZK_SRS_B_G2, (void **)&p->b_g2, (uint64_t)p->b_g2_len * sizeof(czk_g2_affine)},
    };
    unsigned dropped = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if ((mask & v[i].bit) && *v[i].v) {
            czk_g16_free(*v[i].v); /* czk_params_free frees NULL vectors as nothing */
            *v[i].v = NULL;
            dropped |= v[i].bit;
            if (freed_bytes) *freed_bytes += v[i].bytes;
        }
    /* a Lagrange form's h and l are the device's copies of H and L then: they go too */
    czk_params_lagrange *lf = p->lagrange;
    struct {
        unsigned bit;
        czk_g1_affine **v;
        uint64_t n;
    } f[] = {{CZK_SRS_H, lf ? &lf->h : NULL, lf ? (uint64_t)1 << lf->log_n : 0},
             {CZK_SRS_L, lf ? &lf->l : NULL, lf ? lf->num_aux : 0}};
    for (size_t i = 0; lf && i < 2; i++)
        if ((mask & f[i].bit) && *f[i].v) {
            czk_g16_free(*f[i].v);
            *f[i].v = NULL;
            dropped |= f[i].bit;
            if (freed_bytes) *freed_bytes += f[i].n * sizeof(czk_g1_affine);
        }
    return dropped;
}

uint64_t czk_vk_encoded_size(uint32_t ic_len) {
    return CZK_VK_FIXED_BYTES + 4 + (uint64_t)ic_len * CZK_G1_UNCOMPRESSED;
}

uint64_t czk_params_encoded_size(const czk_params *p) {
    return czk_vk_encoded_size(p->vk.ic_len) + 5 * 4 +
           ((uint64_t)p->h_len + p->l_len + p->a_len + p->b_g1_len) * CZK_G1_UNCOMPRESSED +
           (uint64_t)p->b_g2_len * CZK_G2_UNCOMPRESSED;
}

/* Bytes per decoding step (one take of the source). */
#define SLOT_BYTES ((size_t)16 << 20)

/* ---- progress reports (czk_params_progress_fn) ---- */

typedef struct prog {
    czk_params_progress_fn fn; /* NULL: none */
    void *ctx;
    uint64_t total, step; /* file size; report at most once per step bytes */
    uint64_t last;        /* done_bytes of the last report of this pass */
} prog;

static void prog_init(prog *p, const czk_params_read_opts *o, uint64_t total) {
    p->fn = o->progress;
    p->ctx = o->progress_ctx;
    p->total = total;
    p->step = total / 100 ? total / 100 : 1;
    p->last = 0;
}

/* Reports done bytes of `stage` when a step has passed since the last report, or always (the
 * end of a section). */
static void prog_report(prog *p, const char *stage, uint64_t done, bool always) {
    if (!p || !p->fn) return;
    if (!always && done - p->last < p->step) return;
    p->last = done;
    p->fn(p->ctx, stage, done, p->total);
}

/* ---- the byte source ---- */

typedef struct src {
    prog *pg;           /* progress of the reading pass, or NULL */
    const uint8_t *mem; /* memory source, or NULL */
    int fd;
    czk_g16_reader *rd; /* file source: the piece reader */
    uint8_t *buf;       /* file source without a reader (vk): one growing buffer */
    size_t buf_cap;
    uint64_t size, off;
} src;

static uint64_t src_left(const src *s) {
    return s->size - s->off;
}

static czk_status read_full(src *s, uint8_t *dst, size_t n, czk_err *err) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(s->fd, dst + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return czk_errf(err, CZK_ERR_IO, "read at byte %llu: %s",
                            (unsigned long long)(s->off + got), strerror(errno));
        if (r == 0)
            return czk_errf(err, CZK_ERR_TRUNCATED,
                            "the file ends at byte %llu, before its size when opened (%llu): it "
                            "changed while being read",
                            (unsigned long long)(s->off + got), (unsigned long long)s->size);
        got += (size_t)r;
    }
    return CZK_OK;
}

/* The next n bytes (n <= SLOT_BYTES from the piece reader; the caller checked n <= left). */
static czk_status src_take(src *s, size_t n, const uint8_t **out, czk_err *err) {
    czk_status st = CZK_OK;
    if (s->mem) {
        *out = s->mem + s->off;
    } else if (s->rd) {
        st = czk_g16_reader_get(s->rd, s->off, n, out, err);
        if (st) return st;
    } else {
        if (n > s->buf_cap) {
            uint8_t *nb = realloc(s->buf, n);
            if (!nb) return czk_errf(err, CZK_ERR_NOMEM, "cannot allocate %zu bytes", n);
            s->buf = nb;
            s->buf_cap = n;
        }
        st = read_full(s, s->buf, n, err);
        if (st) return st;
        *out = s->buf;
    }
    s->off += n;
    return CZK_OK;
}

/* ---- parsing ---- */

enum { SEC_VK, SEC_IC, SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, NSEC };
static const char *const SEC_NAME[NSEC] = {"vk", "ic", "h", "l", "a", "b_g1", "b_g2"};
/* Progress stages of the separate subgroup pass (the five vectors). */
static const char *const SUBGROUP_STAGE[NSEC] = {
    NULL, NULL, "subgroup h", "subgroup l", "subgroup a", "subgroup b_g1", "subgroup b_g2"};
static const char *const VK_POINT[6] = {"alpha_g1", "beta_g1",  "beta_g2",
                                        "gamma_g2", "delta_g1", "delta_g2"};

static czk_status read_count(src *s, int sec, uint32_t *count, czk_err *err) {
    if (src_left(s) < 4)
        return czk_errf(err, CZK_ERR_TRUNCATED,
                        "section %s: the file ends before its length prefix (at byte %llu of %llu)",
                        SEC_NAME[sec], (unsigned long long)s->off, (unsigned long long)s->size);
    const uint8_t *p = NULL;
    czk_status st = src_take(s, 4, &p, err);
    if (st) return czk_err_wrap(err, "section %s length prefix", SEC_NAME[sec]);
    *count = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return CZK_OK;
}

/* One parallel decode of a run of points. */
typedef struct dec_job {
    const czk_g16_group *g;
    const uint8_t *in; /* encodings of points [base, base + n) */
    uint8_t *dst;      /* affine points of the section */
    size_t base;
    bool subgroup;   /* decode with the subgroup check */
    bool check_only; /* no decoding: subgroup-check dst[base ..] */
    bool in_place;   /* in and dst are the same memory (encoded vectors) */
    int sec;
    atomic_size_t bad; /* lowest failing index in the section so far */
    pthread_mutex_t mu;
    czk_err e;
} dec_job;

/*
 * One point of a section: the decoding checks (with the subgroup check if asked), infinity
 * refused, the message naming the section and the index.
 */
static czk_status decode_point(const czk_g16_group *g, void *out, const uint8_t *in, int sec,
                               size_t idx, bool subgroup, czk_err *err) {
    czk_status st =
        subgroup ? g->decode(out, in, g->enc, err) : g->decode_trusted(out, in, g->enc, err);
    if (st == CZK_OK && g->is_inf(out))
        st = czk_errf(err, CZK_ERR_EC_INFINITY,
                      "%s point at infinity (parameters never hold infinity)", g->name);
    if (st) czk_err_wrap(err, "section %s, point %zu", SEC_NAME[sec], idx);
    return st;
}

static void dec_fail(dec_job *j, size_t idx, const czk_err *e) {
    pthread_mutex_lock(&j->mu);
    if (idx < atomic_load(&j->bad)) {
        atomic_store(&j->bad, idx);
        j->e = *e;
    }
    pthread_mutex_unlock(&j->mu);
}

static void dec_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    dec_job *j = arg;
    const czk_g16_group *g = j->g;
    for (size_t i = b; i < e; i++) {
        size_t idx = j->base + i;
        if (idx >= atomic_load_explicit(&j->bad, memory_order_relaxed)) return;
        void *out = j->dst + idx * g->aff;
        czk_err pe;
        if (j->check_only) {
            if (!g->in_group(out)) {
                czk_errf(&pe, CZK_ERR_EC_NOT_IN_GROUP,
                         "section %s, point %zu: %s point: not in the prime-order subgroup",
                         SEC_NAME[j->sec], idx, g->name);
                dec_fail(j, idx, &pe);
            }
            continue;
        }
        const uint8_t *in = j->in + i * g->enc;
        czk_status st;
        if (j->in_place) { /* enc == aff: decode aside, then overwrite the encoding */
            czk_g2_affine tmp;
            st = decode_point(g, &tmp, in, j->sec, idx, false, &pe);
            if (!st) memcpy(out, &tmp, g->aff);
        } else {
            st = decode_point(g, out, in, j->sec, idx, j->subgroup, &pe);
        }
        if (st) {
            dec_fail(j, idx, &pe);
            return;
        }
    }
}

static czk_status run_job(dec_job *j, size_t n, czk_pool *pool, czk_err *err) {
    atomic_init(&j->bad, SIZE_MAX);
    pthread_mutex_init(&j->mu, NULL);
    czk_pool_for(pool, n, 256, dec_fn, j);
    pthread_mutex_destroy(&j->mu);
    if (atomic_load(&j->bad) != SIZE_MAX) {
        if (err) *err = j->e;
        return j->e.code;
    }
    return CZK_OK;
}

/* Whether `count` points of `enc` bytes fit in what is left of the input. */
static czk_status check_fits(const src *s, int sec, uint32_t count, size_t enc, czk_err *err) {
    uint64_t need = (uint64_t)count * enc, left = src_left(s);
    if (need <= left) return CZK_OK;
    return czk_errf(err, CZK_ERR_TRUNCATED,
                    "section %s: length prefix %u needs %llu bytes, %llu are left (byte %llu of "
                    "%llu): the input ends inside point %llu (truncated, or a wrong length prefix)",
                    SEC_NAME[sec], count, (unsigned long long)need, (unsigned long long)left,
                    (unsigned long long)s->off, (unsigned long long)s->size,
                    (unsigned long long)(left / enc));
}

/* Reads `count` points (already known to fit) into a new page-aligned vector. */
static czk_status read_points(src *s, int sec, const czk_g16_group *g, uint32_t count,
                              bool subgroup, czk_pool *pool, void **out, czk_err *err) {
    uint8_t *v = czk_g16_alloc((size_t)count * g->aff);
    if (!v)
        return czk_errf(err, CZK_ERR_NOMEM, "section %s: cannot allocate %u points (%llu bytes)",
                        SEC_NAME[sec], count, (unsigned long long)count * g->aff);
    size_t per = SLOT_BYTES / g->enc;
    for (size_t i = 0; i < count; i += per) {
        size_t n = count - i < per ? count - i : per;
        const uint8_t *p = NULL;
        czk_status st = src_take(s, n * g->enc, &p, err);
        if (st == CZK_OK) {
            dec_job j = {.g = g, .in = p, .dst = v, .base = i, .subgroup = subgroup, .sec = sec};
            st = run_job(&j, n, pool, err);
            /* the section's last piece is reported by the caller, also for empty sections */
            if (st == CZK_OK && i + n < count) prog_report(s->pg, SEC_NAME[sec], s->off, false);
        } else {
            czk_err_wrap(err, "section %s, points %zu..%zu", SEC_NAME[sec], i, i + n - 1);
        }
        if (st) {
            czk_g16_free(v);
            return st;
        }
    }
    *out = v;
    return CZK_OK;
}

/*
 * Subgroup-checks the `count` points of section sec, whose points start at
 * byte `at` of the file, in pieces of SLOT_BYTES of encoding (for progress;
 * a defect is still reported for the lowest index, as the pieces run in
 * order).
 */
static czk_status subgroup_pass(int sec, const czk_g16_group *g, void *v, uint32_t count,
                                uint64_t at, czk_pool *pool, prog *pg, czk_err *err) {
    size_t per = SLOT_BYTES / g->enc;
    for (size_t i = 0; i < count; i += per) {
        size_t n = count - i < per ? count - i : per;
        dec_job j = {.g = g, .dst = v, .base = i, .check_only = true, .sec = sec};
        czk_status st = run_job(&j, n, pool, err);
        if (st) return st;
        if (i + n < count) prog_report(pg, SUBGROUP_STAGE[sec], at + (i + n) * g->enc, false);
    }
    prog_report(pg, SUBGROUP_STAGE[sec], at + (uint64_t)count * g->enc, true);
    return CZK_OK;
}

/* The six fixed vk points and ic; every point checked in full. */
static czk_status parse_vk(src *s, czk_vk *vk, czk_pool *pool, czk_err *err) {
    static const size_t off[7] = {0, 96, 192, 384, 576, 672, 864};
    memset(vk, 0, sizeof *vk);
    if (src_left(s) < CZK_VK_FIXED_BYTES) {
        unsigned k = 0;
        while (off[k + 1] <= src_left(s))
            k++;
        return czk_errf(err, CZK_ERR_TRUNCATED,
                        "section vk, point %u (%s): the input ends after %llu bytes, the vk "
                        "needs 864",
                        k, VK_POINT[k], (unsigned long long)src_left(s));
    }
    const uint8_t *p = NULL;
    czk_status st = src_take(s, CZK_VK_FIXED_BYTES, &p, err);
    if (st) return czk_err_wrap(err, "section vk");
    void *dst[6] = {&vk->alpha_g1, &vk->beta_g1,  &vk->beta_g2,
                    &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2};
    for (unsigned k = 0; k < 6; k++) {
        const czk_g16_group *g =
            off[k + 1] - off[k] == CZK_G1_UNCOMPRESSED ? &czk_g16_g1 : &czk_g16_g2;
        st = g->decode(dst[k], p + off[k], g->enc, err);
        if (st == CZK_OK && g->is_inf(dst[k]))
            st = czk_errf(err, CZK_ERR_EC_INFINITY, "%s point at infinity", g->name);
        if (st) return czk_err_wrap(err, "section vk, point %u (%s)", k, VK_POINT[k]);
    }
    prog_report(s->pg, SEC_NAME[SEC_VK], s->off, true);
    uint32_t n = 0;
    if ((st = read_count(s, SEC_IC, &n, err))) return st;
    if (n == 0)
        return czk_errf(err, CZK_ERR_FORMAT,
                        "section ic: length prefix 0 (IC_0, for the input ONE, is always present)");
    if ((st = check_fits(s, SEC_IC, n, CZK_G1_UNCOMPRESSED, err))) return st;
    void *ic = NULL;
    if ((st = read_points(s, SEC_IC, &czk_g16_g1, n, true, pool, &ic, err))) return st;
    vk->ic = ic;
    vk->ic_len = n;
    prog_report(s->pg, SEC_NAME[SEC_IC], s->off, true);
    return CZK_OK;
}

static czk_status check_end(const src *s, int last, czk_err *err) {
    if (src_left(s) == 0) return CZK_OK;
    return czk_errf(err, CZK_ERR_FORMAT,
                    "%llu bytes after section %s (byte %llu): the input should end there",
                    (unsigned long long)src_left(s), SEC_NAME[last], (unsigned long long)s->off);
}

/* A vector's length prefix n against the relations every generator keeps (l and b_g1 read). */
static czk_status check_prefix(int sec, uint32_t n, uint64_t ic, uint32_t l_len, uint32_t b_g1_len,
                               czk_err *err) {
    uint64_t vars = ic + l_len;
    if (sec == SEC_H && (((uint64_t)n + 1) & n) != 0)
        return czk_errf(err, CZK_ERR_FORMAT,
                        "section h: length prefix %u is not 2^k - 1 (the domain size less one)", n);
    if (sec == SEC_A && (n < ic || n > vars))
        return czk_errf(err, CZK_ERR_FORMAT,
                        "section a: length prefix %u is outside [ic, ic + l] = [%llu, %llu]", n,
                        (unsigned long long)ic, (unsigned long long)vars);
    if (sec == SEC_B_G1 && n > vars)
        return czk_errf(err, CZK_ERR_FORMAT, "section b_g1: length prefix %u exceeds ic + l = %llu",
                        n, (unsigned long long)vars);
    if (sec == SEC_B_G2 && n != b_g1_len)
        return czk_errf(err, CZK_ERR_FORMAT,
                        "section b_g2: length prefix %u differs from b_g1's %u", n, b_g1_len);
    return CZK_OK;
}

/*
 * The five vectors after the vk. Length prefixes are checked against the
 * relations every generator keeps before the points are read.
 */
static czk_status parse_vectors(src *s, czk_params *pa, bool subgroup, czk_pool *pool,
                                czk_err *err) {
    void **vec[5] = {(void **)&pa->h, (void **)&pa->l, (void **)&pa->a, (void **)&pa->b_g1,
                     (void **)&pa->b_g2};
    uint32_t *len[5] = {&pa->h_len, &pa->l_len, &pa->a_len, &pa->b_g1_len, &pa->b_g2_len};
    uint64_t ic = pa->vk.ic_len;
    for (int k = 0; k < 5; k++) {
        int sec = SEC_H + k;
        const czk_g16_group *g = sec == SEC_B_G2 ? &czk_g16_g2 : &czk_g16_g1;
        uint32_t n = 0;
        czk_status st = read_count(s, sec, &n, err);
        if (st) return st;
        if ((st = check_prefix(sec, n, ic, pa->l_len, pa->b_g1_len, err))) return st;
        if ((st = check_fits(s, sec, n, g->enc, err))) return st;
        if ((st = read_points(s, sec, g, n, subgroup, pool, vec[k], err))) return st;
        *len[k] = n;
        prog_report(s->pg, SEC_NAME[sec], s->off, true);
    }
    return check_end(s, SEC_B_G2, err);
}

/* The separate subgroup pass over the five vectors (pg: its progress, restarting at h). */
static czk_status subgroup_vectors(const czk_params *pa, czk_pool *pool, prog *pg, czk_err *err) {
    void *vec[5] = {pa->h, pa->l, pa->a, pa->b_g1, pa->b_g2};
    uint32_t len[5] = {pa->h_len, pa->l_len, pa->a_len, pa->b_g1_len, pa->b_g2_len};
    uint64_t at = czk_vk_encoded_size(pa->vk.ic_len); /* the offset of section h */
    pg->last = at;
    for (int k = 0; k < 5; k++) {
        const czk_g16_group *g = k == 4 ? &czk_g16_g2 : &czk_g16_g1;
        at += 4; /* the length prefix */
        czk_status st = subgroup_pass(SEC_H + k, g, vec[k], len[k], at, pool, pg, err);
        if (st) return st;
        at += (uint64_t)len[k] * g->enc;
    }
    return CZK_OK;
}

/* ---- encoded vectors (CZK_PARAMS_ENCODED) ---- */

/* Decodes the encoded vectors still held in place (range and on-curve checks, no subgroup). */
static czk_status decode_in_place(const czk_params *pa, czk_pool *pool, czk_err *err) {
    void *vec[5] = {pa->h, pa->l, pa->a, pa->b_g1, pa->b_g2};
    uint32_t len[5] = {pa->h_len, pa->l_len, pa->a_len, pa->b_g1_len, pa->b_g2_len};
    for (int k = 0; k < 5; k++) {
        if (!vec[k] || !len[k]) continue;
        const czk_g16_group *g = k == 4 ? &czk_g16_g2 : &czk_g16_g1;
        dec_job j = {.g = g, .in = vec[k], .dst = vec[k], .in_place = true, .sec = SEC_H + k};
        czk_status st = run_job(&j, len[k], pool, err);
        if (st) return st;
    }
    return CZK_OK;
}

/*
 * One decoder at a time under the params' lock; others wait and then find the vectors decoded
 * (or the first failure). The pool must not be one whose loop the caller runs inside while
 * another thread may hold the lock (its czk_pool_for would wait for that loop).
 */
czk_status czk_params_decode_vectors(const czk_params *params, czk_pool *pool, czk_err *err) {
    czk_params_lazy *lz = params->lazy;
    if (!lz) {
        if (!params->encoded) return CZK_OK;
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "params: encoded vectors without the reader's decoding state");
    }
    /* the vectors and `encoded` are the struct's representation, changed only here, under mu */
    czk_params *pa = (czk_params *)params;
    pthread_mutex_lock(&lz->mu);
    czk_status st = lz->st;
    if (!st && pa->encoded) {
        czk_err e;
        st = decode_in_place(pa, pool, &e);
        if (st) {
            czk_err_wrap(&e, "params");
            lz->st = st;
            lz->err = e;
        } else {
            pa->encoded = false;
        }
    }
    if (st && err) *err = lz->err;
    pthread_mutex_unlock(&lz->mu);
    return st;
}

czk_status czk_params_check_encoded_point(const czk_params *params, unsigned vector, size_t index,
                                          czk_err *err) {
    static const unsigned BIT[5] = {CZK_SRS_H, CZK_SRS_L, CZK_SRS_A, CZK_SRS_B_G1, CZK_SRS_B_G2};
    const void *vec[5] = {params->h, params->l, params->a, params->b_g1, params->b_g2};
    uint32_t len[5] = {params->h_len, params->l_len, params->a_len, params->b_g1_len,
                       params->b_g2_len};
    int k = 0;
    while (k < 5 && BIT[k] != vector)
        k++;
    if (k == 5)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "params: vector 0x%x is not one CZK_SRS_* bit",
                        vector);
    if (!params->encoded || !vec[k] || index >= len[k])
        return czk_errf(err, CZK_ERR_INVALID_ARG, "params: section %s, point %zu: %s",
                        SEC_NAME[SEC_H + k], index,
                        !params->encoded ? "the vectors are not encoded"
                        : !vec[k]        ? "the vector is not in host memory"
                                         : "beyond the section");
    czk_params_lazy *lz = params->lazy;
    if (lz) { /* after a failed decoding the vectors are partly decoded: its error stands */
        pthread_mutex_lock(&lz->mu);
        czk_status st = lz->st;
        if (st && err) *err = lz->err;
        pthread_mutex_unlock(&lz->mu);
        if (st) return st;
    }
    const czk_g16_group *g = k == 4 ? &czk_g16_g2 : &czk_g16_g1;
    czk_g2_affine tmp;
    czk_status st = decode_point(g, &tmp, (const uint8_t *)vec[k] + index * g->enc, SEC_H + k,
                                 index, false, err);
    if (st) czk_err_wrap(err, "params");
    return st;
}

/* Progress of an encoded read: the section ends passed, then the prefix's end (czk_g16_seg). */
typedef struct enc_prog {
    prog *pg;
    uint64_t end[NSEC]; /* where each section ends (the next one's length prefix) */
    int next;           /* the first section whose end was not reported */
} enc_prog;

static void enc_progress(void *ctx, uint64_t done) {
    enc_prog *e = ctx;
    for (; e->next < NSEC && e->end[e->next] <= done; e->next++)
        prog_report(e->pg, SEC_NAME[e->next], e->end[e->next], true);
    if (e->next < NSEC && done > e->pg->last) prog_report(e->pg, SEC_NAME[e->next], done, false);
}

static czk_status pread_at(int fd, uint8_t *dst, size_t n, uint64_t off, czk_err *err) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, dst + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            return czk_errf(err, k ? CZK_ERR_IO : CZK_ERR_TRUNCATED, "read at byte %llu: %s",
                            (unsigned long long)(off + got), k ? strerror(errno) : "end of file");
        got += (size_t)k;
    }
    return CZK_OK;
}

/*
 * The encoded read (czk_params_read with CZK_PARAMS_ENCODED and a tree-digest stamp): the vk and
 * ic (decoded and checked in full) and the five length prefixes by pread, then the vectors'
 * bytes raw into their arrays in parallel (czk_g16_read_segments), tree = the tree digest.
 * *layout_ok false (and CZK_OK, pa untouched): the layout is not a valid file's (a defect in
 * vk or ic, a bad or truncated length prefix, bytes after the end); the caller then reads the
 * file the usual way, which names the defect. Errors are the read's own (I/O, memory).
 */
static czk_status read_encoded(int fd, uint64_t size, czk_params *pa, prog *pg, czk_pool *pool,
                               uint8_t tree[64], bool *layout_ok, czk_err *err) {
    *layout_ok = false;
    const uint64_t fixed = CZK_VK_FIXED_BYTES + 4;
    uint8_t *hdr = NULL, pre[5][4] = {{0}};
    czk_status st = CZK_OK;
    if (size < fixed) return CZK_OK;
    if (!(hdr = malloc(fixed))) return czk_errf(err, CZK_ERR_NOMEM, "params: out of memory");
    if ((st = pread_at(fd, hdr, fixed, 0, err))) goto out;
    uint64_t n_ic = (uint64_t)hdr[864] << 24 | (uint64_t)hdr[865] << 16 | hdr[866] << 8 | hdr[867];
    uint64_t hdr_len = fixed + n_ic * CZK_G1_UNCOMPRESSED + 4; /* through h's length prefix */
    if (hdr_len > size) goto out;
    uint8_t *nh = realloc(hdr, hdr_len);
    if (!nh) {
        st = czk_errf(err, CZK_ERR_NOMEM, "params: out of memory");
        goto out;
    }
    hdr = nh;
    if ((st = pread_at(fd, hdr + fixed, hdr_len - fixed, fixed, err))) goto out;
    czk_vk vk;
    czk_err ve;
    src hs = {.mem = hdr, .fd = -1, .size = hdr_len - 4};
    if (parse_vk(&hs, &vk, pool, &ve)) { /* named by the usual read */
        czk_vk_free(&vk);
        goto out;
    }
    /* the sections: where each length prefix and its points lie */
    uint32_t n[5] = {0};
    uint64_t at = hdr_len - 4, pts[5] = {0};
    enc_prog ep = {.pg = pg, .end = {CZK_VK_FIXED_BYTES, at}};
    for (int k = 0; k < 5; k++) {
        int sec = SEC_H + k;
        size_t enc = sec == SEC_B_G2 ? CZK_G2_UNCOMPRESSED : CZK_G1_UNCOMPRESSED;
        if (at + 4 > size) break;
        if (k == 0)
            memcpy(pre[0], hdr + at, 4);
        else if ((st = pread_at(fd, pre[k], 4, at, err)))
            break;
        n[k] = (uint32_t)pre[k][0] << 24 | (uint32_t)pre[k][1] << 16 | (uint32_t)pre[k][2] << 8 |
               pre[k][3];
        if (check_prefix(sec, n[k], n_ic, k > 1 ? n[1] : 0, k > 3 ? n[3] : 0, &ve) ||
            (uint64_t)n[k] * enc > size - at - 4)
            break;
        pts[k] = at + 4;
        at = pts[k] + (uint64_t)n[k] * enc;
        ep.end[sec] = at;
        if (k == 4) *layout_ok = at == size;
    }
    if (st || !*layout_ok) {
        *layout_ok = false;
        czk_vk_free(&vk);
        goto out;
    }
    /* the arrays, and the segments of the file in order */
    void **vec[5] = {(void **)&pa->h, (void **)&pa->l, (void **)&pa->a, (void **)&pa->b_g1,
                     (void **)&pa->b_g2};
    czk_g16_seg seg[10];
    size_t ns = 0;
    seg[ns++] = (czk_g16_seg){0, hdr_len, hdr, true};
    for (int k = 0; k < 5 && !st; k++) {
        size_t enc = k == 4 ? CZK_G2_UNCOMPRESSED : CZK_G1_UNCOMPRESSED;
        uint64_t bytes = (uint64_t)n[k] * enc;
        if (!(*vec[k] = czk_g16_alloc((size_t)bytes)))
            st = czk_errf(err, CZK_ERR_NOMEM, "section %s: cannot allocate %u points (%llu bytes)",
                          SEC_NAME[SEC_H + k], n[k], (unsigned long long)bytes);
        if (k) seg[ns++] = (czk_g16_seg){pts[k] - 4, 4, pre[k], true};
        seg[ns++] = (czk_g16_seg){pts[k], bytes, *vec[k], false};
    }
    enc_progress(&ep, hdr_len - 4); /* vk and ic: decoded */
    if (!st) st = czk_g16_read_segments(fd, size, seg, ns, pool, enc_progress, &ep, tree, err);
    if (st) {
        for (int k = 0; k < 5; k++) {
            czk_g16_free(*vec[k]);
            *vec[k] = NULL;
        }
        czk_vk_free(&vk);
        goto out;
    }
    enc_progress(&ep, size); /* the rest of the section ends, the last at size */
    pa->vk = vk;
    pa->h_len = n[0], pa->l_len = n[1], pa->a_len = n[2], pa->b_g1_len = n[3], pa->b_g2_len = n[4];
out:
    free(hdr);
    return st;
}

static void fill_digest(czk_params_read_info *info, const uint8_t d[64]) {
    info->has_blake2b = true;
    memcpy(info->blake2b, d, 64);
    czk_g16_hex(info->digest, d, 16);
}

czk_status czk_params_decode(czk_params **out, const uint8_t *buf, size_t len,
                             const czk_params_read_opts *opts, czk_params_read_info *info,
                             czk_err *err) {
    *out = NULL;
    czk_params_read_opts o = opts ? *opts : (czk_params_read_opts){0};
    czk_params_read_info inf = {0};
    if (!buf && len) return czk_errf(err, CZK_ERR_INVALID_ARG, "params: NULL buffer");
    double t0 = czk_g16_now();
    czk_params *pa = calloc(1, sizeof *pa);
    if (!pa) return czk_errf(err, CZK_ERR_NOMEM, "params: out of memory");
    static const uint8_t empty[1];
    prog pg;
    prog_init(&pg, &o, len);
    src s = {.pg = &pg, .mem = buf ? buf : empty, .fd = -1, .size = len};
    bool full = o.flags & CZK_PARAMS_FULL_CHECK;
    czk_status st = parse_vk(&s, &pa->vk, o.pool, err);
    if (!st) st = parse_vectors(&s, pa, full, o.pool, err);
    inf.seconds_read = czk_g16_now() - t0;
    if (!st) {
        uint8_t d[64];
        czk_blake2b(d, 64, s.mem, len, NULL, 0);
        fill_digest(&inf, d);
        st = czk_tree_digest(inf.tree, s.mem, len, o.pool, err);
        inf.bytes = len;
        inf.known = full ? NULL : czk_params_known_digest(inf.digest);
        if (inf.known) {
            inf.trust = CZK_TRUST_KNOWN;
        } else if (!full && !st) {
            double t1 = czk_g16_now();
            st = subgroup_vectors(pa, o.pool, &pg, err);
            inf.seconds_subgroup = czk_g16_now() - t1;
        }
    }
    if (st) {
        czk_params_free(pa);
        return czk_err_wrap(err, "params");
    }
    if (info) *info = inf;
    *out = pa;
    return CZK_OK;
}

static czk_status open_input(const char *path, int *fd, struct stat *stt, czk_err *err) {
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0) return czk_errf(err, CZK_ERR_IO, "open %s: %s", path, strerror(errno));
    if (fstat(*fd, stt) || !S_ISREG(stt->st_mode)) {
        int e = errno;
        close(*fd);
        return czk_errf(err, CZK_ERR_IO, "%s: %s", path,
                        S_ISREG(stt->st_mode) ? strerror(e) : "not a regular file");
    }
    (void)posix_fadvise(*fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return CZK_OK;
}

/*
 * Before a separate subgroup pass: the one progress report whose stage says why the pass runs
 * and about how long it will take (CZK_PARAMS_NOTICE, groth16.h): the in_group time of a sample
 * of G1 and G2 points measured on this thread, times the points, over the pool's threads.
 */
static void full_check_notice(const czk_params *pa, czk_pool *pool, prog *pg, const char *why) {
    if (!pg || !pg->fn) return;
    const czk_g16_group *g[2] = {&czk_g16_g1, &czk_g16_g2};
    const uint8_t *v[2] = {(const uint8_t *)pa->h, (const uint8_t *)pa->b_g2};
    uint64_t have[2] = {pa->h_len, pa->b_g2_len};
    uint64_t pts[2] = {(uint64_t)pa->h_len + pa->l_len + pa->a_len + pa->b_g1_len, pa->b_g2_len};
    double secs = 0;
    for (int k = 0; k < 2; k++) {
        uint64_t n = have[k] < 64 ? have[k] : 64;
        double t0 = czk_g16_now();
        for (uint64_t i = 0; i < n; i++)
            (void)g[k]->in_group(v[k] + i * g[k]->aff);
        if (n) secs += (czk_g16_now() - t0) / (double)n * (double)pts[k];
    }
    unsigned threads = pool ? czk_pool_threads(pool) : 1;
    secs /= threads;
    char stage[600], dur[48];
    if (secs < 1)
        snprintf(dur, sizeof dur, "less than a second");
    else if (secs < 120)
        snprintf(dur, sizeof dur, "about %.0f s", secs);
    else
        snprintf(dur, sizeof dur, "about %.0f min", secs / 60);
    snprintf(stage, sizeof stage,
             CZK_PARAMS_NOTICE "%s; every point's subgroup membership is checked now: %s on %u "
                               "thread%s, once (a stamp is written after it)",
             why, dur, threads, threads == 1 ? "" : "s");
    pg->fn(pg->ctx, stage, pg->last, pg->total);
}

/* Why a read without a known digest or a matching stamp checks every point (for the notice). */
static void full_check_why(char *out, size_t cap, bool stamps, const char *dir, bool stale,
                           unsigned flags) {
    if (!stamps)
        snprintf(out, cap, "%s",
                 flags & CZK_PARAMS_NO_STAMP
                     ? "stamps are off (CZK_PARAMS_NO_STAMP)"
                     : "no stamp directory (neither CZK_CACHE_DIR nor HOME is set)");
    else if (stale)
        snprintf(out, cap,
                 "its stamp in %s is for other bytes (the file changed after it was "
                 "checked)",
                 dir);
    else
        snprintf(out, cap,
                 "no stamp in %s for these bytes and no published Filecoin digest (a first "
                 "read of these keys)",
                 dir);
}

/*
 * The usual read: one sequential pass through the piece reader, decoding as it goes. Trust, in
 * this order: a published digest (only where the plain digest was computed), a stamp whose
 * digest matches, else the subgroup pass (announced: full_check_notice); every outcome but a
 * matching format-3 stamp records one (groth16.h, "Digests").
 */
static czk_status read_usual(int fd, const struct stat *stt, czk_params *pa, bool full, bool plain,
                             czk_g16_stamp_kind kind, bool current,
                             const czk_g16_stamp_digests *cand, bool stamps, const char *dir,
                             const czk_params_read_opts *o, prog *pg, double t0,
                             czk_params_read_info *inf, czk_err *err) {
    czk_g16_reader *rd = NULL;
    czk_status st = czk_g16_reader_open(&rd, fd, (uint64_t)stt->st_size, plain, err);
    if (st) return st;
    src s = {.pg = pg, .fd = fd, .rd = rd, .size = (uint64_t)stt->st_size};
    st = parse_vk(&s, &pa->vk, o->pool, err);
    if (!st) st = parse_vectors(&s, pa, full, o->pool, err);
    double t1 = czk_g16_now();
    inf->seconds_read = t1 - t0;
    uint8_t plain_d[64];
    czk_status fst = czk_g16_reader_finish(rd, st == CZK_OK, inf->tree, plain_d, st ? NULL : err);
    if (!st) st = fst;
    inf->seconds_hash = czk_g16_now() - t1;
    if (st) return st;
    if (plain) fill_digest(inf, plain_d);
    inf->bytes = s.size;
    inf->known = full || !plain ? NULL : czk_params_known_digest(inf->digest);
    bool match = (kind == CZK_G16_STAMP_TREE && czk_g16_stamp_has(cand, inf->tree)) ||
                 (kind == CZK_G16_STAMP_PLAIN && czk_g16_stamp_has(cand, plain_d));
    if (inf->known) {
        inf->trust = CZK_TRUST_KNOWN;
    } else if (match) {
        inf->trust = CZK_TRUST_STAMP;
    } else if (!full) {
        char why[PATH_MAX + 200];
        full_check_why(why, sizeof why, stamps, dir, kind != CZK_G16_STAMP_NONE, o->flags);
        full_check_notice(pa, o->pool, pg, why);
        double t2 = czk_g16_now();
        st = subgroup_vectors(pa, o->pool, pg, err);
        inf->seconds_subgroup = czk_g16_now() - t2;
    }
    /* a format-3 stamp for next time (one by path, of an older czk, is rewritten) */
    if (!st && stamps && !(match && current))
        inf->stamp_written = czk_g16_stamp_write(dir, fd, stt, inf->tree);
    return st;
}

/*
 * CZK_PARAMS_ENCODED with a tree-digest stamp: read_encoded; else, or when the layout needs the
 * usual read's diagnosis, read_usual.
 */
czk_status czk_params_read(czk_params **out, const char *path, const czk_params_read_opts *opts,
                           czk_params_read_info *info, czk_err *err) {
    *out = NULL;
    czk_params_read_opts o = opts ? *opts : (czk_params_read_opts){0};
    czk_params_read_info inf = {0};
    bool full = o.flags & CZK_PARAMS_FULL_CHECK;
    char dir[PATH_MAX];
    bool stamps =
        !(o.flags & CZK_PARAMS_NO_STAMP) && czk_g16_stamp_dir(dir, sizeof dir, o.stamp_dir);
    double t0 = czk_g16_now();
    int fd;
    struct stat stt;
    czk_status st = open_input(path, &fd, &stt, err);
    if (st) return st;
    /* a stamp of these contents (or of this path, by an older czk) says which digest is needed */
    czk_g16_stamp_digests cand = {.n = 0};
    bool current = false;
    czk_g16_stamp_kind kind = !full && stamps
                                  ? czk_g16_stamp_lookup(dir, fd, path, &stt, &cand, &current)
                                  : CZK_G16_STAMP_NONE;
    bool plain = kind != CZK_G16_STAMP_TREE;
    czk_params *pa = calloc(1, sizeof *pa);
    if (!pa) {
        close(fd);
        return czk_errf(err, CZK_ERR_NOMEM, "params %s: out of memory", path);
    }
    prog pg;
    prog_init(&pg, &o, (uint64_t)stt.st_size);
    bool done = false; /* read the encoded way */
    if ((o.flags & CZK_PARAMS_ENCODED) && kind == CZK_G16_STAMP_TREE) {
        /* raw bytes, no decoding; the stamp's tree digest decides after the read */
        st = read_encoded(fd, (uint64_t)stt.st_size, pa, &pg, o.pool, inf.tree, &done, err);
        if (!st && done) {
            inf.seconds_read = czk_g16_now() - t0;
            inf.bytes = (uint64_t)stt.st_size;
            if (czk_g16_stamp_has(&cand, inf.tree)) {
                inf.trust = CZK_TRUST_STAMP;
                if (!(pa->lazy = calloc(1, sizeof *pa->lazy)))
                    st = czk_errf(err, CZK_ERR_NOMEM, "out of memory");
                else
                    pthread_mutex_init(&pa->lazy->mu, NULL);
                pa->encoded = true;
                if (!st && !current) /* a stamp by path: rewritten by content */
                    inf.stamp_written = czk_g16_stamp_write(dir, fd, &stt, inf.tree);
            } else {
                /* other bytes than the stamp's: decoded and checked as on a first read */
                double t2 = czk_g16_now();
                st = decode_in_place(pa, o.pool, err);
                inf.seconds_read += czk_g16_now() - t2;
                if (!st) {
                    char why[PATH_MAX + 200];
                    full_check_why(why, sizeof why, stamps, dir, true, o.flags);
                    full_check_notice(pa, o.pool, &pg, why);
                }
                t2 = czk_g16_now();
                if (!st) st = subgroup_vectors(pa, o.pool, &pg, err);
                inf.seconds_subgroup = czk_g16_now() - t2;
                if (!st && stamps) inf.stamp_written = czk_g16_stamp_write(dir, fd, &stt, inf.tree);
            }
        }
    }
    if (!done && !st)
        st = read_usual(fd, &stt, pa, full, plain, kind, current, &cand, stamps, dir, &o, &pg, t0,
                        &inf, err);
    close(fd);
    if (st) {
        czk_params_free(pa);
        return czk_err_wrap(err, "params %s", path);
    }
    if (info) *info = inf;
    *out = pa;
    return CZK_OK;
}

czk_status czk_vk_decode(czk_vk *out, const uint8_t *buf, size_t len, czk_err *err) {
    static const uint8_t empty[1];
    src s = {.mem = buf ? buf : empty, .fd = -1, .size = buf ? len : 0};
    czk_status st = parse_vk(&s, out, NULL, err);
    if (!st) st = check_end(&s, SEC_IC, err);
    if (st) {
        czk_vk_free(out);
        return czk_err_wrap(err, "vk");
    }
    return CZK_OK;
}

czk_status czk_vk_read(czk_vk *out, const char *path, czk_err *err) {
    memset(out, 0, sizeof *out);
    int fd;
    struct stat stt;
    czk_status st = open_input(path, &fd, &stt, err);
    if (st) return st;
    src s = {.fd = fd, .size = (uint64_t)stt.st_size};
    st = parse_vk(&s, out, NULL, err);
    if (!st) st = check_end(&s, SEC_IC, err);
    free(s.buf);
    close(fd);
    if (st) {
        czk_vk_free(out);
        return czk_err_wrap(err, "vk %s", path);
    }
    return CZK_OK;
}

czk_status czk_params_check_lengths(const czk_params *p, uint64_t ic, uint64_t h, uint64_t l,
                                    uint64_t a, uint64_t b, czk_err *err) {
    const struct {
        const char *name;
        uint64_t have, want;
    } c[] = {{"ic", p->vk.ic_len, ic}, {"h", p->h_len, h},       {"l", p->l_len, l},
             {"a", p->a_len, a},       {"b_g1", p->b_g1_len, b}, {"b_g2", p->b_g2_len, b}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (c[i].want != UINT64_MAX && c[i].have != c[i].want)
            return czk_errf(err, CZK_ERR_MISMATCH,
                            "params: section %s holds %llu points, the circuit needs %llu",
                            c[i].name, (unsigned long long)c[i].have,
                            (unsigned long long)c[i].want);
    }
    return CZK_OK;
}

/* ---- writing ---- */

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void czk_vk_encode(uint8_t *out, const czk_vk *vk) {
    czk_g1_serialize(out, &vk->alpha_g1);
    czk_g1_serialize(out + 96, &vk->beta_g1);
    czk_g2_serialize(out + 192, &vk->beta_g2);
    czk_g2_serialize(out + 384, &vk->gamma_g2);
    czk_g1_serialize(out + 576, &vk->delta_g1);
    czk_g2_serialize(out + 672, &vk->delta_g2);
    put_be32(out + 864, vk->ic_len);
    for (uint32_t i = 0; i < vk->ic_len; i++)
        czk_g1_serialize(out + 868 + 96 * (size_t)i, &vk->ic[i]);
}

static czk_status vk_check_finite(const czk_vk *vk, czk_err *err) {
    const void *pt[6] = {&vk->alpha_g1, &vk->beta_g1,  &vk->beta_g2,
                         &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2};
    for (unsigned k = 0; k < 6; k++) {
        bool inf = (k == 2 || k == 3 || k == 5) ? czk_g2_affine_is_inf(pt[k])
                                                : czk_g1_affine_is_inf(pt[k]);
        if (inf)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "vk point %u (%s) is infinity", k,
                            VK_POINT[k]);
    }
    for (uint32_t i = 0; i < vk->ic_len; i++)
        if (czk_g1_affine_is_inf(&vk->ic[i]))
            return czk_errf(err, CZK_ERR_INVALID_ARG, "section ic, point %u is infinity", i);
    return CZK_OK;
}

czk_status czk_g16_write_full(int fd, const uint8_t *p, size_t n, const char *path, czk_err *err) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return czk_errf(err, CZK_ERR_IO, "write %s: %s", path, strerror(errno));
        p += w;
        n -= (size_t)w;
    }
    return CZK_OK;
}

/* A temporary file next to path (mkstemp: path.tmp.XXXXXX), mode 0644. */
czk_status czk_g16_open_tmp(const char *path, char *tmp, size_t cap, int *fd, czk_err *err) {
    int n = snprintf(tmp, cap, "%s.tmp.XXXXXX", path);
    if (n < 0 || (size_t)n >= cap)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "path too long: %s", path);
    *fd = mkostemp(tmp, O_CLOEXEC);
    if (*fd < 0) return czk_errf(err, CZK_ERR_IO, "create %s: %s", tmp, strerror(errno));
    if (fchmod(*fd, 0644)) {
        int e = errno;
        close(*fd);
        unlink(tmp);
        return czk_errf(err, CZK_ERR_IO, "chmod %s: %s", tmp, strerror(e));
    }
    return CZK_OK;
}

czk_status czk_g16_close_rename(int fd, const char *tmp, const char *path, czk_status st,
                                czk_err *err) {
    if (!st && fdatasync(fd)) st = czk_errf(err, CZK_ERR_IO, "sync %s: %s", tmp, strerror(errno));
    if (close(fd) && !st) st = czk_errf(err, CZK_ERR_IO, "close %s: %s", tmp, strerror(errno));
    if (!st && rename(tmp, path))
        st = czk_errf(err, CZK_ERR_IO, "rename %s to %s: %s", tmp, path, strerror(errno));
    if (st) unlink(tmp);
    return st;
}

czk_status czk_vk_write(const czk_vk *vk, const char *path, czk_err *err) {
    czk_status st = vk_check_finite(vk, err);
    if (st) return czk_err_wrap(err, "vk %s", path);
    size_t n = czk_vk_encoded_size(vk->ic_len);
    uint8_t *buf = malloc(n);
    if (!buf) return czk_errf(err, CZK_ERR_NOMEM, "vk %s: out of memory", path);
    czk_vk_encode(buf, vk);
    char tmp[PATH_MAX];
    int fd = -1;
    st = czk_g16_open_tmp(path, tmp, sizeof tmp, &fd, err);
    if (!st)
        st = czk_g16_close_rename(fd, tmp, path, czk_g16_write_full(fd, buf, n, tmp, err), err);
    free(buf);
    return st;
}

typedef struct enc_job {
    const czk_g16_group *g;
    const uint8_t *src; /* affine points [base, base + n) */
    uint8_t *out;       /* their encodings */
    atomic_size_t bad;  /* lowest index (from src) at infinity */
} enc_job;

static void enc_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    enc_job *j = arg;
    for (size_t i = b; i < e; i++) {
        const void *p = j->src + i * j->g->aff;
        if (j->g->is_inf(p)) {
            size_t cur = atomic_load(&j->bad);
            while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i)) {
            }
            return;
        }
        j->g->serialize(j->out + i * j->g->enc, p);
    }
}

czk_status czk_g16_write_vk(czk_g16_writer *w, const czk_vk *vk, czk_err *err) {
    czk_status st = vk_check_finite(vk, err);
    if (st) return st;
    size_t n = czk_vk_encoded_size(vk->ic_len);
    uint8_t *buf = malloc(n);
    if (!buf) return czk_errf(err, CZK_ERR_NOMEM, "vk: out of memory");
    czk_vk_encode(buf, vk);
    st = czk_g16_writer_put(w, buf, n, err);
    free(buf);
    return st;
}

czk_status czk_g16_write_count(czk_g16_writer *w, uint32_t n, czk_err *err) {
    uint8_t be[4];
    put_be32(be, n);
    return czk_g16_writer_put(w, be, 4, err);
}

czk_status czk_g16_write_points(czk_g16_writer *w, const czk_g16_group *g, const void *src,
                                size_t n, const char *sec, size_t base, czk_pool *pool,
                                czk_err *err) {
    const uint8_t *s = src;
    for (size_t i = 0; i < n;) {
        uint8_t *p = NULL;
        size_t rest = 0;
        czk_status st = czk_g16_writer_reserve(w, &p, &rest, err);
        if (st) return st;
        size_t m = (rest + g->enc - 1) / g->enc;
        if (m > n - i) m = n - i;
        enc_job j = {.g = g, .src = s + i * g->aff, .out = p};
        atomic_init(&j.bad, SIZE_MAX);
        czk_pool_for(pool, m, 1024, enc_fn, &j);
        if (atomic_load(&j.bad) != SIZE_MAX)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "section %s, point %zu is infinity", sec,
                            base + i + atomic_load(&j.bad));
        if ((st = czk_g16_writer_commit(w, m * g->enc, err))) return st;
        i += m;
    }
    return CZK_OK;
}

/* Writes the file; tree (may be NULL) receives its tree digest. */
static czk_status params_write(const czk_params *pa, const char *path, czk_pool *pool,
                               uint8_t tree[64], czk_err *err) {
    czk_status st = vk_check_finite(&pa->vk, err);
    if (!st) st = czk_params_decode_vectors(pa, pool, err); /* encoded: decoded first */
    if (st) return czk_err_wrap(err, "params %s", path);
    czk_g16_writer *w;
    if ((st = czk_g16_writer_open(&w, path, czk_params_encoded_size(pa), NULL, NULL, NULL, err)))
        return st;
    st = czk_g16_write_vk(w, &pa->vk, err);
    const void *vec[5] = {pa->h, pa->l, pa->a, pa->b_g1, pa->b_g2};
    uint32_t len[5] = {pa->h_len, pa->l_len, pa->a_len, pa->b_g1_len, pa->b_g2_len};
    for (int k = 0; k < 5 && !st; k++) {
        const czk_g16_group *g = k == 4 ? &czk_g16_g2 : &czk_g16_g1;
        st = czk_g16_write_count(w, len[k], err);
        if (!st) st = czk_g16_write_points(w, g, vec[k], len[k], SEC_NAME[SEC_H + k], 0, pool, err);
    }
    if (st)
        czk_g16_writer_abort(w);
    else
        st = czk_g16_writer_close(w, tree, err);
    if (st) czk_err_wrap(err, "params %s", path);
    return st;
}

czk_status czk_params_write(const czk_params *pa, const char *path, czk_pool *pool, czk_err *err) {
    return params_write(pa, path, pool, NULL, err);
}

czk_status czk_params_write_stamped(const czk_params *pa, const char *path, const char *stamp_dir,
                                    bool *stamped, czk_pool *pool, czk_err *err) {
    if (stamped) *stamped = false;
    uint8_t d[64];
    czk_status st = params_write(pa, path, pool, d, err);
    if (st) return st;
    bool ok = czk_g16_stamp_file(path, stamp_dir, d);
    if (stamped) *stamped = ok;
    return CZK_OK;
}

bool czk_g16_stamp_file(const char *path, const char *stamp_dir, const uint8_t tree[64]) {
    char dir[PATH_MAX];
    struct stat sb;
    if (!czk_g16_stamp_dir(dir, sizeof dir, stamp_dir)) return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = fstat(fd, &sb) == 0 && czk_g16_stamp_write(dir, fd, &sb, tree);
    close(fd);
    return ok;
}
