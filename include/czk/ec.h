/*
 * czk — BLS12-381 G1 and G2 points in the zcash/bellperson encoding.
 *
 * Points are blst's types: czk_g1 / czk_g2 are Jacobian (blst_p1 / blst_p2),
 * czk_g1_affine / czk_g2_affine affine, all coordinates in Montgomery form.
 *
 * Encoding (zcash BLS12-381 serialization, as bellperson/blstrs read and write):
 *   G1 compressed 48 B, uncompressed 96 B; G2 compressed 96 B, uncompressed 192 B.
 *   Fp elements are 48-byte big-endian; an Fp2 element is c1 ‖ c0.
 *   The top three bits of byte 0 are flags: 0x80 compressed, 0x40 infinity,
 *   0x20 sign (compressed only: set iff y is the lexicographically larger of
 *   y and −y; for Fp2 compare c1, then c0 when c1 = 0).
 *   Infinity is the flag byte (0xc0 compressed, 0x40 uncompressed) and all
 *   other bits zero.
 *
 * Decoding checks, in this order, each with its own status:
 *   CZK_ERR_EC_LENGTH        length is not one of the two for the group
 *   CZK_ERR_EC_FLAGS         compression flag disagrees with the length, or the
 *                            sign flag on an uncompressed / infinity encoding
 *   CZK_ERR_EC_INFINITY      infinity flag with any other bit set
 *   CZK_ERR_EC_FP_RANGE      a coordinate (any Fp of it) is >= p
 *   CZK_ERR_EC_NO_POINT      compressed x with no curve point
 *   CZK_ERR_EC_NOT_ON_CURVE  uncompressed (x, y) not on the curve
 *   CZK_ERR_EC_NOT_IN_GROUP  on the curve but not in the prime-order subgroup
 * The *_trusted decoders skip only the subgroup check (for files already
 * validated once); the on-curve check is never skipped.
 */
#ifndef CZK_EC_H
#define CZK_EC_H

#include "czk/common.h"
#include "czk/ff.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef blst_p1 czk_g1;
typedef blst_p1_affine czk_g1_affine;
typedef blst_p2 czk_g2;
typedef blst_p2_affine czk_g2_affine;

#define CZK_G1_COMPRESSED 48
#define CZK_G1_UNCOMPRESSED 96
#define CZK_G2_COMPRESSED 96
#define CZK_G2_UNCOMPRESSED 192

/*
 * Encoders, blst's (blst_p1_affine_compress, ..._serialize, p2 alike): the
 * zcash form above, never failing.
 * In:  p    an affine point; the all-zero affine point is infinity.
 * Out: out  CZK_G1_COMPRESSED (48), CZK_G1_UNCOMPRESSED (96),
 *           CZK_G2_COMPRESSED (96) or CZK_G2_UNCOMPRESSED (192) bytes.
 */
void czk_g1_compress(uint8_t out[48], const czk_g1_affine *p);
void czk_g1_serialize(uint8_t out[96], const czk_g1_affine *p);
void czk_g2_compress(uint8_t out[96], const czk_g2_affine *p);
void czk_g2_serialize(uint8_t out[192], const czk_g2_affine *p);

/*
 * Decoders (src/ec/encoding.c): flags, the infinity form and the Fp ranges
 * are checked here, then blst decompresses (square root) or checks the curve
 * equation, then the subgroup check (blst_p1/p2_affine_in_g1/g2).
 * In:  in, len  the encoding; len selects compressed or uncompressed (G1 48
 *               or 96 bytes, G2 96 or 192).
 * Out: *out     the point; infinity decodes to the all-zero affine point.
 *               Unspecified on failure.
 * Returns: CZK_OK; the first failing check of the list above, its message
 *   naming the group ("G1 point: ...") and, for CZK_ERR_EC_FP_RANGE, the
 *   byte range. The *_trusted decoders skip the subgroup check, but blst
 *   itself refuses a few points outside it (e.g. y = ±2 at x = 0) with
 *   CZK_ERR_EC_NOT_IN_GROUP even there.
 */
CZK_NODISCARD czk_status czk_g1_decode(czk_g1_affine *out, const uint8_t *in, size_t len, czk_err *err);
CZK_NODISCARD czk_status czk_g2_decode(czk_g2_affine *out, const uint8_t *in, size_t len, czk_err *err);
CZK_NODISCARD czk_status czk_g1_decode_trusted(czk_g1_affine *out, const uint8_t *in, size_t len,
                                               czk_err *err);
CZK_NODISCARD czk_status czk_g2_decode_trusted(czk_g2_affine *out, const uint8_t *in, size_t len,
                                               czk_err *err);

/* Whether an affine point is the point at infinity (all-zero coordinates). */
static inline bool czk_g1_affine_is_inf(const czk_g1_affine *p) { return blst_p1_affine_is_inf(p); }
static inline bool czk_g2_affine_is_inf(const czk_g2_affine *p) { return blst_p2_affine_is_inf(p); }

/*
 * Scalar multiplication out = [k]p by an Fr element (Montgomery form; its
 * canonical value, 255 bits, blst_p1_mult / blst_p2_mult). Jacobian in and
 * out; never fails.
 */
void czk_g1_mul(czk_g1 *out, const czk_g1 *p, const czk_fr *k);
void czk_g2_mul(czk_g2 *out, const czk_g2 *p, const czk_fr *k);

#ifdef __cplusplus
}
#endif
#endif
