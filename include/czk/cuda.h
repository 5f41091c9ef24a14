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
 * listed in src/cuda/msm.cuh (the MSM body; msm.cu and msm_g2.cu instantiate
 * it for G1 and G2) and src/cuda/ntt.cu.
 */
#ifndef CZK_CUDA_H
#define CZK_CUDA_H

#include "czk/common.h"
#include "czk/ec.h"
#include "czk/ff.h"
#include "czk/groth16.h"
#include "czk/ntt.h"
#include "czk/pool.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Usable CUDA devices (cudaGetDeviceCount); 0 in a build without CUDA and
 * on a machine without a driver or GPU. Never fails.
 */
int czk_cuda_device_count(void);
/* Whether this build contains the CUDA backend (CZK_CUDA=ON). Never fails. */
bool czk_cuda_built(void);

/*
 * Which card CUDA device index `device` is (cudaGetDeviceProperties: name,
 * uuid, pciDomainID:pciBusID:pciDeviceID.0, totalGlobalMem). The index is
 * the runtime's: CUDA_VISIBLE_DEVICES (indices or GPU-<uuid> forms) and
 * CUDA_DEVICE_ORDER are applied by the CUDA runtime before czk sees any
 * device, and czk enumerates devices through the runtime only (never NVML
 * or nvidia-smi), so index 0 is the first device CUDA_VISIBLE_DEVICES
 * leaves.
 * Args: device  0 .. czk_cuda_device_count()−1.
 * Out: *out     filled (czk_device_identity, include/czk/groth16.h);
 *               zeroed on failure.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "identify: device D of N";
 *   CZK_ERR_DEVICE (the runtime's query failed, named);
 *   CZK_ERR_UNSUPPORTED in a build without CUDA.
 */
CZK_NODISCARD czk_status czk_cuda_device_identity(int device, czk_device_identity *out,
                                                  czk_err *err) CZK_NONNULL(2);

typedef struct czk_cuda_ctx czk_cuda_ctx;

/*
 * Creates a context on device `device` (0 .. czk_cuda_device_count()−1):
 * selects it, creates a stream and two timing events, and builds the NTT
 * tables (4 MB of device memory). Tunables are read once from the
 * environment: CZK_CUDA_MSM_C (MSM window bits, 6..22; default chosen per size;
 * above 2^26 points on the hybrid: 12 windows, below);
 * CZK_CUDA_MSM_WSUM = auto (default: a hybrid MSM above 2^26 points, MSM H,
 * takes its window sums by levels: buckets to one point by the batch-affine
 * levels, then T_h = Σ_l S_(h·2^k+l) and U_l = Σ_h S_(h·2^k+l) by the same
 * levels and running sums over those only; every other MSM the XYZZ running
 * sums), running (the running sums everywhere: c = 22, buckets halved to 2
 * points, for MSM H) or levels (by levels wherever the batch-affine levels
 * run); CZK_CUDA_MSM_WINDOWS = 11..42 (the windows of the sums by levels:
 * c = ⌊255/W⌋ bits, the last 255 − W·c windows c + 1; default 12, 9 × 21 +
 * 3 × 22 bits; bench/GPU.md twenty-sixth run);
 * CZK_CUDA_NTT_TWIST = direct (default: NTT twists from half tables of ω_M^e,
 * e < M/2, made on first use and kept, 2 GiB per direction for 2^27) or split
 * (the former path: full tables up to M = 2^18, two-table products above);
 * CZK_CUDA_H_ORDER = paired (default: czk_cuda_h's inverse transforms leave
 * bit-reversed order and the forward ones take it, one bit reversal instead
 * of seven) or natural (the former path); CZK_CUDA_H_TRANSFORMS = 6 (default:
 * czk_cuda_h without the forward transform of c) or 7 (bellperson's sequence);
 * CZK_CUDA_MSM_ACC = auto (default: batch-affine "hybrid" accumulation from
 * 2^22 points, XYZZ below), xyzz, affine, hybrid or a variant number 0..6;
 * CZK_CUDA_MSM_SLOTS = 1 (one batch-affine window at a time) or 2 (two at every
 * size; default: two from 2^22 points where they fit); CZK_CUDA_MSM_CHUNK (XYZZ
 * chunk length); CZK_CUDA_MSM_ONES = xyzz (default: the witness MSMs' scalars
 * equal to one summed by XYZZ batch addition) or affine (by the batch-affine
 * levels from 2^16 of them; slower at 32GiB, bench/GPU.md seventeenth run);
 * CZK_CUDA_MSM_STRIPS = contiguous (default: each of the batch-affine levels'
 * strips its own run of outputs; faster on an H200, bench/GPU.md twenty-fourth
 * run) or interleaved (the strips of a warp take consecutive outputs in turn;
 * faster on an H100, twenty-second run);
 * CZK_CUDA_H_FUSE = 1 (default: the Lagrange form's H with fused passes) or
 * 0; CZK_CUDA_NTT_RADIX = 2 (default) or 4 (two stages per shared-memory
 * round); CZK_CUDA_NTT_MUL = low (default: Fr products with r's low limbs 1
 * and 2^32 − 1 as additions, src/cuda/field.cuh mul_eo_low) or eo (the NTT
 * passes with the generic even/odd reduction; radix 2 only);
 * CZK_CUDA_MSM_MUL = eo (default: G1's batch-affine backward passes multiply
 * by the even/odd form) or ka / ka4 (by Karatsuba's product, mul_ka: in the
 * two products of each addition, or in all four held to two blocks of 256 an
 * SM; not yet measured on a GPU, bench/GPU.md twenty-seventh run). See
 * src/cuda/ntt.cu, src/cuda/msm.cuh and src/cuda/msm_affine.cuh.
 * Args: device  0 .. czk_cuda_device_count()−1.
 * Out:  *out    the context (czk_cuda_ctx_destroy); NULL on failure, when
 *               whatever was made is freed again.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "ctx_create: device D of N" for a
 *   bad device index, or naming a tunable with a bad value;
 *   CZK_ERR_NOMEM (host or device memory); CZK_ERR_DEVICE (a CUDA call, named);
 *   CZK_ERR_UNSUPPORTED in a build without CUDA.
 */
CZK_NODISCARD czk_status czk_cuda_ctx_create(czk_cuda_ctx **out, int device, czk_err *err);
/*
 * Waits for the context's stream, then frees its stream, events, staging
 * ring and tables, and trims the device's pool of freed temporaries (not
 * the caller's buffers: czk_cuda_free them first). NULL is allowed.
 */
void czk_cuda_ctx_destroy(czk_cuda_ctx *ctx);
/*
 * "NVIDIA H200, 132 SMs, 139.8 GiB, sm_90" style description of the
 * context's device, owned by the context (valid until it is destroyed);
 * "no CUDA" in a build without CUDA.
 */
const char *czk_cuda_ctx_describe(const czk_cuda_ctx *ctx);

/*
 * Device memory (cudaMalloc on the context's device).
 * czk_cuda_alloc: Out: *dptr  `bytes` of device memory, 256-byte aligned
 *   (bytes = 0 allocates 1 byte), freed with czk_cuda_free; NULL on failure.
 *   When the first cudaMalloc finds too little free, the device's pool of
 *   freed temporaries is trimmed and it is tried once more.
 *   Returns: CZK_OK; CZK_ERR_NOMEM "alloc: N bytes: ..." when the device
 *   still has too little free; CZK_ERR_DEVICE.
 * czk_cuda_free: waits for the context's stream, then frees; NULL does
 *   nothing; errors are dropped.
 * czk_cuda_upload / czk_cuda_download: copy `bytes` from host to device /
 *   device to host on the context's stream and wait for it (host memory may
 *   be pageable). Returns: CZK_OK; CZK_ERR_DEVICE (a bad pointer or size
 *   shows here, as a CUDA error).
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
 * Algorithm: src/cuda/ntt.cu (radix-2 passes of up to 10 stages in shared
 * memory, four-step twists between them).
 * Args: log_n  1 <= log_n <= CZK_NTT_MAX_LOG (28).
 * In/Out: data  2^log_n czk_fr of device memory (Montgomery form).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (log_n out of range, an unknown
 *   kind); CZK_ERR_NOMEM (the twist tables, made on first use);
 *   CZK_ERR_DEVICE. On failure data is unspecified.
 */
CZK_NODISCARD czk_status czk_cuda_ntt(czk_cuda_ctx *ctx, czk_fr *data, unsigned log_n,
                                      czk_ntt_kind kind, czk_err *err);

/*
 * The scaled NTT over G1 of the Lagrange form's derivation on the device of
 * ctx (a czk_cuda_ctx *): a czk_g1_ntt_fn (groth16.h), for
 * czk_params_lagrange_derive_with — the same points as czk_g1_ntt_cpu
 * (src/cuda/g1ntt.cu: XYZZ, double-and-add products, radix 2 in place).
 * Args: log_n  1 <= log_n <= CZK_NTT_MAX_LOG; n_used <= 2^log_n.
 * Device memory while it runs: ≈ 304 bytes a point (39 GB at 2^27).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (the sizes); CZK_ERR_NOMEM (host
 *   twiddles); CZK_ERR_DEVICE (device memory, a launch).
 */
CZK_NODISCARD czk_status czk_cuda_g1_ntt(void *ctx, czk_g1_affine *out, const czk_g1_affine *in,
                                         size_t n_used, unsigned log_n, const czk_fr *c,
                                         const czk_fr *step, const czk_fr *rho, czk_err *err);

/*
 * The Groth16 quotient H on device vectors a, b, c of N = 2^log_n Fr each
 * (constraint evaluations, zero-padded to N), as bellperson's prover
 * computes it (spec/gpu-prover.md §1):
 *   a, b, c <- coset_fft(ifft(·));  a <- (a·b − c) / (g^N − 1);  a <- icoset_fft(a).
 * By default with six transforms, not seven: icoset_fft is linear and undoes
 * coset_fft, so h = (icoset_fft(A·B) − ifft(c)) / (g^N − 1) with A, B the coset
 * evaluations of a and b; the same values for any a, b, c (CZK_CUDA_H_TRANSFORMS).
 * Args: log_n    1 <= log_n <= CZK_NTT_MAX_LOG (28).
 * With c NULL, the Lagrange form's H (groth16.h, czk_params_lagrange):
 *   a, b <- coset_fft(ifft(·)); a <- a·b — four transforms, no division and
 *   no inverse coset transform: a then holds A·B on the coset, in natural
 *   order (position j: g·ω^j), the scalars of the form's h.
 * In/Out: a, b, c  N czk_fr each, device memory (Montgomery form). On return
 *   a[0 .. N) holds the coefficients of h (the prover uses the first N − 1),
 *   or with c NULL A·B on the coset; b and c are clobbered.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (log_n out of range); CZK_ERR_NOMEM;
 *   CZK_ERR_DEVICE. On failure a, b, c are unspecified.
 */
CZK_NODISCARD czk_status czk_cuda_h(czk_cuda_ctx *ctx, czk_fr *a, czk_fr *b, czk_fr *c,
                                    unsigned log_n, czk_err *err);

/*
 * MSM out = Σ_{i<n} scalars[i]·bases[i] with bases and scalars in device
 * memory (scalars in Montgomery form, as a witness holds them; converted on
 * the device). A sample of 2048 scalars decides the path (src/cuda/msm.cuh):
 * when at most 7/8 of them are neither 0 nor 1 (witness scalars), one pass
 * compacts the scalars: zeros are dropped, the bases of ones are summed by a
 * batch-addition kernel, and only the other scalars go through Pippenger
 * (signed window digits, XYZZ buckets, window size chosen for their count);
 * otherwise (uniform scalars, the h MSM) Pippenger runs on all n, ones
 * summed by batch addition. Temporary device memory: compacted, 4·n bytes
 * plus Pippenger's over the m others, dense, Pippenger's over n: about
 * k·(4·⌈255/c⌉ + 13) bytes for k points plus 2^c·(xyzz size) (≈ 10 GB for
 * G1 at k = 2^27).
 * In:  bases    n affine points, device memory (blst layout; all-zero =
 *               infinity); scalars  n czk_fr, device memory, unchanged.
 * Args: n       n < 2^31; n = 0 gives infinity.
 * Out: *out     host memory, Jacobian (blst_p1 / blst_p2).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "msm_g1: n = ... is not below 2^31";
 *   CZK_ERR_NOMEM (device temporaries); CZK_ERR_DEVICE; CZK_ERR_INTERNAL if
 *   the compaction's counts do not add up (a bug).
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
 * Out: out  n elements / points of device memory (n = 0: nothing written).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (n >= 2^31); CZK_ERR_NOMEM (the host
 *   tables of the bases, device temporaries); CZK_ERR_DEVICE.
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
 * Out: *ms  the elapsed milliseconds (cudaEventElapsedTime).
 * Returns: CZK_OK; CZK_ERR_DEVICE; CZK_ERR_UNSUPPORTED in a build without
 *   CUDA (*ms = 0).
 */
CZK_NODISCARD czk_status czk_cuda_timer_start(czk_cuda_ctx *ctx, czk_err *err);
CZK_NODISCARD czk_status czk_cuda_timer_stop(czk_cuda_ctx *ctx, double *ms, czk_err *err);

/*
 * SpMV on the device (src/cuda/spmv.cu: merge path, work split evenly over
 * row ends and non-zeros, so long and empty rows cost what they hold). A
 * recorded shape (include/czk/r1cs.h) made resident: per matrix the row
 * pointers (as u32), columns and coefficient indices, the start row of each
 * 1024-item tile, and the coefficient table.
 *   czk_cuda_shape_device_bytes: device memory czk_cuda_shape_upload keeps
 *     (about 12·rows + 8·nnz bytes, each buffer rounded as allocated; the
 *     SpMV call itself takes 36 bytes per 1024 items of temporaries); 0 in
 *     a build without CUDA. Never fails.
 *   czk_cuda_shape_upload: copies the shape to the device through the
 *     context's page-locked staging ring (the u64 → u32 row-pointer
 *     conversion on the host side of it) and checks it there.
 *     In:  shape  a recorded shape, its matrices in host memory; not kept
 *                 (it may be freed afterwards).
 *     Out: *out   the resident shape (czk_cuda_shape_free with the same
 *                 context); NULL on failure, nothing left on the device.
 *     Returns: CZK_OK; CZK_ERR_UNSUPPORTED for a matrix with 2^32 − 1 or
 *       more non-zeros, or whose arrays are absent, or 2^31 or more
 *       constraints (such a shape is evaluated on the host);
 *       CZK_ERR_INVALID_ARG "shape upload: malformed shape: ..." (row
 *       pointers not from 0 to nnz and non-decreasing, a column beyond
 *       inputs + aux, a coefficient index beyond the table); CZK_ERR_NOMEM;
 *       CZK_ERR_DEVICE.
 *   czk_cuda_shape_free: frees the device buffers; NULL does nothing.
 *   czk_cuda_spmv: a[k], b[k], c[k] = <A_k, z>, <B_k, z>, <C_k, z> for
 *     k < num_constraints and 0 for num_constraints <= k < n (the zero
 *     padding to the NTT domain). The values are czk_shape_eval's.
 *     In:  z        inputs + aux czk_fr, device memory (inputs ‖ aux,
 *                   Montgomery form).
 *     Out: a, b, c  n czk_fr each, device memory; c may be NULL (C is
 *                   then not evaluated: the Lagrange form's prover needs
 *                   a and b only, groth16.h czk_params_lagrange).
 *     Returns: CZK_OK; CZK_ERR_INVALID_ARG (a NULL z, a or b,
 *       n < num_constraints, n >= 2^31); CZK_ERR_NOMEM; CZK_ERR_DEVICE.
 */
typedef struct czk_cuda_shape czk_cuda_shape;
uint64_t czk_cuda_shape_device_bytes(const czk_shape *shape);
CZK_NODISCARD czk_status czk_cuda_shape_upload(czk_cuda_ctx *ctx, czk_cuda_shape **out,
                                               const czk_shape *shape, czk_err *err);
void czk_cuda_shape_free(czk_cuda_ctx *ctx, czk_cuda_shape *dshape);
CZK_NODISCARD czk_status czk_cuda_spmv(czk_cuda_ctx *ctx, const czk_cuda_shape *dshape,
                                       const czk_fr *z, czk_fr *a, czk_fr *b, czk_fr *c, size_t n,
                                       czk_err *err);

/*
 * The GPU Groth16 backend (src/cuda/backend.cu): a czk_backend
 * (include/czk/groth16.h) whose proofs are byte for byte the CPU backend's
 * for the same shape, witness, keys, r and s. Per circuit, on device
 * `device`:
 *   1. the witness z = inputs ‖ aux is uploaded: at full PCIe speed from
 *      memory of ops->host_alloc (page-locked: cudaHostAlloc, portable),
 *      else through a page-locked staging ring (4 chunks of 32 MiB, the
 *      host-side copies on the backend's own 4 threads). Where the witness
 *      comes with its packed form (czk_witness.packed, made by the engine's
 *      synthesis worker: czk_witness_pack) only that is copied — 2 bits a
 *      value and the values neither 0 nor 1, ≈ 2 % of the bytes for PoRep
 *      — into the not yet written a, b, c, and expanded into z on the
 *      device (src/cuda/witness.cu; a 32GiB partition's upload 0.075 s →
 *      a few ms); CZK_CUDA_PACKED=0 in the environment, read at creation,
 *      or czk_backend_cuda_set_packed, uploads the full witness always;
 *   2. a, b, c = A·z, B·z, C·z by czk_cuda_spmv when the shape is resident,
 *      else by czk_shape_eval on the host (on `pool`, outside the device
 *      lock) and uploaded the same way; zero-padded to N = 2^⌈log2 n⌉;
 *   3. H by czk_cuda_h;
 *   4. the MSMs on the device: h (N − 1 coefficients), l (aux), a (inputs ‖
 *      A-dense aux), b_g1 and b_g2 (B-dense inputs ‖ B-dense aux; the G2 MSM
 *      runs on the GPU too, so device() defers nothing). The compacted
 *      scalars are gathered on the device by index lists made at load time;
 *      with those lists on the device the gathers run during step 3, on a
 *      second stream with one block an SM, which H's kernels leave room for
 *      (CZK_CUDA_GATHER_EARLY=0, read at creation: after step 3).
 *      With the parameters resident, the five MSMs run at once, each on its
 *      own stream (four extra contexts of the backend), when the device has
 *      room for all their temporaries (h: about 80 bytes per point; l, a,
 *      b_g1, b_g2 always compact their scalars and run Pippenger on at most
 *      2^24 of them at a time: 4 bytes per point plus at most 2^24·80 (G1)
 *      or 2^24·160 (G2) bytes); otherwise, or with CZK_CUDA_SERIAL_MSM set
 *      in the environment, one after another. With resident parameters and
 *      room for a second buffer set, the MSM stage runs outside the device
 *      lock (the lock is released after step 3 and the gathers), beside the
 *      next circuit's steps 1–3 (CZK_CUDA_OVERLAP=0, read at creation, keeps
 *      it inside; bench/GPU.md, ninth run); CZK_CUDA_MSM_H_PRIORITY=1 gives
 *      MSM H's streams there the device's highest priority (off by default;
 *      bench/GPU.md, eleventh run); CZK_CUDA_MSM_H_C (6..22) and
 *      CZK_CUDA_MSM_H_K (2..64) set the window size and the hybrid's K of
 *      MSM H's context alone (benchmark knobs; unset: the context's choice;
 *      a bad value makes czk_backend_cuda fail with CZK_ERR_INVALID_ARG
 *      naming it).
 * The common code (czk_prove, czk_prove_finalize) randomizes and encodes.
 * Timings (czk_prove_timings): upload = step 1 and the upload of a host
 * a, b, c; spmv = the device SpMV (or the host one) and the gathers of the
 * compacted a and b scalars (device work); ntt = step 3; msm_* = step 4
 * (with concurrent MSMs each one's own wall time).
 *
 * Residency (ops->load, spec/gpu-prover.md §7): load() makes the parameter
 * vectors and the shape resident (uploaded through the staging ring, so at
 * the rate of 4 host threads' memcpy or of PCIe, whichever is lower: a
 * 32GiB partition's 44 GiB of keys and 8.3 GiB of shape in a few seconds)
 * when they fit both the budget and the
 * device's free memory less the working memory of one circuit (a, b, c,
 * witness, gathered scalars, MSM temporaries, NTT twist tables: about
 * 4·N·32 + 2·nv·32 + 80·N bytes); it then reports every host vector droppable
 * (CZK_SRS_H|L|A|B_G1|B_G2) and *device_bytes. If the parameters do not fit
 * it pins their host vectors (cudaHostRegister) and the device part streams
 * them in chunks; nothing is droppable, and the shape with the index lists
 * still goes to the device where it fits (device SpMV and gathers; then
 * *device_bytes is theirs, else 0 and host SpMV: at 32GiB on a 78 GiB card
 * 8.3 + 0.65 GiB beside the working memory instead of ≈ 2 s of host SpMV a
 * partition). If they fit but the shape does not, the shape stays on the
 * host (host SpMV).
 * Parameters that were never loaded are streamed from pageable host memory
 * on every call. unload() frees the device copies and unpins.
 *
 * Encoded parameters (params->encoded, CZK_PARAMS_ENCODED in
 * include/czk/groth16.h): when they fit as above, load() uploads the
 * encoded bytes as they are and decodes them on the device in place
 * (czk_cuda_decode_points: flags, range and on-curve checks, Montgomery
 * form; ~0.1 s for a 32GiB PoRep key instead of ~30 s on 16 host
 * threads); the host vectors stay encoded and are reported droppable as
 * usual. A refused point fails load() with the reader's status and
 * message naming section and index (the one point re-decoded on the host,
 * czk_params_check_encoded_point), with nothing left resident and the
 * host vectors untouched. When they do not fit (pinned, streamed), or with
 * CZK_PARAMS_DEVICE_DECODE=0 in the environment, load() first decodes the
 * host vectors in place on `pool` (czk_params_decode_vectors), as does a
 * call that streams parameters never loaded.
 *
 * Args: device           CUDA device index (0 .. czk_cuda_device_count()−1);
 *       pool             threads for the host SpMV fallback; must outlive
 *                        the backend (NULL: the calling thread);
 *       vram_budget_bytes  device memory that load() may keep resident
 *                        (parameters, shapes, index lists) over all loaded
 *                        parameter sets; 0 = as much as the device has free
 *                        after the working reserve.
 * Calls may come from several threads: device work is serialized inside the
 * backend (and by the engine's device lock where one is given).
 * Out: *out  the backend (czk_backend_release); ops and self NULL on failure.
 *   If the four extra contexts cannot all be made the backend still works,
 *   its MSMs one after another.
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED in a build without CUDA;
 *   CZK_ERR_INVALID_ARG "cuda backend: ctx_create: device D of N" for a
 *   device index that does not exist (any index on a machine without a
 *   GPU), or naming a benchmark knob read here with a value outside its
 *   range (CZK_CUDA_MSM_H_C 6..22, CZK_CUDA_MSM_H_K 2..64, CZK_CUDA_PACKED
 *   0 or 1); CZK_ERR_NOMEM; CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_backend_cuda(czk_backend *out, int device, czk_pool *pool,
                                          uint64_t vram_budget_bytes, czk_err *err) CZK_NONNULL(1);

/*
 * The CUDA backend as a czk_backend_provider (src/cuda/provider.c): name
 * "cuda", built czk_cuda_built, device_count czk_cuda_device_count, make
 * czk_backend_cuda, shape_resident from czk_backend_cuda_residency, identify
 * czk_cuda_device_identity. The
 * composition roots hand it to the engine (czk_engine_opts.gpu).
 */
extern const czk_backend_provider czk_cuda_provider;

/*
 * Whether parameters should be read encoded for the GPU (callers set
 * CZK_PARAMS_ENCODED when this is true: the engine's PoRep kind, czk
 * prove, bench_porep32g): this build has the CUDA backend, a device
 * exists, and the environment does not say CZK_PARAMS_DEVICE_DECODE=0
 * (or "off", "no", "false"), the switch back to host decoding. A caller
 * that then proves on the CPU after all loses nothing but time: the CPU
 * backend decodes the vectors on first use. Defined in src/cuda/decode.cu;
 * false in a build without CUDA. Never fails.
 */
bool czk_cuda_params_device_decode(void);

/*
 * Decodes n parameter points of group 1 (G1) or 2 (G2) in device memory
 * in place, from their uncompressed zcash encodings (96 / 192 bytes, as in
 * a .params file) to czk_g1_affine / czk_g2_affine (Montgomery form),
 * refusing what the host reader refuses (any flag bit, a coordinate not
 * below p, a point off the curve, G1 (0, ±2); src/cuda/decode.cu).
 * Args: group      1 or 2.
 * In/Out: points  n encodings of 96 / 192 bytes, device memory, 16-byte
 *                 aligned (czk_cuda_alloc's are); decoded in place.
 * Out: *bad = UINT64_MAX if every point decoded (also for n = 0, and on
 *   any error), else the lowest index refused (the buffer's contents are
 *   then unspecified).
 * Returns: CZK_OK (also when a point is refused); CZK_ERR_INVALID_ARG (a
 *   group other than 1 or 2, misaligned points, n >= 2^38); CZK_ERR_NOMEM;
 *   CZK_ERR_DEVICE; CZK_ERR_UNSUPPORTED in a build without CUDA.
 */
CZK_NODISCARD czk_status czk_cuda_decode_points(czk_cuda_ctx *ctx, void *points, size_t n,
                                                unsigned group, uint64_t *bad, czk_err *err);

/*
 * The per-point code of czk_cuda_decode_points run on the host over n
 * encodings (host memory), each compared with the host reader
 * (czk_g1/g2_decode_trusted, infinity refused): the same verdict and, for
 * accepted points, the same affine bytes. Needs no GPU.
 * Args: group  1 or 2.
 * In:   enc    n encodings of 96 (G1) / 192 (G2) bytes, host memory.
 * Returns: CZK_OK; CZK_ERR_INTERNAL naming the first point where the two
 *   differ (verdict or bytes); CZK_ERR_INVALID_ARG (group); CZK_ERR_UNSUPPORTED
 *   in a build without CUDA.
 */
CZK_NODISCARD czk_status czk_cuda_decode_host_check(unsigned group, const uint8_t *enc, size_t n,
                                                    czk_err *err);

/* Where a loaded parameter set lives (for tests and status). */
typedef struct czk_cuda_residency {
    bool loaded;          /* load() was called for these params and not undone */
    bool params_resident; /* the five vectors are in device memory */
    bool shape_resident;  /* SpMV runs on the device */
    bool pinned;          /* the host vectors are page-locked (streamed) */
    uint64_t device_bytes;
} czk_cuda_residency;

/*
 * Where params live on backend b (a CUDA backend).
 * Out: *out  all false / 0 if params were never loaded on b (or on error).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "residency: not a CUDA backend";
 *   CZK_ERR_UNSUPPORTED in a build without CUDA.
 */
CZK_NODISCARD czk_status czk_backend_cuda_residency(const czk_backend *b, const czk_params *params,
                                                    czk_cuda_residency *out, czk_err *err)
    CZK_NONNULL(1, 2, 3);

/*
 * Streaming chunk (points per MSM piece) for parameters that are not
 * resident; 0 restores the default (2^22 G1 / 2^21 G2 points). For tests of
 * the streaming path; applies to the calls that follow.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for another kind of backend;
 *   CZK_ERR_UNSUPPORTED in a build without CUDA.
 */
CZK_NODISCARD czk_status czk_backend_cuda_set_stream_chunk(const czk_backend *b, size_t points,
                                                           czk_err *err) CZK_NONNULL(1);

/*
 * Whether the five MSMs of a circuit run one after another (serial true) or
 * at once on their own streams where memory allows (false, the default).
 * The initial value is read once, when the backend is made, from
 * CZK_CUDA_SERIAL_MSM (set: serial); this call changes it for the calls that
 * follow (tests and benchmarks comparing the two).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for another kind of backend;
 *   CZK_ERR_UNSUPPORTED without CUDA.
 */
CZK_NODISCARD czk_status czk_backend_cuda_set_serial_msm(const czk_backend *b, bool serial,
                                                         czk_err *err) CZK_NONNULL(1);

/*
 * Whether the backend uploads a witness's packed form where it has one
 * (czk_witness.packed: step 1 above; true, the default) or always the full
 * witness (false). The initial value is read once, when the backend is
 * made, from CZK_CUDA_PACKED (0: the full witness); this call changes it for
 * the calls that follow (tests and benchmarks comparing the two).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for another kind of backend;
 *   CZK_ERR_UNSUPPORTED without CUDA.
 */
CZK_NODISCARD czk_status czk_backend_cuda_set_packed(const czk_backend *b, bool packed,
                                                     czk_err *err) CZK_NONNULL(1);

/* ---- Groth16 setup on the GPU (src/cuda/setup.cu) ---- */

/*
 * Fixed-base products of the generators on the device, for test-key setup
 * (czk_setup_write). czk_cuda_fb_create builds the signed-window tables of
 * G1 and G2 (w = 13: 21 windows of 4,096 multiples, as src/groth16/
 * fixed_base.h, 8.3 MB and 16.5 MB of device memory) on the host and
 * uploads them; the object is used with its context (one thread at a time)
 * and freed before it.
 *
 * czk_cuda_fb_g1 / _g2: out[i] = k[i]·G for i < n, k in device memory
 * (Montgomery form, as czk_fr), out in device memory (16-byte aligned) in
 * the given form:
 *   CZK_CUDA_FB_AFFINE   czk_g1_affine / czk_g2_affine (blst's layout,
 *                        Montgomery coordinates), 96 / 192 bytes a point;
 *   CZK_CUDA_FB_ENCODED  the uncompressed zcash encoding, as
 *                        czk_g1_serialize / czk_g2_serialize write it
 *                        (96 / 192 bytes).
 * A zero scalar gives infinity: the all-zero affine, or 0x40 then zeros.
 * Temporary device memory of up to 2^22·192 (G1) / 2^22·384 (G2) bytes.
 * Synchronous.
 * czk_cuda_fb_create: Out: *out (czk_cuda_fb_destroy, before the context);
 *   NULL on failure. Returns: CZK_OK; CZK_ERR_NOMEM; CZK_ERR_DEVICE
 *   ("fixed-base tables: ..."); CZK_ERR_UNSUPPORTED without CUDA.
 * czk_cuda_fb_destroy: frees the device tables; NULL does nothing.
 * czk_cuda_fb_g1 / _g2: Args: n < 2^31 (n = 0 writes nothing).
 *   Returns: CZK_OK; CZK_ERR_INVALID_ARG (n, an unknown form);
 *   CZK_ERR_NOMEM; CZK_ERR_DEVICE; CZK_ERR_UNSUPPORTED without CUDA.
 */
typedef struct czk_cuda_fb czk_cuda_fb;
typedef enum czk_cuda_fb_form { CZK_CUDA_FB_AFFINE = 0, CZK_CUDA_FB_ENCODED = 1 } czk_cuda_fb_form;
CZK_NODISCARD czk_status czk_cuda_fb_create(czk_cuda_fb **out, czk_cuda_ctx *ctx, czk_err *err)
    CZK_NONNULL(1, 2);
void czk_cuda_fb_destroy(czk_cuda_fb *fb);
CZK_NODISCARD czk_status czk_cuda_fb_g1(czk_cuda_fb *fb, void *out, const czk_fr *k, size_t n,
                                        czk_cuda_fb_form form, czk_err *err) CZK_NONNULL(1);
CZK_NODISCARD czk_status czk_cuda_fb_g2(czk_cuda_fb *fb, void *out, const czk_fr *k, size_t n,
                                        czk_cuda_fb_form form, czk_err *err) CZK_NONNULL(1);

/*
 * Runs the per-point device code of czk_cuda_fb_g1 / _g2 (group 1 or 2:
 * digits, table sums, affine form, encoding; not the batch inversion) on
 * the host for k[0 .. n) (Montgomery form, host memory) and compares every
 * point with blst's k·G and its czk_g1_serialize / czk_g2_serialize bytes.
 * Needs no GPU.
 * Returns: CZK_OK; CZK_ERR_INTERNAL naming the first scalar that differs;
 *   CZK_ERR_INVALID_ARG (a group other than 1 or 2); CZK_ERR_NOMEM;
 *   CZK_ERR_UNSUPPORTED in a build without CUDA.
 */
CZK_NODISCARD czk_status czk_cuda_fb_host_check(unsigned group, const czk_fr *k, size_t n,
                                                czk_err *err);

/*
 * The GPU setup backend (czk_setup_ops, include/czk/groth16.h) on device
 * `device`, with a context of its own: the products by czk_cuda_fb_g1/g2
 * (encoded for czk_setup_write, affine for czk_setup_with), host data moved
 * in chunks of 2^22 points through device buffers it keeps (≈ 1 GB, plus
 * the kernels' scratch); the inverse NTT of the Lagrange basis by
 * czk_cuda_ntt (2^log_n·32 bytes of device memory while it runs);
 * host_alloc is page-locked memory (cudaHostAlloc). The files it makes are
 * byte for byte the CPU backend's.
 * Out: *out  the setup backend (czk_setup_backend_release); ops and self NULL on
 *            failure.
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED in a build without CUDA;
 *   CZK_ERR_INVALID_ARG "setup backend: no CUDA device D (N here)";
 *   CZK_ERR_NOMEM; CZK_ERR_DEVICE.
 */
CZK_NODISCARD czk_status czk_setup_backend_cuda(czk_setup_backend *out, int device, czk_err *err)
    CZK_NONNULL(1);

#ifdef __cplusplus
}
#endif
#endif
