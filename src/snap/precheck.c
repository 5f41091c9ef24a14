/*
 * The SnapDeals vanilla pre-check (storage-proofs-update vanilla.rs
 * EmptySectorUpdate::verify, made as strict as the circuit): a partition
 * proof that passes it satisfies the circuit, and one that fails it is
 * refused by partition and challenge before any GPU work, instead of
 * proving into a SNARK that does not verify.
 *
 * Upstream's verify checks each challenge's three Merkle proofs (root,
 * path, challenged index), the encoding, and that the TreeD path's apex
 * siblings occur somewhere in the apex tree. The circuit is stricter: it
 * selects the apex leaf by the challenge bits and hashes the apex tree's
 * root along challenge 0's partition path to comm_d_new. So this checks
 * those exactly: the TreeD node at the apex-leaf row is the selected apex
 * leaf, every challenge's path above the apex tree is challenge 0's, and
 * the apex root hashes to comm_d_new.
 */
#include "snap/internal.h"

#include "util/digest.h"

#include <stdio.h>
#include <string.h>

/* Sha256Function::hash2: SHA-256(a ‖ b), byte 31 &= 0x3f. */
static void sha2(uint8_t out[32], const uint8_t a[32], const uint8_t b[32]) {
    czk_bytes parts[2] = {{a, 32}, {b, 32}};
    czk_sha256_parts(out, parts, 2);
    out[31] &= 0x3f;
}

/* The apex tree's root over v's apex leafs, then up the partition path of challenge 0. */
static czk_status apex_root_to_comm_d(const czk_snap_shape *s, const czk_snap_vanilla *v,
                                      uint64_t k, uint8_t out[32], czk_err *err) {
    uint8_t row[128][32];
    unsigned n = s->apex_leafs;
    if (n > 128) return czk_errf(err, CZK_ERR_INTERNAL, "SnapDeals: %u apex leafs", n);
    memcpy(row, v->apex_leafs, 32u * n);
    for (; n > 1; n /= 2)
        for (unsigned i = 0; i < n / 2; i++)
            sha2(row[i], row[2 * i], row[2 * i + 1]);
    const uint8_t *sib = v->proofs[0].d_new.siblings;
    unsigned first = s->challenge_bits - s->partition_bits;
    for (unsigned i = 0; i < s->partition_bits; i++) {
        const uint8_t *other = sib + 32u * (first + i);
        if ((k >> i) & 1)
            sha2(row[0], other, row[0]);
        else
            sha2(row[0], row[0], other);
    }
    memcpy(out, row[0], 32);
    return CZK_OK;
}

/* Path of p (tree t) hashes to p's root and opens node c; else VERIFY naming `name`. */
static czk_status check_path(const czk_por_tree *t, const czk_por_proof *p, uint64_t c,
                             const char *name, czk_err *err) {
    uint8_t root[32];
    uint64_t idx = 0;
    czk_err e;
    czk_status st = czk_por_proof_root(t, p, root, &idx, &e);
    if (st)
        return czk_errf(err, st == CZK_ERR_FR_RANGE ? CZK_ERR_VERIFY : st, "%s: %s", name, e.msg);
    if (memcmp(root, p->root, 32))
        return czk_errf(err, CZK_ERR_VERIFY, "%s: the path does not hash to its root", name);
    if (idx != c)
        return czk_errf(err, CZK_ERR_VERIFY, "%s opens node %llu, not the challenged node", name,
                        (unsigned long long)idx);
    return CZK_OK;
}

/* One challenge: CZK_OK or CZK_ERR_VERIFY with err saying what fails (no prefix). */
static czk_status check_challenge(const czk_snap_shape *s, const czk_por_tree *tr,
                                  const czk_por_tree *td, const czk_snap_vanilla *v,
                                  const czk_snap_public *pub, const czk_fr *phi, unsigned j,
                                  uint64_t c, czk_err *err) {
    const czk_snap_challenge_proof *cp = &v->proofs[j];
    if (memcmp(cp->r_old.root, v->proofs[0].r_old.root, 32))
        return czk_errf(err, CZK_ERR_VERIFY,
                        "proof_r_old's root is not challenge 0's (root_r_old)");
    if (memcmp(cp->r_new.root, v->proofs[0].r_new.root, 32))
        return czk_errf(err, CZK_ERR_VERIFY,
                        "proof_r_new's root is not challenge 0's (root_r_new)");
    if (memcmp(cp->d_new.root, pub->comm_d_new, 32))
        return czk_errf(err, CZK_ERR_VERIFY, "proof_d_new's root is not comm_d_new");
    czk_status st;
    if ((st = check_path(tr, &cp->r_old, c, "proof_r_old", err)) ||
        (st = check_path(td, &cp->d_new, c, "proof_d_new", err)) ||
        (st = check_path(tr, &cp->r_new, c, "proof_r_new", err)))
        return st;
    /* the encoding */
    czk_fr old, data, want, got, rho;
    if (czk_fr_from_bytes(&old, cp->r_old.leaf, NULL) ||
        czk_fr_from_bytes(&data, cp->d_new.leaf, NULL) ||
        czk_fr_from_bytes(&got, cp->r_new.leaf, NULL))
        return czk_errf(err, CZK_ERR_VERIFY, "a leaf is not a canonical Fr");
    if ((st = czk_snap_rho(&rho, phi, c >> (s->challenge_bits - pub->h), err))) return st;
    czk_fr_mul(&want, &data, &rho);
    czk_fr_add(&want, &want, &old);
    if (!czk_fr_eq(&want, &got))
        return czk_errf(err, CZK_ERR_VERIFY, "leaf_r_new is not leaf_r_old + leaf_d_new · rho");
    /* the apex leaf the circuit selects, and the partition path it goes on with */
    unsigned below = s->challenge_bits - s->partition_bits - s->apex_bits;
    czk_por_tree lower = {CZK_POR_SHA256, 2, below, 0, 0};
    uint8_t node[32];
    unsigned a = (unsigned)((c >> below) & (s->apex_leafs - 1));
    if (below == 0) {
        memcpy(node, cp->d_new.leaf, 32);
    } else if ((st = czk_por_proof_root(&lower, &cp->d_new, node, NULL, err))) {
        return st;
    }
    if (memcmp(node, v->apex_leafs[a], 32))
        return czk_errf(err, CZK_ERR_VERIFY,
                        "proof_d_new's node at the apex-leaf row is not apex leaf %u", a);
    unsigned first = s->challenge_bits - s->partition_bits;
    if (memcmp(cp->d_new.siblings + 32u * first, v->proofs[0].d_new.siblings + 32u * first,
               32u * s->partition_bits))
        return czk_errf(err, CZK_ERR_VERIFY,
                        "proof_d_new's path above the apex tree is not challenge 0's");
    return CZK_OK;
}

czk_status czk_snap_precheck(const czk_snap_vanilla *v, const czk_snap_shape *s,
                             const czk_snap_public *pub, czk_err *err) {
    czk_por_tree tr, td;
    czk_fr in[4];
    czk_status st = czk_snap_trees(s, &tr, &td, err);
    if (st || (st = czk_snap_public_inputs(in, s, pub, err))) return st;
    unsigned long long k = (unsigned long long)pub->k;
    if (v->shape != s || v->challenges != s->challenges || v->apex_count != s->apex_leafs)
        return czk_errf(err, CZK_ERR_MISMATCH,
                        "SnapDeals partition %llu: a vanilla proof parsed as %s (%u challenges, %u "
                        "apex leafs), checked as %s",
                        k, v->shape ? v->shape->name : "nothing", v->challenges, v->apex_count,
                        s->name);
    /* comm_r_old and comm_r_new from comm_c and the TreeR roots */
    const char *rname[2] = {"old", "new"};
    const uint8_t *roots[2] = {v->proofs[0].r_old.root, v->proofs[0].r_new.root};
    const uint8_t *comms[2] = {pub->comm_r_old, pub->comm_r_new};
    for (int i = 0; i < 2; i++) {
        czk_fr pre[2], h, want;
        if (czk_fr_from_bytes(&pre[0], v->comm_c, NULL) ||
            czk_fr_from_bytes(&pre[1], roots[i], NULL) || czk_fr_from_bytes(&want, comms[i], NULL))
            return czk_errf(err, CZK_ERR_VERIFY,
                            "SnapDeals partition %llu: comm_c or root_r_%s is not a canonical Fr",
                            k, rname[i]);
        if ((st = czk_poseidon_hash(&h, pre, 2, err))) return st;
        if (!czk_fr_eq(&h, &want))
            return czk_errf(err, CZK_ERR_VERIFY,
                            "SnapDeals partition %llu does not verify: Poseidon-2(comm_c, "
                            "root_r_%s) is not comm_r_%s",
                            k, rname[i], rname[i]);
    }
    uint8_t top[32];
    if ((st = apex_root_to_comm_d(s, v, pub->k, top, err))) return st;
    if (memcmp(top, pub->comm_d_new, 32))
        return czk_errf(err, CZK_ERR_VERIFY,
                        "SnapDeals partition %llu does not verify: the apex tree's root does not "
                        "hash along the partition path to comm_d_new",
                        k);
    czk_fr phi;
    if ((st = czk_snap_phi(&phi, pub->comm_d_new, pub->comm_r_old, err))) return st;
    uint64_t ch[128];
    if (s->challenges > sizeof ch / sizeof ch[0])
        return czk_errf(err, CZK_ERR_INTERNAL, "SnapDeals: %u challenges", s->challenges);
    if ((st = czk_snap_challenges(ch, s, pub->comm_r_new, pub->k, err))) return st;
    for (unsigned j = 0; j < s->challenges; j++) {
        czk_err e;
        if ((st = check_challenge(s, &tr, &td, v, pub, &phi, j, ch[j], &e)))
            return czk_errf(err, st,
                            "SnapDeals partition %llu does not verify: challenge %u (node %llu): "
                            "%s",
                            k, j, (unsigned long long)ch[j], e.msg);
    }
    return CZK_OK;
}
