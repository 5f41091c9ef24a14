/*
 * Declarations shared inside src/cuda and with its tests; not a public API.
 */
#ifndef CZK_CUDA_INTERNAL_H
#define CZK_CUDA_INTERNAL_H

#include "czk/common.h"
#include "czk/ff.h"

#include <blst.h>

#ifdef __cplusplus
extern "C" {
#endif

struct czk_pool;           /* include/czk/pool.h */
struct czk_shape;          /* include/czk/r1cs.h */
struct czk_witness_packed; /* include/czk/r1cs.h */

/*
 * Runs the device arithmetic templates (field.cuh, curve.cuh: Fp, Fr, Fp2,
 * both Montgomery multiplications, G1/G2 xyzz formulas) on the host and
 * compares them with blst over `rounds` random inputs from `seed`.
 * Returns CZK_OK, or CZK_ERR_INTERNAL naming the first operation that differs.
 */
CZK_NODISCARD czk_status czk_cuda_host_check(uint64_t seed, unsigned rounds, czk_err *err);

/*
 * Throughput microbenchmarks on the context's device (for bench/gpu.c):
 * multiplications/s of Fp and Fr in each form of field.cuh, Fp squarings/s
 * (sqr_eo and by multiplication), and G1 xyzz += affine additions/s with
 * four forms, and the FP64 form (field_f64.cuh) alone, beside the even/odd
 * form in one thread (mix: one chain each) and in alternate warps (wmix)
 * (czk_cuda_rate_names lists the entries; fr_mul_eo_low is Fr's default
 * form; fp_mul_ka, Karatsuba's product, and g1_madd_ka_sqr, the additions
 * over it with sqr_eo, are the last two). Each kernel fills the
 * GPU with independent dependency chains; timed with CUDA events.
 */
typedef struct czk_cuda_ctx czk_cuda_ctx;
#define CZK_CUDA_NRATES 23
extern const char *const czk_cuda_rate_names[CZK_CUDA_NRATES];
CZK_NODISCARD czk_status czk_cuda_rates(czk_cuda_ctx *ctx, double rates[CZK_CUDA_NRATES],
                                        czk_err *err);

/*
 * The FP64 multiplication form (field_f64.cuh) and Karatsuba's (mul_ka,
 * field.cuh) against the even/odd form on the device: n random Fp inputs
 * (below p, and below 2p every other time, as Fp2's Karatsuba gives) and n
 * random Fr inputs below r from seed, the first 64 of each next to the
 * modulus (m − 1 .. m − 4).
 * Out: bad[0], bad[1]  products of Fp, Fr where the FP64 form differs;
 *      bad[2]          Fp products where mul_ka differs.
 * Returns: CZK_OK; CZK_ERR_DEVICE (a CUDA error).
 */
CZK_NODISCARD czk_status czk_cuda_mul_form_check(czk_cuda_ctx *ctx, uint64_t seed, uint64_t n,
                                                 uint64_t bad[3], czk_err *err);

/*
 * Tuning knobs for benchmarks: the MSM window size (0 = chosen per size,
 * else 6..22) and per-phase MSM timing printed on stderr (each phase then
 * waits for the device, so the total runs slower).
 */
CZK_NODISCARD czk_status czk_cuda_set_msm_c(czk_cuda_ctx *ctx, int c, czk_err *err);
void czk_cuda_set_profile(czk_cuda_ctx *ctx, int on);
/* MSM target chunk length (points per accumulation thread; msm.cuh chunk_len), 0 = the group's
 * default (G1 128, G2 64). Initially CZK_CUDA_MSM_CHUNK, read when the context is made. */
void czk_cuda_set_msm_chunk(czk_cuda_ctx *ctx, uint32_t target);
/* MSM accumulation kernel variant 0..CZK_CUDA_MSM_ACC_VARIANTS − 1 (XYZZ chunks: forms, launch
 * bounds, prefetch; msm.cuh acc_variants) or one of the batch-affine G1 paths below (G2 takes
 * variant 0 for them); others select 0. Initially CZK_CUDA_MSM_ACC (a number, or xyzz, affine,
 * hybrid, auto), read when the context is made; AUTO when it is unset. */
#define CZK_CUDA_MSM_ACC_VARIANTS 4
#define CZK_CUDA_MSM_ACC_AFFINE 4 /* G1 buckets halved by batch-affine additions to one point */
#define CZK_CUDA_MSM_ACC_HYBRID 5 /* the same down to 8 points, summed in XYZZ */
#define CZK_CUDA_MSM_ACC_AUTO 6   /* the default: HYBRID from 2^22 points, XYZZ (0) below */
void czk_cuda_set_msm_acc(czk_cuda_ctx *ctx, int variant);
/* The variant czk_cuda_set_msm_acc or CZK_CUDA_MSM_ACC chose. */
int czk_cuda_msm_acc(const czk_cuda_ctx *ctx);
/* Outputs per thread of the batch-affine levels (msm_affine.cuh), 0 = chosen per level (tests:
 * strips that cross many buckets at small sizes). */
void czk_cuda_set_msm_strip(czk_cuda_ctx *ctx, uint32_t strip);
/* G1's batch-affine backward passes' Fp product (msm_affine.cuh ba_backward_launch): 0 the
 * even/odd form (default), 1 Karatsuba's (mul_ka) in the two products of each addition, 2 in all
 * four, held to two blocks an SM; initially CZK_CUDA_MSM_MUL (eo, ka, ka4). */
void czk_cuda_set_msm_mul(czk_cuda_ctx *ctx, int mul);
/* Batch-affine strips a group (msm_affine.cuh ba_strip_span; 1..1024, others ignored; 1 by
 * default, CZK_CUDA_MSM_STRIPS), and the context's current value. */
void czk_cuda_set_msm_strip_group(czk_cuda_ctx *ctx, uint32_t group);
uint32_t czk_cuda_msm_strip_group(const czk_cuda_ctx *ctx);
/* The sparse path's sum of ones (msm.cuh): by XYZZ batch addition (false, the default) or by the
 * batch-affine levels from 2^16 ones (true; CZK_CUDA_MSM_ONES = xyzz / affine). A benchmark knob:
 * slower at 32GiB (bench/GPU.md, seventeenth run). */
void czk_cuda_set_msm_ones_affine(czk_cuda_ctx *ctx, bool on);
/* The hybrid's bucket size where the batch-affine levels stop and XYZZ sums the rest
 * (CZK_CUDA_MSM_ACC_HYBRID; 2..64, 0 = the default 8); others are ignored (benchmarks). */
void czk_cuda_set_msm_hybrid_k(czk_cuda_ctx *ctx, uint32_t k);
/* Batch-affine windows in flight (msm.cuh): 0 = two from 2^22 points where the second slot fits
 * (the default), 1 = one, 2 = two at every size (tests). Initially CZK_CUDA_MSM_SLOTS. */
void czk_cuda_set_msm_slots(czk_cuda_ctx *ctx, int slots);
/* Windows whose digits the Pippenger makes together: 0 = all, or two at a time where that lets
 * the second window slot fit (the default); 1..64 forces that many (tests, benchmarks). */
void czk_cuda_set_msm_digit_group(czk_cuda_ctx *ctx, unsigned windows);
/* How a batch-affine Pippenger forms its window sums Σ_b (b + 1)·bucket_b (msm.cuh,
 * msm_affine.cuh ba_state::window_sum): RUNNING = XYZZ running sums over every bucket (buckets of
 * at most K points summed in XYZZ first), LEVELS = buckets to one point (K = 1), then the split
 * T_h, U_l by the same levels and running sums over those only, AUTO (the default) = LEVELS above
 * 2^26 points on the hybrid (MSM H), RUNNING elsewhere. Initially CZK_CUDA_MSM_WSUM (auto,
 * running, levels). */
#define CZK_CUDA_MSM_WSUM_AUTO 0
#define CZK_CUDA_MSM_WSUM_RUNNING 1
#define CZK_CUDA_MSM_WSUM_LEVELS 2
void czk_cuda_set_msm_wsum(czk_cuda_ctx *ctx, int mode);
/* With the window sums by levels and no c set (czk_cuda_set_msm_c), the windows (11..42): c =
 * ⌊255/W⌋ bits, the last 255 − W·c of them c + 1; 0 = the default (12 above 2^26 points, else the
 * size's c as without). Others are ignored. Initially CZK_CUDA_MSM_WINDOWS. */
void czk_cuda_set_msm_windows(czk_cuda_ctx *ctx, unsigned windows);
/* Device memory (bytes at p, 4-byte aligned) the context's MSMs may overwrite with their window
 * digits where it holds them, until set again (NULL, 0: none): the caller's dead buffers, so that
 * the digits do not take device memory of their own (MSM H: H's b and c). Stream order: the MSM
 * runs on the context's streams; the caller orders its own uses of p before and after. */
void czk_cuda_set_msm_scratch(czk_cuda_ctx *ctx, void *p, size_t bytes);
/* Auto accumulation takes the batch-affine hybrid on G2 from 2^log points (10..32; 32: never, the
 * default; CZK_CUDA_MSM_G2_AFFINE_LOG). */
void czk_cuda_set_msm_g2_affine_log(czk_cuda_ctx *ctx, unsigned log);
/* The sparse path's Pippenger over the others (neither 0 nor 1) with accumulation acc (−1: the
 * context's, else a CZK_CUDA_MSM_ACC value) and window size c (0: the context's, else 6..22);
 * CZK_CUDA_MSM_SPARSE_ACC / CZK_CUDA_MSM_SPARSE_C. Values out of range leave the setting. */
void czk_cuda_set_msm_sparse(czk_cuda_ctx *ctx, int acc, int c);
/* An integer tunable: *out = the environment variable var in lo..hi; unset or empty leaves *out.
 * Returns CZK_OK, or CZK_ERR_INVALID_ARG "who: VAR=value is not in lo..hi" (not a whole number,
 * or out of range). */
CZK_NODISCARD czk_status czk_cuda_env_range(const char *who, const char *var, long lo, long hi,
                                            long *out, czk_err *err);
/*
 * The context's two streams made again with the device's highest stream priority (high) or the
 * default one: where kernels of several contexts wait for SMs, the block scheduler starts the
 * high-priority ones' blocks first (running blocks are not preempted). Call while the context is
 * idle (nothing queued on its streams). Returns CZK_OK, CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_ctx_set_priority(czk_cuda_ctx *ctx, bool high, czk_err *err);

/*
 * The batch-affine bucket accumulation of the G1 MSM (src/cuda/msm_affine.cuh) run on the host
 * with the device code, for one window as the device sort leaves it: skeys[i] the sorted keys
 * (|digit|·2 + sign; 0 = no point; bucket b holds keys 2b + 2 and 2b + 3, the sign bit negates
 * the point), sidx[i] the index of the base. K: buckets are halved while they hold more than K
 * points, then summed in XYZZ; strip: outputs per thread (T); group: strips a group (G: 1 = each
 * strip consecutive outputs, 32 = a warp's strips interleaved; msm_affine.cuh ba_strip_span);
 * blocks: blocks of the batch inversion. Out: buckets[b] = Σ of bucket b's signed bases (B
 * entries). For tests (no GPU). Returns CZK_OK, CZK_ERR_INVALID_ARG (n >= 2^31, B of 0 or above
 * 2^30, K, strip or blocks of 0, group not in 1..1024, keys not sorted or above 2B + 1, an index
 * >= n), CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_cuda_msm_affine_emulate(
    const blst_p1_affine *bases, const uint32_t *skeys, const uint32_t *sidx, size_t n, uint32_t B,
    uint32_t K, uint32_t strip, uint32_t group, uint32_t blocks, blst_p1 *buckets, czk_err *err);
/* The same on G2 (the levels over Fp2, msm_affine.cuh's ba_fp2). */
CZK_NODISCARD czk_status czk_cuda_msm_affine_emulate_g2(
    const blst_p2_affine *bases, const uint32_t *skeys, const uint32_t *sidx, size_t n, uint32_t B,
    uint32_t K, uint32_t strip, uint32_t group, uint32_t blocks, blst_p2 *buckets, czk_err *err);
/*
 * One window's sum by levels (msm_affine.cuh ba_state::window_sum) on the host with the device's
 * code: Σ_b (b + 1)·S_b over the 2^e buckets (S_b the sum of bucket b's signed points, keys and
 * indices as above, B = 2^e), by levels to one point a bucket, the split T_h, U_l by the same
 * levels, and the split's running sums. e <= 24. Returns CZK_OK, CZK_ERR_INVALID_ARG (as above),
 * CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_cuda_msm_window_sum_emulate(
    const blst_p1_affine *bases, const uint32_t *skeys, const uint32_t *sidx, size_t n, uint32_t e,
    uint32_t strip, uint32_t group, uint32_t blocks, blst_p1 *sum, czk_err *err);
CZK_NODISCARD czk_status czk_cuda_msm_window_sum_emulate_g2(
    const blst_p2_affine *bases, const uint32_t *skeys, const uint32_t *sidx, size_t n, uint32_t e,
    uint32_t strip, uint32_t group, uint32_t blocks, blst_p2 *sum, czk_err *err);

/*
 * MSM memory cap (msm.cuh): with points > 0 every MSM on ctx compacts its
 * scalars (no density sample) and runs Pippenger over at most `points` of
 * them at a time, so its temporaries stay below about 4·n + 80·points bytes
 * (G1; G2 about 4·n + 160·points) whatever the scalars; 0 restores the
 * default (the sample decides, no cap). For concurrent MSMs (backend.cu).
 */
void czk_cuda_set_msm_cap(czk_cuda_ctx *ctx, size_t points);

/*
 * Benchmark scalars on the device: out[i] is 0 with probability zero_ppm / 10^6, 1 with
 * one_ppm / 10^6, else a random value below 2^254 (Montgomery form). Deterministic in seed.
 * Returns CZK_OK, CZK_ERR_INVALID_ARG (n >= 2^31, zero_ppm + one_ppm > 10^6), CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_fr_mix(czk_cuda_ctx *ctx, czk_fr *out, size_t n,
                                         uint32_t zero_ppm, uint32_t one_ppm, uint64_t seed,
                                         czk_err *err);

/* What the last MSM on ctx did (for tests and benchmarks). */
typedef struct czk_cuda_msm_info {
    bool sparse;            /* scalars classified and compacted */
    uint64_t ones;          /* scalars equal to one (summed by batch addition), sparse path */
    uint64_t others;        /* neither zero nor one (Pippenger), sparse path */
    unsigned pieces;        /* Pippenger runs over the others (0 when there were none) */
    unsigned c;             /* window bits of the (last) Pippenger run */
    unsigned affine_k;      /* batch-affine levels down to this many points per bucket, 0: XYZZ */
    unsigned slots;         /* windows in flight (2: batch-affine with a second slot, msm.cuh) */
    unsigned digit_group;   /* windows whose digits were made together (all: the window count) */
    bool digits_in_scratch; /* the digits were made in the context's scratch memory */
    bool ones_affine;       /* the ones were summed by the batch-affine levels (msm.cuh) */
    unsigned windows;       /* windows of the (last) Pippenger run */
    bool window_sums_by_levels; /* its window sums by levels (czk_cuda_set_msm_wsum) */
} czk_cuda_msm_info;
void czk_cuda_msm_last(const czk_cuda_ctx *ctx, czk_cuda_msm_info *out);

/*
 * Host-to-device copy at PCIe speed from any host memory (src/cuda/staging.cu):
 * directly from page-locked memory, else through the context's page-locked
 * staging ring, the host-side copies split over the pool given by
 * czk_cuda_set_copy_pool (NULL: the calling thread). Synchronous.
 * Returns CZK_OK, CZK_ERR_NOMEM, CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_upload_fast(czk_cuda_ctx *ctx, void *dst_device, const void *src,
                                              size_t bytes, czk_err *err);
void czk_cuda_set_copy_pool(czk_cuda_ctx *ctx, struct czk_pool *pool);
/* Page-locked host memory (cudaHostAlloc, portable); NULL when it cannot. */
void *czk_cuda_host_alloc(size_t bytes);
void czk_cuda_host_free(void *p);

/*
 * The device SpMV's algorithm (src/cuda/spmv.cu: merge-path tiles, in-tile
 * and cross-tile fix-ups) run on the host, tile by tile and thread by thread,
 * with the same code as the kernels; for tests on machines without a GPU.
 * Same contract as czk_cuda_spmv with host buffers: z = inputs ‖ aux
 * (shape->num_inputs + shape->num_aux elements), a, b, c of n elements (c NULL: C not
 * evaluated, its tiles not run, as on the device).
 * Returns CZK_OK, CZK_ERR_INVALID_ARG (n < num_constraints, a malformed
 * shape), CZK_ERR_UNSUPPORTED (sizes the device path does not take),
 * CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_cuda_spmv_emulate(const struct czk_shape *shape, const czk_fr *z,
                                               czk_fr *a, czk_fr *b, czk_fr *c, size_t n,
                                               czk_err *err);

/*
 * z from a packed witness (src/cuda/witness.cu): the backend's packed upload
 * (codes and others copied, counts, scan, expansion) with scratch memory of
 * its own. In: p  packed (p->n > 0), host memory. Out: z_dev  p->n values,
 * device memory, 256-byte aligned (czk_cuda_alloc's are).
 * Returns CZK_OK; CZK_ERR_INVALID_ARG (nothing packed, n >= 2^32);
 * CZK_ERR_NOMEM; CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_witness_expand(czk_cuda_ctx *ctx, czk_fr *z_dev,
                                                 const struct czk_witness_packed *p, czk_err *err);
/*
 * The same expansion on the host with the kernel's index code (tests without
 * a GPU): Out: z  p->n values, host memory.
 * Returns CZK_OK; CZK_ERR_INVALID_ARG (as above, or codes whose count of
 * others is not p->num_others); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_cuda_witness_expand_emulate(czk_fr *z,
                                                         const struct czk_witness_packed *p,
                                                         czk_err *err);

/*
 * czk_cuda_g1_ntt's steps (scaling, bit reversal, butterflies, to affine) run
 * on the host, thread by thread, with the kernels' code (tests without a
 * GPU). Same contract as czk_cuda_g1_ntt for 1 <= log_n <= 20.
 * Returns CZK_OK; CZK_ERR_INVALID_ARG (the sizes); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_cuda_g1_ntt_emulate(blst_p1_affine *out, const blst_p1_affine *in,
                                                 size_t n_used, unsigned log_n, const czk_fr *c,
                                                 const czk_fr *step, const czk_fr *rho,
                                                 czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
