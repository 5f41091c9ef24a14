/*
 * The SHA-256 compositions of filecoin-hashers (sha256.rs): TreeD nodes
 * (hash_leaf_bits_circuit, hash_multi_leaf_circuit) and the hash_circuit they
 * end with; spec §4.6. The PoRep label, which ends the same way, lives with
 * the circuit (src/porep/label.c).
 *
 * hash_circuit: SHA-256, the digest's bits reversed within each byte, the
 * first 254 packed into one aux. Message bits are Booleans; the paddings are
 * Constant(false), which the SHA-256 gadget folds.
 */
#include "boolean_internal.h"

#include <stdlib.h>
#include <string.h>

/* sha256(msg) -> per-byte reversal -> pack_bits of the first 254. */
czk_status czk_sha256_hash_circuit(czk_cs *cs, const czk_bool *msg, size_t nbits, czk_num *out) {
    czk_bool digest[256], le[256];
    czk_status st = czk_sha256(cs, msg, nbits, digest);
    czk_reverse_bit_numbering(le, digest, 256);
    *out = czk_pack_bits(cs, le, CZK_FR_CAPACITY);
    return st != CZK_OK ? st : czk_cs_status(cs);
}

static czk_bool *alloc_msg(czk_cs *cs, size_t nbits) {
    czk_bool *m = malloc((nbits ? nbits : 1) * sizeof *m);
    if (!m) czk_cs_fail(cs, CZK_ERR_NOMEM, "sha256 message of %zu bits", nbits);
    return m;
}

czk_status czk_sha256_hash_leaf_bits(czk_cs *cs, const czk_bool *left, size_t nleft,
                                     const czk_bool *right, size_t nright, czk_num *out) {
    size_t ln = (nleft + 7) & ~(size_t)7, rn = (nright + 7) & ~(size_t)7;
    czk_bool *msg = alloc_msg(cs, ln + rn);
    if (!msg) {
        *out = (czk_num){0, czk_fr_zero};
        return czk_cs_status(cs);
    }
    czk_reverse_bit_numbering(msg, left, nleft);
    czk_reverse_bit_numbering(msg + ln, right, nright);
    czk_status st = czk_sha256_hash_circuit(cs, msg, ln + rn, out);
    free(msg);
    return st;
}

czk_status czk_sha256_hash_multi_leaf(czk_cs *cs, const czk_num *leaves, size_t n, czk_num *out) {
    *out = (czk_num){0, czk_fr_zero};
    if (n == 0) {
        return czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "hash_multi_leaf: no leaves");
    }
    czk_bool *msg = alloc_msg(cs, 256 * n);
    if (!msg) return czk_cs_status(cs);
    czk_bool bits[CZK_FR_NUM_BITS];
    czk_status st = CZK_OK;
    for (size_t i = 0; i < n && st == CZK_OK; i++) {
        st = czk_num_to_bits_le(cs, &leaves[i], bits);
        czk_reverse_bit_numbering(msg + 256 * i, bits, CZK_FR_NUM_BITS);
    }
    if (st == CZK_OK) st = czk_sha256_hash_circuit(cs, msg, 256 * n, out);
    free(msg);
    return st;
}
