/*
 * CPU multi-scalar multiplication, G1 and G2 (include/czk/msm.h).
 *
 * The bit-aware front end makes three passes over the input, each split over
 * the pool's threads:
 *   1. count: the scalars are cut into at most MSM_BLOCKS_MAX blocks and each
 *      block counts its scalars equal to 1 ("ones") and those neither 0 nor 1
 *      ("rest"); prefix sums turn the counts into each block's place in the
 *      gathered lists. Only now is the size of everything known, and one
 *      scratch allocation holds it all.
 *   2. gather: each block writes pointers to the bases of its ones, pointers
 *      to the bases of its rest, and the rest's scalars converted from
 *      Montgomery form to the little-endian bytes Pippenger reads. Bases are
 *      never copied (8 bytes per point instead of 96 or 192).
 *   3. sum: one loop runs two kinds of task. Pippenger tasks: the rest is cut
 *      into `chunks` point ranges, and each range into `tiles` windows of bits
 *      (blst_p{1,2}s_tile_pippenger, the bucket method on one window), so that
 *      even 2 threads share one large MSM without shrinking its window; the
 *      grid is chosen by a cost model (msm_plan). Ones tasks: slices of the
 *      ones summed by batch affine addition (blst_p{1,2}s_add, one shared
 *      inversion per batch). Each task writes its own partial sum. Each
 *      thread has its own buckets, zeroed by that thread before its first
 *      tile (blst's tile function wants them zero and leaves them zero).
 * The partial sums are then combined on the calling thread: per window, the
 * ranges' tiles are added, and the running sum is doubled `window` times
 * between windows (Horner); the ones' partial sums are added at the end.
 *
 * czk_msm_*_plain cuts the points into one range per thread and runs blst's
 * whole Pippenger (blst_p{1,2}s_mult_pippenger) on each, without the front
 * end or the tile grid: the reference that the tests compare against.
 *
 * blst v0.3.12 multi_scalar.c answers small calls of blst_p{1,2}s_mult_pippenger
 * (npoints·sizeof(affine)·24 <= 144 KiB: at most 64 G1 or 32 G2 points) with a
 * precomputed-table method that batch-inverts the Z of every table row at
 * once; one base at infinity makes that product 0 and the whole sum wrong.
 * The plain path therefore gives blst only ranges above that size and sums
 * smaller inputs point by point; the front end never calls that entry point.
 *
 * G1 and G2 share one body, MSM_IMPL, instantiated for blst_p1 and blst_p2.
 */
#include "czk/msm.h"

#include <stdlib.h>
#include <string.h>

#define MSM_NBITS 255 /* every Fr element is < r < 2^255 */
#define MSM_BLOCKS_MAX 256
#define MSM_BLOCK_MIN 4096              /* scalars per classification block, at least */
#define MSM_CHUNK_MAX ((size_t)1 << 22) /* points per Pippenger range (bounds the buckets) */
#define MSM_ONES_MIN 1024               /* ones per batch-addition task, at least */
#define MSM_ALIGN 64
/* Largest call that blst v0.3.12 serves with its table method (see above). */
#define MSM_BLST_TABLE_MAX(affine) ((size_t)144 * 1024 / (24 * sizeof(affine)))

/* ---- scratch layout ---------------------------------------------------- */

/* Reserves count·size bytes, 64-aligned, at the end of a layout of *total bytes. */
static bool layout_add(size_t *total, size_t *offset, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes) || bytes > SIZE_MAX - MSM_ALIGN) return false;
    bytes = (bytes + MSM_ALIGN - 1) & ~(size_t)(MSM_ALIGN - 1);
    *offset = *total;
    return !__builtin_add_overflow(*total, bytes, total);
}

/* Uninitialized, MSM_ALIGN-aligned; NULL on failure. */
static void *scratch_alloc(size_t bytes) {
    void *p = NULL;
    return posix_memalign(&p, MSM_ALIGN, bytes ? bytes : 1) ? NULL : p;
}

/* ---- pass 1: classify the scalars ------------------------------------- */

typedef struct msm_classes {
    const czk_fr *scalars;
    size_t n, blocks;
    /* per block: the count of ones / rest, then (after msm_classify) the
     * block's first index in the gathered ones / rest */
    size_t ones[MSM_BLOCKS_MAX], rest[MSM_BLOCKS_MAX];
} msm_classes;

static size_t block_begin(const msm_classes *c, size_t b) {
    return (size_t)((unsigned __int128)b * c->n / c->blocks);
}

static void msm_count_task(void *arg, size_t b0, size_t b1, unsigned worker) {
    (void)worker;
    msm_classes *c = arg;
    for (size_t b = b0; b < b1; b++) {
        size_t ones = 0, rest = 0;
        for (size_t i = block_begin(c, b), e = block_begin(c, b + 1); i < e; i++) {
            const czk_fr *s = &c->scalars[i];
            if (czk_fr_is_zero(s)) continue;
            if (czk_fr_is_one(s))
                ones++;
            else
                rest++;
        }
        c->ones[b] = ones;
        c->rest[b] = rest;
    }
}

/* Fills c for n > 0 scalars; *k = ones, *m = rest. */
static void msm_classify(msm_classes *c, const czk_fr *scalars, size_t n, czk_pool *pool, size_t *k,
                         size_t *m) {
    c->scalars = scalars;
    c->n = n;
    c->blocks = (n + MSM_BLOCK_MIN - 1) / MSM_BLOCK_MIN;
    if (c->blocks > MSM_BLOCKS_MAX) c->blocks = MSM_BLOCKS_MAX;
    czk_pool_for(pool, c->blocks, 1, msm_count_task, c);
    size_t ones = 0, rest = 0;
    for (size_t b = 0; b < c->blocks; b++) {
        size_t o = c->ones[b], r = c->rest[b];
        c->ones[b] = ones;
        c->rest[b] = rest;
        ones += o;
        rest += r;
    }
    *k = ones;
    *m = rest;
}

/* ---- pass 3 plan: the Pippenger grid ----------------------------------- */

typedef struct msm_grid {
    size_t chunks;       /* point ranges */
    size_t window;       /* bits per tile */
    size_t tiles;        /* windows per range: bit0 = top, top − window, ..., 0 */
    size_t top;          /* bit0 of the first (most significant) tile */
    size_t bucket_bytes; /* bucket scratch per thread */
} msm_grid;

typedef size_t (*msm_scratch_sizeof_fn)(size_t npoints);

/*
 * blst's window for `npoints` (pippenger_window_size in multi_scalar.c),
 * read back from its scratch size: sizeof(xyzz) << (window − 1), where
 * scratch_sizeof(1) is sizeof(xyzz) (window 1).
 */
static size_t msm_window(size_t npoints, msm_scratch_sizeof_fn scratch_sizeof) {
    return (size_t)__builtin_ctzll(scratch_sizeof(npoints) / scratch_sizeof(1)) + 1;
}

/*
 * Cuts m >= 2 points into ranges of >= 2 points (tile_pippenger reads two
 * points ahead). Each (range, window) tile costs about one bucket addition
 * per point plus 2^window for summing the buckets; the tiles are shared by
 * `threads` threads in rounds. Picks the range count with the least
 * (rounds × tile cost), the fewest ranges on ties.
 */
static msm_grid msm_plan(size_t m, unsigned threads, msm_scratch_sizeof_fn scratch_sizeof) {
    msm_grid best = {0};
    size_t best_cost = SIZE_MAX;
    size_t lo = (m + MSM_CHUNK_MAX - 1) / MSM_CHUNK_MAX, hi = 4 * (size_t)threads;
    if (hi < lo) hi = lo;
    if (hi > m / 2) hi = m / 2;
    if (lo < 1) lo = 1;
    if (hi < lo) hi = lo;
    for (size_t p = lo; p <= hi; p++) {
        size_t chunk = (m + p - 1) / p;
        size_t w = msm_window(chunk, scratch_sizeof);
        size_t tiles = MSM_NBITS / w + 1;
        size_t rounds = (p * tiles + threads - 1) / threads;
        size_t cost = rounds * (chunk + ((size_t)1 << w));
        if (cost < best_cost) {
            best_cost = cost;
            best.chunks = p;
            best.window = w;
            best.tiles = tiles;
            best.top = MSM_NBITS - MSM_NBITS % w;
            best.bucket_bytes = scratch_sizeof(chunk);
        }
    }
    return best;
}

/* ---- one body for G1 and G2 --------------------------------------------- */

#define MSM_IMPL(g, point, affine, NAME)                                                           \
    typedef struct g##_msm_gather {                                                                \
        const msm_classes *c;                                                                      \
        const affine *bases;                                                                       \
        const affine **one_pts, **rest_pts;                                                        \
        blst_scalar *rest_scalars;                                                                 \
    } g##_msm_gather;                                                                              \
                                                                                                   \
    static void g##_msm_gather_task(void *arg, size_t b0, size_t b1, unsigned worker) {            \
        (void)worker;                                                                              \
        g##_msm_gather *j = arg;                                                                   \
        const msm_classes *c = j->c;                                                               \
        for (size_t b = b0; b < b1; b++) {                                                         \
            size_t o = c->ones[b], r = c->rest[b];                                                 \
            for (size_t i = block_begin(c, b), e = block_begin(c, b + 1); i < e; i++) {            \
                const czk_fr *s = &c->scalars[i];                                                  \
                if (czk_fr_is_zero(s)) continue;                                                   \
                if (czk_fr_is_one(s)) {                                                            \
                    j->one_pts[o++] = &j->bases[i];                                                \
                } else {                                                                           \
                    j->rest_pts[r] = &j->bases[i];                                                 \
                    blst_scalar_from_fr(&j->rest_scalars[r++], s);                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    typedef struct g##_msm_sum {                                                                   \
        const affine *const *rest_pts;                                                             \
        const blst_scalar *rest_scalars;                                                           \
        const affine *const *one_pts;                                                              \
        size_t m, k, one_tasks;                                                                    \
        msm_grid grid;                                                                             \
        point *tile_sums; /* [range · tiles + tile] */                                            \
        point *one_sums;                                                                           \
        unsigned char *buckets; /* grid.bucket_bytes per thread, zero between tiles */             \
        bool *zeroed;           /* per thread: its buckets were zeroed (by itself: first touch) */ \
    } g##_msm_sum;                                                                                 \
                                                                                                   \
    static void g##_msm_sum_task(void *arg, size_t t0, size_t t1, unsigned worker) {               \
        g##_msm_sum *j = arg;                                                                      \
        const msm_grid *gr = &j->grid;                                                             \
        size_t ntiles = gr->chunks * gr->tiles;                                                    \
        for (size_t t = t0; t < t1; t++) {                                                         \
            if (t < ntiles) {                                                                      \
                size_t r = t / gr->tiles, w = t % gr->tiles;                                       \
                size_t lo = r * j->m / gr->chunks, hi = (r + 1) * j->m / gr->chunks;               \
                const affine *const *pts = j->rest_pts + lo;                                       \
                const byte *scs[2] = {j->rest_scalars[lo].b, NULL};                                \
                limb_t *buckets = (limb_t *)(j->buckets + worker * gr->bucket_bytes);              \
                if (!j->zeroed[worker]) {                                                          \
                    memset(buckets, 0, gr->bucket_bytes);                                          \
                    j->zeroed[worker] = true;                                                      \
                }                                                                                  \
                point##s_tile_pippenger(&j->tile_sums[t], pts, hi - lo, scs, MSM_NBITS, buckets,   \
                                        gr->top - w * gr->window, gr->window);                     \
            } else {                                                                               \
                size_t q = t - ntiles;                                                             \
                size_t lo = q * j->k / j->one_tasks, hi = (q + 1) * j->k / j->one_tasks;           \
                point##s_add(&j->one_sums[q], j->one_pts + lo, hi - lo);                           \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Sets *out to infinity (Z = 0) and checks the pointers. */                                   \
    static bool g##_msm_args(point *out, const affine *bases, const czk_fr *scalars, size_t n,     \
                             const char *fn, czk_err *err) {                                       \
        if (out) memset(out, 0, sizeof *out);                                                      \
        if (out && (!n || (bases && scalars))) return true;                                        \
        czk_errf(err, CZK_ERR_INVALID_ARG, "%s: NULL %s", fn,                                      \
                 !out     ? "out"                                                                  \
                 : !bases ? "bases"                                                                \
                          : "scalars");                                                            \
        return false;                                                                              \
    }                                                                                              \
                                                                                                   \
    czk_status czk_msm_##g(point *out, const affine *bases, const czk_fr *scalars, size_t n,       \
                           czk_pool *pool, czk_err *err) {                                         \
        if (!g##_msm_args(out, bases, scalars, n, "czk_msm_" #g, err)) return CZK_ERR_INVALID_ARG; \
        if (n == 0) return CZK_OK;                                                                 \
        unsigned threads = czk_pool_threads(pool);                                                 \
        msm_classes c;                                                                             \
        size_t k, m;                                                                               \
        msm_classify(&c, scalars, n, pool, &k, &m);                                                \
        if (k == 0 && m == 0) return CZK_OK;                                                       \
                                                                                                   \
        g##_msm_sum j = {.m = m, .k = k};                                                          \
        if (m >= 2) j.grid = msm_plan(m, threads, point##s_mult_pippenger_scratch_sizeof);         \
        if (k) {                                                                                   \
            j.one_tasks = (k + MSM_ONES_MIN - 1) / MSM_ONES_MIN;                                   \
            if (j.one_tasks > threads) j.one_tasks = threads;                                      \
        }                                                                                          \
        size_t ntiles = j.grid.chunks * j.grid.tiles;                                              \
        size_t total = 0, o_sc, o_rp, o_op, o_ts, o_os, o_zr, o_bk;                                \
        if (!layout_add(&total, &o_sc, m, sizeof(blst_scalar)) ||                                  \
            !layout_add(&total, &o_rp, m, sizeof(affine *)) ||                                     \
            !layout_add(&total, &o_op, k, sizeof(affine *)) ||                                     \
            !layout_add(&total, &o_ts, ntiles, sizeof(point)) ||                                   \
            !layout_add(&total, &o_os, j.one_tasks, sizeof(point)) ||                              \
            !layout_add(&total, &o_zr, threads, sizeof(bool)) ||                                   \
            !layout_add(&total, &o_bk, threads, j.grid.bucket_bytes))                              \
            return czk_errf(err, CZK_ERR_NOMEM,                                                    \
                            "MSM " NAME ": scratch size overflows for %zu points", n);             \
        unsigned char *scratch = scratch_alloc(total);                                             \
        if (!scratch)                                                                              \
            return czk_errf(err, CZK_ERR_NOMEM,                                                    \
                            "MSM " NAME ": cannot allocate %zu bytes of scratch for %zu points "   \
                            "(%zu ones, %zu others)",                                              \
                            total, n, k, m);                                                       \
                                                                                                   \
        g##_msm_gather ga = {&c, bases, (const affine **)(scratch + o_op),                         \
                             (const affine **)(scratch + o_rp), (blst_scalar *)(scratch + o_sc)};  \
        czk_pool_for(pool, c.blocks, 1, g##_msm_gather_task, &ga);                                 \
                                                                                                   \
        j.rest_pts = (const affine *const *)ga.rest_pts;                                           \
        j.rest_scalars = ga.rest_scalars;                                                          \
        j.one_pts = (const affine *const *)ga.one_pts;                                             \
        j.tile_sums = (point *)(scratch + o_ts);                                                   \
        j.one_sums = (point *)(scratch + o_os);                                                    \
        j.buckets = scratch + o_bk;                                                                \
        j.zeroed = (bool *)(scratch + o_zr);                                                       \
        memset(j.zeroed, 0, threads * sizeof(bool));                                               \
        czk_pool_for(pool, ntiles + j.one_tasks, 1, g##_msm_sum_task, &j);                         \
                                                                                                   \
        point acc;                                                                                 \
        memset(&acc, 0, sizeof acc);                                                               \
        for (size_t w = 0; w < j.grid.tiles; w++) {                                                \
            if (w)                                                                                 \
                for (size_t d = 0; d < j.grid.window; d++)                                         \
                    point##_double(&acc, &acc);                                                    \
            for (size_t r = 0; r < j.grid.chunks; r++)                                             \
                point##_add_or_double(&acc, &acc, &j.tile_sums[r * j.grid.tiles + w]);             \
        }                                                                                          \
        if (m == 1) {                                                                              \
            point##_from_affine(&acc, j.rest_pts[0]);                                              \
            point##_mult(&acc, &acc, j.rest_scalars[0].b, MSM_NBITS);                              \
        }                                                                                          \
        for (size_t q = 0; q < j.one_tasks; q++)                                                   \
            point##_add_or_double(&acc, &acc, &j.one_sums[q]);                                     \
        *out = acc;                                                                                \
        free(scratch);                                                                             \
        return CZK_OK;                                                                             \
    }                                                                                              \
                                                                                                   \
    typedef struct g##_msm_plain {                                                                 \
        const affine *bases;                                                                       \
        const czk_fr *scalars;                                                                     \
        size_t n, chunks, bucket_bytes;                                                            \
        blst_scalar *bytes;                                                                        \
        point *sums;                                                                               \
        unsigned char *buckets;                                                                    \
    } g##_msm_plain;                                                                               \
                                                                                                   \
    static void g##_msm_plain_task(void *arg, size_t r0, size_t r1, unsigned worker) {             \
        g##_msm_plain *j = arg;                                                                    \
        for (size_t r = r0; r < r1; r++) {                                                         \
            size_t lo = r * j->n / j->chunks, hi = (r + 1) * j->n / j->chunks;                     \
            for (size_t i = lo; i < hi; i++)                                                       \
                blst_scalar_from_fr(&j->bytes[i], &j->scalars[i]);                                 \
            const affine *pts[2] = {j->bases + lo, NULL};                                          \
            const byte *scs[2] = {j->bytes[lo].b, NULL};                                           \
            point##s_mult_pippenger(&j->sums[r], pts, hi - lo, scs, MSM_NBITS,                     \
                                    (limb_t *)(j->buckets + worker * j->bucket_bytes));            \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    czk_status czk_msm_##g##_plain(point *out, const affine *bases, const czk_fr *scalars,         \
                                   size_t n, czk_pool *pool, czk_err *err) {                       \
        if (!g##_msm_args(out, bases, scalars, n, "czk_msm_" #g "_plain", err))                    \
            return CZK_ERR_INVALID_ARG;                                                            \
        const size_t small = MSM_BLST_TABLE_MAX(affine);                                           \
        if (n <= small) { /* point by point: blst's table method mishandles infinity */            \
            for (size_t i = 0; i < n; i++) {                                                       \
                blst_scalar s;                                                                     \
                point p;                                                                           \
                blst_scalar_from_fr(&s, &scalars[i]);                                              \
                point##_from_affine(&p, &bases[i]);                                                \
                point##_mult(&p, &p, s.b, MSM_NBITS);                                              \
                point##_add_or_double(out, out, &p);                                               \
            }                                                                                      \
            return CZK_OK;                                                                         \
        }                                                                                          \
        unsigned threads = czk_pool_threads(pool);                                                 \
        g##_msm_plain j = {.bases = bases, .scalars = scalars, .n = n, .chunks = n / (small + 1)}; \
        if (j.chunks > threads) j.chunks = threads;                                                \
        j.bucket_bytes = point##s_mult_pippenger_scratch_sizeof((n + j.chunks - 1) / j.chunks);    \
        size_t total = 0, o_by, o_su, o_bk;                                                        \
        if (!layout_add(&total, &o_by, n, sizeof(blst_scalar)) ||                                  \
            !layout_add(&total, &o_su, j.chunks, sizeof(point)) ||                                 \
            !layout_add(&total, &o_bk, threads, j.bucket_bytes))                                   \
            return czk_errf(err, CZK_ERR_NOMEM,                                                    \
                            "MSM " NAME " (plain): scratch size overflows for %zu points", n);     \
        unsigned char *scratch = scratch_alloc(total);                                             \
        if (!scratch)                                                                              \
            return czk_errf(err, CZK_ERR_NOMEM,                                                    \
                            "MSM " NAME " (plain): cannot allocate %zu bytes of scratch for %zu "  \
                            "points",                                                              \
                            total, n);                                                             \
        j.bytes = (blst_scalar *)(scratch + o_by);                                                 \
        j.sums = (point *)(scratch + o_su);                                                        \
        j.buckets = scratch + o_bk;                                                                \
        czk_pool_for(pool, j.chunks, 1, g##_msm_plain_task, &j);                                   \
        for (size_t r = 0; r < j.chunks; r++)                                                      \
            point##_add_or_double(out, out, &j.sums[r]);                                           \
        free(scratch);                                                                             \
        return CZK_OK;                                                                             \
    }

MSM_IMPL(g1, blst_p1, blst_p1_affine, "G1")
MSM_IMPL(g2, blst_p2, blst_p2_affine, "G2")
