/*
 * Host-to-device copies at PCIe speed from any host memory.
 *
 * A DMA from pageable memory goes through the driver's own small bounce
 * buffers, one at a time, at a fraction of the link's rate (the keys of a
 * 32GiB proof took ~40 s to load that way). Page-locked memory is copied by
 * the DMA engine directly (≈ 55 GB/s measured on the H200, perf-anchors §4).
 * So: a source that is page-locked (czk_backend_ops.host_alloc, or vectors
 * pinned by cudaHostRegister) is copied directly; any other goes through a
 * ring of STAGE_SLOTS page-locked chunks of STAGE_CHUNK bytes kept in the
 * context: the host fills chunk k+1 (memcpy, or a conversion such as the
 * shape's u64 → u32 row pointers; split over ctx->copy_pool's threads) while
 * the DMA engine copies chunk k. The rate is then that of the host-side copy
 * (a few threads: tens of GB/s) or of the link, whichever is lower.
 *
 * The ring is allocated on first use (4 × 32 MiB; cudaHostAlloc costs about
 * 0.3 s per GiB, so ~40 ms once per context) and freed with the context. If
 * it cannot be allocated, copies fall back to plain pageable transfers.
 */
#include "ctx.cuh"
#include "cuda/internal.h"

#include <stdlib.h>
#include <string.h>

namespace czkg {

namespace {

constexpr size_t PIECE = (size_t)4 << 20; /* bytes per copy_pool task */
constexpr size_t SMALL = (size_t)4 << 20; /* below this, one plain cudaMemcpyAsync */

czk_status stage_init(czk_cuda_ctx *ctx, czk_err *err) {
    if (ctx->stage[0] || ctx->stage_failed) return CZK_OK;
    for (int k = 0; k < STAGE_SLOTS; k++) {
        cudaError_t e = cudaHostAlloc(&ctx->stage[k], STAGE_CHUNK, cudaHostAllocPortable);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&ctx->stage_ev[k], cudaEventDisableTiming);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            staging_free(ctx);
            ctx->stage_failed = true; /* no page-locked memory: pageable copies from now on */
            return CZK_OK;
        }
    }
    (void)err;
    return CZK_OK;
}

struct fill_job {
    stage_fill_fn fill;
    void *arg;
    char *dst;
    size_t off, len;
};

void fill_pieces(void *a, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    fill_job *j = (fill_job *)a;
    for (size_t p = begin; p < end; p++) {
        size_t o = p * PIECE, l = j->len - o < PIECE ? j->len - o : PIECE;
        j->fill(j->arg, j->dst + o, j->off + o, l);
    }
}

/* The ring could not be allocated: fill a heap buffer chunk by chunk, pageable copies. */
czk_status upload_pageable(czk_cuda_ctx *ctx, char *dst, size_t bytes, stage_fill_fn fill,
                           void *arg, czk_err *err) {
    size_t cap = bytes < STAGE_CHUNK ? bytes : STAGE_CHUNK;
    char *buf = (char *)malloc(cap);
    if (!buf) return czk_errf(err, CZK_ERR_NOMEM, "upload: host staging buffer (%zu bytes)", cap);
    czk_status st = CZK_OK;
    for (size_t off = 0; off < bytes && !st; off += cap) {
        size_t len = bytes - off < cap ? bytes - off : cap;
        fill_job j = {fill, arg, buf, off, len};
        czk_pool_for(ctx->copy_pool, (len + PIECE - 1) / PIECE, 1, fill_pieces, &j);
        cudaError_t e = cudaMemcpyAsync(dst + off, buf, len, cudaMemcpyHostToDevice, ctx->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->stream);
        if (e != cudaSuccess) st = cuda_fail(err, e, "upload: pageable copy");
    }
    free(buf);
    return st;
}

void fill_memcpy(void *arg, void *dst, size_t off, size_t len) {
    memcpy(dst, (const char *)arg + off, len);
}

} // namespace

bool host_pinned(const void *p, size_t bytes) {
    if (!p || !bytes) return false;
    const char *q[2] = {(const char *)p, (const char *)p + bytes - 1};
    for (int k = 0; k < 2; k++) {
        cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, q[k]) != cudaSuccess) {
            (void)cudaGetLastError();
            return false;
        }
        if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
}

void staging_free(czk_cuda_ctx *ctx) {
    for (int k = 0; k < STAGE_SLOTS; k++) {
        if (ctx->stage_ev[k]) {
            (void)cudaEventSynchronize(ctx->stage_ev[k]);
            (void)cudaEventDestroy(ctx->stage_ev[k]);
        }
        if (ctx->stage[k]) (void)cudaFreeHost(ctx->stage[k]);
        ctx->stage[k] = NULL;
        ctx->stage_ev[k] = NULL;
    }
    (void)cudaGetLastError();
}

czk_status upload_staged(czk_cuda_ctx *ctx, void *dst_device, size_t bytes, stage_fill_fn fill,
                         void *arg, czk_err *err) {
    if (bytes == 0) return CZK_OK;
    CZK_CU(cudaSetDevice(ctx->device), "upload: select device");
    czk_status st = stage_init(ctx, err);
    if (st) return st;
    char *dst = (char *)dst_device;
    if (!ctx->stage[0]) return upload_pageable(ctx, dst, bytes, fill, arg, err);
    cudaError_t e = cudaSuccess;
    const char *step = "";
    size_t k = 0;
    for (size_t off = 0; off < bytes; off += STAGE_CHUNK, k++) {
        int slot = (int)(k % STAGE_SLOTS);
        size_t len = bytes - off < STAGE_CHUNK ? bytes - off : STAGE_CHUNK;
        /* the DMA that last read this chunk is done (an event never recorded counts as done) */
        if ((e = cudaEventSynchronize(ctx->stage_ev[slot])) != cudaSuccess) {
            step = "wait for a staging chunk";
            break;
        }
        fill_job j = {fill, arg, (char *)ctx->stage[slot], off, len};
        czk_pool_for(ctx->copy_pool, (len + PIECE - 1) / PIECE, 1, fill_pieces, &j);
        if ((e = cudaMemcpyAsync(dst + off, ctx->stage[slot], len, cudaMemcpyHostToDevice,
                                 ctx->stream)) != cudaSuccess) {
            step = "copy a staging chunk";
            break;
        }
        if ((e = cudaEventRecord(ctx->stage_ev[slot], ctx->stream)) != cudaSuccess) {
            step = "record a staging chunk";
            break;
        }
    }
    /* always wait: no DMA may still read the ring when the caller refills it */
    cudaError_t e2 = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess)
        return czk_errf(err, e == cudaErrorMemoryAllocation ? CZK_ERR_NOMEM : CZK_ERR_DEVICE,
                        "upload: %s (byte %zu of %zu): %s", step, k * STAGE_CHUNK, bytes,
                        cudaGetErrorName(e));
    CZK_CU(e2, "upload: synchronize (%zu bytes)", bytes);
    return CZK_OK;
}

czk_status upload_fast(czk_cuda_ctx *ctx, void *dst_device, const void *src, size_t bytes,
                       czk_err *err) {
    if (bytes == 0) return CZK_OK;
    if (bytes < SMALL || host_pinned(src, bytes)) {
        CZK_CU(cudaSetDevice(ctx->device), "upload: select device");
        CZK_CU(cudaMemcpyAsync(dst_device, src, bytes, cudaMemcpyHostToDevice, ctx->stream),
               "upload: %zu bytes", bytes);
        CZK_CU(cudaStreamSynchronize(ctx->stream), "upload: synchronize (%zu bytes)", bytes);
        return CZK_OK;
    }
    return upload_staged(ctx, dst_device, bytes, fill_memcpy, (void *)src, err);
}

} // namespace czkg

using namespace czkg;

extern "C" czk_status czk_cuda_upload_fast(czk_cuda_ctx *ctx, void *dst_device, const void *src,
                                           size_t bytes, czk_err *err) {
    return upload_fast(ctx, dst_device, src, bytes, err);
}

extern "C" void czk_cuda_set_copy_pool(czk_cuda_ctx *ctx, czk_pool *pool) {
    ctx->copy_pool = pool;
}

extern "C" void *czk_cuda_host_alloc(size_t bytes) {
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void czk_cuda_host_free(void *p) {
    if (!p) return;
    (void)cudaFreeHost(p);
    (void)cudaGetLastError();
}
