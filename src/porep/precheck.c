/*
 * The vanilla pre-check of a C1 and the public inputs of its partitions
 * (include/czk/porep_precheck.h says what is checked and why).
 *
 * The global values come first, on the calling thread: the shape, the
 * replica_id (when the sector and miner are known), comm_r against
 * Poseidon2(comm_c, comm_r_last), and the challenges of every partition as
 * the chain derives them. Then one task per challenge runs on the pool:
 * every Merkle path, column hash, labeling proof and the encoding. A task
 * stops at its first failure and leaves its message in its own slot; the
 * lowest failing (partition, challenge) is reported, so the answer does not
 * depend on the thread count. The public inputs are the circuit layer's
 * (czk_porep_public_inputs_graph) for the challenges the C1's kind derives. A 32GiB C1 is ≈ 31,000
 * Poseidon hashes and ≈ 50,000 SHA-256 blocks.
 */
#include "czk/porep_precheck.h"

#include "czk/porep_circuit.h"
#include "czk/porep_prove.h"
#include "czk/poseidon.h"
#include "porep/c1_internal.h"
#include "porep/hash.h"
#include "util/digest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL_PARENTS 37u

/* ---- hashing ---- */

static void sha_node(czk_domain *out, const czk_domain *l, const czk_domain *r) {
    uint8_t buf[64];
    memcpy(buf, l->b, 32);
    memcpy(buf + 32, r->b, 32);
    czk_sha256_digest(out->b, buf, 64);
    out->b[31] &= 0x3f;
}

/* Poseidon of n domains; false if a value is not a canonical Fr or n is unsupported. */
static bool poseidon_domains(czk_domain *out, const czk_domain *in, unsigned n) {
    czk_fr pre[CZK_MERKLE_MAX_ARITY], h;
    if (n > CZK_MERKLE_MAX_ARITY || !czk_poseidon_arity_supported(n)) return false;
    const czk_poseidon_constants *pc = czk_poseidon_constants_get(n, NULL);
    if (!pc) return false;
    for (unsigned i = 0; i < n; i++)
        if (czk_fr_from_bytes(&pre[i], in[i].b, NULL) != CZK_OK) return false;
    czk_poseidon_hash_with(pc, &h, pre);
    czk_fr_to_bytes(out->b, &h);
    return true;
}

bool czk_c1_merkle_root(const czk_merkle_proof *p, bool sha, czk_domain *out) {
    if (p->num_levels > CZK_MERKLE_MAX_LEVELS) return false;
    czk_domain cur = p->leaf, nodes[CZK_MERKLE_MAX_ARITY];
    const czk_domain *sib = p->siblings;
    for (uint32_t l = 0; l < p->num_levels; l++) {
        unsigned a = p->arity[l], at = p->index[l];
        if (a < 2 || a > CZK_MERKLE_MAX_ARITY || at >= a || (sha && a != 2) || !sib) return false;
        for (unsigned j = 0, s = 0; j < a; j++)
            nodes[j] = j == at ? cur : sib[s++];
        sib += a - 1;
        if (sha)
            sha_node(&cur, &nodes[0], &nodes[1]);
        else if (!poseidon_domains(&cur, nodes, a))
            return false;
    }
    *out = cur;
    return true;
}

/* SHA256(replica_id ‖ layer BE ‖ node BE ‖ zeros to 64 bytes ‖ parents), byte 31 &= 0x3f. */
static void label_of(czk_domain *out, const czk_domain *replica_id, uint32_t layer, uint64_t node,
                     const czk_domain *parents, unsigned n) {
    uint8_t head[64] = {0};
    memcpy(head, replica_id->b, 32);
    for (int i = 0; i < 4; i++)
        head[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    czk_store_be64(head + 36, node);
    czk_bytes parts[2] = {{head, 64}, {parents, 32 * (size_t)n}};
    czk_sha256_parts(out->b, parts, 2);
    out->b[31] &= 0x3f;
}

static bool domain_eq(const czk_domain *a, const czk_domain *b) {
    return memcmp(a->b, b->b, 32) == 0;
}

/* ---- setup ---- */

czk_status czk_c1_graph(czk_porep_graph **out, const czk_c1 *c1, czk_pool *pool, czk_err *err) {
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, NULL) != CZK_OK)
        return czk_errf(err, CZK_ERR_FORMAT, "registered_proof: unknown id %u",
                        c1->registered_proof);
    return czk_porep_graph_create(out, pr.shape->nodes, pr.porep_id, pr.api, pool, err);
}

typedef struct check_ctx {
    const czk_c1 *c1;
    const czk_porep_proof *pr;
    const czk_porep_graph *graph;
    const uint64_t *challenges; /* [partition · cpp + i] */
    czk_domain comm_c, comm_r_last;
    czk_err *slots; /* one per challenge */
} check_ctx;

/* Fails task `slot` with "partition K, challenge I (node C): <message>". */
static bool failf(czk_err *slot, uint32_t k, uint32_t i, uint64_t c, const char *fmt, ...)
    CZK_PRINTF(5, 6);
static bool failf(czk_err *slot, uint32_t k, uint32_t i, uint64_t c, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    czk_errf(slot, CZK_ERR_VERIFY, "partition %u, challenge %u (node %llu): %s", k, i,
             (unsigned long long)c, msg);
    return false;
}

/* One Merkle proof: leaf index, root, path. `what` names it; `root_name` its expected root. */
static bool check_path(czk_err *slot, uint32_t k, uint32_t i, uint64_t c, const czk_merkle_proof *p,
                       bool sha, uint64_t want_index, const czk_domain *want_root, const char *what,
                       const char *root_name) {
    uint64_t idx = czk_merkle_proof_leaf_index(p);
    if (idx != want_index)
        return failf(slot, k, i, c, "%s proves leaf %llu, expected %llu", what,
                     (unsigned long long)idx, (unsigned long long)want_index);
    if (!domain_eq(&p->root, want_root))
        return failf(slot, k, i, c, "%s.root is not %s", what, root_name);
    czk_domain got;
    if (!czk_c1_merkle_root(p, sha, &got) || !domain_eq(&got, want_root))
        return failf(slot, k, i, c, "%s does not verify against %s", what, root_name);
    return true;
}

static bool check_column(czk_err *slot, const check_ctx *x, uint32_t k, uint32_t i, uint64_t c,
                         const czk_column_proof *cp, uint64_t node, const char *name) {
    char what[64];
    if (cp->index != node)
        return failf(slot, k, i, c, "%s.column.index is %u, expected %llu", name, cp->index,
                     (unsigned long long)node);
    czk_domain h;
    if (!poseidon_domains(&h, cp->rows, cp->num_rows))
        return failf(slot, k, i, c, "%s.column.rows cannot be hashed (%u rows)", name,
                     cp->num_rows);
    if (!domain_eq(&h, &cp->inclusion.leaf))
        return failf(slot, k, i, c,
                     "%s.inclusion_proof.leaf is not the Poseidon hash of %s.column.rows", name,
                     name);
    snprintf(what, sizeof what, "%s.inclusion_proof", name);
    return check_path(slot, k, i, c, &cp->inclusion, false, node, &x->comm_c, what, "comm_c");
}

static bool check_challenge(czk_err *slot, const check_ctx *x, uint32_t k, uint32_t i) {
    const czk_c1 *c1 = x->c1;
    const czk_porep_shape *s = x->pr->shape;
    uint32_t cpp = c1->challenges_per_partition;
    const czk_vanilla_proof *v = &c1->proofs[(size_t)k * cpp + i];
    uint64_t c = x->challenges[(size_t)k * cpp + i];
    unsigned L = s->layers;

    /* the challenge, as the labeling and encoding proofs carry it */
    for (unsigned l = 0; l < L; l++) {
        if (v->labeling[l].node != c)
            return failf(slot, k, i, c, "labeling_proofs[%u].node is %llu, the challenge is %llu",
                         l, (unsigned long long)v->labeling[l].node, (unsigned long long)c);
        if (v->labeling[l].layer_index != l + 1)
            return failf(slot, k, i, c, "labeling_proofs[%u].layer_index is %u, expected %u", l,
                         v->labeling[l].layer_index, l + 1);
    }
    if (v->encoding.node != c)
        return failf(slot, k, i, c, "encoding_proof.node is %llu, the challenge is %llu",
                     (unsigned long long)v->encoding.node, (unsigned long long)c);
    if (v->encoding.layer_index != L)
        return failf(slot, k, i, c, "encoding_proof.layer_index is %u, expected %u",
                     v->encoding.layer_index, L);

    /* TreeD */
    if (!check_path(slot, k, i, c, &v->comm_d_proof, true, c, &c1->comm_d, "comm_d_proofs",
                    "comm_d"))
        return false;

    /* columns: c_x, then the parents of c */
    uint32_t parents[CZK_POREP_DEGREE];
    czk_err gerr;
    if (czk_porep_graph_parents(x->graph, c, parents, &gerr) != CZK_OK)
        return failf(slot, k, i, c, "%s", gerr.msg);
    if (!check_column(slot, x, k, i, c, &v->c_x, c, "c_x")) return false;
    for (unsigned j = 0; j < CZK_POREP_DEGREE; j++) {
        char name[32];
        bool drg = j < CZK_POREP_BASE_DEGREE;
        unsigned jj = drg ? j : j - CZK_POREP_BASE_DEGREE;
        snprintf(name, sizeof name, "%s[%u]", drg ? "drg_parents" : "exp_parents", jj);
        const czk_column_proof *cp = drg ? &v->drg_parents[jj] : &v->exp_parents[jj];
        if (!check_column(slot, x, k, i, c, cp, parents[j], name)) return false;
    }

    /* labels: the 37 parents the circuit uses, then the label itself */
    for (unsigned l = 0; l < L; l++) {
        const czk_labeling_proof *lp = &v->labeling[l];
        unsigned nparents = l == 0 ? CZK_POREP_BASE_DEGREE : CZK_POREP_DEGREE;
        for (unsigned j = 0; j < TOTAL_PARENTS; j++) {
            unsigned q = j % nparents;
            bool drg = q < CZK_POREP_BASE_DEGREE;
            unsigned jj = drg ? q : q - CZK_POREP_BASE_DEGREE;
            unsigned row = drg ? l : l - 1; /* expander parents: the previous layer */
            const czk_domain *want =
                drg ? &v->drg_parents[jj].rows[row] : &v->exp_parents[jj].rows[row];
            if (!domain_eq(&lp->parents[j], want))
                return failf(slot, k, i, c,
                             "labeling_proofs[%u].parents[%u] is not %s[%u].column.rows[%u]", l, j,
                             drg ? "drg_parents" : "exp_parents", jj, row);
        }
        czk_domain label;
        label_of(&label, &c1->replica_id, l + 1, c, lp->parents, TOTAL_PARENTS);
        if (!domain_eq(&label, &v->c_x.rows[l]))
            return failf(slot, k, i, c,
                         "labeling_proofs[%u]: the label of layer %u computed from its parents is "
                         "not c_x.column.rows[%u]",
                         l, l + 1, l);
    }

    /* encoding: replica node = label_L + data node, the leaf of TreeR */
    for (unsigned j = 0; j < TOTAL_PARENTS; j++)
        if (!domain_eq(&v->encoding.parents[j], &v->labeling[L - 1].parents[j]))
            return failf(slot, k, i, c,
                         "encoding_proof.parents[%u] is not labeling_proofs[%u].parents[%u]", j,
                         L - 1, j);
    czk_fr key, data, enc;
    if (czk_fr_from_bytes(&key, v->c_x.rows[L - 1].b, NULL) ||
        czk_fr_from_bytes(&data, v->comm_d_proof.leaf.b, NULL))
        return failf(slot, k, i, c, "comm_d_proofs.leaf or a label is not below r");
    czk_fr_add(&enc, &key, &data);
    czk_domain want;
    czk_fr_to_bytes(want.b, &enc);
    if (!domain_eq(&want, &v->comm_r_last_proof.leaf))
        return failf(slot, k, i, c,
                     "comm_r_last_proof.leaf is not the encoding c_x.column.rows[%u] + "
                     "comm_d_proofs.leaf",
                     L - 1);
    return check_path(slot, k, i, c, &v->comm_r_last_proof, false, c, &x->comm_r_last,
                      "comm_r_last_proof", "comm_r_last");
}

static void check_task(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    check_ctx *x = arg;
    uint32_t cpp = x->c1->challenges_per_partition;
    for (size_t n = begin; n < end; n++)
        check_challenge(&x->slots[n], x, (uint32_t)(n / cpp), (uint32_t)(n % cpp));
}

/* The challenges of every partition, [k · cpp + i]. */
static czk_status derive_challenges(uint64_t *out, const czk_c1 *c1, const czk_porep_proof *pr,
                                    czk_err *err) {
    for (uint32_t k = 0; k < pr->partitions; k++) {
        czk_status st = czk_porep_challenges(out + (size_t)k * pr->challenges_per_partition, pr,
                                             c1->replica_id.b, c1->seed.b, c1->comm_r.b, k, err);
        if (st) return czk_err_wrap(err, "partition %u", k);
    }
    return CZK_OK;
}

static void hex32(char out[65], const uint8_t b[32]) {
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

czk_status czk_c1_precheck(const czk_c1 *c1, const czk_precheck_opts *opts, czk_pool *pool,
                           czk_err *err) {
    czk_status st = czk_c1_check_shape(c1, -1, err);
    if (st) return st;
    czk_porep_proof pr;
    if ((st = czk_porep_proof_lookup(c1->registered_proof, &pr, err))) return st;
    return czk_c1_precheck_resolved(c1, &pr, opts, pool, err);
}

czk_status czk_c1_precheck_resolved(const czk_c1 *c1, const czk_porep_proof *proof,
                                    const czk_precheck_opts *opts, czk_pool *pool, czk_err *err) {
    czk_status st = CZK_OK;
    const czk_porep_proof pr = *proof;
    if (!czk_domain_is_canonical(&c1->replica_id) || !czk_domain_is_canonical(&c1->comm_d) ||
        !czk_domain_is_canonical(&c1->comm_r))
        return czk_errf(err, CZK_ERR_FORMAT, "replica_id, comm_d or comm_r is not below r");
    if (opts && opts->have_ids) {
        uint8_t prover[32], rid[32];
        czk_porep_prover_id(prover, opts->miner_id);
        czk_porep_replica_id(rid, prover, opts->sector_num, c1->ticket.b, c1->comm_d.b,
                             pr.porep_id);
        if (memcmp(rid, c1->replica_id.b, 32)) {
            char want[65], got[65];
            hex32(want, rid);
            hex32(got, c1->replica_id.b);
            return czk_errf(err, CZK_ERR_MISMATCH,
                            "replica_id %s is not the replica_id %s of miner f0%llu, sector %llu "
                            "(with the C1's ticket, comm_d and porep_id)",
                            got, want, (unsigned long long)opts->miner_id,
                            (unsigned long long)opts->sector_num);
        }
    }
    check_ctx x = {.c1 = c1, .pr = &pr};
    x.comm_c = c1->proofs[0].c_x.inclusion.root;
    x.comm_r_last = c1->proofs[0].comm_r_last_proof.root;
    czk_domain pair[2] = {x.comm_c, x.comm_r_last}, h;
    if (!poseidon_domains(&h, pair, 2) || !domain_eq(&h, &c1->comm_r))
        return czk_errf(err, CZK_ERR_VERIFY,
                        "comm_r is not Poseidon2(comm_c, comm_r_last) of partition 0, challenge 0 "
                        "(c_x.inclusion_proof.root, comm_r_last_proof.root)");

    size_t n = (size_t)pr.partitions * pr.challenges_per_partition;
    uint64_t *ch = malloc(n * sizeof *ch);
    x.slots = calloc(n, sizeof *x.slots);
    czk_porep_graph *own = NULL;
    if (!ch || !x.slots) {
        st = czk_errf(err, CZK_ERR_NOMEM, "precheck: out of memory");
        goto out;
    }
    if ((st = derive_challenges(ch, c1, &pr, err))) goto out;
    x.challenges = ch;
    x.graph = opts ? opts->graph : NULL;
    if (!x.graph) {
        if ((st = czk_c1_graph(&own, c1, pool, err))) goto out;
        x.graph = own;
    } else if (czk_porep_graph_nodes(x.graph) != pr.shape->nodes) {
        st = czk_errf(err, CZK_ERR_MISMATCH, "precheck: a graph of %llu nodes for a %s sector",
                      (unsigned long long)czk_porep_graph_nodes(x.graph), pr.shape->name);
        goto out;
    }
    czk_pool_for(pool, n, 1, check_task, &x);
    for (size_t j = 0; j < n; j++)
        if (x.slots[j].code != CZK_OK) {
            st = x.slots[j].code;
            if (err) *err = x.slots[j];
            break;
        }
out:
    czk_porep_graph_destroy(own);
    free(ch);
    free(x.slots);
    return st;
}

/* ---- public inputs ---- */

uint32_t czk_c1_num_public_inputs(const czk_c1 *c1) {
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, NULL) != CZK_OK) return 0;
    czk_porep_config cfg;
    czk_porep_config_for_proof(&cfg, &pr);
    return czk_porep_num_inputs(&cfg) - 1;
}

czk_status czk_c1_public_inputs(czk_fr *out, const czk_c1 *c1, const czk_porep_graph *graph,
                                unsigned k, czk_err *err) {
    return czk_porep_chain_inputs(out, c1, c1->replica_id.b, graph, k, err);
}
