/*
 * czk — multi-scalar multiplication on the CPU, G1 and G2.
 *
 * out = Σ_i scalars[i]·bases[i], scalars as czk_fr (Montgomery form, as a
 * witness holds them). The bit-aware front end (DESIGN.md "Bit-aware MSM")
 * drops scalars equal to 0, sums the bases of scalars equal to 1 by batch
 * affine addition (blst_p{1,2}s_add), and hands only the rest to blst's
 * Pippenger, split over the pool's threads; the partial sums are added.
 * czk_msm_*_plain runs blst's Pippenger on every scalar, without the front
 * end (the reference the tests compare against).
 *
 * Bases must be affine points of the group (infinity allowed: it adds
 * nothing). n = 0 gives infinity. One generic body serves both groups.
 * Returns CZK_OK, or CZK_ERR_NOMEM when scratch space cannot be allocated.
 */
#ifndef CZK_MSM_H
#define CZK_MSM_H

#include "czk/common.h"
#include "czk/ec.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

CZK_NODISCARD czk_status czk_msm_g1(czk_g1 *out, const czk_g1_affine *bases, const czk_fr *scalars,
                                    size_t n, czk_pool *pool, czk_err *err);
CZK_NODISCARD czk_status czk_msm_g2(czk_g2 *out, const czk_g2_affine *bases, const czk_fr *scalars,
                                    size_t n, czk_pool *pool, czk_err *err);
CZK_NODISCARD czk_status czk_msm_g1_plain(czk_g1 *out, const czk_g1_affine *bases,
                                          const czk_fr *scalars, size_t n, czk_pool *pool,
                                          czk_err *err);
CZK_NODISCARD czk_status czk_msm_g2_plain(czk_g2 *out, const czk_g2_affine *bases,
                                          const czk_fr *scalars, size_t n, czk_pool *pool,
                                          czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
