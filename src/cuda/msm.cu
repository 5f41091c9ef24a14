/* MSM on G1: the generic body of msm.cuh instantiated for G1. */
#include "msm.cuh"

using namespace czkg;

extern "C" czk_status czk_cuda_msm_g1(czk_cuda_ctx *ctx, czk_g1 *out, const czk_g1_affine *bases,
                                      const czk_fr *scalars, size_t n, czk_err *err) {
    return msm<g1>(ctx, out, (const g1::A *)bases, (const fr *)scalars, n, err);
}

extern "C" void czk_cuda_set_msm_cap(czk_cuda_ctx *ctx, size_t points) {
    ctx->msm_cap = points;
}

extern "C" void czk_cuda_msm_last(const czk_cuda_ctx *ctx, czk_cuda_msm_info *out) {
    *out = ctx->msm_last;
}

namespace czkg {
namespace {

/* out[i]: 0 with probability zero_ppm / 10^6, 1 with one_ppm / 10^6, else a value below 2^254. */
__global__ void fr_mix_kernel(fr *out, uint32_t n, uint32_t zero_ppm, uint32_t one_ppm,
                              uint64_t seed) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t h = splitmix64(seed * 0x2545f4914f6cdd1dull + i);
    uint32_t r = (uint32_t)(h % 1000000);
    fr v;
    if (r < zero_ppm) {
        v = fr::zero();
    } else if (r < zero_ppm + one_ppm) {
        v = fr::one();
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            h = splitmix64(h);
            v.v[2 * k] = (uint32_t)h;
            v.v[2 * k + 1] = (uint32_t)(h >> 32);
        }
        v.v[7] &= 0x3fffffffu; /* < 2^254 < r: a reduced Montgomery representative */
    }
    st_vec(out + i, v);
}

} // namespace
} // namespace czkg

extern "C" czk_status czk_cuda_fr_mix(czk_cuda_ctx *ctx, czk_fr *out, size_t n, uint32_t zero_ppm,
                                      uint32_t one_ppm, uint64_t seed, czk_err *err) {
    if (n >= (1ull << 31) || (uint64_t)zero_ppm + one_ppm > 1000000)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "fr_mix: n = %zu, %u + %u ppm", n, zero_ppm,
                        one_ppm);
    if (n == 0) return CZK_OK;
    CZK_CU(cudaSetDevice(ctx->device), "fr_mix: select device");
    fr_mix_kernel<<<grid_for(n, 256), 256, 0, ctx->stream>>>((fr *)out, (uint32_t)n, zero_ppm,
                                                             one_ppm, seed);
    CZK_LAUNCH("fr_mix: kernel");
    CZK_CU(cudaStreamSynchronize(ctx->stream), "fr_mix: synchronize");
    return CZK_OK;
}
