/*
 * A naive vanilla-proof verifier for the seal tests, written apart from
 * src/seal (storage-proofs-porep stacked/vanilla/params.rs Proof::verify,
 * labeling_proof.rs, encoding_proof.rs, storage-proofs-core merkle/proof.rs):
 * every Merkle path is hashed up to its root, every label recomputed from
 * the labeling proof's parents (SHA-256 of replica_id ‖ layer ‖ node ‖ 0s ‖
 * parents), the parents checked against the parent columns, the replica
 * against label + data, comm_r against Poseidon2(comm_c, comm_r_last), and
 * the challenges and parents against the graph. It returns a message
 * naming the partition, challenge and field of the first failure.
 */
#ifndef CZK_TESTS_SEAL_VVERIFY_H
#define CZK_TESTS_SEAL_VVERIFY_H

#include <stdio.h>
#include <string.h>

#include "czk/poseidon.h"
#include "czk/porep_c1.h"
#include "czk/porep_graph.h"
#include "czk/porep_shapes.h"
#include "czk/seal.h"
#include "util/digest.h"

/* Expected per-level arities of TreeC/TreeR (porep-circuit.md §1 table). */
static unsigned vv_rc_arities(const czk_porep_shape *sh, uint8_t ar[32], uint32_t parts[3]) {
    unsigned base = sh->log2_nodes / 3, n = 0; /* 8-ary levels: 2KiB 2, 8MiB 6, 512MiB 8 */
    parts[1] = parts[2] = 0;
    if (sh->tree_sub_arity) base = (sh->log2_nodes - 3 - (sh->tree_top_arity ? 1 : 0)) / 3;
    if (base > 29) base = 29;
    for (unsigned i = 0; i < base; i++)
        ar[n++] = 8;
    parts[0] = base;
    if (sh->tree_sub_arity) ar[n++] = 8, parts[1] = 1;
    if (sh->tree_top_arity) ar[n++] = 2, parts[2] = 1;
    return n;
}

static bool vv_fr(czk_fr *o, const czk_domain *d) {
    return czk_fr_from_bytes(o, d->b, NULL) == CZK_OK;
}

static bool vv_poseidon(uint8_t out[32], const czk_domain *in, unsigned n) {
    czk_fr f[16], h;
    for (unsigned i = 0; i < n; i++)
        if (!vv_fr(&f[i], &in[i])) return false;
    if (czk_poseidon_hash(&h, f, n, NULL) != CZK_OK) return false;
    czk_fr_to_bytes(out, &h);
    return true;
}

/* Root of a path; false if a value is not a canonical Fr. */
static bool vv_path_root(const czk_merkle_proof *p, bool sha, uint8_t out[32]) {
    czk_domain cur = p->leaf, kids[16];
    size_t s = 0;
    for (uint32_t l = 0; l < p->num_levels; l++) {
        unsigned a = p->arity[l], at = 0;
        if (p->index[l] >= a) return false;
        for (unsigned k = 0; k < a; k++)
            kids[k] = k == p->index[l] ? cur : p->siblings[s + at++];
        s += a - 1;
        if (sha) {
            czk_sha256_digest(cur.b, kids, 32 * (size_t)a);
            cur.b[31] &= 0x3f;
        } else if (!vv_poseidon(cur.b, kids, a)) {
            return false;
        }
    }
    memcpy(out, cur.b, 32);
    return true;
}

static bool vv_merkle(const czk_merkle_proof *p, bool sha, const uint8_t *ar, unsigned n,
                      const uint32_t parts[3], czk_merkle_kind kind, uint64_t leaf,
                      const uint8_t *root, char *why, size_t wl, const char *what) {
    if (p->kind != kind || p->num_levels != n || memcmp(p->levels_in_part, parts, 12)) {
        snprintf(why, wl, "%s: wrong proof shape (kind %d, %u levels)", what, p->kind,
                 p->num_levels);
        return false;
    }
    uint64_t idx = 0, mul = 1;
    for (unsigned l = 0; l < n; l++) {
        if (p->arity[l] != ar[l]) {
            snprintf(why, wl, "%s: level %u arity %u", what, l, p->arity[l]);
            return false;
        }
        idx += mul * p->index[l];
        mul *= ar[l];
    }
    if (idx != leaf) {
        snprintf(why, wl, "%s: path opens leaf %llu, want %llu", what, (unsigned long long)idx,
                 (unsigned long long)leaf);
        return false;
    }
    uint8_t r[32];
    if (!vv_path_root(p, sha, r) || memcmp(r, p->root.b, 32) || (root && memcmp(r, root, 32))) {
        snprintf(why, wl, "%s: path does not hash to the root", what);
        return false;
    }
    return true;
}

static bool vv_column(const czk_column_proof *cp, uint64_t node, unsigned layers, const uint8_t *ar,
                      unsigned n, const uint32_t parts[3], czk_merkle_kind kind,
                      const uint8_t comm_c[32], char *why, size_t wl, const char *what) {
    uint8_t h[32];
    if (cp->index != node || cp->num_rows != layers) {
        snprintf(why, wl, "%s: column %u (%u rows), want %llu", what, cp->index, cp->num_rows,
                 (unsigned long long)node);
        return false;
    }
    if (!vv_poseidon(h, cp->rows, layers) || memcmp(h, cp->inclusion.leaf.b, 32)) {
        snprintf(why, wl, "%s: column hash is not the TreeC leaf", what);
        return false;
    }
    return vv_merkle(&cp->inclusion, false, ar, n, parts, kind, node, comm_c, why, wl, what);
}

/* Verifies every vanilla proof of c1 (interactive/NI/synthetic challenges alike). */
static bool vv_verify(const czk_c1 *c1, char *why, size_t wl) {
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, NULL) != CZK_OK) {
        snprintf(why, wl, "unknown proof");
        return false;
    }
    const czk_porep_shape *sh = pr.shape;
    if (c1->num_partitions != pr.partitions ||
        c1->challenges_per_partition != pr.challenges_per_partition) {
        snprintf(why, wl, "partition counts");
        return false;
    }
    uint8_t d_ar[32];
    uint32_t d_parts[3] = {sh->log2_nodes, 0, 0}, rc_parts[3];
    for (unsigned l = 0; l < sh->log2_nodes; l++)
        d_ar[l] = 2;
    uint8_t rc_ar[32];
    unsigned rc_n = vv_rc_arities(sh, rc_ar, rc_parts);
    czk_merkle_kind rc_kind = sh->tree_top_arity   ? CZK_MERKLE_TOP
                              : sh->tree_sub_arity ? CZK_MERKLE_SUB
                                                   : CZK_MERKLE_SINGLE;
    czk_porep_graph *g = NULL;
    if (czk_porep_graph_create(&g, sh->nodes, pr.porep_id, pr.api, NULL, NULL) != CZK_OK) {
        snprintf(why, wl, "graph");
        return false;
    }
    const unsigned L = sh->layers, cpp = pr.challenges_per_partition;
    const czk_domain *comm_c = &c1->proofs[0].c_x.inclusion.root;
    const czk_domain *comm_r_last = &c1->proofs[0].comm_r_last_proof.root;
    czk_domain pair[2] = {*comm_c, *comm_r_last};
    uint8_t h[32];
    bool ok = vv_poseidon(h, pair, 2) && !memcmp(h, c1->comm_r.b, 32);
    if (!ok) snprintf(why, wl, "comm_r != Poseidon2(comm_c, comm_r_last)");
    for (unsigned k = 0; ok && k < pr.partitions; k++) {
        uint64_t ch[32];
        if (czk_porep_challenges(ch, &pr, c1->replica_id.b, c1->seed.b, c1->comm_r.b, k, NULL) !=
            CZK_OK) {
            snprintf(why, wl, "challenges");
            ok = false;
            break;
        }
        for (unsigned i = 0; ok && i < cpp; i++) {
            const czk_vanilla_proof *vp = &c1->proofs[(size_t)k * cpp + i];
            char what[96];
            uint64_t c = ch[i];
            uint32_t par[14];
            ok = czk_porep_graph_parents(g, c, par, NULL) == CZK_OK;
#define VV_AT(field) snprintf(what, sizeof what, "partition %u challenge %u %s", k, i, field)
            VV_AT("comm_d_proofs");
            ok = ok && vv_merkle(&vp->comm_d_proof, true, d_ar, sh->log2_nodes, d_parts,
                                 CZK_MERKLE_SINGLE, c, c1->comm_d.b, why, wl, what);
            VV_AT("comm_r_last_proof");
            ok = ok && vv_merkle(&vp->comm_r_last_proof, false, rc_ar, rc_n, rc_parts, rc_kind, c,
                                 comm_r_last->b, why, wl, what);
            VV_AT("c_x");
            ok = ok && vv_column(&vp->c_x, c, L, rc_ar, rc_n, rc_parts, rc_kind, comm_c->b, why, wl,
                                 what);
            for (unsigned j = 0; ok && j < 14; j++) {
                snprintf(what, sizeof what, "partition %u challenge %u %s[%u]", k, i,
                         j < 6 ? "drg_parents" : "exp_parents", j < 6 ? j : j - 6);
                ok = vv_column(j < 6 ? &vp->drg_parents[j] : &vp->exp_parents[j - 6], par[j], L,
                               rc_ar, rc_n, rc_parts, rc_kind, comm_c->b, why, wl, what);
            }
            if (ok && vp->num_labeling != L) {
                snprintf(why, wl, "partition %u challenge %u: %u labeling proofs", k, i,
                         vp->num_labeling);
                ok = false;
            }
            for (unsigned l = 1; ok && l <= L; l++) {
                const czk_labeling_proof *lp = &vp->labeling[l - 1];
                unsigned deg = l == 1 ? 6 : 14;
                ok = lp->layer_index == l && lp->node == c && lp->num_parents == 37;
                for (unsigned q = 0; ok && q < 37; q++) {
                    unsigned j = q % deg;
                    const czk_domain *want = j < 6 ? &vp->drg_parents[j].rows[l - 1]
                                                   : &vp->exp_parents[j - 6].rows[l - 2];
                    ok = !memcmp(want, &lp->parents[q], 32);
                }
                uint8_t msg[64 + 37 * 32] = {0}, lab[32];
                memcpy(msg, c1->replica_id.b, 32);
                for (int b = 0; b < 4; b++)
                    msg[32 + b] = (uint8_t)(l >> (24 - 8 * b));
                for (int b = 0; b < 8; b++)
                    msg[36 + b] = (uint8_t)(c >> (56 - 8 * b));
                if (ok) memcpy(msg + 64, lp->parents, 37 * 32);
                czk_sha256_digest(lab, msg, sizeof msg);
                lab[31] &= 0x3f;
                ok = ok && !memcmp(lab, vp->c_x.rows[l - 1].b, 32);
                if (!ok)
                    snprintf(why, wl,
                             "partition %u challenge %u labeling_proofs[%u]: label does not "
                             "match its parents",
                             k, i, l - 1);
            }
            if (ok) {
                const czk_labeling_proof *e = &vp->encoding;
                ok = e->layer_index == L && e->node == c && e->num_parents == 37 &&
                     !memcmp(e->parents, vp->labeling[L - 1].parents, 37 * 32);
                czk_fr a, b;
                ok = ok && vv_fr(&a, &vp->c_x.rows[L - 1]) && vv_fr(&b, &vp->comm_d_proof.leaf);
                if (ok) {
                    czk_fr_add(&a, &a, &b);
                    czk_fr_to_bytes(h, &a);
                    ok = !memcmp(h, vp->comm_r_last_proof.leaf.b, 32);
                }
                if (!ok)
                    snprintf(why, wl,
                             "partition %u challenge %u encoding_proof: replica != label + data", k,
                             i);
            }
#undef VV_AT
        }
    }
    czk_porep_graph_destroy(g);
    return ok;
}

/* Miner 1000, sector 7, ticket 32×11, seed 32×22, zero data. */
static void vv_request(czk_seal_request *r, uint64_t id) {
    memset(r, 0, sizeof *r);
    r->registered_proof = id;
    r->miner_id = 1000;
    r->sector_num = 7;
    memset(r->ticket, 0x11, 32);
    memset(r->seed, 0x22, 32);
}

static void vv_verify_ok(const czk_c1 *c1) {
    char why[256] = "";
    if (!vv_verify(c1, why, sizeof why)) fail_msg("vanilla proofs do not verify: %s", why);
}

#endif
