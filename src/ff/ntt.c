/*
 * NTT over Fr on the CPU: bellperson's EvaluationDomain fft / ifft /
 * coset_fft / icoset_fft (bellperson src/domain.rs), natural order in and out,
 * in place.
 *
 * Small domains (N <= 2^10) run on the calling thread as one radix-2
 * decimation-in-frequency (Gentleman-Sande) pass over the whole array,
 * followed by a bit-reversal permutation.
 *
 * Larger domains use the four-step split N = R·C (R = 2^ceil(log_n/2) rows,
 * C = 2^floor(log_n/2) columns, element j at row j / C, column j % C), so
 * that every sub-transform works on at most 2^14 elements (512 KiB, within an
 * L2 cache) and every pass over the array touches whole cache lines:
 *   1. columns: each worker gathers a block of adjacent columns into its
 *      scratch, runs a DIF NTT of size R (ω_R = ω^C) on each, multiplies the
 *      output k2 of column c by ω^(c·k2) and scatters the block back;
 *   2. rows: a DIF NTT of size C (ω_C = ω^R) on each row, in place;
 *   3. a cache-blocked bit-reversal of the whole array.
 * Because both passes are DIF (natural in, bit-reversed out), the element at
 * position p·C + q after step 2 is X[rev_C(q)·R + rev_R(p)] = X[rev_n(p·C+q)],
 * so one global bit-reversal (an involution: pairs of swaps, in place) gives
 * natural order; no transposition and no N-sized scratch are needed.
 *
 * The scalings are folded into those passes rather than run as extra sweeps:
 * for the coset kinds with j = c + C·r and k = k2 + R·k1,
 *   g^j = g^c · (g^C)^r      g^c multiplies column c's outputs (it commutes
 *                            with the column NTT); (g^C)^r is applied on gather;
 *   g^-k/N = g^-k2/N · (g^-R)^k1   g^-k2/N joins the column twiddle walk;
 *                            (g^-R)^k1 is applied after each row NTT;
 * and 1/N of the plain inverse joins the column twiddle walk too.
 *
 * Twiddle tables are built per call (in parallel for the larger ones): one
 * table per DIF size holding each stage's powers contiguously, ω^c and g^c
 * per column, and the coset factors above. Nothing is allocated inside the
 * passes; each worker uses its own slice of one scratch allocation.
 */
#include "czk/ntt.h"

#include <stdlib.h>
#include <string.h>

/* Up to 2^DIRECT_MAX_LOG: one serial in-cache pass. */
#define DIRECT_MAX_LOG 10u
/* Column scratch per worker (elements): 1 MiB, about one L2 cache. */
#define SCRATCH_ELEMS ((size_t)1 << 15)
/* Bit-reversal tiles are 2^TILE_LOG × 2^TILE_LOG elements (rows of 512 bytes). */
#define TILE_LOG 4u
#define TILE ((size_t)1 << TILE_LOG)

static inline size_t rev_bits(size_t x, unsigned bits) {
    uint64_t v = x;
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
    v = __builtin_bswap64(v);
    return bits ? (size_t)(v >> (64 - bits)) : 0;
}

static void *alloc_fr(size_t count) {
    size_t bytes = (count * sizeof(czk_fr) + 63) & ~(size_t)63;
    return aligned_alloc(64, bytes ? bytes : 64);
}

/* ---- tables ---- */

typedef struct powers_job {
    czk_fr *out;
    czk_fr base, start; /* out[i] = start · base^i */
} powers_job;

static void powers_task(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const powers_job *j = arg;
    czk_fr x;
    czk_fr_pow_u64(&x, &j->base, begin);
    czk_fr_mul(&x, &x, &j->start);
    for (size_t i = begin; i < end; i++) {
        j->out[i] = x;
        czk_fr_mul(&x, &x, &j->base);
    }
}

/* out[i] = start · base^i for i < count, split over the pool for large counts. */
static void powers(czk_fr *out, const czk_fr *base, const czk_fr *start, size_t count,
                   czk_pool *pool) {
    powers_job j = {out, *base, *start};
    czk_pool_for(pool, count, 4096, powers_task, &j);
}

/*
 * DIF stage table for size m = 2^log_m: the stage of half-width h uses
 * tw[m − 2h + i] = w^(i·m/(2h)), i < h, with w the primitive m-th root.
 * m − 1 elements (none for m = 2, whose only stage has twiddle 1).
 */
static void dif_table(czk_fr *tw, unsigned log_m, const czk_fr *w, czk_pool *pool) {
    size_t m = (size_t)1 << log_m;
    if (m < 4) return;
    powers(tw, w, &czk_fr_one, m / 2, pool);
    for (size_t h = m / 4; h >= 1; h >>= 1) {
        czk_fr *t = tw + (m - 2 * h);
        size_t stride = m / (2 * h);
        for (size_t i = 0; i < h; i++)
            t[i] = tw[i * stride];
    }
}

/* ---- kernels ---- */

/* Radix-2 DIF on a[0 .. 2^log_m): natural order in, bit-reversed order out. */
static void dif(czk_fr *a, unsigned log_m, const czk_fr *tw) {
    size_t m = (size_t)1 << log_m;
    czk_fr d;
    for (size_t h = m >> 1; h > 1; h >>= 1) {
        const czk_fr *t = tw + (m - 2 * h);
        for (size_t blk = 0; blk < m; blk += 2 * h) {
            czk_fr *x = a + blk, *y = x + h;
            d = x[0];
            czk_fr_add(&x[0], &d, &y[0]);
            czk_fr_sub(&y[0], &d, &y[0]);
            for (size_t i = 1; i < h; i++) {
                czk_fr_sub(&d, &x[i], &y[i]);
                czk_fr_add(&x[i], &x[i], &y[i]);
                czk_fr_mul(&y[i], &d, &t[i]);
            }
        }
    }
    for (size_t i = 0; i < m; i += 2) {
        d = a[i];
        czk_fr_add(&a[i], &d, &a[i + 1]);
        czk_fr_sub(&a[i + 1], &d, &a[i + 1]);
    }
}

/* x[i] *= start · base^i. */
static void scale_walk(czk_fr *x, size_t n, const czk_fr *start, const czk_fr *base) {
    czk_fr w = *start;
    for (size_t i = 0; i < n; i++) {
        czk_fr_mul(&x[i], &x[i], &w);
        czk_fr_mul(&w, &w, base);
    }
}

static void bitrev_simple(czk_fr *a, unsigned log_n) {
    size_t n = (size_t)1 << log_n;
    for (size_t i = 0; i < n; i++) {
        size_t j = rev_bits(i, log_n);
        if (i < j) {
            czk_fr t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

/* ---- four-step ---- */

typedef struct plan {
    czk_fr *data;
    unsigned log_r, log_c, log_n;
    size_t r, c, block;        /* rows, columns, columns per gather block */
    const czk_fr *tw_r, *tw_c; /* DIF tables for sizes R and C */
    const czk_fr *col_step;    /* per column c: ω^c (times g^-1 for COSET_INVERSE) */
    const czk_fr *col_init;    /* per column c: g^c (COSET_FORWARD), or NULL */
    czk_fr init;               /* 1, or 1/N for the inverse kinds */
    const czk_fr *pre;         /* COSET_FORWARD: (g^C)^r, R entries; else NULL */
    const czk_fr *post;        /* COSET_INVERSE: (g^-R)^k1, C entries; else NULL */
    czk_fr *scratch;           /* workers × block × R */
} plan;

static void column_task(void *arg, size_t begin, size_t end, unsigned worker) {
    const plan *p = arg;
    const size_t R = p->r, C = p->c, B = p->block;
    czk_fr *sc = p->scratch + (size_t)worker * B * R;
    for (size_t kb = begin; kb < end; kb++) {
        const size_t c0 = kb * B;
        for (size_t r = 0; r < R; r++) {
            const czk_fr *src = p->data + r * C + c0;
            if (p->pre) {
                for (size_t b = 0; b < B; b++)
                    czk_fr_mul(&sc[b * R + r], &src[b], &p->pre[r]);
            } else {
                for (size_t b = 0; b < B; b++)
                    sc[b * R + r] = src[b];
            }
        }
        for (size_t b = 0; b < B; b++) {
            czk_fr *s = sc + b * R;
            dif(s, p->log_r, p->tw_r);
            /* Output k2 sits at rev_R(k2); multiply it by init_c · step_c^k2. */
            czk_fr w = p->init;
            if (p->col_init) czk_fr_mul(&w, &w, &p->col_init[c0 + b]);
            const czk_fr *step = &p->col_step[c0 + b];
            for (size_t k2 = 0; k2 < R; k2++) {
                czk_fr *v = &s[rev_bits(k2, p->log_r)];
                czk_fr_mul(v, v, &w);
                czk_fr_mul(&w, &w, step);
            }
        }
        for (size_t r = 0; r < R; r++) {
            czk_fr *dst = p->data + r * C + c0;
            for (size_t b = 0; b < B; b++)
                dst[b] = sc[b * R + r];
        }
    }
}

static void row_task(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const plan *p = arg;
    for (size_t row = begin; row < end; row++) {
        czk_fr *x = p->data + row * p->c;
        dif(x, p->log_c, p->tw_c);
        if (p->post) {
            for (size_t q = 0; q < p->c; q++)
                czk_fr_mul(&x[q], &x[q], &p->post[rev_bits(q, p->log_c)]);
        }
    }
}

/*
 * Bit-reversal in tiles: with position (a, m, b) = a·2^(log_n−T) + m·2^T + b
 * (a, b of T bits), rev(a, m, b) = (rev b, rev m, rev a), so tile m maps onto
 * tile rev(m) transposed. Each task item swaps one pair of tiles (or permutes
 * one tile onto itself), reading and writing rows of 2^T adjacent elements.
 */
static void bitrev_task(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const plan *p = arg;
    const unsigned mid = p->log_n - 2 * TILE_LOG, sh = p->log_n - TILE_LOG;
    czk_fr ta[TILE * TILE], tb[TILE * TILE];
    size_t rt[TILE];
    for (size_t i = 0; i < TILE; i++)
        rt[i] = rev_bits(i, TILE_LOG);
    for (size_t m = begin; m < end; m++) {
        size_t mr = rev_bits(m, mid);
        if (mr < m) continue;
        for (size_t a = 0; a < TILE; a++) {
            memcpy(&ta[a * TILE], p->data + ((a << sh) | (m << TILE_LOG)), sizeof ta / TILE);
            if (mr != m)
                memcpy(&tb[a * TILE], p->data + ((a << sh) | (mr << TILE_LOG)), sizeof tb / TILE);
        }
        for (size_t a = 0; a < TILE; a++) {
            czk_fr *da = p->data + ((a << sh) | (mr << TILE_LOG));
            for (size_t b = 0; b < TILE; b++)
                da[b] = ta[rt[b] * TILE + rt[a]];
            if (mr != m) {
                czk_fr *db = p->data + ((a << sh) | (m << TILE_LOG));
                for (size_t b = 0; b < TILE; b++)
                    db[b] = tb[rt[b] * TILE + rt[a]];
            }
        }
    }
}

/* ---- entry ---- */

static bool is_inverse(czk_ntt_kind k) {
    return k == CZK_NTT_INVERSE || k == CZK_NTT_COSET_INVERSE;
}

static czk_status ntt_direct(czk_fr *data, unsigned log_n, czk_ntt_kind kind, const czk_fr *w,
                             const czk_fr *n_inv, czk_err *err) {
    const size_t n = (size_t)1 << log_n;
    czk_fr *tw = alloc_fr(n);
    if (!tw) return czk_errf(err, CZK_ERR_NOMEM, "ntt: twiddle table for 2^%u", log_n);
    czk_fr g;
    czk_fr_from_u64(&g, CZK_FR_GENERATOR);
    if (kind == CZK_NTT_COSET_FORWARD) scale_walk(data, n, &czk_fr_one, &g);
    dif_table(tw, log_n, w, NULL);
    dif(data, log_n, tw);
    bitrev_simple(data, log_n);
    if (kind == CZK_NTT_INVERSE) {
        for (size_t i = 0; i < n; i++)
            czk_fr_mul(&data[i], &data[i], n_inv);
    } else if (kind == CZK_NTT_COSET_INVERSE) {
        czk_fr g_inv;
        czk_fr_inv(&g_inv, &g);
        scale_walk(data, n, n_inv, &g_inv);
    }
    free(tw);
    return CZK_OK;
}

czk_status czk_ntt(czk_fr *data, unsigned log_n, czk_ntt_kind kind, czk_pool *pool, czk_err *err) {
    if (log_n < 1 || log_n > CZK_NTT_MAX_LOG)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "ntt: log_n = %u is outside 1..%u", log_n,
                        CZK_NTT_MAX_LOG);
    if (kind != CZK_NTT_FORWARD && kind != CZK_NTT_INVERSE && kind != CZK_NTT_COSET_FORWARD &&
        kind != CZK_NTT_COSET_INVERSE)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "ntt: unknown kind %d", (int)kind);
    if (!data) return czk_errf(err, CZK_ERR_INVALID_ARG, "ntt: data is NULL");

    const size_t n = (size_t)1 << log_n;
    czk_fr w, n_inv = czk_fr_one;
    czk_status st = czk_fr_root_of_unity(&w, log_n, err);
    if (st) return st;
    if (is_inverse(kind)) {
        czk_fr_inv(&w, &w);
        czk_fr_from_u64(&n_inv, n);
        czk_fr_inv(&n_inv, &n_inv);
    }
    if (log_n <= DIRECT_MAX_LOG) return ntt_direct(data, log_n, kind, &w, &n_inv, err);

    plan p = {.data = data, .log_n = log_n, .init = n_inv};
    p.log_r = (log_n + 1) / 2;
    p.log_c = log_n / 2;
    p.r = (size_t)1 << p.log_r;
    p.c = (size_t)1 << p.log_c;
    p.block = SCRATCH_ELEMS / p.r;
    if (p.block < 2) p.block = 2;
    if (p.block > 8) p.block = 8;
    if (p.block > p.c) p.block = p.c;
    const size_t R = p.r, C = p.c;
    const unsigned workers = czk_pool_threads(pool);

    /* One allocation for the tables, one for the scratch. */
    size_t ntab = (R - 1) + (C - 1) + C + R + C;
    czk_fr *tab = alloc_fr(ntab);
    czk_fr *scratch = alloc_fr((size_t)workers * p.block * R);
    if (!tab || !scratch) {
        free(tab);
        free(scratch);
        return czk_errf(err, CZK_ERR_NOMEM, "ntt: tables and %u×%zu scratch for 2^%u", workers,
                        p.block * R, log_n);
    }
    czk_fr *tw_r = tab, *tw_c = tw_r + (R - 1), *col_step = tw_c + (C - 1);
    czk_fr *extra_r = col_step + C, *extra_c = extra_r + R;

    czk_fr g, g_inv, w_r, w_c, t;
    czk_fr_from_u64(&g, CZK_FR_GENERATOR);
    czk_fr_inv(&g_inv, &g);
    czk_fr_pow_u64(&w_r, &w, C); /* ω_R = ω^C */
    czk_fr_pow_u64(&w_c, &w, R); /* ω_C = ω^R */
    dif_table(tw_r, p.log_r, &w_r, pool);
    dif_table(tw_c, p.log_c, &w_c, pool);
    p.tw_r = tw_r;
    p.tw_c = tw_c;
    if (kind == CZK_NTT_COSET_INVERSE) {
        powers(col_step, &w, &g_inv, C, pool);
        czk_fr_pow_u64(&t, &g_inv, R);
        powers(extra_c, &t, &czk_fr_one, C, pool);
        p.post = extra_c;
    } else {
        powers(col_step, &w, &czk_fr_one, C, pool);
    }
    if (kind == CZK_NTT_COSET_FORWARD) {
        czk_fr_pow_u64(&t, &g, C);
        powers(extra_r, &t, &czk_fr_one, R, pool);
        powers(extra_c, &g, &czk_fr_one, C, pool);
        p.pre = extra_r;
        p.col_init = extra_c;
    }
    p.col_step = col_step;
    p.scratch = scratch;

    czk_pool_for(pool, C / p.block, 1, column_task, &p);
    czk_pool_for(pool, R, 1, row_task, &p);
    czk_pool_for(pool, (size_t)1 << (log_n - 2 * TILE_LOG), 1, bitrev_task, &p);

    free(scratch);
    free(tab);
    return CZK_OK;
}
