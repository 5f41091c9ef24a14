/*
 * The vanilla side of the PoR: a bincode MerkleProof (storage-proofs-core
 * merkle/proof.rs) read and checked against the tree it must belong to, and
 * its root recomputed natively. The PoSt sector proofs and the SnapDeals
 * partition proofs are made of these; both readers call this one, so a
 * proof is refused with the same words whichever kind carries it.
 *
 * Lengths are bounded by the tree before anything is read or kept, so a
 * corrupt length fails on the spot and never sizes an allocation.
 */
#include "czk/por.h"

#include "czk/poseidon.h"
#include "util/bincode.h"
#include "util/digest.h"

#include <string.h>

static bool canonical(const uint8_t b[32]) {
    czk_fr x;
    return czk_fr_from_bytes(&x, b, NULL) == CZK_OK;
}

/* A 32-byte value that must be a canonical Fr (root, leaf). */
static czk_status domain(czk_bincode *r, const char *name, uint8_t keep[32], czk_err *err) {
    const uint8_t *b;
    czk_status st = czk_bincode_array(r, 32, &b, err, "%s", name);
    if (st) return st;
    if (!canonical(b)) return czk_errf(err, CZK_ERR_FR_RANGE, "%s is not a canonical Fr", name);
    memcpy(keep, b, 32);
    return CZK_OK;
}

/*
 * One InclusionPath of `levels` elements of `arity`: tree levels first..
 * of the whole path; siblings continue at *sib_off.
 */
static czk_status path(czk_bincode *r, const char *name, unsigned levels, unsigned arity,
                       unsigned first, unsigned *sib_off, czk_por_proof *out, czk_err *err) {
    uint64_t n;
    czk_status st = czk_bincode_len(r, CZK_POR_MAX_LEVELS, 16, &n, err, "%s", name);
    if (st) return st;
    if (n != levels)
        return czk_errf(err, CZK_ERR_MISMATCH, "%s has %llu elements, the tree has %u levels of %u",
                        name, (unsigned long long)n, levels, arity);
    for (unsigned e = 0; e < levels; e++) {
        uint64_t nh;
        if ((st = czk_bincode_len(r, CZK_POR_MAX_ARITY, 32, &nh, err, "%s[%u].hashes", name, e)))
            return st;
        if (nh != arity - 1)
            return czk_errf(err, CZK_ERR_MISMATCH, "%s[%u] has %llu hashes, the arity is %u", name,
                            e, (unsigned long long)nh, arity);
        for (unsigned j = 0; j < nh; j++) {
            const uint8_t *h;
            if ((st = czk_bincode_array(r, 32, &h, err, "%s[%u].hashes[%u]", name, e, j)))
                return st;
            if (!canonical(h))
                return czk_errf(err, CZK_ERR_FR_RANGE, "%s[%u].hashes[%u] is not a canonical Fr",
                                name, e, j);
            if (out->siblings) memcpy(out->siblings + 32u * (*sib_off + j), h, 32);
        }
        *sib_off += (unsigned)nh;
        uint64_t index;
        if ((st = czk_bincode_u64(r, &index, err, "%s[%u].index", name, e))) return st;
        if (index >= arity)
            return czk_errf(err, CZK_ERR_FORMAT, "%s[%u].index is %llu, the arity is %u", name, e,
                            (unsigned long long)index, arity);
        if (out->positions) out->positions[first + e] = (uint32_t)index;
    }
    return CZK_OK;
}

czk_status czk_por_domain_read(uint8_t out[32], const uint8_t *data, size_t len, size_t *pos,
                               const char *name, czk_err *err) {
    if (*pos > len) return czk_errf(err, CZK_ERR_INVALID_ARG, "%s: offset past the end", name);
    czk_bincode r;
    czk_bincode_init(&r, data, len);
    r.pos = *pos;
    czk_status st = domain(&r, name, out, err);
    if (!st) *pos = r.pos;
    return st;
}

czk_status czk_por_proof_read(czk_por_proof *out, const uint8_t *data, size_t len, size_t *pos,
                              const czk_por_tree *t, czk_err *err) {
    czk_status st = czk_por_tree_check(t, err);
    if (st) return st;
    if (*pos > len) return czk_errf(err, CZK_ERR_INVALID_ARG, "MerkleProof: offset past the end");
    czk_bincode r;
    czk_bincode_init(&r, data, len);
    r.pos = *pos;
    uint32_t tag;
    if ((st = czk_bincode_u32(&r, &tag, err, "proof variant"))) return st;
    static const char *const variant[3] = {"Single", "Sub", "Top"};
    uint32_t want = t->top_arity ? 2 : t->sub_arity ? 1 : 0;
    if (tag > 2)
        return czk_errf(err, CZK_ERR_FORMAT, "proof variant %u: not Single (0), Sub (1) or Top (2)",
                        tag);
    if (tag != want)
        return czk_errf(err, CZK_ERR_MISMATCH, "a %s proof, the %u-%u-%u tree has %s proofs",
                        variant[tag], t->base_arity, t->sub_arity, t->top_arity, variant[want]);
    unsigned off = 0;
    if (tag == 0) {
        if ((st = domain(&r, "root", out->root, err)) ||
            (st = domain(&r, "leaf", out->leaf, err)) ||
            (st = path(&r, "path", t->base_levels, t->base_arity, 0, &off, out, err)))
            return st;
    } else {
        if ((st = path(&r, "base_path", t->base_levels, t->base_arity, 0, &off, out, err)) ||
            (st = path(&r, "sub_path", 1, t->sub_arity, t->base_levels, &off, out, err)))
            return st;
        if (tag == 2 &&
            (st = path(&r, "top_path", 1, t->top_arity, t->base_levels + 1, &off, out, err)))
            return st;
        if ((st = domain(&r, "root", out->root, err)) || (st = domain(&r, "leaf", out->leaf, err)))
            return st;
    }
    *pos = r.pos;
    return CZK_OK;
}

czk_status czk_por_proof_root(const czk_por_tree *t, const czk_por_proof *p, uint8_t root[32],
                              uint64_t *index, czk_err *err) {
    czk_status st = czk_por_tree_check(t, err);
    if (st) return st;
    if (!p->positions || !p->siblings)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "MerkleProof root: no path kept");
    bool sha = t->hash == CZK_POR_SHA256;
    uint8_t cur[32], row[CZK_POR_MAX_ARITY][32];
    memcpy(cur, p->leaf, 32);
    unsigned levels = czk_por_tree_levels(t), off = 0;
    uint64_t idx = 0, scale = 1;
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = czk_por_tree_arity(t, l), pos = p->positions[l];
        if (pos >= a)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "position %u at level %u of arity %u", pos, l,
                            a);
        for (unsigned i = 0, s = 0; i < a; i++)
            memcpy(row[i], i == pos ? cur : p->siblings + 32u * (off + s++), 32);
        if (sha) {
            czk_sha256_digest(cur, row, 32u * a);
            cur[31] &= 0x3f;
        } else {
            czk_fr in[CZK_POR_MAX_ARITY], h;
            for (unsigned i = 0; i < a; i++)
                if (czk_fr_from_bytes(&in[i], row[i], NULL))
                    return czk_errf(err, CZK_ERR_FR_RANGE, "%s at level %u is not a canonical Fr",
                                    i == pos ? (l ? "a node" : "the leaf") : "a sibling", l);
            if ((st = czk_poseidon_hash(&h, in, a, err))) return st;
            czk_fr_to_bytes(cur, &h);
        }
        idx += scale * pos;
        scale *= a;
        off += a - 1;
    }
    memcpy(root, cur, 32);
    if (index) *index = idx;
    return CZK_OK;
}
