/*
 * G1/G2 encoding in the zcash format (see include/czk/ec.h). Flags and field
 * ranges are checked here so that each defect gets its own status; blst then
 * does the curve arithmetic (square root for compressed points, the curve
 * equation, the subgroup check).
 */
#include "czk/ec.h"

#include <string.h>

/* p, 48 bytes big-endian. */
static const uint8_t P_BE[48] = {
    0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6, 0x43, 0x4b, 0xac, 0xd7,
    0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf, 0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24,
    0x1e, 0xab, 0xff, 0xfe, 0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab};

/* Whether a 48-byte big-endian value (flag bits of the first byte masked when first) is < p. */
static bool fp_lt_p(const uint8_t *be, bool first) {
    for (int i = 0; i < 48; i++) {
        uint8_t b = be[i];
        if (i == 0 && first) b &= 0x1f;
        if (b != P_BE[i]) return b < P_BE[i];
    }
    return false;
}

void czk_g1_compress(uint8_t out[48], const czk_g1_affine *p) { blst_p1_affine_compress(out, p); }
void czk_g1_serialize(uint8_t out[96], const czk_g1_affine *p) { blst_p1_affine_serialize(out, p); }
void czk_g2_compress(uint8_t out[96], const czk_g2_affine *p) { blst_p2_affine_compress(out, p); }
void czk_g2_serialize(uint8_t out[192], const czk_g2_affine *p) { blst_p2_affine_serialize(out, p); }

/*
 * Checks flags, the infinity form and field ranges of an encoding of
 * `nfp` field elements per coordinate (1 for G1, 2 for G2). Sets *inf.
 */
static czk_status check_form(const char *group, const uint8_t *in, size_t len, size_t comp_len,
                             bool *inf, czk_err *err) {
    if (len != comp_len && len != 2 * comp_len)
        return czk_errf(err, CZK_ERR_EC_LENGTH, "%s point: %zu bytes, expected %zu or %zu", group,
                        len, comp_len, 2 * comp_len);
    bool compressed = len == comp_len;
    uint8_t flags = in[0] & 0xe0;
    if (((flags & 0x80) != 0) != compressed)
        return czk_errf(err, CZK_ERR_EC_FLAGS, "%s point: compression flag %s on a %zu-byte encoding",
                        group, compressed ? "clear" : "set", len);
    *inf = (flags & 0x40) != 0;
    if ((flags & 0x20) && (!compressed || *inf))
        return czk_errf(err, CZK_ERR_EC_FLAGS, "%s point: sign flag set on %s encoding", group,
                        *inf ? "an infinity" : "an uncompressed");
    if (*inf) {
        bool zero = (in[0] & 0x1f) == 0;
        for (size_t i = 1; i < len && zero; i++) zero = in[i] == 0;
        if (!zero)
            return czk_errf(err, CZK_ERR_EC_INFINITY,
                            "%s point: infinity flag with non-zero coordinate bytes", group);
        return CZK_OK;
    }
    for (size_t off = 0; off < len; off += 48) {
        if (!fp_lt_p(in + off, off == 0))
            return czk_errf(err, CZK_ERR_EC_FP_RANGE,
                            "%s point: coordinate bytes %zu..%zu are not below the field modulus p",
                            group, off, off + 47);
    }
    return CZK_OK;
}

/*
 * One decoder body for both groups: P = p1|p2, G = 1|2 (STYLE.md: one
 * generic body for G1 and G2).
 */
#define CZK_DECODE_IMPL(P, G, COMP)                                                                \
    static czk_status decode_##P(blst_##P##_affine *out, const uint8_t *in, size_t len,           \
                                 bool subgroup, czk_err *err) {                                    \
        const char *group = "G" #G;                                                                \
        bool inf = false;                                                                          \
        czk_status st = check_form(group, in, len, COMP, &inf, err);                               \
        if (st) return st;                                                                         \
        if (inf) {                                                                                 \
            memset(out, 0, sizeof *out);                                                           \
            return CZK_OK;                                                                         \
        }                                                                                          \
        BLST_ERROR e = len == COMP ? blst_##P##_uncompress(out, in) : blst_##P##_deserialize(out, in); \
        if (e == BLST_POINT_NOT_ON_CURVE)                                                          \
            return len == COMP                                                                     \
                       ? czk_errf(err, CZK_ERR_EC_NO_POINT, "%s point: x has no point on the curve", \
                                  group)                                                           \
                       : czk_errf(err, CZK_ERR_EC_NOT_ON_CURVE, "%s point: not on the curve", group); \
        if (e == BLST_POINT_NOT_IN_GROUP) /* blst refuses (0, ±2) and the like outright */       \
            return czk_errf(err, CZK_ERR_EC_NOT_IN_GROUP,                                          \
                            "%s point: not in the prime-order subgroup", group);                   \
        if (e != BLST_SUCCESS)                                                                     \
            return czk_errf(err, CZK_ERR_EC_FLAGS, "%s point: bad encoding (blst error %d)", group, \
                            (int)e);                                                               \
        if (subgroup && !blst_##P##_affine_in_g##G(out))                                           \
            return czk_errf(err, CZK_ERR_EC_NOT_IN_GROUP,                                          \
                            "%s point: not in the prime-order subgroup", group);                   \
        return CZK_OK;                                                                             \
    }

CZK_DECODE_IMPL(p1, 1, CZK_G1_COMPRESSED)
CZK_DECODE_IMPL(p2, 2, CZK_G2_COMPRESSED)

czk_status czk_g1_decode(czk_g1_affine *out, const uint8_t *in, size_t len, czk_err *err) {
    return decode_p1(out, in, len, true, err);
}
czk_status czk_g2_decode(czk_g2_affine *out, const uint8_t *in, size_t len, czk_err *err) {
    return decode_p2(out, in, len, true, err);
}
czk_status czk_g1_decode_trusted(czk_g1_affine *out, const uint8_t *in, size_t len, czk_err *err) {
    return decode_p1(out, in, len, false, err);
}
czk_status czk_g2_decode_trusted(czk_g2_affine *out, const uint8_t *in, size_t len, czk_err *err) {
    return decode_p2(out, in, len, false, err);
}

void czk_g1_mul(czk_g1 *out, const czk_g1 *p, const czk_fr *k) {
    blst_scalar s;
    blst_scalar_from_fr(&s, k);
    blst_p1_mult(out, p, s.b, 255);
}

void czk_g2_mul(czk_g2 *out, const czk_g2 *p, const czk_fr *k) {
    blst_scalar s;
    blst_scalar_from_fr(&s, k);
    blst_p2_mult(out, p, s.b, 255);
}
