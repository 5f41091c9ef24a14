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

/*
 * MSM out = Σ scalars[i]·bases[i] in G1 / G2; czk_msm_*_plain without the
 * bit-aware front end.
 * In:      bases    n affine points of the group (G1 / G2), infinity allowed;
 *                   read only, never copied.
 *          scalars  n Fr elements in Montgomery form (canonical, < r).
 * Args:    n        number of terms; 0 gives infinity.
 *          pool     threads to use (NULL: the calling thread only). The
 *                   call may come from inside a task of the same pool (it
 *                   then runs on that thread).
 * Out:     out      Σ scalars[i]·bases[i], Jacobian.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if out is NULL, or bases or scalars
 *          is NULL with n > 0; CZK_ERR_NOMEM (message names the size) if the
 *          scratch cannot be allocated. *out is infinity on any failure
 *          other than a NULL out.
 * Memory:  one scratch allocation per call, freed before returning. Front
 *          end: 40 bytes per scalar that is neither 0 nor 1, 8 per scalar
 *          equal to 1, plus per thread the Pippenger buckets for one range
 *          (blst_p{1,2}s_mult_pippenger_scratch_sizeof; at most 48 MiB G1,
 *          96 MiB G2). Plain: 32 bytes per scalar plus buckets per thread.
 * Algorithm: Pippenger's bucket method with Booth-encoded windows as in
 *          blst v0.3.12 src/multi_scalar.c (window per blst's
 *          pippenger_window_size); batch affine addition as in
 *          blst src/bulk_addition.c. src/ec/msm.c describes the split.
 *          The plain variant sums inputs of at most 64 G1 / 32 G2 points
 *          point by point: blst v0.3.12 serves calls that small with a
 *          table method that gets infinity bases wrong.
 */
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
