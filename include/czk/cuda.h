/*
 * czk — the CUDA backend's C ABI (src/cuda).
 *
 * A build without CUDA, or a machine without a GPU or driver, reports zero
 * devices and czk proves on the CPU. The runtime is linked statically, so the
 * binary starts without libcuda.so.1. In a build without CUDA every function
 * below except czk_cuda_device_count / czk_cuda_built returns
 * CZK_ERR_UNSUPPORTED.
 *
 * Model. A czk_cuda_ctx owns one device, one stream and the NTT tables. Data
 * lives in device buffers the caller allocates through the context; every
 * call below is synchronous (it returns when its device work is done) and
 * runs on the context's stream. A context is used by one thread at a time.
 *
 * Layouts are blst's, byte for byte: czk_fr (blst_fr, Montgomery form),
 * czk_g1_affine / czk_g2_affine (blst_p{1,2}_affine, Montgomery coordinates,
 * all-zero = infinity), so host arrays upload with czk_cuda_upload unchanged.
 *
 * Errors: every CUDA call and kernel launch is checked. Out of device memory
 * gives CZK_ERR_NOMEM, any other CUDA failure CZK_ERR_DEVICE; the message
 * names the step ("msm_g1: sort window 3: cudaErrorIllegalAddress ..."). After
 * CZK_ERR_DEVICE the context may be unusable (CUDA errors can be sticky):
 * destroy it. Bad arguments give CZK_ERR_INVALID_ARG. Nothing aborts.
 *
 * Algorithms: spec/gpu-prover.md §3 (sppark's structure) with the changes
 * listed in src/cuda/msm.cu and src/cuda/ntt.cu.
 */
#ifndef CZK_CUDA_H
#define CZK_CUDA_H

#include "czk/common.h"
#include "czk/ec.h"
#include "czk/ff.h"
#include "czk/ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Usable CUDA devices; 0 without CUDA support, driver or GPU (never fails). */
int czk_cuda_device_count(void);
/* Whether this build contains the CUDA backend. */
bool czk_cuda_built(void);

typedef struct czk_cuda_ctx czk_cuda_ctx;

/*
 * Creates a context on device `device` (0 .. czk_cuda_device_count()−1):
 * selects it, creates a stream and two timing events, and builds the NTT
 * tables (4 MB of device memory). Tunables are read once from the
 * environment: CZK_CUDA_MSM_C (MSM window bits, 6..22; default chosen per size).
 * Returns CZK_OK and *out; CZK_ERR_INVALID_ARG for a bad device index;
 * CZK_ERR_NOMEM / CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_ctx_create(czk_cuda_ctx **out, int device, czk_err *err);
/* Frees the context and its tables (not the caller's buffers). NULL is allowed. */
void czk_cuda_ctx_destroy(czk_cuda_ctx *ctx);
/* "NVIDIA H200, 132 SMs, 139.8 GiB" style description of the context's device. */
const char *czk_cuda_ctx_describe(const czk_cuda_ctx *ctx);

/*
 * Device memory. czk_cuda_alloc returns `bytes` of device memory in *dptr
 * (256-byte aligned); CZK_ERR_NOMEM when the device has too little free.
 * czk_cuda_free(NULL) does nothing. Upload/download copy between host and a
 * device buffer (host memory may be pageable).
 */
CZK_NODISCARD czk_status czk_cuda_alloc(czk_cuda_ctx *ctx, void **dptr, size_t bytes, czk_err *err);
void czk_cuda_free(czk_cuda_ctx *ctx, void *dptr);
CZK_NODISCARD czk_status czk_cuda_upload(czk_cuda_ctx *ctx, void *dst_device, const void *src_host,
                                         size_t bytes, czk_err *err);
CZK_NODISCARD czk_status czk_cuda_download(czk_cuda_ctx *ctx, void *dst_host,
                                           const void *src_device, size_t bytes, czk_err *err);

/*
 * NTT over Fr on device data[0 .. 2^log_n), in place, natural order in and
 * out, with the semantics of czk_ntt (include/czk/ntt.h: bellperson's
 * EvaluationDomain fft / ifft / coset_fft / icoset_fft; ω from
 * czk_fr_root_of_unity(log_n), coset generator g = 7, inverse scaled by 1/N).
 * 1 <= log_n <= 28. Returns CZK_OK, CZK_ERR_INVALID_ARG, CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_ntt(czk_cuda_ctx *ctx, czk_fr *data, unsigned log_n,
                                      czk_ntt_kind kind, czk_err *err);

/*
 * The Groth16 quotient H on device vectors a, b, c of N = 2^log_n Fr each
 * (constraint evaluations, zero-padded to N), as bellperson's prover
 * computes it (spec/gpu-prover.md §1):
 *   a, b, c <- coset_fft(ifft(·));  a <- (a·b − c) / (g^N − 1);  a <- icoset_fft(a).
 * On return a[0 .. N) holds the coefficients of h (the prover uses the first
 * N − 1); b and c are clobbered. 1 <= log_n <= 28.
 * Returns CZK_OK, CZK_ERR_INVALID_ARG, CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_h(czk_cuda_ctx *ctx, czk_fr *a, czk_fr *b, czk_fr *c,
                                    unsigned log_n, czk_err *err);

/*
 * MSM out = Σ_{i<n} scalars[i]·bases[i] with bases and scalars in device
 * memory (scalars in Montgomery form, as a witness holds them; converted on
 * the device). Pippenger with signed window digits and XYZZ buckets; zero
 * scalars are skipped, scalars equal to one are summed by a batch-addition
 * kernel. Temporary device memory: about n·(4·⌈255/c⌉ + 13) bytes plus
 * 2^c·(xyzz size) (≈ 10 GB for G1 at n = 2^27). n = 0 gives infinity;
 * n must be < 2^31. *out is Jacobian (blst_p{1,2}).
 * Returns CZK_OK, CZK_ERR_INVALID_ARG, CZK_ERR_NOMEM, CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_msm_g1(czk_cuda_ctx *ctx, czk_g1 *out, const czk_g1_affine *bases,
                                         const czk_fr *scalars, size_t n, czk_err *err);
CZK_NODISCARD czk_status czk_cuda_msm_g2(czk_cuda_ctx *ctx, czk_g2 *out, const czk_g2_affine *bases,
                                         const czk_fr *scalars, size_t n, czk_err *err);

/*
 * Test and benchmark inputs made on the device (host generation of 2^27
 * points takes far too long). Deterministic in `seed`.
 *   czk_cuda_fr_random: n uniform elements of Fr (Montgomery form).
 *   czk_cuda_g{1,2}_random_bases: n distinct affine points of the prime-order
 *     subgroup, P_i = (lo+1)·Q1 + (hi+1)·Q2 with i = hi·2^14 + lo and Q1, Q2
 *     random multiples of the generator (tables made on the host with blst,
 *     the sums and the batch conversion to affine on the device).
 * Returns CZK_OK, CZK_ERR_INVALID_ARG (n >= 2^31), CZK_ERR_NOMEM, CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_cuda_fr_random(czk_cuda_ctx *ctx, czk_fr *out, size_t n, uint64_t seed,
                                            czk_err *err);
CZK_NODISCARD czk_status czk_cuda_g1_random_bases(czk_cuda_ctx *ctx, czk_g1_affine *out, size_t n,
                                                  uint64_t seed, czk_err *err);
CZK_NODISCARD czk_status czk_cuda_g2_random_bases(czk_cuda_ctx *ctx, czk_g2_affine *out, size_t n,
                                                  uint64_t seed, czk_err *err);

/*
 * Timing with CUDA events on the context's stream: czk_cuda_timer_start
 * records the start event; czk_cuda_timer_stop records the stop event after
 * everything the host has issued (and, since calls are synchronous, after any
 * host-side final reduction), waits for it and returns the milliseconds between.
 */
CZK_NODISCARD czk_status czk_cuda_timer_start(czk_cuda_ctx *ctx, czk_err *err);
CZK_NODISCARD czk_status czk_cuda_timer_stop(czk_cuda_ctx *ctx, double *ms, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
