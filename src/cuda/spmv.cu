/*
 * SpMV on the device: a, b, c = A·z, B·z, C·z from a recorded shape
 * (include/czk/r1cs.h, czk_csr) made resident on the device.
 *
 * Layout on the device: per matrix the row pointers as u32 (a shape whose
 * matrix has 2^32 or more non-zeros stays on the host: CZK_ERR_UNSUPPORTED),
 * the column and coefficient-index arrays as recorded, and the table of
 * distinct coefficients. One thread per row (rows are short: a few terms,
 * a few hundred at most in packing constraints); coefficient indices that
 * point at 1 or −1 add or subtract without a multiplication, as
 * czk_shape_eval does on the CPU. Field addition is exact, so the order of
 * the terms does not matter and the result equals czk_shape_eval's.
 */
#include "ctx.cuh"

#include <stdlib.h>
#include <string.h>

struct czk_cuda_shape {
    uint64_t rows;
    uint32_t num_vars; /* inputs + aux: the length of z */
    uint32_t num_coeffs;
    uint32_t one, minus_one; /* coefficient indices of 1 and −1, UINT32_MAX if absent */
    uint32_t *row_ptr[3], *col[3], *coeff[3];
    czkg::fr *coeffs;
    uint64_t bytes;
};

namespace czkg {
namespace {

__global__ void spmv_kernel(const uint32_t *const *row_ptr, const uint32_t *const *col,
                            const uint32_t *const *coeff, const fr *coeffs, uint32_t one,
                            uint32_t minus_one, const fr *z, fr *const *out, uint64_t rows,
                            uint64_t n_out) {
    uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n_out) return;
    int m = blockIdx.y;
    fr acc = fr::zero();
    if (k < rows) {
        const uint32_t *rp = row_ptr[m], *cl = col[m], *cf = coeff[m];
        for (uint32_t q = rp[k], e = rp[k + 1]; q < e; q++) {
            fr v = z[cl[q]];
            uint32_t ci = cf[q];
            if (ci == one)
                acc += v;
            else if (ci == minus_one)
                acc -= v;
            else
                acc += v * coeffs[ci];
        }
    }
    out[m][k] = acc;
}

} // namespace
} // namespace czkg

using namespace czkg;

static uint64_t shape_dev_bytes(const czk_shape *s) {
    uint64_t b = (uint64_t)s->num_coeffs * sizeof(fr) + 256;
    for (int m = 0; m < 3; m++)
        b += (s->num_constraints + 1) * 4 + s->m[m].nnz * 8 + 3 * 256;
    return b + 3 * 4 * sizeof(void *);
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
    }
    czk_cuda_free(ctx, s->coeffs);
    free(s);
}

static czk_status upload_row_ptr(czk_cuda_ctx *ctx, uint32_t *dst, const uint64_t *src,
                                 uint64_t count, czk_err *err) {
    const uint64_t chunk = 1u << 20;
    uint32_t *tmp = (uint32_t *)malloc((count < chunk ? count : chunk) * 4 + 4);
    if (!tmp) return czk_errf(err, CZK_ERR_NOMEM, "shape upload: host staging");
    czk_status st = CZK_OK;
    for (uint64_t off = 0; off < count && !st; off += chunk) {
        uint64_t m = count - off < chunk ? count - off : chunk;
        for (uint64_t i = 0; i < m; i++)
            tmp[i] = (uint32_t)src[off + i];
        st = czk_cuda_upload(ctx, dst + off, tmp, m * 4, err);
    }
    free(tmp);
    return st;
}

extern "C" czk_status czk_cuda_shape_upload(czk_cuda_ctx *ctx, czk_cuda_shape **out,
                                            const czk_shape *s, czk_err *err) {
    *out = NULL;
    for (int m = 0; m < 3; m++)
        if (s->m[m].nnz >= UINT32_MAX || (s->m[m].nnz && !s->m[m].row_ptr))
            return czk_errf(err, CZK_ERR_UNSUPPORTED,
                            "shape upload: matrix %c has %llu non-zeros (device SpMV takes < 2^32)",
                            "ABC"[m], (unsigned long long)s -> m[m].nnz);
    if (s->num_constraints >= (1ull << 31))
        return czk_errf(err, CZK_ERR_UNSUPPORTED, "shape upload: %llu constraints",
                        (unsigned long long)s->num_constraints);
    czk_cuda_shape *d = (czk_cuda_shape *)calloc(1, sizeof *d);
    if (!d) return czk_errf(err, CZK_ERR_NOMEM, "shape upload: host memory");
    d->rows = s->num_constraints;
    d->num_vars = s->num_inputs + s->num_aux;
    d->num_coeffs = s->num_coeffs;
    d->one = d->minus_one = UINT32_MAX;
    for (uint32_t i = 0; i < s->num_coeffs; i++) {
        if (d->one == UINT32_MAX && czk_fr_eq(&s->coeffs[i], &czk_fr_one)) d->one = i;
        if (d->minus_one == UINT32_MAX && czk_fr_eq(&s->coeffs[i], &czk_fr_minus_one))
            d->minus_one = i;
    }
    d->bytes = shape_dev_bytes(s);
    czk_status st = CZK_OK;
    for (int m = 0; m < 3 && !st; m++) {
        const czk_csr *c = &s->m[m];
        uint64_t rows1 = s->num_constraints + 1;
        if ((st = czk_cuda_alloc(ctx, (void **)&d->row_ptr[m], rows1 * 4, err)) ||
            (st = czk_cuda_alloc(ctx, (void **)&d->col[m], c->nnz * 4, err)) ||
            (st = czk_cuda_alloc(ctx, (void **)&d->coeff[m], c->nnz * 4, err)))
            break;
        if (!c->row_ptr) { /* an empty shape: every row empty */
            void *z = calloc(rows1, 4);
            if (!z) {
                st = czk_errf(err, CZK_ERR_NOMEM, "shape upload: host staging");
                break;
            }
            st = czk_cuda_upload(ctx, d->row_ptr[m], z, rows1 * 4, err);
            free(z);
        } else {
            st = upload_row_ptr(ctx, d->row_ptr[m], c->row_ptr, rows1, err);
        }
        if (!st && c->nnz) st = czk_cuda_upload(ctx, d->col[m], c->col, c->nnz * 4, err);
        if (!st && c->nnz) st = czk_cuda_upload(ctx, d->coeff[m], c->coeff, c->nnz * 4, err);
    }
    if (!st) st = czk_cuda_alloc(ctx, (void **)&d->coeffs, (size_t)s->num_coeffs * sizeof(fr), err);
    if (!st && s->num_coeffs)
        st = czk_cuda_upload(ctx, d->coeffs, s->coeffs, (size_t)s->num_coeffs * sizeof(fr), err);
    if (st) {
        czk_cuda_shape_free(ctx, d);
        return czk_err_wrap(err, "shape upload");
    }
    *out = d;
    return CZK_OK;
}

extern "C" czk_status czk_cuda_spmv(czk_cuda_ctx *ctx, const czk_cuda_shape *s, const czk_fr *z,
                                    czk_fr *a, czk_fr *b, czk_fr *c, size_t n, czk_err *err) {
    if (!s || !z || !a || !b || !c)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "spmv: NULL argument");
    if (n < s->rows)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "spmv: output of %zu rows, the shape has %llu", n,
                        (unsigned long long)s->rows);
    if (n >= (1ull << 31)) return czk_errf(err, CZK_ERR_INVALID_ARG, "spmv: %zu rows", n);
    if (n == 0) return CZK_OK;
    CZK_CU(cudaSetDevice(ctx->device), "spmv: select device");
    /* the kernel reads the three matrices' pointers from device memory */
    struct {
        const uint32_t *rp[3], *cl[3], *cf[3];
        fr *out[3];
    } h = {{s->row_ptr[0], s->row_ptr[1], s->row_ptr[2]},
           {s->col[0], s->col[1], s->col[2]},
           {s->coeff[0], s->coeff[1], s->coeff[2]},
           {(fr *)a, (fr *)b, (fr *)c}};
    dev_buf<uint8_t> dp;
    CZK_CU(dp.alloc(sizeof h, ctx->stream), "spmv: pointer table");
    CZK_CU(cudaMemcpyAsync(dp.p, &h, sizeof h, cudaMemcpyHostToDevice, ctx->stream),
           "spmv: pointer table upload");
    const uint32_t *const *drp = (const uint32_t *const *)(dp.p);
    const uint32_t *const *dcl = drp + 3, *const *dcf = drp + 6;
    fr *const *dout = (fr *const *)(drp + 9);
    dim3 grid(grid_for(n, 256), 3);
    spmv_kernel<<<grid, 256, 0, ctx->stream>>>(drp, dcl, dcf, s->coeffs, s->one, s->minus_one,
                                               (const fr *)z, dout, s->rows, n);
    CZK_LAUNCH("spmv: kernel (%llu rows, %zu outputs)", (unsigned long long)s->rows, n);
    CZK_CU(cudaStreamSynchronize(ctx->stream), "spmv: synchronize");
    return CZK_OK;
}
