/*
 * Declarations shared inside src/cuda and with its tests; not a public API.
 */
#ifndef CZK_CUDA_INTERNAL_H
#define CZK_CUDA_INTERNAL_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Runs the device arithmetic templates (field.cuh, curve.cuh: Fp, Fr, Fp2,
 * both Montgomery multiplications, G1/G2 xyzz formulas) on the host and
 * compares them with blst over `rounds` random inputs from `seed`.
 * Returns CZK_OK, or CZK_ERR_INTERNAL naming the first operation that differs.
 */
CZK_NODISCARD czk_status czk_cuda_host_check(uint64_t seed, unsigned rounds, czk_err *err);

/*
 * Throughput microbenchmarks on the context's device (for bench/gpu.c):
 * multiplications/s of Fp and Fr in each form of field.cuh, and G1
 * xyzz += affine additions/s with three of them (czk_cuda_rate_names lists
 * the entries). Each kernel fills the GPU with independent dependency chains;
 * timed with CUDA events.
 */
typedef struct czk_cuda_ctx czk_cuda_ctx;
#define CZK_CUDA_NRATES 10
extern const char *const czk_cuda_rate_names[CZK_CUDA_NRATES];
CZK_NODISCARD czk_status czk_cuda_rates(czk_cuda_ctx *ctx, double rates[CZK_CUDA_NRATES],
                                        czk_err *err);

/*
 * Tuning knobs for benchmarks: the MSM window size (0 = chosen per size,
 * else 6..22) and per-phase MSM timing printed on stderr (each phase then
 * waits for the device, so the total runs slower).
 */
CZK_NODISCARD czk_status czk_cuda_set_msm_c(czk_cuda_ctx *ctx, int c, czk_err *err);
void czk_cuda_set_profile(czk_cuda_ctx *ctx, int on);
/* MSM accumulation kernel variant 0..2 (launch bounds; see msm.cuh). */
void czk_cuda_set_msm_acc(czk_cuda_ctx *ctx, int variant);

#ifdef __cplusplus
}
#endif
#endif
