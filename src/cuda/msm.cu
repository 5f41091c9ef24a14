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
