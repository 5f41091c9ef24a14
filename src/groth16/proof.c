/*
 * The 192-byte proof encoding (bellperson Proof::write / Proof::read):
 * A ‖ B ‖ C, each compressed in the zcash format. Decoding runs every check
 * of include/czk/ec.h, subgroup included, and refuses infinity.
 */
#include "czk/groth16.h"

void czk_proof_encode(uint8_t out[CZK_PROOF_BYTES], const czk_proof *proof) {
    czk_g1_compress(out, &proof->a);
    czk_g2_compress(out + CZK_G1_COMPRESSED, &proof->b);
    czk_g1_compress(out + CZK_G1_COMPRESSED + CZK_G2_COMPRESSED, &proof->c);
}

czk_status czk_proof_decode(czk_proof *out, const uint8_t in[CZK_PROOF_BYTES], czk_err *err) {
    czk_status st = czk_g1_decode(&out->a, in, CZK_G1_COMPRESSED, err);
    if (st) return czk_err_wrap(err, "proof: A (bytes 0..47)");
    if (czk_g1_affine_is_inf(&out->a))
        return czk_errf(err, CZK_ERR_EC_INFINITY, "proof: A (bytes 0..47): point at infinity");
    st = czk_g2_decode(&out->b, in + CZK_G1_COMPRESSED, CZK_G2_COMPRESSED, err);
    if (st) return czk_err_wrap(err, "proof: B (bytes 48..143)");
    if (czk_g2_affine_is_inf(&out->b))
        return czk_errf(err, CZK_ERR_EC_INFINITY, "proof: B (bytes 48..143): point at infinity");
    st = czk_g1_decode(&out->c, in + CZK_G1_COMPRESSED + CZK_G2_COMPRESSED, CZK_G1_COMPRESSED, err);
    if (st) return czk_err_wrap(err, "proof: C (bytes 144..191)");
    if (czk_g1_affine_is_inf(&out->c))
        return czk_errf(err, CZK_ERR_EC_INFINITY, "proof: C (bytes 144..191): point at infinity");
    return CZK_OK;
}
