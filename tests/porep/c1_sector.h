/*
 * A consistent synthetic sector and its C1, for tests and fuzz seeds.
 *
 * Built from first principles with czk's native hashes, independently of
 * the pre-check's code: random Fr32 data (byte 31 & 0x3f), TreeD (binary
 * SHA-256, byte 31 &= 0x3f), SDR labels (create_label/single.rs: node 0
 * hashes only replica_id ‖ layer ‖ node; other nodes add their parents'
 * labels, layer 1: the 6 DRG parents × 6 then the first; later layers: the
 * 6 DRG parents of this layer and the 8 expander parents of the previous
 * one, × 2, then the first 9), the replica (label_L + data in Fr), TreeC
 * over the Poseidon-L column hashes and TreeR over the replica (Poseidon
 * of the shape's arities), comm_r = Poseidon2(comm_c, comm_r_last), and the
 * vanilla proofs of the chain's challenges (stacked/vanilla/proof.rs
 * prove_layers). The labeling is checked against the label KATs of
 * spec/sealing-vectors.md §C and TreeD against §E (tests/porep/c1_precheck.c).
 *
 * Sizes: meant for 2KiB shapes (64 nodes), milliseconds.
 */
#ifndef CZK_TEST_C1_SECTOR_H
#define CZK_TEST_C1_SECTOR_H

#include "czk/porep_c1.h"
#include "czk/porep_graph.h"
#include "czk/poseidon.h"
#include "porep/c1_internal.h"
#include "porep/hash.h"
#include "util/digest.h"

#include <stdlib.h>
#include <string.h>

typedef struct ts_tree {
    unsigned levels;                       /* hashing levels */
    unsigned arity[CZK_MERKLE_MAX_LEVELS]; /* per level */
    uint64_t width[CZK_MERKLE_MAX_LEVELS + 1];
    uint64_t off[CZK_MERKLE_MAX_LEVELS + 1]; /* first node of each level in nodes[] */
    czk_domain *nodes;                       /* leaves, then each level up to the root */
    bool sha;
} ts_tree;

typedef struct ts_sector {
    czk_porep_proof pr;
    uint64_t nodes;
    unsigned layers;
    czk_porep_graph *graph;
    czk_domain replica_id, comm_d, comm_c, comm_r_last, comm_r, seed, ticket;
    czk_domain *data, *labels /* [l · nodes + v], l = 0.. */, *replica, *colhash;
    ts_tree tree_d, tree_c, tree_r;
} ts_sector;

/* Called after labels and replica, before the trees: may corrupt the sector. */
typedef void (*ts_tamper_fn)(ts_sector *s, void *arg);

static inline uint64_t ts_rng(uint64_t *st) {
    uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void ts_sha_node(czk_domain *out, const czk_domain *a, const czk_domain *b) {
    uint8_t buf[64];
    memcpy(buf, a->b, 32);
    memcpy(buf + 32, b->b, 32);
    czk_sha256_digest(out->b, buf, 64);
    out->b[31] &= 0x3f;
}

static inline bool ts_poseidon(czk_domain *out, const czk_domain *in, unsigned n) {
    czk_fr pre[16], h;
    for (unsigned i = 0; i < n; i++)
        if (czk_fr_from_bytes(&pre[i], in[i].b, NULL)) return false;
    if (czk_poseidon_hash(&h, pre, n, NULL)) return false;
    czk_fr_to_bytes(out->b, &h);
    return true;
}

/*
 * SDR labels of all layers: out[l · nodes + v] = label of node v in layer
 * l + 1. replica_id is used as its 32 bytes.
 */
static inline bool ts_labels(czk_domain *out, const czk_porep_graph *g, unsigned layers,
                             const uint8_t replica_id[32]) {
    uint64_t nodes = czk_porep_graph_nodes(g);
    for (unsigned l = 0; l < layers; l++) {
        czk_domain *cur = out + (size_t)l * nodes, *prev = cur - nodes;
        for (uint64_t v = 0; v < nodes; v++) {
            uint8_t head[64] = {0};
            memcpy(head, replica_id, 32);
            uint32_t layer = l + 1;
            for (int i = 0; i < 4; i++)
                head[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
            czk_store_be64(head + 36, v);
            /* the message: head, then (v > 0) 37 parent labels */
            uint8_t msg[64 + 37 * 32];
            size_t len = 64;
            memcpy(msg, head, 64);
            if (v > 0) {
                uint32_t p[CZK_POREP_DEGREE];
                if (czk_porep_graph_parents(g, v, p, NULL)) return false;
                unsigned np = l == 0 ? CZK_POREP_BASE_DEGREE : CZK_POREP_DEGREE;
                for (unsigned j = 0; j < 37; j++) {
                    unsigned q = j % np;
                    const czk_domain *d = q < CZK_POREP_BASE_DEGREE ? &cur[p[q]] : &prev[p[q]];
                    memcpy(msg + len, d->b, 32);
                    len += 32;
                }
            }
            czk_sha256_digest(cur[v].b, msg, len);
            cur[v].b[31] &= 0x3f;
        }
    }
    return true;
}

static inline bool ts_tree_build(ts_tree *t, const czk_domain *leaves, uint64_t n, bool sha,
                                 const unsigned *arity, unsigned levels) {
    t->sha = sha;
    t->levels = levels;
    uint64_t total = 0, w = n;
    for (unsigned l = 0; l <= levels; l++) {
        t->off[l] = total;
        t->width[l] = w;
        total += w;
        if (l < levels) {
            t->arity[l] = arity[l];
            w /= arity[l];
        }
    }
    if (w != 1) return false;
    t->nodes = calloc(total, sizeof *t->nodes);
    if (!t->nodes) return false;
    memcpy(t->nodes, leaves, n * sizeof *leaves);
    for (unsigned l = 0; l < levels; l++) {
        for (uint64_t j = 0; j < t->width[l + 1]; j++) {
            const czk_domain *kids = &t->nodes[t->off[l] + j * arity[l]];
            czk_domain *o = &t->nodes[t->off[l + 1] + j];
            if (sha)
                ts_sha_node(o, &kids[0], &kids[1]);
            else if (!ts_poseidon(o, kids, arity[l]))
                return false;
        }
    }
    return true;
}

static inline const czk_domain *ts_root(const ts_tree *t) {
    return &t->nodes[t->off[t->levels]];
}

/* The inclusion proof of leaf x, with the part structure of kind/parts. */
static inline bool ts_tree_proof(czk_c1 *c1, czk_merkle_proof *p, const ts_tree *t, uint64_t x,
                                 czk_merkle_kind kind, const uint32_t parts[3]) {
    size_t nsib = 0;
    for (unsigned l = 0; l < t->levels; l++)
        nsib += t->arity[l] - 1;
    p->siblings = czk_c1_alloc(c1, nsib * sizeof *p->siblings);
    if (!p->siblings) return false;
    p->kind = kind;
    p->leaf = t->nodes[x];
    p->root = *ts_root(t);
    p->num_levels = t->levels;
    memcpy(p->levels_in_part, parts, 3 * sizeof *parts);
    czk_domain *s = p->siblings;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l], pos = (unsigned)(x % a);
        uint64_t first = x - pos;
        p->arity[l] = (uint8_t)a;
        p->index[l] = pos;
        for (unsigned j = 0; j < a; j++)
            if (j != pos) *s++ = t->nodes[t->off[l] + first + j];
        x /= a;
    }
    return true;
}

static inline void ts_free(ts_sector *s) {
    czk_porep_graph_destroy(s->graph);
    free(s->data);
    free(s->labels);
    free(s->replica);
    free(s->colhash);
    free(s->tree_d.nodes);
    free(s->tree_c.nodes);
    free(s->tree_r.nodes);
    memset(s, 0, sizeof *s);
}

/*
 * Seals a random sector of registered proof `id` for miner f0<miner>,
 * sector number `sector`, with the given ticket and seed bytes and data
 * from `data_seed`. `tamper` (may be NULL) runs before the trees.
 */
static inline bool ts_seal(ts_sector *s, uint32_t id, uint64_t miner, uint64_t sector,
                           const uint8_t ticket[32], const uint8_t seed[32], uint64_t data_seed,
                           ts_tamper_fn tamper, void *arg) {
    memset(s, 0, sizeof *s);
    if (czk_porep_proof_lookup(id, &s->pr, NULL)) return false;
    const czk_porep_shape *sh = s->pr.shape;
    uint64_t n = s->nodes = sh->nodes;
    unsigned L = s->layers = sh->layers;
    memcpy(s->ticket.b, ticket, 32);
    memcpy(s->seed.b, seed, 32);
    if (czk_porep_graph_create(&s->graph, n, s->pr.porep_id, s->pr.api, NULL, NULL)) return false;
    s->data = calloc(n, sizeof *s->data);
    s->labels = calloc(n * L, sizeof *s->labels);
    s->replica = calloc(n, sizeof *s->replica);
    s->colhash = calloc(n, sizeof *s->colhash);
    if (!s->data || !s->labels || !s->replica || !s->colhash) return false;
    uint64_t st = data_seed;
    for (uint64_t v = 0; v < n; v++) {
        for (int i = 0; i < 4; i++) {
            uint64_t r = ts_rng(&st);
            memcpy(s->data[v].b + 8 * i, &r, 8);
        }
        s->data[v].b[31] &= 0x3f;
    }
    unsigned d_arity[CZK_MERKLE_MAX_LEVELS];
    for (unsigned l = 0; l < sh->log2_nodes; l++)
        d_arity[l] = 2;
    if (!ts_tree_build(&s->tree_d, s->data, n, true, d_arity, sh->log2_nodes)) return false;
    s->comm_d = *ts_root(&s->tree_d);
    uint8_t prover[32];
    czk_porep_prover_id(prover, miner);
    czk_porep_replica_id(s->replica_id.b, prover, sector, ticket, s->comm_d.b, s->pr.porep_id);
    if (!ts_labels(s->labels, s->graph, L, s->replica_id.b)) return false;
    for (uint64_t v = 0; v < n; v++) {
        czk_fr a, b;
        if (czk_fr_from_bytes(&a, s->labels[(size_t)(L - 1) * n + v].b, NULL) ||
            czk_fr_from_bytes(&b, s->data[v].b, NULL))
            return false;
        czk_fr_add(&a, &a, &b);
        czk_fr_to_bytes(s->replica[v].b, &a);
    }
    if (tamper) tamper(s, arg);
    for (uint64_t v = 0; v < n; v++) {
        czk_domain col[16];
        for (unsigned l = 0; l < L; l++)
            col[l] = s->labels[(size_t)l * n + v];
        if (!ts_poseidon(&s->colhash[v], col, L)) return false;
    }
    uint32_t parts[3];
    czk_c1_tree_levels(sh, parts);
    unsigned rc_arity[CZK_MERKLE_MAX_LEVELS], nl = 0;
    for (uint32_t j = 0; j < parts[0]; j++)
        rc_arity[nl++] = sh->tree_base_arity;
    if (parts[1]) rc_arity[nl++] = sh->tree_sub_arity;
    if (parts[2]) rc_arity[nl++] = sh->tree_top_arity;
    if (!ts_tree_build(&s->tree_c, s->colhash, n, false, rc_arity, nl) ||
        !ts_tree_build(&s->tree_r, s->replica, n, false, rc_arity, nl))
        return false;
    s->comm_c = *ts_root(&s->tree_c);
    s->comm_r_last = *ts_root(&s->tree_r);
    czk_domain pair[2] = {s->comm_c, s->comm_r_last};
    return ts_poseidon(&s->comm_r, pair, 2);
}

static inline bool ts_column(czk_c1 *c1, const ts_sector *s, czk_column_proof *cp, uint64_t v,
                             czk_merkle_kind kind, const uint32_t parts[3]) {
    cp->index = (uint32_t)v;
    cp->num_rows = s->layers;
    cp->rows = czk_c1_alloc(c1, s->layers * sizeof *cp->rows);
    if (!cp->rows) return false;
    for (unsigned l = 0; l < s->layers; l++)
        cp->rows[l] = s->labels[(size_t)l * s->nodes + v];
    return ts_tree_proof(c1, &cp->inclusion, &s->tree_c, v, kind, parts);
}

/* The C1 of a sealed sector: the vanilla proofs of the chain's challenges. */
static inline czk_c1 *ts_c1(const ts_sector *s) {
    const czk_porep_proof *pr = &s->pr;
    czk_c1 *c1 =
        czk_c1_create((uint32_t)pr->id, pr->partitions, pr->challenges_per_partition, NULL);
    if (!c1) return NULL;
    c1->comm_r = s->comm_r;
    c1->comm_d = s->comm_d;
    c1->replica_id = s->replica_id;
    c1->seed = s->seed;
    c1->ticket = s->ticket;
    uint32_t dparts[3] = {pr->shape->log2_nodes, 0, 0}, parts[3];
    czk_merkle_kind kind = czk_c1_tree_levels(pr->shape, parts);
    unsigned L = s->layers;
    for (unsigned k = 0; k < pr->partitions; k++) {
        uint64_t ch[64];
        if (czk_porep_challenges(ch, pr, s->replica_id.b, s->seed.b, s->comm_r.b, k, NULL))
            goto fail;
        for (unsigned i = 0; i < pr->challenges_per_partition; i++) {
            czk_vanilla_proof *v = &c1->proofs[(size_t)k * pr->challenges_per_partition + i];
            uint64_t c = ch[i];
            uint32_t p[CZK_POREP_DEGREE];
            if (czk_porep_graph_parents(s->graph, c, p, NULL)) goto fail;
            if (!ts_tree_proof(c1, &v->comm_d_proof, &s->tree_d, c, CZK_MERKLE_SINGLE, dparts) ||
                !ts_tree_proof(c1, &v->comm_r_last_proof, &s->tree_r, c, kind, parts) ||
                !ts_column(c1, s, &v->c_x, c, kind, parts))
                goto fail;
            for (unsigned j = 0; j < CZK_POREP_DEGREE; j++) {
                czk_column_proof *cp = j < 6 ? &v->drg_parents[j] : &v->exp_parents[j - 6];
                if (!ts_column(c1, s, cp, p[j], kind, parts)) goto fail;
            }
            v->num_labeling = L;
            v->labeling = czk_c1_alloc(c1, L * sizeof *v->labeling);
            if (!v->labeling) goto fail;
            for (unsigned l = 0; l < L; l++) {
                czk_labeling_proof *lp = &v->labeling[l];
                lp->layer_index = l + 1;
                lp->node = c;
                lp->num_parents = 37;
                lp->parents = czk_c1_alloc(c1, 37 * sizeof *lp->parents);
                if (!lp->parents) goto fail;
                unsigned np = l == 0 ? CZK_POREP_BASE_DEGREE : CZK_POREP_DEGREE;
                for (unsigned j = 0; j < 37; j++) {
                    unsigned q = j % np;
                    unsigned layer = q < CZK_POREP_BASE_DEGREE ? l : l - 1;
                    lp->parents[j] = s->labels[(size_t)layer * s->nodes + p[q]];
                }
            }
            v->encoding = v->labeling[L - 1];
        }
    }
    return c1;
fail:
    czk_c1_free(c1);
    return NULL;
}

/* ---- random C1s: the right shape, random canonical values (not consistent) ---- */

static inline void ts_rnd_domain(uint64_t *st, czk_domain *d) {
    for (int i = 0; i < 4; i++) {
        uint64_t v = ts_rng(st);
        memcpy(d->b + 8 * i, &v, 8);
    }
    d->b[31] &= 0x3f;
}

static inline czk_domain *ts_rnd_domains(uint64_t *st, czk_c1 *c1, uint32_t n) {
    czk_domain *d = czk_c1_alloc(c1, (size_t)n * sizeof *d);
    if (d)
        for (uint32_t i = 0; i < n; i++)
            ts_rnd_domain(st, &d[i]);
    return d;
}

static inline bool ts_rnd_merkle(uint64_t *st, czk_c1 *c1, czk_merkle_proof *p,
                                 czk_merkle_kind kind, const uint32_t lv[3], const unsigned ar[3]) {
    p->kind = kind;
    ts_rnd_domain(st, &p->root);
    ts_rnd_domain(st, &p->leaf);
    uint32_t sibs = 0, l = 0;
    for (int part = 0; part < 3; part++) {
        p->levels_in_part[part] = lv[part];
        for (uint32_t j = 0; j < lv[part]; j++, l++) {
            p->arity[l] = (uint8_t)ar[part];
            p->index[l] = (uint32_t)(ts_rng(st) % ar[part]);
            sibs += ar[part] - 1;
        }
    }
    p->num_levels = l;
    p->siblings = ts_rnd_domains(st, c1, sibs);
    return p->siblings != NULL;
}

/*
 * A C1 of registered proof `id` with the shape of a real one (path lengths,
 * arities, rows, 37 labeling parents) and uniformly random canonical
 * values, so its JSON has the size of a real one. It passes czk_c1_parse,
 * not the pre-check.
 */
static inline czk_c1 *ts_random_c1(uint32_t id, uint64_t seed) {
    czk_porep_proof pr;
    if (czk_porep_proof_lookup(id, &pr, NULL)) return NULL;
    const czk_porep_shape *s = pr.shape;
    czk_c1 *c1 = czk_c1_create(id, pr.partitions, pr.challenges_per_partition, NULL);
    if (!c1) return NULL;
    uint64_t st = seed;
    uint32_t dl[3] = {s->log2_nodes, 0, 0}, rl[3];
    unsigned da[3] = {2, 0, 0}, ra[3] = {s->tree_base_arity, s->tree_sub_arity, s->tree_top_arity};
    czk_merkle_kind rk = czk_c1_tree_levels(s, rl);
    ts_rnd_domain(&st, &c1->comm_r);
    ts_rnd_domain(&st, &c1->comm_d);
    ts_rnd_domain(&st, &c1->replica_id);
    ts_rnd_domain(&st, &c1->seed);
    ts_rnd_domain(&st, &c1->ticket);
    for (size_t n = 0; n < (size_t)pr.partitions * pr.challenges_per_partition; n++) {
        czk_vanilla_proof *v = &c1->proofs[n];
        uint64_t c = 1 + ts_rng(&st) % (s->nodes - 1);
        if (!ts_rnd_merkle(&st, c1, &v->comm_d_proof, CZK_MERKLE_SINGLE, dl, da) ||
            !ts_rnd_merkle(&st, c1, &v->comm_r_last_proof, rk, rl, ra))
            goto fail;
        for (int i = 0; i < 15; i++) {
            czk_column_proof *cp = i == 0   ? &v->c_x
                                   : i <= 6 ? &v->drg_parents[i - 1]
                                            : &v->exp_parents[i - 7];
            cp->index = (uint32_t)(ts_rng(&st) % s->nodes);
            cp->num_rows = s->layers;
            if (!(cp->rows = ts_rnd_domains(&st, c1, s->layers)) ||
                !ts_rnd_merkle(&st, c1, &cp->inclusion, rk, rl, ra))
                goto fail;
        }
        v->num_labeling = s->layers;
        v->labeling = czk_c1_alloc(c1, s->layers * sizeof *v->labeling);
        if (!v->labeling) goto fail;
        for (unsigned l = 0; l <= s->layers; l++) {
            czk_labeling_proof *lp = l < s->layers ? &v->labeling[l] : &v->encoding;
            lp->layer_index = l < s->layers ? l + 1 : s->layers;
            lp->node = c;
            lp->num_parents = 37;
            if (!(lp->parents = ts_rnd_domains(&st, c1, 37))) goto fail;
        }
    }
    return c1;
fail:
    czk_c1_free(c1);
    return NULL;
}

#endif
