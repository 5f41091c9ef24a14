/*
 * Multipack (bellpepper gadgets/multipack.rs) and storage-proofs'
 * reverse_bit_numbering (storage-proofs-core util.rs); spec §4.3, §4.6.
 *
 * Packing builds num = Σ 2^i·lc(bit_i) over at most 254 bits (constant-true
 * bits contribute 2^i·ONE) and enforces num·ONE = r for a new aux r
 * (pack_bits) or a new input (pack_into_inputs, per 254-bit chunk). The value
 * is summed natively on 64-bit limbs (< 2^254 < r, so it is canonical).
 */
#include "boolean_internal.h"

void czk_pack_value(czk_fr *out, const czk_bool *bits, size_t n) {
    uint64_t limbs[4] = {0, 0, 0, 0};
    if (n > CZK_FR_CAPACITY) n = CZK_FR_CAPACITY;
    for (size_t i = 0; i < n; i++)
        limbs[i / 64] |= (uint64_t)(bits[i].value & 1) << (i % 64);
    czk_fr_from_u64s(out, limbs);
}

/* num·ONE = target, num = Σ_{i<n} 2^i·lc(bits_i), n ≤ 254. */
static void enforce_packing(czk_cs *cs, const czk_bool *bits, size_t n, czk_var target) {
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    for (size_t i = 0; i < n; i++)
        czk_bool_lc(cs, &a, bits[i], czk_fr_pow2((unsigned)i));
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add_var(cs, &c, target);
    czk_cs_push_ns(cs, "packing");
    czk_cs_enforce(cs, &a, &b, &c);
    czk_cs_pop_ns(cs);
    czk_lc_free(&a);
    czk_lc_free(&b);
    czk_lc_free(&c);
}

czk_num czk_pack_bits(czk_cs *cs, const czk_bool *bits, size_t n) {
    if (n > CZK_FR_CAPACITY) n = CZK_FR_CAPACITY;
    czk_num r;
    czk_pack_value(&r.value, bits, n);
    r.var = czk_cs_alloc(cs, &r.value);
    if (czk_cs_records(cs)) enforce_packing(cs, bits, n, r.var);
    return r;
}

size_t czk_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n) {
    size_t chunks = 0;
    for (size_t off = 0; off < n; off += CZK_FR_CAPACITY, chunks++) {
        size_t len = n - off < CZK_FR_CAPACITY ? n - off : CZK_FR_CAPACITY;
        czk_fr v;
        czk_pack_value(&v, bits + off, len);
        czk_var j = czk_cs_alloc_input(cs, &v);
        if (czk_cs_records(cs)) enforce_packing(cs, bits + off, len, j);
    }
    return chunks;
}

size_t czk_reverse_bit_numbering(czk_bool *out, const czk_bool *in, size_t n) {
    size_t len = (n + 7) & ~(size_t)7;
    for (size_t i = 0; i < len; i++) {
        size_t src = (i & ~(size_t)7) | (7 - (i & 7));
        out[i] = src < n ? in[src] : czk_bool_constant(false);
    }
    return len;
}
