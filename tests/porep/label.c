/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * The StackedDRG label gadget (czk_create_label, src/porep/label.c): the
 * constraint count of storage-proofs-porep's own test_create_label (532,025)
 * and of the label as the PoRep circuit builds it (522,268 + 1, spec §1), the
 * label against the vanilla one computed with blst_sha256, and the WITNESS
 * assignment against CHECK's.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "blst_aux.h"
#include "czk/porep_circuit.h"

static uint64_t synthesized(const czk_cs *cs) {
    return czk_cs_num_constraints(cs) - czk_cs_num_inputs(cs);
}

static czk_cs *run(czk_cs_mode mode, czk_circuit_fn fn, void *ctx) {
    czk_err err;
    czk_cs *cs = czk_cs_create(mode, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, fn, ctx, &err), &err);
    return cs;
}

typedef struct label_ctx {
    uint8_t id[32];
    uint8_t parents[CZK_LABEL_PARENTS][32];
    uint32_t layer;
    uint64_t node;
    bool porep; /* false: upstream's create_label test; true: as in the PoRep circuit */
    czk_fr id_fr, rows[14];
    czk_num out;
    uint64_t cost;
} label_ctx;

static czk_status label_circuit(czk_cs *cs, void *p) {
    label_ctx *c = p;
    czk_bool *bits = malloc((CZK_LABEL_PARENTS + 1) * 256 * sizeof *bits);
    if (!bits) return czk_cs_fail(cs, CZK_ERR_NOMEM, "label test");
    czk_bool *id = bits + CZK_LABEL_PARENTS * 256, node[64], tmp[CZK_FR_NUM_BITS];
    const czk_bool *parents[CZK_LABEL_PARENTS];
    czk_u32 layer;
    czk_u32_constant(&layer, c->layer);
    czk_status st = CZK_OK;
    if (!c->porep) {
        /* upstream: 37 parents then the id, bytes_into_boolean_vec_be; node
         * a constant UInt64 */
        for (unsigned k = 0; k < CZK_LABEL_PARENTS; k++) {
            czk_bits_alloc_bytes(cs, c->parents[k], 32, true, bits + 256 * k);
            parents[k] = bits + 256 * k;
        }
        czk_bits_alloc_bytes(cs, c->id, 32, true, id);
        for (unsigned i = 0; i < 64; i++)
            node[i] = czk_bool_constant((c->node >> i) & 1);
    } else {
        /* PoRep (spec §3.1, §3.2): replica_id bits = rbn(to_bits_le), the
         * challenge an allocated UInt64, 14 parent rows decomposed and
         * expanded to 37 (the 14, the 14 again, the first 9) */
        czk_num idn = czk_num_alloc(cs, &c->id_fr);
        st = czk_num_to_bits_le(cs, &idn, tmp);
        czk_reverse_bit_numbering(id, tmp, CZK_FR_NUM_BITS);
        czk_bits_alloc_u64_le(cs, c->node, 64, node);
        for (unsigned k = 0; k < 14 && st == CZK_OK; k++) {
            czk_num row = czk_num_alloc(cs, &c->rows[k]);
            st = czk_num_to_bits_le(cs, &row, tmp);
            czk_reverse_bit_numbering(bits + 256 * k, tmp, CZK_FR_NUM_BITS);
        }
        for (unsigned k = 0; k < CZK_LABEL_PARENTS; k++)
            parents[k] = bits + 256 * (k % 14);
    }
    uint64_t before = czk_cs_num_constraints(cs);
    if (st == CZK_OK) st = czk_create_label(cs, id, 256, &layer, node, parents, 256, &c->out);
    c->cost = czk_cs_num_constraints(cs) - before;
    free(bits);
    return st;
}

/* The vanilla label (storage-proofs-porep create_label_exp): sha256(id ‖
 * layer BE u32 ‖ node BE u64 ‖ 20 zero bytes ‖ 37 parents), little-endian,
 * top 2 bits cleared. */
static void native_label(czk_fr *out, const label_ctx *c) {
    uint8_t buf[64 + 32 * CZK_LABEL_PARENTS] = {0}, h[32];
    memcpy(buf, c->id, 32);
    for (int i = 0; i < 4; i++)
        buf[32 + i] = (uint8_t)(c->layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        buf[36 + i] = (uint8_t)(c->node >> (56 - 8 * i));
    for (unsigned k = 0; k < CZK_LABEL_PARENTS; k++)
        memcpy(buf + 64 + 32 * k, c->parents[k], 32);
    blst_sha256(h, buf, sizeof buf);
    h[31] &= 0x3f;
    czk_err err;
    czk_assert_ok(czk_fr_from_bytes(out, h, &err), &err);
}

/* storage-proofs-porep create_label.rs test_create_label: 532,025
 * constraints (37×256 + 256 allocated bits, layer 3, constant node 22). */
static void test_create_label(void **state) {
    (void)state;
    label_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    czk_rng rng;
    czk_rng_seed(&rng, 16);
    czk_err err;
    czk_assert_ok(czk_random_bytes(&rng, c->id, 32, &err), &err);
    czk_assert_ok(czk_random_bytes(&rng, c->parents, sizeof c->parents, &err), &err);
    c->layer = 3;
    c->node = 22;
    czk_fr want;
    native_label(&want, c);
    czk_witness w[2];
    for (int mode = CZK_CS_WITNESS; mode <= CZK_CS_CHECK; mode++) {
        czk_cs *cs = run((czk_cs_mode)mode, label_circuit, c);
        if (mode == CZK_CS_CHECK) assert_int_equal(synthesized(cs), 532025);
        assert_true(czk_fr_eq(&c->out.value, &want));
        czk_assert_ok(czk_cs_take_witness(cs, &w[mode == CZK_CS_CHECK], &err), &err);
        czk_cs_free(cs);
    }
    assert_int_equal(w[0].num_aux, w[1].num_aux);
    assert_memory_equal(w[0].aux, w[1].aux, sizeof(czk_fr) * w[0].num_aux);
    czk_witness_free(&w[0]);
    czk_witness_free(&w[1]);
    free(c);
}

/* The label as the PoRep circuit builds it (layer > 1): create_label costs
 * 522,268 + 1 (spec §1: the label SHA and its pack). */
static void test_porep_label(void **state) {
    (void)state;
    label_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    czk_rng rng;
    czk_rng_seed(&rng, 17);
    czk_err err;
    c->porep = true;
    czk_assert_ok(czk_fr_random(&c->id_fr, &rng, &err), &err);
    czk_fr_to_bytes(c->id, &c->id_fr);
    for (int k = 0; k < 14; k++)
        czk_assert_ok(czk_fr_random(&c->rows[k], &rng, &err), &err);
    for (unsigned k = 0; k < CZK_LABEL_PARENTS; k++)
        czk_fr_to_bytes(c->parents[k], &c->rows[k % 14]);
    c->layer = 7;
    c->node = czk_rng_u64(&rng) & ((1ull << 30) - 1);
    czk_fr want;
    native_label(&want, c);
    czk_witness w[2];
    for (int mode = CZK_CS_WITNESS; mode <= CZK_CS_CHECK; mode++) {
        czk_cs *cs = run((czk_cs_mode)mode, label_circuit, c);
        if (mode == CZK_CS_CHECK) assert_int_equal(c->cost, 522268 + 1);
        assert_true(czk_fr_eq(&c->out.value, &want));
        czk_assert_ok(czk_cs_take_witness(cs, &w[mode == CZK_CS_CHECK], &err), &err);
        czk_cs_free(cs);
    }
    assert_int_equal(w[0].num_aux, w[1].num_aux);
    assert_memory_equal(w[0].aux, w[1].aux, sizeof(czk_fr) * w[0].num_aux);
    czk_witness_free(&w[0]);
    czk_witness_free(&w[1]);
    free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_label),
        cmocka_unit_test(test_porep_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
