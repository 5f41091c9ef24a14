/*
 * czk — the BLS12-381 scalar field Fr.
 *
 * r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001.
 *
 * czk_fr is blst's blst_fr: four 64-bit little-endian limbs in Montgomery form
 * (x·2^256 mod r). The same bytes are bellperson/blstrs' Fr and, read as 8×u32,
 * the GPU kernels' Fr. Arithmetic is blst's; this header adds the conversions,
 * roots of unity and randomness that czk needs.
 *
 * Roots of unity follow bellperson/blstrs (ff PrimeField for blstrs::Scalar):
 * two-adicity S = 32, multiplicative generator g = 7, ROOT_OF_UNITY
 * ω_32 = 7^((r−1)/2^32); the root of order 2^k is ω_32 squared 32−k times.
 * Any other primitive root gives proofs that never verify against Filecoin's keys.
 */
#ifndef CZK_FF_H
#define CZK_FF_H

#include "czk/common.h"
#include <blst.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef blst_fr czk_fr;

#define CZK_FR_BYTES 32
#define CZK_FR_TWO_ADICITY 32u
#define CZK_FR_GENERATOR 7u

/* Constants in Montgomery form. */
extern const czk_fr czk_fr_zero;
extern const czk_fr czk_fr_one;

/*
 * Canonical little-endian bytes -> Fr.
 * Returns: CZK_OK, or CZK_ERR_FR_RANGE if the 256-bit value is >= r (out untouched).
 */
CZK_NODISCARD czk_status czk_fr_from_bytes(czk_fr *out, const uint8_t in[32], czk_err *err);
/* Fr -> canonical little-endian bytes (always < r). */
void czk_fr_to_bytes(uint8_t out[32], const czk_fr *a);
/* Canonical LE bytes, reduced mod r (for hashes truncated or not; never fails). */
void czk_fr_from_bytes_reduce(czk_fr *out, const uint8_t in[32]);
/* Canonical value as four LE u64 limbs, and back (the input must be < r; it is reduced if not). */
void czk_fr_to_u64s(uint64_t out[4], const czk_fr *a);
void czk_fr_from_u64s(czk_fr *out, const uint64_t in[4]);
void czk_fr_from_u64(czk_fr *out, uint64_t v);

static inline void czk_fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b) { blst_fr_add(r, a, b); }
static inline void czk_fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b) { blst_fr_sub(r, a, b); }
static inline void czk_fr_mul(czk_fr *r, const czk_fr *a, const czk_fr *b) { blst_fr_mul(r, a, b); }
static inline void czk_fr_sqr(czk_fr *r, const czk_fr *a) { blst_fr_sqr(r, a); }
static inline void czk_fr_neg(czk_fr *r, const czk_fr *a) { blst_fr_cneg(r, a, 1); }
/* 1/a; the inverse of zero is zero. */
static inline void czk_fr_inv(czk_fr *r, const czk_fr *a) { blst_fr_eucl_inverse(r, a); }
static inline bool czk_fr_is_zero(const czk_fr *a) {
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}
static inline bool czk_fr_eq(const czk_fr *a, const czk_fr *b) {
    return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3])) == 0;
}
static inline bool czk_fr_is_one(const czk_fr *a) { return czk_fr_eq(a, &czk_fr_one); }

/* a^e for a 64-bit exponent. */
void czk_fr_pow_u64(czk_fr *out, const czk_fr *a, uint64_t e);
/* a^e for a 256-bit exponent given as four LE u64 limbs. */
void czk_fr_pow(czk_fr *out, const czk_fr *a, const uint64_t e[4]);

/*
 * Batch inversion (Montgomery's trick): out[i] = 1/in[i]; zeros stay zero.
 * out may equal in. `scratch` must hold n elements (or be NULL: then it is
 * allocated, and CZK_ERR_NOMEM is possible).
 */
CZK_NODISCARD czk_status czk_fr_batch_inv(czk_fr *out, const czk_fr *in, size_t n, czk_fr *scratch,
                                          czk_err *err);

/*
 * The primitive 2^k-th root of unity, 0 <= k <= 32, as bellperson derives it
 * (ω_32 squared 32−k times). Returns CZK_ERR_INVALID_ARG for k > 32.
 */
CZK_NODISCARD czk_status czk_fr_root_of_unity(czk_fr *out, unsigned k, czk_err *err);

/*
 * Randomness. A czk_rng is either seeded (xoshiro256**, reproducible: tests,
 * `czk setup --seed`) or, when the pointer passed is NULL, the OS generator
 * getrandom(2) is used (r, s, toxic waste, batch-verification coefficients).
 */
typedef struct czk_rng {
    uint64_t s[4];
} czk_rng;

void czk_rng_seed(czk_rng *rng, uint64_t seed);
uint64_t czk_rng_u64(czk_rng *rng);
/* Fills buf from rng, or from getrandom(2) if rng is NULL (CZK_ERR_IO if that fails). */
CZK_NODISCARD czk_status czk_random_bytes(czk_rng *rng, void *buf, size_t len, czk_err *err);
/* A uniform element of Fr (rejection sampling). */
CZK_NODISCARD czk_status czk_fr_random(czk_fr *out, czk_rng *rng, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
