/*
 * The PoR gadget (storage-proofs-core gadgets/por.rs, PoRCircuit::synthesize
 * with the leaf and root given as variables; spec §4.8).
 *
 * The tree is walked from the leaf up, base levels, then the sub level, then
 * the top level; each level allocates its index bits and siblings, inserts
 * the current node among the siblings and hashes the row. All index bits are
 * kept and packed into one public input at the end, which is why a PoR
 * exposes its leaf index (the PoRep challenge or parent) and nothing else:
 * the root is compared with an existing variable (comm_d, comm_c,
 * comm_r_last), which the caller has inputized or bound otherwise.
 */
#include "czk/por.h"

#include "czk/poseidon.h"

static bool arity_ok(unsigned a) {
    return a == 2 || a == 4 || a == 8;
}

static unsigned log2_arity(unsigned a) {
    return a == 2 ? 1 : a == 4 ? 2 : 3;
}

czk_status czk_por_tree_check(const czk_por_tree *t, czk_err *err) {
    if (t->hash != CZK_POR_SHA256 && t->hash != CZK_POR_POSEIDON)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "por tree: unknown hash %d", (int)t->hash);
    if (!arity_ok(t->base_arity))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "por tree: base arity %u, must be 2, 4 or 8",
                        t->base_arity);
    if (t->sub_arity && !arity_ok(t->sub_arity))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "por tree: sub arity %u, must be 0, 2, 4 or 8",
                        t->sub_arity);
    if (t->top_arity && !arity_ok(t->top_arity))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "por tree: top arity %u, must be 0, 2, 4 or 8",
                        t->top_arity);
    if (t->top_arity && !t->sub_arity)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "por tree: a top level needs a sub level");
    if (t->base_levels == 0 || t->base_levels > CZK_POR_MAX_LEVELS ||
        czk_por_tree_levels(t) > CZK_POR_MAX_LEVELS)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "por tree: %u base levels, must be 1..%u in all",
                        t->base_levels, CZK_POR_MAX_LEVELS);
    return CZK_OK;
}

czk_status czk_por_tree_for_leaves(czk_por_tree *out, czk_por_hash hash, uint64_t leaves,
                                   unsigned base_arity, unsigned sub_arity, unsigned top_arity,
                                   czk_err *err) {
    czk_por_tree t = {hash, base_arity, 1, sub_arity, top_arity};
    czk_status st = czk_por_tree_check(&t, err);
    if (st) return st;
    uint64_t per = (uint64_t)(sub_arity ? sub_arity : 1) * (top_arity ? top_arity : 1);
    if (leaves == 0 || leaves % per)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "por tree: %llu leaves do not split into %llu base trees",
                        (unsigned long long)leaves, (unsigned long long)per);
    uint64_t base = leaves / per;
    unsigned levels = 0;
    while (base > 1 && base % base_arity == 0) {
        base /= base_arity;
        levels++;
    }
    if (base != 1 || levels == 0)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "por tree: %llu leaves do not fill a %u-%u-%u tree",
                        (unsigned long long)leaves, base_arity, sub_arity, top_arity);
    t.base_levels = levels;
    st = czk_por_tree_check(&t, err);
    if (st) return st;
    *out = t;
    return CZK_OK;
}

unsigned czk_por_tree_levels(const czk_por_tree *t) {
    return t->base_levels + (t->sub_arity != 0) + (t->top_arity != 0);
}

unsigned czk_por_tree_arity(const czk_por_tree *t, unsigned level) {
    if (level < t->base_levels) return t->base_arity;
    if (level == t->base_levels && t->sub_arity) return t->sub_arity;
    return t->top_arity;
}

unsigned czk_por_tree_siblings(const czk_por_tree *t) {
    unsigned n = 0, levels = czk_por_tree_levels(t);
    for (unsigned l = 0; l < levels; l++)
        n += czk_por_tree_arity(t, l) - 1;
    return n;
}

unsigned czk_por_tree_index_bits(const czk_por_tree *t) {
    unsigned n = 0, levels = czk_por_tree_levels(t);
    for (unsigned l = 0; l < levels; l++)
        n += log2_arity(czk_por_tree_arity(t, l));
    return n;
}

/* Insert cur among the siblings at the bits' position and hash the row into cur. */
static czk_status insert_hash(czk_cs *cs, const czk_por_tree *t, unsigned arity,
                              const czk_bool *bits, const czk_num *sib, czk_num *cur) {
    czk_num row[CZK_POR_MAX_ARITY];
    czk_status st = czk_insert(cs, cur, bits, log2_arity(arity), sib, row);
    if (st) return st;
    if (t->hash == CZK_POR_SHA256) return czk_sha256_hash_multi_leaf(cs, row, arity, cur);
    czk_var vars[CZK_POR_MAX_ARITY];
    czk_fr vals[CZK_POR_MAX_ARITY];
    for (unsigned j = 0; j < arity; j++) {
        vars[j] = row[j].var;
        vals[j] = row[j].value;
    }
    return czk_poseidon_circuit(cs, vars, vals, arity, &cur->var, &cur->value);
}

/* One level of czk_por: bits, siblings, insert, hash; cur becomes the level's node. */
static czk_status level(czk_cs *cs, const czk_por_tree *t, unsigned arity, uint32_t position,
                        const czk_fr *siblings, czk_bool *bits, czk_num *cur) {
    unsigned k = log2_arity(arity);
    for (unsigned i = 0; i < k; i++)
        bits[i] = czk_bit_alloc(cs, (position >> i) & 1);
    czk_num sib[CZK_POR_MAX_ARITY - 1];
    for (unsigned j = 0; j + 1 < arity; j++)
        sib[j] = czk_num_alloc(cs, siblings ? &siblings[j] : NULL);
    return insert_hash(cs, t, arity, bits, sib, cur);
}

czk_status czk_por(czk_cs *cs, const czk_por_tree *t, const czk_num *leaf, const czk_num *root,
                   const czk_por_path *path, bool public_root, czk_num *computed) {
    czk_err e;
    if (czk_por_tree_check(t, &e)) return czk_cs_fail(cs, e.code, "%s", e.msg);
    unsigned levels = czk_por_tree_levels(t);
    czk_bool bits[3 * CZK_POR_MAX_LEVELS];
    unsigned nbits = 0, off = 0;
    czk_num cur = *leaf;
    czk_status st = czk_cs_status(cs);
    for (unsigned l = 0; l < levels && st == CZK_OK; l++) {
        unsigned arity = czk_por_tree_arity(t, l);
        uint32_t pos = path ? path->positions[l] : 0;
        if (pos >= arity)
            return czk_cs_fail(cs, CZK_ERR_INVALID_ARG, "por: position %u at level %u of arity %u",
                               pos, l, arity);
        czk_cs_push_ns(cs, "merkle tree hash %u", l);
        st = level(cs, t, arity, pos, path ? path->siblings + off : NULL, bits + nbits, &cur);
        czk_cs_pop_ns(cs);
        nbits += log2_arity(arity);
        off += arity - 1;
    }
    if (st) return st;
    czk_cs_push_ns(cs, "path");
    czk_pack_into_inputs(cs, bits, nbits);
    czk_cs_pop_ns(cs);
    czk_num_equal(cs, &cur, root);
    if (public_root) czk_num_inputize(cs, root);
    if (computed) *computed = cur;
    return czk_cs_status(cs);
}

czk_status czk_por_no_challenge_input(czk_cs *cs, const czk_por_tree *t, const czk_bool *bits,
                                      const czk_num *leaf, const czk_num *siblings,
                                      const czk_num *root) {
    czk_err e;
    if (czk_por_tree_check(t, &e)) return czk_cs_fail(cs, e.code, "%s", e.msg);
    unsigned levels = czk_por_tree_levels(t), nbits = 0, off = 0;
    czk_num cur = *leaf;
    czk_status st = czk_cs_status(cs);
    for (unsigned l = 0; l < levels && st == CZK_OK; l++) {
        unsigned arity = czk_por_tree_arity(t, l);
        czk_cs_push_ns(cs, "merkle proof %u", l);
        st = insert_hash(cs, t, arity, bits + nbits, siblings + off, &cur);
        czk_cs_pop_ns(cs);
        nbits += log2_arity(arity);
        off += arity - 1;
    }
    if (st) return st;
    czk_cs_push_ns(cs, "calculated root == provided root");
    czk_num_equal(cs, &cur, root);
    czk_cs_pop_ns(cs);
    return czk_cs_status(cs);
}
