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
 * Canonical little-endian bytes -> Fr (Montgomery form).
 * In:  in   32 bytes, the value little-endian (bellperson's Fr::to_repr).
 * Out: *out the element; untouched on failure.
 * Returns: CZK_OK; CZK_ERR_FR_RANGE "field element is not canonical (value
 *   >= r)" if the 256-bit value is >= r.
 */
CZK_NODISCARD czk_status czk_fr_from_bytes(czk_fr *out, const uint8_t in[32], czk_err *err);
/* Fr -> canonical little-endian bytes. Out: out  32 bytes, a value < r. */
void czk_fr_to_bytes(uint8_t out[32], const czk_fr *a);
/*
 * Little-endian bytes, reduced mod r (for hash outputs, truncated or not;
 * never fails). In: in  32 bytes, any 256-bit value.
 */
void czk_fr_from_bytes_reduce(czk_fr *out, const uint8_t in[32]);
/*
 * The canonical value as four little-endian u64 limbs (out[0] lowest), and
 * back: czk_fr_from_u64s takes any 256-bit value and reduces it mod r;
 * czk_fr_from_u64 takes v < 2^64 (always < r). None fails.
 */
void czk_fr_to_u64s(uint64_t out[4], const czk_fr *a);
void czk_fr_from_u64s(czk_fr *out, const uint64_t in[4]);
void czk_fr_from_u64(czk_fr *out, uint64_t v);

static inline void czk_fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b) { blst_fr_add(r, a, b); }
static inline void czk_fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b) { blst_fr_sub(r, a, b); }
static inline void czk_fr_mul(czk_fr *r, const czk_fr *a, const czk_fr *b) { blst_fr_mul(r, a, b); }
static inline void czk_fr_sqr(czk_fr *r, const czk_fr *a) { blst_fr_sqr(r, a); }
static inline void czk_fr_neg(czk_fr *r, const czk_fr *a) { blst_fr_cneg(r, a, 1); }
/*
 * blst's arithmetic, Montgomery form in and out; r may alias a or b.
 * czk_fr_inv: 1/a; the inverse of zero is zero.
 */
static inline void czk_fr_inv(czk_fr *r, const czk_fr *a) { blst_fr_eucl_inverse(r, a); }
/* Comparisons of the (fully reduced) Montgomery limbs, without branches. */
static inline bool czk_fr_is_zero(const czk_fr *a) {
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}
static inline bool czk_fr_eq(const czk_fr *a, const czk_fr *b) {
    return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3])) == 0;
}
static inline bool czk_fr_is_one(const czk_fr *a) { return czk_fr_eq(a, &czk_fr_one); }

/*
 * a^e by square-and-multiply over all 64 (czk_fr_pow_u64) or 256 bits of
 * e, lowest limb first; a^0 = 1 (also 0^0). out may alias a.
 */
void czk_fr_pow_u64(czk_fr *out, const czk_fr *a, uint64_t e);
void czk_fr_pow(czk_fr *out, const czk_fr *a, const uint64_t e[4]);

/*
 * Batch inversion (Montgomery's trick, one field inversion for all n):
 * out[i] = 1/in[i]; zeros stay zero.
 * In:  in       n elements.
 * Out: out      n elements; may equal in.
 * Args: scratch n elements of workspace, or NULL: then allocated and freed
 *               here.
 * Returns: CZK_OK; CZK_ERR_NOMEM (scratch NULL and the allocation failed;
 *   out untouched).
 */
CZK_NODISCARD czk_status czk_fr_batch_inv(czk_fr *out, const czk_fr *in, size_t n, czk_fr *scratch,
                                          czk_err *err);

/*
 * The primitive 2^k-th root of unity as bellperson derives it (ω_32 =
 * 7^((r−1)/2^32) squared 32−k times; blstrs ROOT_OF_UNITY). k = 0 gives 1.
 * Args: k  0 <= k <= 32.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG for k > 32 (out untouched).
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

/*
 * Seeds rng: its four state words from splitmix64(seed). Any seed, 0
 * included, gives a usable state. czk_rng_u64: the next xoshiro256** output.
 */
void czk_rng_seed(czk_rng *rng, uint64_t seed);
uint64_t czk_rng_u64(czk_rng *rng);
/*
 * Fills buf with len random bytes: the next outputs of rng, little-endian,
 * the last one cut to fit; or getrandom(2) if rng is NULL (retried on EINTR).
 * Returns: CZK_OK; CZK_ERR_IO "getrandom: ..." (buf partly filled).
 */
CZK_NODISCARD czk_status czk_random_bytes(czk_rng *rng, void *buf, size_t len, czk_err *err);
/*
 * A uniform element of Fr: 255 random bits, redrawn until < r (fewer than
 * 1.11 draws of 32 bytes on average). Draws from rng, or getrandom if NULL.
 * Returns: CZK_OK; czk_random_bytes' CZK_ERR_IO (out untouched).
 */
CZK_NODISCARD czk_status czk_fr_random(czk_fr *out, czk_rng *rng, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
