/*
 * The scaled NTT over G1 of the Lagrange form's derivation (groth16.h,
 * czk_g1_ntt_fn; czk_params_lagrange_derive_with): out[j] = Σ_i ρ^(ij)·x_i
 * with x_i = c·step^i·in[i] for i < n_used, on the device.
 *
 * One-time work per key set, so written for clarity over speed: XYZZ
 * points (curve.cuh), products by scalars through the GLV endomorphism
 * (two 128-bit halves at once: 128 doublings and about 96 additions, ≈ 0.6×
 * the Fp products of double-and-add by 255 bits), radix 2 in place as
 * czk_g1_ntt_cpu: the scaling (one product a point, a thread's run of
 * CHUNK points walking step^i), the bit reversal, log N stages of N/2
 * butterflies (a thread each, the twiddle ρ^(k·N/2h) from a table made on
 * the host, skipped where it is 1), then one inversion a point to affine.
 * Device memory: N XYZZ points (192 B), N affine (96 B), N/2 twiddles
 * (32 B): ≈ 39 GB at 2^27. Work at 2^27: 2^26·27 butterflies of ≈ 2,500
 * Fp products (≈ 4,300 by double-and-add before GLV): ≈ 4.5e12 a transform;
 * 2KiB's 2^22 took 16 s a transform on an H100 by double-and-add (bench/
 * GPU.md, fifteenth run), so ≈ 6–7 min a transform at 2^27 with GLV.
 * The per-thread steps are CZK_HD functions, run on the host by
 * czk_cuda_g1_ntt_emulate (internal.h) for the tests without a GPU.
 */
#include "ctx.cuh"
#include "group.cuh"
#include "internal.h"

#include "czk/groth16.h"

#include <stdlib.h>
#include <string.h>

namespace czkg {

namespace {

using X = g1_xyzz;
using A = g1_affine;

constexpr unsigned CHUNK = 16; /* points per thread of the scaling */

/*
 * The GLV split of BLS12-381's G1 (Gallant, Lambert, Vanstone, CRYPTO 2001): λ = z² − 1 with z =
 * −0xd201000000010000 the curve's parameter is a cube root of unity mod r (λ² + λ + 1 = r), and
 * φ(x, y) = (β·x, y) with β below, a cube root of unity in Fp, is λ·(x, y) on G1 (checked on
 * the generator and on 12345·G when the constant was written). So k = k1 + k2·λ with
 * k1 = k mod λ and k2 = ⌊k/λ⌋, both < 2^128 for k < r, gives k·P = k1·P + k2·φ(P).
 */
constexpr uint64_t GLV_LAMBDA_LO = 0x00000000ffffffffull, GLV_LAMBDA_HI = 0xac45a4010001a402ull;
CZK_HD fp glv_beta() { /* β·R mod p (Montgomery form), R = 2^384 */
    constexpr uint32_t v[12] = {0x8671f071, 0xcd03c9e4, 0x1fcda5d2, 0x5dab2246,
                                0xd3851b95, 0x587042af, 0x01bacb9e, 0x8eb60ebe,
                                0x83d050d2, 0x03f97d6e, 0x54638741, 0x18f02065};
    fp b;
    for (int i = 0; i < 12; i++)
        b.v[i] = v[i];
    return b;
}

/* k (canonical, 8 limbs of 32 bits, < r) = k1 + k2·λ: binary long division by λ (129-bit
 * remainder in three words) */
CZK_HD void glv_split(const fr &k, uint64_t k1[2], uint64_t k2[2]) {
    uint64_t r0 = 0, r1 = 0, r2 = 0;
    k2[0] = k2[1] = 0;
#pragma unroll 1
    for (int b = 254; b >= 0; b--) {
        r2 = (r2 << 1) | (r1 >> 63);
        r1 = (r1 << 1) | (r0 >> 63);
        r0 = (r0 << 1) | ((k.v[b >> 5] >> (b & 31)) & 1);
        bool ge = r2 || r1 > GLV_LAMBDA_HI || (r1 == GLV_LAMBDA_HI && r0 >= GLV_LAMBDA_LO);
        if (ge) {
            uint64_t borrow = r0 < GLV_LAMBDA_LO;
            r0 -= GLV_LAMBDA_LO;
            uint64_t t = r1 - GLV_LAMBDA_HI;
            uint64_t b2 = r1 < GLV_LAMBDA_HI || t < borrow;
            r1 = t - borrow;
            r2 -= b2;
            if (b < 128) k2[b >> 6] |= 1ull << (b & 63);
        }
    }
    k1[0] = r0;
    k1[1] = r1;
}

/* k·p for k in Montgomery form (its canonical value, < r): the GLV split, then both halves at
 * once from the top bit (Shamir's trick: 128 doublings and about 96 additions of p, φ(p) or
 * p + φ(p), against 255 doublings and about 128 additions by plain double-and-add). */
CZK_HD_NOINLINE X mul_fr(const X &p, const fr &k_mont) {
    const fr k = k_mont.from_mont();
    uint64_t k1[2], k2[2];
    glv_split(k, k1, k2);
    X t[4];
    t[1] = p;
    t[2] = p;
    t[2].X = p.X * glv_beta(); /* φ(p): x = X/ZZ scaled by β */
    t[3] = p;
    t[3].add(t[2]);
    X r = X::inf();
#pragma unroll 1
    for (int b = 127; b >= 0; b--) {
        r = r.dbl();
        unsigned d = (unsigned)((k1[b >> 6] >> (b & 63)) & 1) |
                     (unsigned)(((k2[b >> 6] >> (b & 63)) & 1) << 1);
        if (d) r.add(t[d]);
    }
    return r;
}

CZK_HD fr pow_u64(fr x, uint64_t e) {
    fr r = fr::one();
#pragma unroll 1
    for (; e; e >>= 1) {
        if (e & 1) r = r * x;
        x = x * x;
    }
    return r;
}

/* The per-thread steps, shared by the kernels and the host emulation (czk_cuda_g1_ntt_emulate). */

/* thread t of the scaling: x[i] = c·step^i·in[i] for its CHUNK points (infinity from n_used) */
CZK_HD void scale_run(X *x, const A *in, size_t n_used, size_t n, const fr &c, const fr &step,
                      size_t t) {
    size_t i0 = t * CHUNK;
    if (i0 >= n) return;
    fr k = c * pow_u64(step, i0);
    size_t i1 = i0 + CHUNK < n ? i0 + CHUNK : n;
#pragma unroll 1
    for (size_t i = i0; i < i1; i++) {
        x[i] = i < n_used ? mul_fr(X::from_affine(in[i]), k) : X::inf();
        k = k * step;
    }
}

CZK_HD uint32_t bit_reverse(uint32_t i, unsigned log_n) {
    uint32_t r = 0;
#pragma unroll 1
    for (unsigned b = 0; b < log_n; b++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

CZK_HD void bitrev_one(X *x, uint32_t i, unsigned log_n) {
    uint32_t r = bit_reverse(i, log_n);
    if (i < r) {
        X t = x[i];
        x[i] = x[r];
        x[r] = t;
    }
}

/* butterfly t of the stage of half-size `half`: (x0, x1) <- (x0 + ρ^k·x1, x0 − ρ^k·x1) */
CZK_HD void butterfly(X *x, const fr *tw, size_t half, size_t step, size_t t) {
    size_t k = t % half, i0 = (t / half) * 2 * half + k, i1 = i0 + half;
    X u = x[i0], v = x[i1];
    if (k) v = mul_fr(v, tw[k * step]);
    X s = u;
    s.add(v);
    u.add(v.neg());
    x[i0] = s;
    x[i1] = u;
}

__global__ void g1ntt_scale(X *x, const A *in, size_t n_used, size_t n, fr c, fr step) {
    scale_run(x, in, n_used, n, c, step, (size_t)blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void g1ntt_bitrev(X *x, unsigned log_n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (1u << log_n)) bitrev_one(x, i, log_n);
}

__global__ void g1ntt_stage(X *x, const fr *tw, size_t half, size_t step, size_t nb) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nb) butterfly(x, tw, half, step, t);
}

__global__ void g1ntt_affine(A *out, const X *x, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i].to_affine();
}

fr fr_of(const czk_fr &x) {
    fr r;
    memcpy(&r, &x, sizeof r);
    return r;
}

} // namespace

} // namespace czkg

using namespace czkg;

extern "C" czk_status czk_cuda_g1_ntt(void *vctx, czk_g1_affine *out, const czk_g1_affine *in,
                                      size_t n_used, unsigned log_n, const czk_fr *c,
                                      const czk_fr *step, const czk_fr *rho, czk_err *err) {
    czk_cuda_ctx *ctx = (czk_cuda_ctx *)vctx;
    if (log_n < 1 || log_n > CZK_NTT_MAX_LOG)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "g1 ntt: log_n %u not in 1..%u", log_n,
                        CZK_NTT_MAX_LOG);
    const size_t n = (size_t)1 << log_n;
    if (n_used > n)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "g1 ntt: %zu points for a domain of 2^%u", n_used,
                        log_n);
    CZK_CU(cudaSetDevice(ctx->device), "g1 ntt: select device");
    czk_fr *tw = (czk_fr *)malloc(n / 2 * sizeof *tw);
    if (!tw)
        return czk_errf(err, CZK_ERR_NOMEM, "g1 ntt: host memory for 2^%u twiddles", log_n - 1);
    tw[0] = czk_fr_one;
    for (size_t k = 1; k < n / 2; k++)
        czk_fr_mul(&tw[k], &tw[k - 1], rho);
    cudaStream_t s = ctx->stream;
    dev_buf<X> dx;
    dev_buf<A> da;
    dev_buf<fr> dtw;
    cudaError_t e = dx.alloc(n, s);
    if (e == cudaSuccess) e = da.alloc(n, s);
    if (e == cudaSuccess) e = dtw.alloc(n / 2, s);
    if (e != cudaSuccess) {
        free(tw);
        CZK_CU(e, "g1 ntt: device memory for 2^%u points", log_n);
    }
    czk_status st = n_used ? upload_fast(ctx, da.p, in, n_used * sizeof *in, err) : CZK_OK;
    if (!st) st = upload_fast(ctx, dtw.p, tw, n / 2 * sizeof *tw, err);
    free(tw);
    if (st) return czk_err_wrap(err, "g1 ntt: upload");
    g1ntt_scale<<<grid_for((n + CHUNK - 1) / CHUNK, 128), 128, 0, s>>>(dx.p, da.p, n_used, n,
                                                                       fr_of(*c), fr_of(*step));
    CZK_LAUNCH("g1 ntt 2^%u: scaling", log_n);
    g1ntt_bitrev<<<grid_for(n, 256), 256, 0, s>>>(dx.p, log_n);
    CZK_LAUNCH("g1 ntt 2^%u: bit reversal", log_n);
    for (size_t half = 1; half < n; half <<= 1) {
        g1ntt_stage<<<grid_for(n / 2, 128), 128, 0, s>>>(dx.p, dtw.p, half, n / (2 * half), n / 2);
        CZK_LAUNCH("g1 ntt 2^%u: stage of half %zu", log_n, half);
    }
    g1ntt_affine<<<grid_for(n, 128), 128, 0, s>>>(da.p, dx.p, n);
    CZK_LAUNCH("g1 ntt 2^%u: to affine", log_n);
    CZK_CU(cudaMemcpyAsync(out, da.p, n * sizeof *out, cudaMemcpyDeviceToHost, s),
           "g1 ntt 2^%u: download", log_n);
    CZK_CU(cudaStreamSynchronize(s), "g1 ntt 2^%u: synchronize", log_n);
    return CZK_OK;
}

extern "C" czk_status czk_cuda_g1_ntt_emulate(czk_g1_affine *out, const czk_g1_affine *in,
                                              size_t n_used, unsigned log_n, const czk_fr *c,
                                              const czk_fr *step, const czk_fr *rho, czk_err *err) {
    if (log_n < 1 || log_n > 20)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "g1 ntt emulate: log_n %u not in 1..20", log_n);
    const size_t n = (size_t)1 << log_n;
    if (n_used > n)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "g1 ntt emulate: %zu points for 2^%u", n_used,
                        log_n);
    X *x = (X *)malloc(n * sizeof *x);
    fr *tw = (fr *)malloc(n / 2 * sizeof *tw);
    if (!x || !tw) {
        free(x);
        free(tw);
        return czk_errf(err, CZK_ERR_NOMEM, "g1 ntt emulate: host memory");
    }
    czk_fr t = czk_fr_one;
    for (size_t k = 0; k < n / 2; k++) {
        tw[k] = fr_of(t);
        czk_fr_mul(&t, &t, rho);
    }
    const A *ina = (const A *)in;
    for (size_t th = 0; th * CHUNK < n; th++)
        scale_run(x, ina, n_used, n, fr_of(*c), fr_of(*step), th);
    for (uint32_t i = 0; i < n; i++)
        bitrev_one(x, i, log_n);
    for (size_t half = 1; half < n; half <<= 1)
        for (size_t th = 0; th < n / 2; th++)
            butterfly(x, tw, half, n / (2 * half), th);
    A *o = (A *)out;
    for (size_t i = 0; i < n; i++)
        o[i] = x[i].to_affine();
    free(x);
    free(tw);
    return CZK_OK;
}
