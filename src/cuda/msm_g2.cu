/* MSM on G2: the generic body of msm.cuh instantiated for G2. */
#include "msm.cuh"

using namespace czkg;

extern "C" czk_status czk_cuda_msm_g2(czk_cuda_ctx *ctx, czk_g2 *out, const czk_g2_affine *bases,
                                      const czk_fr *scalars, size_t n, czk_err *err) {
    return msm<g2>(ctx, out, (const g2::A *)bases, (const fr *)scalars, n, err);
}
