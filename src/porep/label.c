/*
 * The label of StackedDRG (storage-proofs-porep create_label.rs
 * create_label_circuit; spec §3.2 step 6, §4.6): SHA-256 over replica_id ‖
 * layer ‖ node ‖ the 37 expanded parents, ended as every Filecoin SHA-256
 * composition is (czk_sha256_hash_circuit, src/gadgets/sha256_hash.c).
 */
#include "czk/porep_circuit.h"

#include <stdlib.h>

#define LABEL_BITS ((2u + CZK_LABEL_PARENTS) * 256u)

czk_status czk_create_label(czk_cs *cs, const czk_bool *replica_id, size_t id_bits,
                            const czk_u32 *layer, const czk_bool node_le[64],
                            const czk_bool *const parents[CZK_LABEL_PARENTS], size_t parent_bits,
                            czk_num *out) {
    *out = (czk_num){0, czk_fr_zero};
    if (id_bits < 32 || id_bits > 256)
        return czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                           "create_label: replica id of %zu bits, must be 32..256", id_bits);
    if (parent_bits == 0 || parent_bits > 256)
        return czk_cs_fail(cs, CZK_ERR_INVALID_ARG,
                           "create_label: parents of %zu bits, must be 1..256", parent_bits);
    czk_bool *msg = malloc(LABEL_BITS * sizeof *msg);
    if (!msg) return czk_cs_fail(cs, CZK_ERR_NOMEM, "create_label: message of %u bits", LABEL_BITS);
    size_t p = 0;
    for (size_t i = 0; i < 256; i++)
        msg[p++] = i < id_bits ? replica_id[i] : czk_bool_constant(false);
    czk_u32_to_bits_be(layer, msg + p);
    p += 32;
    for (unsigned i = 0; i < 64; i++)
        msg[p++] = node_le[63 - i];
    while (p < 512)
        msg[p++] = czk_bool_constant(false);
    for (unsigned k = 0; k < CZK_LABEL_PARENTS; k++)
        for (size_t i = 0; i < 256; i++)
            msg[p++] = i < parent_bits ? parents[k][i] : czk_bool_constant(false);
    czk_status st = czk_sha256_hash_circuit(cs, msg, LABEL_BITS, out);
    free(msg);
    return st;
}
