/*
 * SpMV on the device: a, b, c = A·z, B·z, C·z from a recorded shape
 * (include/czk/r1cs.h, czk_csr) made resident on the device.
 *
 * The rows are very uneven (most hold 1–3 terms, packing and MultiEq rows
 * hundreds), so work is split by merge path (Merrill & Garland, "Merge-based
 * parallel sparse matrix-vector multiplication", SC 2016), not by rows: the
 * row ends (row_ptr[1..R]) and the non-zeros of a matrix form one list of
 * R + nnz items, in the order a sequential walk meets them (a non-zero q of
 * row i comes before row i's end iff q < row_ptr[i+1]). The list is cut into
 * tiles of SPMV_TILE items, one thread block each, and a tile into
 * SPMV_ITEMS consecutive items per thread. Every thread therefore does the
 * same bounded work whatever the rows, a long row spreads over many threads,
 * and an empty row is one item (a zero written).
 *
 *  - Layout (czk_cuda_shape_upload): per matrix the row pointers as u32, the
 *    columns and coefficient indices as recorded, and tile_row[t] = the row
 *    at the start of tile t (t <= tiles): the merge-path coordinate of
 *    diagonal t·SPMV_TILE, i.e. the number of row ends before it, found by a
 *    binary search over row_ptr once at upload time. The shape is checked
 *    there too (row_ptr from 0 to nnz and non-decreasing, columns < inputs +
 *    aux, coefficient indices < the table's size): the kernels trust it.
 *  - spmv_tiles (one launch for A, B and C): a block loads its tile's row
 *    pointers, columns and coefficient indices into shared memory with
 *    coalesced loads; each thread finds its own start by a binary search in
 *    shared memory, then walks its items: a non-zero adds z[col]·coeff to the
 *    running sum (coefficient indices of 1 and −1 add or subtract without a
 *    multiplication), a row end writes the row's sum. A thread that starts
 *    inside a row holds that row's first sum (its "head") instead of writing
 *    it; a row left open at the thread's end is its "tail" (row, partial sum)
 *    in shared memory. After a barrier each head adds the tails of the
 *    threads before it that carry the same row and writes the row; the
 *    block's last thread adds up the trailing run of tails as the tile's
 *    carry (row, value).
 *  - spmv_fixup: a row that started in earlier tiles gets their carries:
 *    the first tile of each run of equal carry rows adds the run to out[row]
 *    (the row's value was written by the tile that ended it).
 *  - Rows from num_constraints to n are zero-filled (cudaMemsetAsync: zero is
 *    all-zero bytes in Montgomery form).
 * Field addition is exact, so the order of the terms does not matter and the
 * result equals czk_shape_eval's. The same phase functions run on the host
 * in czk_cuda_spmv_emulate (tests without a GPU).
 *
 * Cost at 32GiB (A/B/C nnz 309/130/283 M, 130.3 M rows): 8 bytes of column
 * and coefficient index per non-zero, a 32-byte witness read (many hit L2:
 * a constraint's variables are close together), 4 + 32 bytes per row:
 * ≈ 45 GB of traffic, 10–20 ms at 3–4 TB/s (the former one-thread-per-row
 * kernel took ~0.3 s).
 */
#include "ctx.cuh"
#include "cuda/internal.h"

#include <stdlib.h>
#include <string.h>

namespace czkg {
namespace {

constexpr uint32_t SPMV_THREADS = 128;
constexpr uint32_t SPMV_ITEMS = 8; /* merge items (row ends and non-zeros) per thread */
constexpr uint32_t SPMV_TILE = SPMV_THREADS * SPMV_ITEMS;
constexpr uint32_t NO_ROW = UINT32_MAX;  /* no tail / no carry */
constexpr uint32_t END_INF = UINT32_MAX; /* end of the row left open at a tile's end */

/* One matrix as the kernels see it. */
struct spmv_mat {
    const uint32_t *row_ptr, *col, *coeff, *tile_row;
    fr *out;
    uint64_t items; /* rows + nnz */
    uint32_t tiles; /* ⌈items / SPMV_TILE⌉ */
    uint32_t tile0; /* index of its first tile in the launch */
};

struct spmv_args {
    spmv_mat m[3];
    const fr *z, *coeffs;
    uint32_t one, minus_one; /* coefficient indices of 1 and −1 (UINT32_MAX: absent) */
    uint32_t *carry_row;     /* per tile of the launch */
    fr *carry_val;
};

struct spmv_smem {
    uint32_t ptr[SPMV_TILE + 2]; /* row_ptr[i0 .. i0 + nr], then END_INF */
    uint32_t col[SPMV_TILE], cf[SPMV_TILE];
    uint32_t trow[SPMV_THREADS]; /* tails: row or NO_ROW */
    fr tval[SPMV_THREADS];
};

/* The tile being worked on. */
struct spmv_tile {
    spmv_mat M;
    uint32_t b;      /* tile index in the launch */
    uint32_t i0, nr; /* first row, row ends in the tile */
    uint32_t j0, nz; /* first non-zero, non-zeros in the tile */
    uint32_t nitems; /* nr + nz */
};

/* What a thread keeps between the walk and the fix-up. */
struct spmv_thread {
    bool have_head;
    uint32_t head_row;
    fr head;
};

CZK_HD fr load_fr(const fr *p) {
#ifdef __CUDA_ARCH__
    fr r;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&r);
    d[0] = __ldg(s);
    d[1] = __ldg(s + 1);
    return r;
#else
    return *p;
#endif
}

CZK_HD void store_fr(fr *p, const fr &v) {
#ifdef __CUDA_ARCH__
    uint4 *d = reinterpret_cast<uint4 *>(p);
    const uint4 *s = reinterpret_cast<const uint4 *>(&v);
    d[0] = s[0];
    d[1] = s[1];
#else
    *p = v;
#endif
}

CZK_HD uint32_t min_u32(uint32_t a, uint32_t b) {
    return a < b ? a : b;
}

/* Merge-path row of diagonal d: the smallest i <= R with i + row_ptr[i+1] >= d (i = R if none). */
CZK_HD uint32_t merge_row(const uint32_t *row_ptr, uint32_t R, uint64_t nnz, uint64_t d) {
    uint64_t lo = d > nnz ? d - nnz : 0, hi = d < R ? d : R;
    while (lo < hi) {
        uint64_t mid = (lo + hi) >> 1;
        if (mid + row_ptr[mid + 1] >= d)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (uint32_t)lo;
}

CZK_HD spmv_tile tile_of(const spmv_args &a, uint32_t b) {
    spmv_tile t;
    t.M = b >= a.m[2].tile0 ? a.m[2] : b >= a.m[1].tile0 ? a.m[1] : a.m[0];
    t.b = b;
    uint64_t tile = b - t.M.tile0;
    uint64_t d0 = tile * SPMV_TILE, d1 = d0 + SPMV_TILE < t.M.items ? d0 + SPMV_TILE : t.M.items;
    t.i0 = t.M.tile_row[tile];
    uint32_t i1 = t.M.tile_row[tile + 1];
    t.nr = i1 - t.i0;
    t.j0 = (uint32_t)(d0 - t.i0);
    t.nz = (uint32_t)(d1 - i1) - t.j0;
    t.nitems = t.nr + t.nz;
    return t;
}

/* Phase 1 (thread tid of SPMV_THREADS): the tile's row pointers and non-zeros to shared memory. */
CZK_HD void tile_load(const spmv_tile &t, spmv_smem &s, uint32_t tid) {
    for (uint32_t k = tid; k <= t.nr; k += SPMV_THREADS)
        s.ptr[k] = t.M.row_ptr[t.i0 + k];
    if (tid == 0) s.ptr[t.nr + 1] = END_INF;
    for (uint32_t k = tid; k < t.nz; k += SPMV_THREADS) {
        s.col[k] = t.M.col[t.j0 + k];
        s.cf[k] = t.M.coeff[t.j0 + k];
    }
}

/* Phase 2: the thread's items; complete rows written, head kept, tail to shared memory. */
CZK_HD spmv_thread tile_walk(const spmv_args &a, const spmv_tile &t, spmv_smem &s, uint32_t tid) {
    spmv_thread th;
    th.have_head = false;
    th.head_row = NO_ROW;
    th.head = fr::zero();
    s.trow[tid] = NO_ROW;
    const uint32_t dl = tid * SPMV_ITEMS;
    if (dl >= t.nitems) return th;
    const uint32_t count = min_u32(SPMV_ITEMS, t.nitems - dl);
    /* start: the smallest local row li with li + (end of row li − j0) >= dl */
    uint32_t lo = dl > t.nz ? dl - t.nz : 0, hi = min_u32(dl, t.nr);
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (mid + (s.ptr[mid + 1] - t.j0) >= dl)
            hi = mid;
        else
            lo = mid + 1;
    }
    uint32_t li = lo, j = t.j0 + (dl - lo); /* local row, global non-zero index */
    bool head_pending = j > s.ptr[li];      /* started inside row i0 + li */
    th.head_row = t.i0 + li;
    fr acc = fr::zero();
    bool open = false; /* acc holds terms of row i0 + li */
#pragma unroll 1
    for (uint32_t k = 0; k < count; k++) {
        if (j < s.ptr[li + 1]) {
            uint32_t q = j - t.j0, ci = s.cf[q];
            fr v = load_fr(a.z + s.col[q]);
            if (ci == a.one)
                acc += v;
            else if (ci == a.minus_one)
                acc -= v;
            else
                acc += v * load_fr(a.coeffs + ci);
            j++;
            open = true;
        } else {
            if (head_pending) {
                th.head = acc;
                th.have_head = true;
                head_pending = false;
            } else {
                store_fr(t.M.out + t.i0 + li, acc);
            }
            acc = fr::zero();
            li++;
            open = false;
        }
    }
    if (open) {
        s.trow[tid] = t.i0 + li;
        s.tval[tid] = acc;
    }
    return th;
}

/* Phase 3 (after a barrier): heads take the tails before them; the last thread makes the carry. */
CZK_HD void tile_resolve(const spmv_args &a, const spmv_tile &t, spmv_smem &s, uint32_t tid,
                         spmv_thread &th) {
    if (th.have_head) {
        fr v = th.head;
        for (int u = (int)tid - 1; u >= 0 && s.trow[u] == th.head_row; u--)
            v += s.tval[u];
        store_fr(t.M.out + th.head_row, v);
    }
    if (tid == SPMV_THREADS - 1) {
        uint32_t r = s.trow[tid];
        fr v = fr::zero();
        if (r != NO_ROW)
            for (int u = (int)tid; u >= 0 && s.trow[u] == r; u--)
                v += s.tval[u];
        a.carry_row[t.b] = r;
        a.carry_val[t.b] = v;
    }
}

/* Carries of tile b (of `total`): the first tile of a run of equal rows adds the run. */
CZK_HD void tile_fixup(const spmv_args &a, uint32_t b) {
    uint32_t r = a.carry_row[b];
    if (r == NO_ROW) return;
    const spmv_mat M = b >= a.m[2].tile0 ? a.m[2] : b >= a.m[1].tile0 ? a.m[1] : a.m[0];
    if (b > M.tile0 && a.carry_row[b - 1] == r) return;
    fr v = a.carry_val[b];
    for (uint32_t k = b + 1; k < M.tile0 + M.tiles && a.carry_row[k] == r; k++)
        v += a.carry_val[k];
    M.out[r] += v;
}

__global__ void __launch_bounds__(SPMV_THREADS) spmv_tiles(spmv_args a) {
    __shared__ spmv_smem s;
    const spmv_tile t = tile_of(a, blockIdx.x);
    tile_load(t, s, threadIdx.x);
    __syncthreads();
    spmv_thread th = tile_walk(a, t, s, threadIdx.x);
    __syncthreads();
    tile_resolve(a, t, s, threadIdx.x, th);
}

__global__ void spmv_fixup(spmv_args a, uint32_t total) {
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < total) tile_fixup(a, b);
}

/* tile_row[t] for t <= tiles (upload time). */
__global__ void spmv_tile_rows(const uint32_t *row_ptr, uint32_t R, uint64_t nnz, uint32_t tiles,
                               uint32_t *tile_row) {
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    uint64_t items = R + nnz, d = (uint64_t)t * SPMV_TILE;
    tile_row[t] = merge_row(row_ptr, R, nnz, d < items ? d : items);
}

/* Shape check (upload time): bit 0 bad row pointers, 1 column out of range, 2 bad coefficient. */
__global__ void spmv_check(const uint32_t *row_ptr, uint32_t R, const uint32_t *col,
                           const uint32_t *coeff, uint64_t nnz, uint32_t nv, uint32_t nc,
                           uint32_t *bad) {
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t top = nnz > R ? nnz : R;
    uint32_t f = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < top; i += stride) {
        if (i < R && row_ptr[i] > row_ptr[i + 1]) f |= 1;
        if (i < nnz && col[i] >= nv) f |= 2;
        if (i < nnz && coeff[i] >= nc) f |= 4;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && (row_ptr[0] != 0 || row_ptr[R] != nnz)) f |= 1;
    if (f) atomicOr(bad, f);
}

uint32_t tiles_for(uint64_t rows, uint64_t nnz) {
    return (uint32_t)((rows + nnz + SPMV_TILE - 1) / SPMV_TILE);
}

} // namespace
} // namespace czkg

using namespace czkg;

struct czk_cuda_shape {
    uint64_t rows;
    uint32_t num_vars; /* inputs + aux: the length of z */
    uint32_t num_coeffs;
    uint32_t one, minus_one; /* coefficient indices of 1 and −1, UINT32_MAX if absent */
    uint32_t *row_ptr[3], *col[3], *coeff[3], *tile_row[3];
    uint64_t nnz[3];
    uint32_t tiles[3];
    fr *coeffs;
    uint64_t bytes;
};

static uint64_t round_alloc(uint64_t b) {
    return (b + 511) & ~(uint64_t)511;
}

static uint64_t shape_dev_bytes(const czk_shape *s) {
    uint64_t b = round_alloc((uint64_t)s->num_coeffs * sizeof(fr));
    for (int m = 0; m < 3; m++)
        b += round_alloc((s->num_constraints + 1) * 4) + 2 * round_alloc(s->m[m].nnz * 4) +
             round_alloc(((uint64_t)tiles_for(s->num_constraints, s->m[m].nnz) + 1) * 4);
    return b;
}

extern "C" uint64_t czk_cuda_shape_device_bytes(const czk_shape *shape) {
    return shape_dev_bytes(shape);
}

extern "C" void czk_cuda_shape_free(czk_cuda_ctx *ctx, czk_cuda_shape *s) {
    if (!s) return;
    for (int m = 0; m < 3; m++) {
        czk_cuda_free(ctx, s->row_ptr[m]);
        czk_cuda_free(ctx, s->col[m]);
        czk_cuda_free(ctx, s->coeff[m]);
        czk_cuda_free(ctx, s->tile_row[m]);
    }
    czk_cuda_free(ctx, s->coeffs);
    free(s);
}

/* Staging fill: row pointers u64 → u32 (a value above UINT32_MAX becomes UINT32_MAX, which the
 * shape check rejects). */
static void fill_row_ptr(void *arg, void *dst, size_t off, size_t len) {
    const uint64_t *src = (const uint64_t *)arg + off / 4;
    uint32_t *d = (uint32_t *)dst;
    for (size_t i = 0, n = len / 4; i < n; i++)
        d[i] = src[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)src[i];
}

static czk_status shape_limits(const czk_shape *s, czk_err *err) {
    for (int m = 0; m < 3; m++)
        if (s->m[m].nnz >= UINT32_MAX ||
            (s->m[m].nnz && (!s->m[m].row_ptr || !s->m[m].col || !s->m[m].coeff)))
            return czk_errf(err, CZK_ERR_UNSUPPORTED,
                            "shape upload: matrix %c has %llu non-zeros (device SpMV takes < 2^32)",
                            "ABC"[m], (unsigned long long)s -> m[m].nnz);
    if (s->num_constraints >= (1ull << 31))
        return czk_errf(err, CZK_ERR_UNSUPPORTED, "shape upload: %llu constraints",
                        (unsigned long long)s->num_constraints);
    return CZK_OK;
}

static void find_units(const czk_shape *s, uint32_t *one, uint32_t *minus_one) {
    *one = *minus_one = UINT32_MAX;
    for (uint32_t i = 0; i < s->num_coeffs; i++) {
        if (*one == UINT32_MAX && czk_fr_eq(&s->coeffs[i], &czk_fr_one)) *one = i;
        if (*minus_one == UINT32_MAX && czk_fr_eq(&s->coeffs[i], &czk_fr_minus_one)) *minus_one = i;
    }
}

static czk_status shape_upload(czk_cuda_ctx *ctx, czk_cuda_shape *d, const czk_shape *s,
                               czk_err *err) {
    czk_status st;
    cudaStream_t strm = ctx->stream;
    dev_buf<uint32_t> bad;
    CZK_CU(bad.alloc(1, strm), "shape upload: check flag");
    CZK_CU(cudaMemsetAsync(bad.p, 0, 4, strm), "shape upload: clear check flag");
    for (int m = 0; m < 3; m++) {
        const czk_csr *c = &s->m[m];
        uint64_t rows1 = s->num_constraints + 1;
        d->nnz[m] = c->nnz;
        d->tiles[m] = tiles_for(s->num_constraints, c->nnz);
        if ((st = czk_cuda_alloc(ctx, (void **)&d->row_ptr[m], rows1 * 4, err)) ||
            (st = czk_cuda_alloc(ctx, (void **)&d->col[m], c->nnz * 4, err)) ||
            (st = czk_cuda_alloc(ctx, (void **)&d->coeff[m], c->nnz * 4, err)) ||
            (st =
                 czk_cuda_alloc(ctx, (void **)&d->tile_row[m], ((size_t)d->tiles[m] + 1) * 4, err)))
            return st;
        if (!c->row_ptr) { /* an empty shape: every row empty */
            CZK_CU(cudaMemsetAsync(d->row_ptr[m], 0, rows1 * 4, strm),
                   "shape upload: row pointers");
        } else if ((st = upload_staged(ctx, d->row_ptr[m], rows1 * 4, fill_row_ptr,
                                       (void *)c->row_ptr, err))) {
            return st;
        }
        if (c->nnz && ((st = upload_fast(ctx, d->col[m], c->col, c->nnz * 4, err)) ||
                       (st = upload_fast(ctx, d->coeff[m], c->coeff, c->nnz * 4, err))))
            return st;
        spmv_check<<<4 * ctx->sm_count, 256, 0, strm>>>(d->row_ptr[m], (uint32_t)d->rows, d->col[m],
                                                        d->coeff[m], c->nnz, d->num_vars,
                                                        d->num_coeffs, bad.p);
        CZK_LAUNCH("shape upload: check matrix %c", "ABC"[m]);
        spmv_tile_rows<<<grid_for((size_t)d->tiles[m] + 1, 256), 256, 0, strm>>>(
            d->row_ptr[m], (uint32_t)d->rows, c->nnz, d->tiles[m], d->tile_row[m]);
        CZK_LAUNCH("shape upload: tiles of matrix %c", "ABC"[m]);
    }
    if ((st = czk_cuda_alloc(ctx, (void **)&d->coeffs, (size_t)s->num_coeffs * sizeof(fr), err)))
        return st;
    if (s->num_coeffs &&
        (st = upload_fast(ctx, d->coeffs, s->coeffs, (size_t)s->num_coeffs * sizeof(fr), err)))
        return st;
    uint32_t flags = 0;
    CZK_CU(cudaMemcpyAsync(&flags, bad.p, 4, cudaMemcpyDeviceToHost, strm),
           "shape upload: check result");
    CZK_CU(cudaStreamSynchronize(strm), "shape upload: synchronize");
    if (flags)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "shape upload: malformed shape:%s%s%s",
                        flags & 1 ? " row pointers not from 0 to nnz and non-decreasing" : "",
                        flags & 2 ? " a column beyond inputs + aux" : "",
                        flags & 4 ? " a coefficient index beyond the table" : "");
    return CZK_OK;
}

extern "C" czk_status czk_cuda_shape_upload(czk_cuda_ctx *ctx, czk_cuda_shape **out,
                                            const czk_shape *s, czk_err *err) {
    *out = NULL;
    czk_status st = shape_limits(s, err);
    if (st) return st;
    CZK_CU(cudaSetDevice(ctx->device), "shape upload: select device");
    czk_cuda_shape *d = (czk_cuda_shape *)calloc(1, sizeof *d);
    if (!d) return czk_errf(err, CZK_ERR_NOMEM, "shape upload: host memory");
    d->rows = s->num_constraints;
    d->num_vars = s->num_inputs + s->num_aux;
    d->num_coeffs = s->num_coeffs;
    find_units(s, &d->one, &d->minus_one);
    d->bytes = shape_dev_bytes(s);
    if ((st = shape_upload(ctx, d, s, err))) {
        czk_cuda_shape_free(ctx, d);
        return czk_err_wrap(err, "shape upload");
    }
    *out = d;
    return CZK_OK;
}

/* The kernels' arguments for outputs a, b, c (tile tables and carries filled by the caller). */
static spmv_args make_args(const czk_cuda_shape *s, const fr *z, fr *out[3]) {
    spmv_args a;
    memset(&a, 0, sizeof a);
    uint32_t tile0 = 0;
    for (int m = 0; m < 3; m++) {
        a.m[m].row_ptr = s->row_ptr[m];
        a.m[m].col = s->col[m];
        a.m[m].coeff = s->coeff[m];
        a.m[m].tile_row = s->tile_row[m];
        a.m[m].out = out[m];
        a.m[m].items = s->rows + s->nnz[m];
        a.m[m].tiles = s->tiles[m];
        a.m[m].tile0 = tile0;
        tile0 += s->tiles[m];
    }
    a.z = z;
    a.coeffs = s->coeffs;
    a.one = s->one;
    a.minus_one = s->minus_one;
    return a;
}

extern "C" czk_status czk_cuda_spmv(czk_cuda_ctx *ctx, const czk_cuda_shape *s, const czk_fr *z,
                                    czk_fr *a, czk_fr *b, czk_fr *c, size_t n, czk_err *err) {
    if (!s || !z || !a || !b) return czk_errf(err, CZK_ERR_INVALID_ARG, "spmv: NULL argument");
    if (n < s->rows)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "spmv: output of %zu rows, the shape has %llu", n,
                        (unsigned long long)s->rows);
    if (n >= (1ull << 31)) return czk_errf(err, CZK_ERR_INVALID_ARG, "spmv: %zu rows", n);
    if (n == 0) return CZK_OK;
    CZK_CU(cudaSetDevice(ctx->device), "spmv: select device");
    cudaStream_t strm = ctx->stream;
    fr *out[3] = {(fr *)a, (fr *)b, (fr *)c};
    spmv_args args = make_args(s, (const fr *)z, out);
    /* the tiles are A's, then B's, then C's: without c the launch stops after B's */
    const uint32_t total = s->tiles[0] + s->tiles[1] + (c ? s->tiles[2] : 0);
    dev_buf<uint32_t> crow;
    dev_buf<fr> cval;
    CZK_CU(crow.alloc(total, strm), "spmv: tile carries (%u)", total);
    CZK_CU(cval.alloc(total, strm), "spmv: tile carries (%u)", total);
    args.carry_row = crow.p;
    args.carry_val = cval.p;
    if (total) {
        spmv_tiles<<<total, SPMV_THREADS, 0, strm>>>(args);
        CZK_LAUNCH("spmv: tiles (%llu rows, %u tiles)", (unsigned long long)s->rows, total);
        spmv_fixup<<<grid_for(total, 256), 256, 0, strm>>>(args, total);
        CZK_LAUNCH("spmv: carries between tiles");
    }
    for (int m = 0; m < 3; m++)
        if (n > s->rows && out[m])
            CZK_CU(cudaMemsetAsync(out[m] + s->rows, 0, (n - s->rows) * sizeof(fr), strm),
                   "spmv: zero padding");
    CZK_CU(cudaStreamSynchronize(strm), "spmv: synchronize");
    return CZK_OK;
}

/* ---- the same algorithm on the host (czk_cuda_spmv_emulate) ---- */

extern "C" czk_status czk_cuda_spmv_emulate(const czk_shape *shape, const czk_fr *z, czk_fr *a,
                                            czk_fr *b, czk_fr *c, size_t n, czk_err *err) {
    czk_status st = shape_limits(shape, err);
    if (st) return st;
    const uint64_t R = shape->num_constraints;
    if (n < R)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "spmv emulate: output of %zu rows, %llu rows", n,
                        (unsigned long long)R);
    const uint32_t nv = shape->num_inputs + shape->num_aux;
    czk_cuda_shape d;
    memset(&d, 0, sizeof d);
    d.rows = R;
    d.num_vars = nv;
    d.num_coeffs = shape->num_coeffs;
    d.coeffs = (fr *)shape->coeffs;
    find_units(shape, &d.one, &d.minus_one);
    uint32_t total = 0;
    st = CZK_OK;
    for (int m = 0; m < 3 && !st; m++) {
        const czk_csr *cm = &shape->m[m];
        d.nnz[m] = cm->nnz;
        d.tiles[m] = tiles_for(R, cm->nnz);
        total += d.tiles[m];
        d.row_ptr[m] = (uint32_t *)calloc(R + 1, 4);
        d.tile_row[m] = (uint32_t *)calloc((size_t)d.tiles[m] + 1, 4);
        if (!d.row_ptr[m] || !d.tile_row[m]) {
            st = czk_errf(err, CZK_ERR_NOMEM, "spmv emulate: host memory");
            break;
        }
        if (cm->row_ptr) fill_row_ptr((void *)cm->row_ptr, d.row_ptr[m], 0, (R + 1) * 4);
        d.col[m] = cm->col;
        d.coeff[m] = cm->coeff;
        /* the device's shape check */
        bool ok = d.row_ptr[m][0] == 0 && d.row_ptr[m][R] == cm->nnz;
        for (uint64_t i = 0; i < R && ok; i++)
            ok = d.row_ptr[m][i] <= d.row_ptr[m][i + 1];
        for (uint64_t q = 0; q < cm->nnz && ok; q++)
            ok = cm->col[q] < nv && cm->coeff[q] < shape->num_coeffs;
        if (!ok) {
            st = czk_errf(err, CZK_ERR_INVALID_ARG, "spmv emulate: malformed matrix %c", "ABC"[m]);
            break;
        }
        for (uint32_t t = 0; t <= d.tiles[m]; t++) {
            uint64_t items = R + cm->nnz, dd = (uint64_t)t * SPMV_TILE;
            d.tile_row[m][t] =
                merge_row(d.row_ptr[m], (uint32_t)R, cm->nnz, dd < items ? dd : items);
        }
    }
    fr *out[3] = {(fr *)a, (fr *)b, (fr *)c};
    spmv_args args = make_args(&d, (const fr *)z, out);
    spmv_smem *sm = (spmv_smem *)malloc(sizeof *sm);
    spmv_thread *th = (spmv_thread *)malloc(SPMV_THREADS * sizeof *th);
    args.carry_row = (uint32_t *)malloc(((size_t)total + 1) * 4);
    args.carry_val = (fr *)malloc(((size_t)total + 1) * sizeof(fr));
    if (!st && (!sm || !th || !args.carry_row || !args.carry_val))
        st = czk_errf(err, CZK_ERR_NOMEM, "spmv emulate: host memory");
    /* without c, C's tiles (the last ones) are not run, as on the device */
    const uint32_t run = c ? total : total - d.tiles[2];
    if (!st) {
        /* garbage in the outputs first, as on the device: every row must be written */
        for (int m = 0; m < 3; m++)
            if (out[m]) memset(out[m], 0xa5, R * sizeof(fr));
        for (uint32_t blk = 0; blk < run; blk++) {
            memset(sm, 0x5a, sizeof *sm); /* shared memory is not initialized either */
            spmv_tile t = tile_of(args, blk);
            for (uint32_t tid = 0; tid < SPMV_THREADS; tid++)
                tile_load(t, *sm, tid);
            for (uint32_t tid = 0; tid < SPMV_THREADS; tid++)
                th[tid] = tile_walk(args, t, *sm, tid);
            for (uint32_t tid = 0; tid < SPMV_THREADS; tid++)
                tile_resolve(args, t, *sm, tid, th[tid]);
        }
        for (uint32_t blk = 0; blk < run; blk++)
            tile_fixup(args, blk);
        for (int m = 0; m < 3; m++)
            if (out[m]) memset(out[m] + R, 0, (n - R) * sizeof(fr));
    }
    free(sm);
    free(th);
    free(args.carry_row);
    free(args.carry_val);
    for (int m = 0; m < 3; m++) {
        free(d.row_ptr[m]);
        free(d.tile_row[m]);
    }
    return st;
}
