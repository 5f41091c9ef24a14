/*
 * Defects planted into encoded parameter points (uncompressed zcash
 * encodings, include/czk/ec.h), with the status and the words of the
 * message the host reader gives for each (src/ec/encoding.c,
 * src/groth16/params.c): shared by the encoded-read tests on the CPU
 * (tests/groth16/params.c) and the device decoding tests
 * (tests/cuda/decode.c), so that both check the same classes.
 */
#ifndef CZK_TEST_GROTH16_ENCODED_H
#define CZK_TEST_GROTH16_ENCODED_H

#include "support.h"

#include <string.h>

/* p, big-endian (the BLS12-381 base field modulus, zcash spec). */
static const char *const TK_P_HEX = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6"
                                    "241eabfffeb153ffffb9feffffffffaaab";

typedef enum tk_defect {
    TK_DEF_COMPRESSED,     /* the compression flag on an uncompressed encoding */
    TK_DEF_SIGN,           /* the sign flag on an uncompressed encoding */
    TK_DEF_INFINITY,       /* 0x40 then zeros: infinity, which parameters never hold */
    TK_DEF_INFINITY_BYTES, /* the infinity flag with the coordinates left in place */
    TK_DEF_X_RANGE,        /* x (G2: x.c0, the second Fp) = p */
    TK_DEF_Y_RANGE,        /* y (G2: y.c1, the third Fp) = p */
    TK_DEF_OFF_CURVE,      /* y's lowest bit flipped */
    TK_DEF_ORDER3,         /* G1 only: (0, 2), on the curve, refused by blst outright */
    TK_NDEF
} tk_defect;

static const char *const TK_DEF_NAME[TK_NDEF] = {"compression flag",    "sign flag", "infinity",
                                                 "infinity with bytes", "x >= p",    "y >= p",
                                                 "not on the curve",    "(0, 2)"};

/* The status the reader gives for defect d. */
static inline czk_status tk_defect_status(tk_defect d) {
    static const czk_status st[TK_NDEF] = {
        CZK_ERR_EC_FLAGS,    CZK_ERR_EC_FLAGS,    CZK_ERR_EC_INFINITY,     CZK_ERR_EC_INFINITY,
        CZK_ERR_EC_FP_RANGE, CZK_ERR_EC_FP_RANGE, CZK_ERR_EC_NOT_ON_CURVE, CZK_ERR_EC_NOT_IN_GROUP};
    return st[d];
}

/* Words the reader's message holds for defect d in a point of enc bytes (96 or 192). */
static inline const char *tk_defect_words(tk_defect d, size_t enc) {
    switch (d) {
    case TK_DEF_COMPRESSED:
        return "compression flag set";
    case TK_DEF_SIGN:
        return "sign flag set on an uncompressed";
    case TK_DEF_INFINITY:
        return "point at infinity";
    case TK_DEF_INFINITY_BYTES:
        return "infinity flag with non-zero coordinate bytes";
    case TK_DEF_X_RANGE:
        return enc == 96 ? "coordinate bytes 0..47" : "coordinate bytes 48..95";
    case TK_DEF_Y_RANGE:
        return enc == 96 ? "coordinate bytes 48..95" : "coordinate bytes 96..143";
    case TK_DEF_OFF_CURVE:
        return "not on the curve";
    default:
        return "not in the prime-order subgroup";
    }
}

/* Whether defect d applies to points of enc bytes. */
static inline bool tk_defect_applies(tk_defect d, size_t enc) {
    return d != TK_DEF_ORDER3 || enc == 96;
}

/* Plants defect d into the encoded point pt of enc bytes (a valid point before). */
static inline void tk_plant(uint8_t *pt, size_t enc, tk_defect d) {
    uint8_t p[48];
    czk_test_hex(p, 48, TK_P_HEX);
    switch (d) {
    case TK_DEF_COMPRESSED:
        pt[0] |= 0x80;
        break;
    case TK_DEF_SIGN:
        pt[0] |= 0x20;
        break;
    case TK_DEF_INFINITY:
        memset(pt, 0, enc);
        pt[0] = 0x40;
        break;
    case TK_DEF_INFINITY_BYTES:
        pt[0] |= 0x40;
        break;
    case TK_DEF_X_RANGE:
        memcpy(pt + (enc == 96 ? 0 : 48), p, 48);
        break;
    case TK_DEF_Y_RANGE:
        memcpy(pt + (enc == 96 ? 48 : 96), p, 48);
        break;
    case TK_DEF_OFF_CURVE:
        pt[enc - 1] ^= 1;
        break;
    default:
        memset(pt, 0, enc);
        pt[enc - 1] = 2;
        break;
    }
}

#endif
