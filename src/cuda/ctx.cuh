/*
 * The device context and the error plumbing shared by the .cu files of src/cuda.
 *
 * Every CUDA runtime call goes through CZK_CU(call, step) and every launch is
 * followed by CZK_LAUNCH(step): a failure returns a czk_status from the
 * enclosing function with a message naming the step (out of memory becomes
 * CZK_ERR_NOMEM, anything else CZK_ERR_DEVICE). Temporary device buffers are
 * dev_buf objects: stream-ordered allocations freed when they go out of
 * scope, so an early error return leaks nothing.
 *
 * Host-to-device copies of large buffers go through upload_fast (staging.cu):
 * directly from page-locked memory, else through the context's ring of
 * page-locked staging chunks (made on first use), the host-side copy into
 * chunk k+1 (split over ctx->copy_pool) overlapping the DMA of chunk k.
 */
#ifndef CZK_CUDA_CTX_CUH
#define CZK_CUDA_CTX_CUH

#include "czk/cuda.h"
#include "czk/pool.h"
#include "cuda/internal.h"
#include "field.cuh"

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdio.h>

struct czk_cuda_ctx {
    int device;
    int sm_count;
    cudaStream_t stream;
    cudaStream_t stream2; /* the second window slot of the batch-affine MSM (msm.cuh); the
                             gathers beside H (backend.cu) */
    cudaEvent_t ev_start, ev_stop;
    cudaEvent_t ev_fork, ev_join; /* stream <-> stream2 ordering (msm.cuh), no timing */
    char describe[320];
    /* NTT tables, [0] forward, [1] inverse (see ntt.cu) */
    czkg::fr *omega_lo[2], *omega_hi[2]; /* ω_{2^28}^{±t}, ω_{2^28}^{±t·2^14}, t < 2^14 */
    czkg::fr *gen_lo[2], *gen_hi[2];     /* g^{±t}, g^{±t·2^14}, g = 7 */
    czkg::fr *w1024[2];                  /* ω_1024^{±j}, j < 512 */
    int msm_c;                           /* CZK_CUDA_MSM_C, 0 = per size */
    uint32_t msm_chunk;                  /* CZK_CUDA_MSM_CHUNK: target chunk length, 0 = G::CHUNK */
    int profile;                         /* print per-phase MSM times (czk_cuda_set_profile) */
    bool msm_log;                /* CZK_CUDA_MSM_LOG=1: a stderr line per MSM of ≥ 2^22 points */
    int msm_acc;                 /* accumulation kernel variant, CZK_CUDA_MSM_ACC (msm.cuh) */
    uint32_t msm_strip;          /* batch-affine outputs per thread (tests), 0 = per level
                                    (msm_affine.cuh) */
    uint32_t msm_strip_group;    /* CZK_CUDA_MSM_STRIPS: batch-affine strips a group, 1
                                    contiguous (default), 32 a warp's interleaved (msm_affine.cuh) */
    uint32_t msm_hybrid_k;       /* hybrid: buckets halved while above this many points, 0 = 8
                                    (4 above 2^26 points, msm.cuh) */
    int msm_slots;               /* CZK_CUDA_MSM_SLOTS: 0 two windows from 2^22, 1 one, 2 two */
    unsigned msm_g2_affine_log;  /* CZK_CUDA_MSM_G2_AFFINE_LOG: auto takes the hybrid on G2 from
                                    2^this points (32: never) (msm.cuh) */
    void *msm_scratch;           /* device memory the next MSMs may use for their digits */
    size_t msm_scratch_bytes;    /* (czk_cuda_set_msm_scratch; 0: none) */
    int msm_sparse_acc;          /* CZK_CUDA_MSM_SPARSE_ACC: the others' accumulation on the
                                    sparse path, −1 = msm_acc (msm.cuh) */
    int msm_sparse_c;            /* CZK_CUDA_MSM_SPARSE_C: their window size, 0 = msm_c */
    bool msm_ones_affine;        /* CZK_CUDA_MSM_ONES=affine: the sparse path's ones by the
                                    batch-affine levels (msm.cuh, sum_list_affine) */
    int msm_wsum;                /* CZK_CUDA_MSM_WSUM: window sums, internal.h (msm.cuh) */
    int msm_mul;                 /* CZK_CUDA_MSM_MUL: G1's batch-affine backward passes' Fp
                                    product, 0 eo, 1 ka, 2 ka4 (msm_affine.cuh
                                    ba_backward_launch) */
    unsigned msm_windows;        /* CZK_CUDA_MSM_WINDOWS: by levels, 0 = per size (msm.cuh) */
    unsigned msm_digit_group;    /* CZK_CUDA_MSM_DIGITS: windows whose digits are made together,
                                    0 = all, or two where that lets slot 1 fit (msm.cuh) */
    czkg::fr *twist[2][29];      /* ω_M^e, e < M = 2^k, made on first use (ntt.cu) */
    czkg::fr *twist_half[2][29]; /* ω_M^e, e < M/2 = 2^(k−1), made on first use (ntt.cu) */
    int ntt_twist;               /* CZK_CUDA_NTT_TWIST: 0 direct (half tables), 1 split (ntt.cu) */
    int ntt_radix;               /* CZK_CUDA_NTT_RADIX: 2 (default) one stage per shared-memory
                                    round, 4 two (ntt.cu ntt_stage_pair) */
    bool ntt_mul_eo;             /* CZK_CUDA_NTT_MUL=eo: the NTT passes multiply by mul_eo, not
                                    Fr's default mul_eo_low (field.cuh; radix 2 only) */
    int h_order;                 /* CZK_CUDA_H_ORDER: 0 paired (DIF then DIT), 1 natural (ntt.cu) */
    int h_transforms;            /* CZK_CUDA_H_TRANSFORMS: 6 (default) or 7 (ntt.cu, czk_cuda_h) */
    int h_fuse;                  /* CZK_CUDA_H_FUSE: 1 (default) the Lagrange form's H with fused
                                    passes, 0 separate (ntt.cu, czk_cuda_h) */
    czkg::fr *gen_hi_ninv[29];   /* g^(t·2^14)/2^k, t < 2^14, made on first use (ntt.cu) */
    size_t msm_cap;              /* MSM: always compact, at most this many points per Pippenger
                                    piece (czk_cuda_set_msm_cap); 0 = no cap (msm.cuh) */
    czk_pool *copy_pool;         /* threads for the host side of staged uploads (NULL: caller) */
    void *stage[4];              /* page-locked staging ring (staging.cu), NULL until used */
    cudaEvent_t stage_ev[4];     /* DMA of stage[k] done */
    bool stage_failed;           /* the ring could not be allocated: pageable copies */
    czk_cuda_msm_info msm_last;  /* what the last MSM did (czk_cuda_msm_last) */
};

namespace czkg {

/* splitmix64 (Steele, Lea, Flood 2014): the step then the finalizer; inputs of device tests and
 * benchmarks. */
CZK_HD uint64_t splitmix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

czk_status cuda_fail(czk_err *err, cudaError_t e, const char *step);

#define CZK_CU(call, ...)                                                                          \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            char step_[200];                                                                       \
            snprintf(step_, sizeof step_, __VA_ARGS__);                                            \
            return ::czkg::cuda_fail(err, e_, step_);                                              \
        }                                                                                          \
    } while (0)
#define CZK_LAUNCH(...) CZK_CU(cudaGetLastError(), __VA_ARGS__)

/* A stream-ordered temporary device buffer of T (freed on scope exit). */
template <class T> struct dev_buf {
    T *p = nullptr;
    cudaStream_t s = nullptr;
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf() {
        if (p) (void)cudaFreeAsync(p, s);
    }
    cudaError_t alloc(size_t count, cudaStream_t stream) {
        s = stream;
        return cudaMallocAsync((void **)&p, (count ? count : 1) * sizeof(T), stream);
    }
    operator T *() const {
        return p;
    }
};

/* Device memory free for new allocations on the current device (`device`): what the device has
 * free plus what the stream-ordered pool holds unused (MSM temporaries stay pooled between
 * calls). 0 if unknown. */
static inline uint64_t device_free_bytes(int device) {
    size_t dfree = 0, dtotal = 0;
    if (cudaMemGetInfo(&dfree, &dtotal) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    uint64_t avail = dfree;
    cudaMemPool_t pool;
    unsigned long long reserved = 0, used = 0; /* the attributes are 64-bit */
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) ==
            cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess &&
        reserved > used)
        avail += reserved - used;
    (void)cudaGetLastError();
    return avail;
}

/* Grid size for n threads in blocks of b. */
static inline unsigned grid_for(size_t n, unsigned b) {
    return (unsigned)((n + b - 1) / b);
}

/* Table power x^e = lo[e mod 2^14]·hi[e / 2^14] for e < 2^28. */
__device__ __forceinline__ fr pow_table(const fr *lo, const fr *hi, uint32_t e) {
    return lo[e & 0x3fff] * hi[e >> 14];
}

czk_status ntt_tables_init(czk_cuda_ctx *ctx, czk_err *err);
void ntt_tables_free(czk_cuda_ctx *ctx);

/* ---- staged host-to-device copies (staging.cu) ---- */

constexpr int STAGE_SLOTS = 4;
constexpr size_t STAGE_CHUNK = (size_t)32 << 20; /* bytes per staging chunk */

/* Writes bytes [off, off + len) of the stream to upload into dst (host, page-locked). Called from
 * ctx->copy_pool's threads on disjoint ranges; off and len are multiples of 64 except at the end
 * of the stream. */
typedef void (*stage_fill_fn)(void *arg, void *dst, size_t off, size_t len);

/* Uploads `bytes` to dst_device, the bytes made by fill, through the staging ring (synchronous). */
czk_status upload_staged(czk_cuda_ctx *ctx, void *dst_device, size_t bytes, stage_fill_fn fill,
                         void *arg, czk_err *err);
/* Host-to-device copy at PCIe speed: directly when src is page-locked or small, else staged.
 * Synchronous on ctx->stream. */
czk_status upload_fast(czk_cuda_ctx *ctx, void *dst_device, const void *src, size_t bytes,
                       czk_err *err);
/* Whether [p, p + bytes) is page-locked host memory (cudaHostAlloc or cudaHostRegister). */
bool host_pinned(const void *p, size_t bytes);
/* Frees the staging ring (czk_cuda_ctx_destroy). */
void staging_free(czk_cuda_ctx *ctx);

/* ---- the packed witness upload (witness.cu) ---- */

/* Device scratch bytes upload_packed needs for p (p->n values, p->num_others others).
 * Returns CZK_OK; CZK_ERR_INVALID_ARG (nothing packed, n >= 2^32); CZK_ERR_DEVICE. */
czk_status packed_scratch_bytes(const czk_witness_packed *p, size_t *bytes, czk_err *err);
/* z (p->n values, device memory) from the packed form p (host memory; page-locked is copied
 * directly, else staged: upload_fast), through scratch_bytes of device scratch (its contents are
 * overwritten; z and scratch 256-byte aligned). Synchronous on ctx->stream.
 * Returns CZK_OK; CZK_ERR_INVALID_ARG (scratch too small, misaligned, p as above); CZK_ERR_NOMEM;
 * CZK_ERR_DEVICE. */
czk_status upload_packed(czk_cuda_ctx *ctx, czk_fr *z, const czk_witness_packed *p, void *scratch,
                         size_t scratch_bytes, czk_err *err);

} // namespace czkg

#endif
