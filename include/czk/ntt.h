/*
 * czk — number-theoretic transforms over Fr on the CPU.
 *
 * Domain of size N = 2^log_n, 1 <= log_n <= 28, with ω the primitive N-th
 * root of unity of czk_fr_root_of_unity(log_n) (bellperson's). All transforms
 * take and return natural order, in place:
 *   CZK_NTT_FORWARD        out[i] = Σ_j in[j]·ω^(ij)              (evaluation)
 *   CZK_NTT_INVERSE        out[j] = (1/N)·Σ_i in[i]·ω^(−ij)       (interpolation)
 *   CZK_NTT_COSET_FORWARD  out[i] = Σ_j in[j]·(g·ω^i)^j, g = 7     (evaluation on the coset)
 *   CZK_NTT_COSET_INVERSE  inverse of the above: coefficients from coset values
 * These are bellperson's EvaluationDomain fft, ifft, coset_fft and icoset_fft
 * (bellperson src/domain.rs), which the Groth16 H computation uses.
 * Work is split over `pool` (NULL = this thread only).
 */
#ifndef CZK_NTT_H
#define CZK_NTT_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum czk_ntt_kind {
    CZK_NTT_FORWARD,
    CZK_NTT_INVERSE,
    CZK_NTT_COSET_FORWARD,
    CZK_NTT_COSET_INVERSE,
} czk_ntt_kind;

#define CZK_NTT_MAX_LOG 28u

/*
 * Transforms data[0 .. 2^log_n) in place (src/ff/ntt.c: one serial radix-2
 * pass up to 2^10, above it the four-step split N = R·C over `pool`).
 * Args: log_n  1 <= log_n <= CZK_NTT_MAX_LOG (28); kind  as above.
 *       pool   threads (NULL: the calling thread).
 * In/Out: data 2^log_n elements, Montgomery form.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (log_n 0 or > 28, an unknown kind,
 *   data NULL); CZK_ERR_NOMEM (twiddle tables and per-thread scratch, the
 *   message naming their size). data is untouched on failure.
 */
CZK_NODISCARD czk_status czk_ntt(czk_fr *data, unsigned log_n, czk_ntt_kind kind, czk_pool *pool,
                                 czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
