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
 * rates[0..4] = Fp multiplications/s (mul_wide), Fp (mul_chain), Fr (mul_wide),
 * Fr (mul_chain), G1 xyzz += affine additions/s. Each kernel fills the GPU
 * with independent dependency chains; timed with CUDA events.
 */
typedef struct czk_cuda_ctx czk_cuda_ctx;
CZK_NODISCARD czk_status czk_cuda_rates(czk_cuda_ctx *ctx, double rates[5], czk_err *err);

/*
 * Tuning knobs for benchmarks: the MSM window size (0 = chosen per size,
 * else 6..22) and per-phase MSM timing printed on stderr (each phase then
 * waits for the device, so the total runs slower).
 */
CZK_NODISCARD czk_status czk_cuda_set_msm_c(czk_cuda_ctx *ctx, int c, czk_err *err);
void czk_cuda_set_profile(czk_cuda_ctx *ctx, int on);

#ifdef __cplusplus
}
#endif
#endif
