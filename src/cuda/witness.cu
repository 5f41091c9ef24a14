/*
 * The packed witness upload: z = inputs ‖ aux from its packed form
 * (czk_witness_packed, include/czk/r1cs.h: 2 bits a value, 0 zero, 1 one,
 * 2 other, and the others in order), made on the host by the engine's
 * synthesis worker (czk_witness_pack).
 *
 * A 32GiB PoRep partition's z is 130 M values, 4.2 GB: 0.075 s over PCIe at
 * ≈ 55 GB/s on the critical path of every partition. Its packed form is
 * ≈ 32 MB of codes + ≈ 55 MB of others (51 % zeros, 47 % ones, 1–2 %
 * others), ≈ 1.6 ms over the same link. On the device:
 *   1. codes and others are copied into scratch memory the caller gives
 *      (the backend's a, b, c, dead until SpMV writes them);
 *   2. count_kernel: per 32-value word its count of others (popcount of the
 *      codes' high bits);
 *   3. an exclusive sum over the words (CUB) gives where each word's others
 *      start;
 *   4. expand_kernel: one thread a value, so that a warp writes 1 KB of z
 *      in one piece: its word (one load a warp), its code, and for an other
 *      the word's start plus the others before it in the word.
 * Steps 2–4 are ≈ 4.3 GB of writes and ≈ 0.1 GB of reads: ≈ 1.5 ms at
 * 3–4 TB/s. The values come out byte for byte: zeros are all-zero bytes, a
 * one is czk_fr_one as the host has it, the others are copied.
 * packed_source is the index logic of step 4, run on the host by
 * czk_cuda_witness_expand_emulate (tests without a GPU).
 */
#include "ctx.cuh"
#include "cuda/internal.h"

#include "czk/r1cs.h"

#include <cub/device/device_scan.cuh>
#include <string.h>

namespace czkg {
namespace {

constexpr uint64_t OTHER_BITS = 0xAAAAAAAAAAAAAAAAull; /* the high bit of each code */
constexpr size_t ALIGN = 256;

CZK_HD unsigned popc64(uint64_t x) {
#ifdef __CUDA_ARCH__
    return (unsigned)__popcll(x);
#else
    return (unsigned)__builtin_popcountll(x);
#endif
}

/* Where value i of z comes from: 0 zero, 1 one, else 2 + its index in the others. off[w]: the
 * others before word w. */
CZK_HD uint64_t packed_source(const uint64_t *codes, const uint32_t *off, uint64_t i) {
    uint64_t w = codes[i >> 5];
    unsigned sh = 2 * (unsigned)(i & 31);
    unsigned c = (unsigned)(w >> sh) & 3;
    if (c < 2) return c;
    return 2 + (uint64_t)off[i >> 5] + popc64(w & OTHER_BITS & ((1ull << sh) - 1));
}

__global__ void count_kernel(uint32_t *cnt, const uint64_t *codes, uint64_t words) {
    uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w < words) cnt[w] = popc64(codes[w] & OTHER_BITS);
}

/* A value as two 16-byte halves (z and the others are 256-byte aligned arrays of 32 bytes). */
struct v32 {
    uint4 lo, hi;
};

__global__ void expand_kernel(v32 *z, const uint64_t *codes, const v32 *others, const uint32_t *off,
                              uint64_t n, v32 one) {
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t s = packed_source(codes, off, i);
    v32 v;
    if (s >= 2)
        v = others[s - 2];
    else if (s == 1)
        v = one;
    else
        v.lo = v.hi = make_uint4(0, 0, 0, 0);
    z[i] = v;
}

size_t up(size_t x) {
    return (x + ALIGN - 1) / ALIGN * ALIGN;
}

/* The scratch's parts: codes, others, counts, offsets, the scan's temporaries. */
struct layout {
    size_t codes, others, cnt, off, temp, temp_bytes, total;
};

czk_status plan(layout *l, uint64_t n, uint64_t num_others, czk_err *err) {
    uint64_t words = (n + 31) / 32;
    if (n == 0 || n > UINT32_MAX || num_others > n)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "packed witness: %llu values, %llu others",
                        (unsigned long long)n, (unsigned long long)num_others);
    l->temp_bytes = 0;
    CZK_CU(cub::DeviceScan::ExclusiveSum(nullptr, l->temp_bytes, (const uint32_t *)nullptr,
                                         (uint32_t *)nullptr, (int)words),
           "packed witness: scan size");
    l->codes = 0;
    l->others = up(words * 8);
    l->cnt = l->others + up(num_others * sizeof(czk_fr));
    l->off = l->cnt + up(words * 4);
    l->temp = l->off + up(words * 4);
    l->total = l->temp + up(l->temp_bytes);
    return CZK_OK;
}

} // namespace

czk_status packed_scratch_bytes(const czk_witness_packed *p, size_t *bytes, czk_err *err) {
    layout l;
    czk_status st = plan(&l, p->n, p->num_others, err);
    *bytes = st ? 0 : l.total;
    return st;
}

czk_status upload_packed(czk_cuda_ctx *ctx, czk_fr *z, const czk_witness_packed *p, void *scratch,
                         size_t scratch_bytes, czk_err *err) {
    layout l;
    czk_status st = plan(&l, p->n, p->num_others, err);
    if (st) return st;
    if (scratch_bytes < l.total || ((uintptr_t)scratch | (uintptr_t)z) % ALIGN)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "packed witness: scratch of %zu bytes at %p for %zu (z at %p), 256-byte "
                        "aligned",
                        scratch_bytes, scratch, l.total, (void *)z);
    uint64_t words = (p->n + 31) / 32;
    char *s = (char *)scratch;
    uint64_t *codes = (uint64_t *)(s + l.codes);
    v32 *others = (v32 *)(s + l.others);
    uint32_t *cnt = (uint32_t *)(s + l.cnt), *off = (uint32_t *)(s + l.off);
    if ((st = upload_fast(ctx, codes, p->codes, words * 8, err)) ||
        (st = upload_fast(ctx, others, p->others, p->num_others * sizeof(czk_fr), err)))
        return czk_err_wrap(err, "packed witness upload");
    cudaStream_t strm = ctx->stream;
    count_kernel<<<grid_for(words, 256), 256, 0, strm>>>(cnt, codes, words);
    CZK_LAUNCH("packed witness: counts (%llu words)", (unsigned long long)words);
    size_t temp_bytes = l.temp_bytes;
    CZK_CU(cub::DeviceScan::ExclusiveSum(s + l.temp, temp_bytes, (const uint32_t *)cnt, off,
                                         (int)words, strm),
           "packed witness: scan");
    v32 one;
    memcpy(&one, &czk_fr_one, sizeof one);
    expand_kernel<<<grid_for(p->n, 256), 256, 0, strm>>>((v32 *)z, codes, others, off, p->n, one);
    CZK_LAUNCH("packed witness: expand (%llu values)", (unsigned long long)p->n);
    CZK_CU(cudaStreamSynchronize(strm), "packed witness: synchronize");
    return CZK_OK;
}

} // namespace czkg

using namespace czkg;

extern "C" czk_status czk_cuda_witness_expand(czk_cuda_ctx *ctx, czk_fr *z_dev,
                                              const czk_witness_packed *p, czk_err *err) {
    CZK_CU(cudaSetDevice(ctx->device), "packed witness: select device");
    size_t bytes = 0;
    czk_status st = packed_scratch_bytes(p, &bytes, err);
    if (st) return st;
    void *scratch = NULL;
    if ((st = czk_cuda_alloc(ctx, &scratch, bytes, err))) return st;
    st = upload_packed(ctx, z_dev, p, scratch, bytes, err);
    czk_cuda_free(ctx, scratch);
    return st;
}

extern "C" czk_status czk_cuda_witness_expand_emulate(czk_fr *z, const czk_witness_packed *p,
                                                      czk_err *err) {
    uint64_t words = (p->n + 31) / 32;
    if (p->n == 0 || p->n > UINT32_MAX || p->num_others > p->n)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "packed witness: %llu values, %llu others",
                        (unsigned long long)p->n, (unsigned long long)p->num_others);
    uint32_t *off = (uint32_t *)malloc(words * 4);
    if (!off) return czk_errf(err, CZK_ERR_NOMEM, "packed witness emulate: offsets");
    uint32_t at = 0;
    for (uint64_t w = 0; w < words; w++) {
        off[w] = at;
        at += popc64(p->codes[w] & OTHER_BITS);
    }
    czk_status st = at == p->num_others
                        ? CZK_OK
                        : czk_errf(err, CZK_ERR_INVALID_ARG,
                                   "packed witness: the codes hold %u others, num_others %llu", at,
                                   (unsigned long long)p->num_others);
    for (uint64_t i = 0; i < p->n && !st; i++) {
        uint64_t src = packed_source(p->codes, off, i);
        z[i] = src >= 2 ? p->others[src - 2] : src == 1 ? czk_fr_one : czk_fr_zero;
    }
    free(off);
    return st;
}
