/*
 * The StackedDRG PoRep circuit of one partition (rust-fil-proofs v28
 * stacked/circuit/proof.rs, params.rs; spec §3) and its public inputs
 * (StackedCompound::generate_public_inputs; spec §2).
 *
 * The body is one function run in every cs mode. With no witness every value
 * is zero, which is all RECORD needs: the gadgets' constant folding depends
 * only on which bits are constants, never on witness values, so the shape is
 * the same as with a real witness. The witness is the plain struct of
 * porep_circuit.h (32-byte Domain values, path positions), converted to Fr
 * here one path at a time, so that a C1 parser only copies bytes.
 *
 * Order matters to the last allocation: the Groth16 parameters fix the
 * column of every variable and the row of every constraint. The comments
 * name upstream's namespaces; czk pushes the same names for CHECK reports.
 */
#include "czk/porep_circuit.h"

#include "czk/gadgets.h"
#include "czk/poseidon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUM_DRG 6u
#define NUM_EXP 8u

void czk_porep_config_for_shape(czk_porep_config *out, const czk_porep_shape *shape) {
    out->nodes = shape->nodes;
    out->layers = shape->layers;
    out->challenges = shape->challenges_per_partition;
    out->base_arity = shape->tree_base_arity;
    out->sub_arity = shape->tree_sub_arity;
    out->top_arity = shape->tree_top_arity;
}

void czk_porep_config_for_proof(czk_porep_config *out, const czk_porep_proof *proof) {
    czk_porep_config_for_shape(out, proof->shape);
    out->challenges = proof->challenges_per_partition;
}

czk_status czk_porep_config_check(const czk_porep_config *cfg, czk_por_tree *tree_d,
                                  czk_por_tree *tree_rc, czk_err *err) {
    if (cfg->nodes < 2 || (cfg->nodes & (cfg->nodes - 1)))
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "porep circuit: %llu nodes, need a power of two >= 2",
                        (unsigned long long)cfg->nodes);
    if (cfg->layers < 2 || !czk_poseidon_arity_supported(cfg->layers))
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "porep circuit: %u layers, need a Poseidon arity (2, 4, 8, 11, 16, 24, 36)",
                        cfg->layers);
    /* 4 + 18·challenges inputs must fit the cs's 31-bit indices. */
    if (cfg->challenges > (1u << 26))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep circuit: %u challenges", cfg->challenges);
    czk_por_tree d, rc;
    czk_status st = czk_por_tree_for_leaves(&d, CZK_POR_SHA256, cfg->nodes, 2, 0, 0, err);
    if (st) {
        czk_err_wrap(err, "porep circuit TreeD");
        return st;
    }
    st = czk_por_tree_for_leaves(&rc, CZK_POR_POSEIDON, cfg->nodes, cfg->base_arity, cfg->sub_arity,
                                 cfg->top_arity, err);
    if (st) {
        czk_err_wrap(err, "porep circuit TreeC/TreeR");
        return st;
    }
    if (tree_d) *tree_d = d;
    if (tree_rc) *tree_rc = rc;
    return CZK_OK;
}

uint32_t czk_porep_num_inputs(const czk_porep_config *cfg) {
    return 1 + CZK_POREP_INPUTS_TOP + CZK_POREP_INPUTS_PER_CHALLENGE * cfg->challenges;
}

/* ---- witness storage ---- */

/* Carves the arrays of one path out of the block. */
static void carve_path(czk_porep_path *p, const czk_por_tree *t, uint32_t **pos, uint8_t **sib) {
    p->positions = *pos;
    p->siblings = *sib;
    *pos += czk_por_tree_levels(t);
    *sib += 32u * czk_por_tree_siblings(t);
}

czk_status czk_porep_witness_alloc(czk_porep_witness **out, const czk_porep_config *cfg,
                                   czk_err *err) {
    czk_por_tree td, trc;
    czk_status st = czk_porep_config_check(cfg, &td, &trc, err);
    if (st) return st;
    size_t n = cfg->challenges;
    size_t rc_paths = 2 + CZK_POREP_CIRCUIT_PARENTS;
    size_t npos = czk_por_tree_levels(&td) + rc_paths * czk_por_tree_levels(&trc);
    size_t nbytes = 32u * (czk_por_tree_siblings(&td) + rc_paths * czk_por_tree_siblings(&trc) +
                           (size_t)CZK_POREP_CIRCUIT_PARENTS * cfg->layers);
    size_t head = sizeof(czk_porep_witness) + n * sizeof(czk_porep_challenge_proof);
    head = (head + 15) & ~(size_t)15;
    size_t total = head + n * (npos * sizeof(uint32_t) + nbytes);
    czk_porep_witness *w = calloc(1, total);
    if (!w) return czk_errf(err, CZK_ERR_NOMEM, "porep witness of %zu bytes", total);
    w->config = *cfg;
    w->challenges = (czk_porep_challenge_proof *)(w + 1);
    uint32_t *pos = (uint32_t *)((uint8_t *)w + head);
    uint8_t *bytes = (uint8_t *)(pos + n * npos);
    for (size_t i = 0; i < n; i++) {
        czk_porep_challenge_proof *c = &w->challenges[i];
        carve_path(&c->comm_d_path, &td, &pos, &bytes);
        for (unsigned j = 0; j < CZK_POREP_CIRCUIT_PARENTS; j++) {
            czk_porep_column *col = j < NUM_DRG ? &c->drg_parents[j] : &c->exp_parents[j - NUM_DRG];
            col->rows = bytes;
            bytes += 32u * cfg->layers;
            carve_path(&col->path, &trc, &pos, &bytes);
        }
        carve_path(&c->comm_r_last_path, &trc, &pos, &bytes);
        carve_path(&c->comm_c_path, &trc, &pos, &bytes);
    }
    *out = w;
    return CZK_OK;
}

void czk_porep_witness_free(czk_porep_witness *w) {
    free(w);
}

/* ---- synthesis ---- */

typedef struct synth {
    czk_cs *cs;
    const czk_porep_config *cfg;
    const czk_porep_witness *w;
    czk_por_tree tree_d, tree_rc;
    czk_bool replica_bits[256];
    czk_num comm_d, comm_c, comm_r_last;
    /* scratch */
    czk_num *rows;          /* 14 · layers */
    czk_num *labels;        /* layers */
    czk_bool (*pbits)[256]; /* 14 parents' bits */
    czk_fr *sib;            /* one path's siblings */
    czk_var *vars;          /* layers */
    czk_fr *vals;           /* layers */
} synth;

/* Fr of a witness value (NULL: zero); a value ≥ r fails the cs, naming it. */
static czk_status fr_of(synth *s, czk_fr *out, const uint8_t *bytes, const char *what, long ch) {
    if (!bytes) {
        *out = czk_fr_zero;
        return CZK_OK;
    }
    czk_err e;
    if (czk_fr_from_bytes(out, bytes, &e) == CZK_OK) return CZK_OK;
    *out = czk_fr_zero;
    if (ch < 0)
        return czk_cs_fail(s->cs, CZK_ERR_FR_RANGE, "porep witness: %s is not below r", what);
    return czk_cs_fail(s->cs, CZK_ERR_FR_RANGE, "porep witness: challenge %ld: %s is not below r",
                       ch, what);
}

static czk_num alloc_value(synth *s, const uint8_t *bytes, const char *what, long ch) {
    czk_fr v;
    fr_of(s, &v, bytes, what, ch);
    return czk_num_alloc(s->cs, &v);
}

/* enforce_inclusion: a private-root PoR of leaf into root, in namespace ns. */
static czk_status inclusion(synth *s, const czk_por_tree *t, const czk_num *leaf,
                            const czk_num *root, const czk_porep_path *p, long ch, const char *ns) {
    czk_por_path path;
    const czk_por_path *pp = NULL;
    if (p) {
        unsigned n = czk_por_tree_siblings(t);
        for (unsigned i = 0; i < n; i++)
            if (fr_of(s, &s->sib[i], p->siblings + 32u * i, ns, ch)) return czk_cs_status(s->cs);
        path.positions = p->positions;
        path.siblings = s->sib;
        pp = &path;
    }
    czk_cs_push_ns(s->cs, "%s", ns);
    czk_status st = czk_por(s->cs, t, leaf, root, pp, false, NULL);
    czk_cs_pop_ns(s->cs);
    return st;
}

/* hash_single_column: Poseidon of arity L over L variables. */
static czk_status column_hash(synth *s, const czk_num *col, czk_num *out) {
    unsigned L = s->cfg->layers;
    for (unsigned i = 0; i < L; i++) {
        s->vars[i] = col[i].var;
        s->vals[i] = col[i].value;
    }
    return czk_poseidon_circuit(s->cs, s->vars, s->vals, L, &out->var, &out->value);
}

/* rbn(to_bits_le(x)) into 256 bits. */
static czk_status parent_bits(synth *s, const czk_num *x, czk_bool out[256]) {
    czk_bool le[CZK_FR_NUM_BITS];
    czk_status st = czk_num_to_bits_le(s->cs, x, le);
    czk_reverse_bit_numbering(out, le, CZK_FR_NUM_BITS);
    return st;
}

/* params.rs Proof::synthesize, challenge i. */
static czk_status challenge(synth *s, unsigned i) {
    czk_cs *cs = s->cs;
    const unsigned L = s->cfg->layers;
    const czk_porep_challenge_proof *cp = s->w ? &s->w->challenges[i] : NULL;
    const long ch = i;
    czk_status st;
    char ns[48];

    czk_cs_push_ns(cs, "data_leaf");
    czk_num data_leaf = alloc_value(s, cp ? cp->data_leaf : NULL, "data_leaf", ch);
    czk_cs_pop_ns(cs);
    st = inclusion(s, &s->tree_d, &data_leaf, &s->comm_d, cp ? &cp->comm_d_path : NULL, ch,
                   "comm_d_inclusion");
    if (st) return st;

    /* 6 DRG, then 8 expander parent columns: rows, column hash, inclusion in comm_c. */
    for (unsigned p = 0; p < CZK_POREP_CIRCUIT_PARENTS; p++) {
        bool drg = p < NUM_DRG;
        unsigned k = drg ? p : p - NUM_DRG;
        const czk_porep_column *col = cp ? (drg ? &cp->drg_parents[k] : &cp->exp_parents[k]) : NULL;
        czk_num *rows = s->rows + (size_t)p * L;
        snprintf(ns, sizeof ns, "%s_parent_%u_num", drg ? "drg" : "exp", k);
        czk_cs_push_ns(cs, "%s", ns);
        for (unsigned r = 0; r < L; r++)
            rows[r] = alloc_value(s, col ? col->rows + 32u * r : NULL, ns, ch);
        czk_cs_pop_ns(cs);
        czk_num h;
        czk_cs_push_ns(cs, "%s_parent_%u_constraint", drg ? "drg" : "exp", k);
        st = column_hash(s, rows, &h);
        czk_cs_pop_ns(cs);
        if (st) return st;
        snprintf(ns, sizeof ns, "%s_parent_%u_inclusion", drg ? "drg" : "exp", k);
        st = inclusion(s, &s->tree_rc, &h, &s->comm_c, col ? &col->path : NULL, ch, ns);
        if (st) return st;
    }

    /* The challenge as UInt64, packed into one input. */
    czk_bool cbits[64];
    czk_cs_push_ns(cs, "challenge");
    czk_bits_alloc_u64_le(cs, cp ? cp->challenge : 0, 64, cbits);
    czk_cs_pop_ns(cs);
    czk_cs_push_ns(cs, "challenge input");
    czk_pack_into_inputs(cs, cbits, 64);
    czk_cs_pop_ns(cs);

    /* Labels of layers 1..L. */
    for (unsigned layer = 1; layer <= L; layer++) {
        czk_cs_push_ns(cs, "labeling_%u", layer);
        unsigned np = 0;
        for (unsigned p = 0; p < NUM_DRG && st == CZK_OK; p++, np++)
            st = parent_bits(s, &s->rows[(size_t)p * L + (layer - 1)], s->pbits[np]);
        if (layer > 1)
            for (unsigned p = NUM_DRG; p < CZK_POREP_CIRCUIT_PARENTS && st == CZK_OK; p++, np++)
                st = parent_bits(s, &s->rows[(size_t)p * L + (layer - 2)], s->pbits[np]);
        const czk_bool *expanded[CZK_LABEL_PARENTS];
        for (unsigned j = 0; j < CZK_LABEL_PARENTS; j++)
            expanded[j] = s->pbits[j % np];
        czk_u32 layer_num;
        czk_u32_constant(&layer_num, layer);
        if (st == CZK_OK) {
            czk_cs_push_ns(cs, "create_label");
            st = czk_create_label(cs, s->replica_bits, 256, &layer_num, cbits, expanded, 256,
                                  &s->labels[layer - 1]);
            czk_cs_pop_ns(cs);
        }
        czk_cs_pop_ns(cs);
        if (st) return st;
    }

    /* encode_node, and its inclusion in comm_r_last. */
    czk_cs_push_ns(cs, "encode_node");
    czk_num enc = czk_num_add(cs, &s->labels[L - 1], &data_leaf);
    czk_cs_pop_ns(cs);
    st = inclusion(s, &s->tree_rc, &enc, &s->comm_r_last, cp ? &cp->comm_r_last_path : NULL, ch,
                   "comm_r_last_data_inclusion");
    if (st) return st;

    /* The challenged column's hash, and its inclusion in comm_c. */
    czk_num h;
    czk_cs_push_ns(cs, "c_x_column_hash");
    st = column_hash(s, s->labels, &h);
    czk_cs_pop_ns(cs);
    if (st) return st;
    return inclusion(s, &s->tree_rc, &h, &s->comm_c, cp ? &cp->comm_c_path : NULL, ch,
                     "c_x_inclusion");
}

static bool config_equal(const czk_porep_config *a, const czk_porep_config *b) {
    return a->nodes == b->nodes && a->layers == b->layers && a->challenges == b->challenges &&
           a->base_arity == b->base_arity && a->sub_arity == b->sub_arity &&
           a->top_arity == b->top_arity;
}

/* proof.rs StackedCircuit::synthesize: the top level, then the challenges. */
static czk_status top_level(synth *s) {
    czk_cs *cs = s->cs;
    const czk_porep_witness *w = s->w;

    czk_cs_push_ns(cs, "replica_id");
    czk_num replica_id = alloc_value(s, w ? w->replica_id : NULL, "replica_id", -1);
    czk_num_inputize(cs, &replica_id);
    czk_bool le[CZK_FR_NUM_BITS];
    czk_status st = czk_num_to_bits_le(cs, &replica_id, le);
    czk_reverse_bit_numbering(s->replica_bits, le, CZK_FR_NUM_BITS);
    czk_cs_pop_ns(cs);
    if (st) return st;

    czk_cs_push_ns(cs, "comm_d");
    s->comm_d = alloc_value(s, w ? w->comm_d : NULL, "comm_d", -1);
    czk_num_inputize(cs, &s->comm_d);
    czk_cs_pop_ns(cs);
    czk_cs_push_ns(cs, "comm_r");
    czk_num comm_r = alloc_value(s, w ? w->comm_r : NULL, "comm_r", -1);
    czk_num_inputize(cs, &comm_r);
    czk_cs_pop_ns(cs);
    s->comm_r_last = alloc_value(s, w ? w->comm_r_last : NULL, "comm_r_last", -1);
    s->comm_c = alloc_value(s, w ? w->comm_c : NULL, "comm_c", -1);

    /* comm_r = H(comm_c || comm_r_last) */
    czk_var in[2] = {s->comm_c.var, s->comm_r_last.var};
    czk_fr vals[2] = {s->comm_c.value, s->comm_r_last.value};
    czk_num h;
    czk_cs_push_ns(cs, "H_comm_c_comm_r_last");
    st = czk_poseidon_circuit(cs, in, vals, 2, &h.var, &h.value);
    czk_cs_pop_ns(cs);
    if (st) return st;
    czk_cs_push_ns(cs, "enforce comm_r = H(comm_c || comm_r_last)");
    czk_num_equal(cs, &comm_r, &h);
    czk_cs_pop_ns(cs);

    for (unsigned i = 0; i < s->cfg->challenges; i++) {
        czk_cs_push_ns(cs, "challenge_%u", i);
        st = challenge(s, i);
        czk_cs_pop_ns(cs);
        if (st) return st;
    }
    return czk_cs_status(cs);
}

czk_status czk_porep_synthesize(czk_cs *cs, const czk_porep_config *cfg,
                                const czk_porep_witness *w) {
    synth s = {.cs = cs, .cfg = cfg, .w = w};
    czk_err e;
    if (czk_porep_config_check(cfg, &s.tree_d, &s.tree_rc, &e))
        return czk_cs_fail(cs, e.code, "%s", e.msg);
    if (w && !config_equal(&w->config, cfg))
        return czk_cs_fail(cs, CZK_ERR_MISMATCH,
                           "porep circuit: the witness was built for another configuration");
    unsigned L = cfg->layers;
    unsigned nsib = czk_por_tree_siblings(&s.tree_d);
    if (czk_por_tree_siblings(&s.tree_rc) > nsib) nsib = czk_por_tree_siblings(&s.tree_rc);
    s.rows = malloc((size_t)CZK_POREP_CIRCUIT_PARENTS * L * sizeof *s.rows);
    s.labels = malloc(L * sizeof *s.labels);
    s.pbits = malloc(CZK_POREP_CIRCUIT_PARENTS * sizeof *s.pbits);
    s.sib = malloc(nsib * sizeof *s.sib);
    s.vars = malloc(L * sizeof *s.vars);
    s.vals = malloc(L * sizeof *s.vals);
    czk_status st;
    if (!s.rows || !s.labels || !s.pbits || !s.sib || !s.vars || !s.vals)
        st = czk_cs_fail(cs, CZK_ERR_NOMEM, "porep circuit scratch");
    else
        st = top_level(&s);
    free(s.rows);
    free(s.labels);
    free(s.pbits);
    free(s.sib);
    free(s.vars);
    free(s.vals);
    return st;
}

czk_status czk_porep_circuit_fn(czk_cs *cs, void *ctx) {
    const czk_porep_circuit *c = ctx;
    return czk_porep_synthesize(cs, c->config, c->witness);
}

czk_status czk_porep_record(czk_shape **out, const czk_porep_config *cfg, const atomic_int *cancel,
                            czk_err *err) {
    czk_status st = czk_porep_config_check(cfg, NULL, NULL, err);
    czk_porep_circuit c = {cfg, NULL};
    return st ? st : czk_cs_record(out, czk_porep_circuit_fn, &c, cancel, err);
}

czk_status czk_porep_witness_generate(czk_witness *out, const czk_porep_config *cfg,
                                      const czk_porep_witness *w, const atomic_int *cancel,
                                      czk_err *err) {
    czk_status st = czk_porep_config_check(cfg, NULL, NULL, err);
    czk_porep_circuit c = {cfg, w};
    return st ? st : czk_cs_witness(out, czk_porep_circuit_fn, &c, cancel, err);
}

czk_status czk_porep_witness_generate_into(czk_witness *buf, const czk_porep_config *cfg,
                                           const czk_porep_witness *w, const atomic_int *cancel,
                                           czk_err *err) {
    czk_status st = czk_porep_config_check(cfg, NULL, NULL, err);
    czk_porep_circuit c = {cfg, w};
    return st ? st : czk_cs_witness_into(buf, czk_porep_circuit_fn, &c, cancel, err);
}

/* ---- public inputs ---- */

czk_status czk_porep_public_inputs(czk_fr *out, const czk_porep_config *cfg,
                                   const uint8_t replica_id[32], const uint8_t comm_d[32],
                                   const uint8_t comm_r[32], const uint64_t *challenges,
                                   const uint32_t *parents, czk_err *err) {
    czk_status st = czk_porep_config_check(cfg, NULL, NULL, err);
    if (st) return st;
    if (cfg->challenges && (!challenges || !parents))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep public inputs: no challenges or parents");
    const uint8_t *top[3] = {replica_id, comm_d, comm_r};
    static const char *const names[3] = {"replica_id", "comm_d", "comm_r"};
    for (int i = 0; i < 3; i++)
        if (czk_fr_from_bytes(&out[i], top[i], NULL))
            return czk_errf(err, CZK_ERR_FR_RANGE, "porep public inputs: %s is not below r",
                            names[i]);
    czk_fr *o = out + CZK_POREP_INPUTS_TOP;
    for (unsigned i = 0; i < cfg->challenges; i++) {
        uint64_t c = challenges[i];
        const uint32_t *p = parents + (size_t)CZK_POREP_CIRCUIT_PARENTS * i;
        if (c >= cfg->nodes)
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            "porep public inputs: challenge %u is node %llu of %llu", i,
                            (unsigned long long)c, (unsigned long long)cfg->nodes);
        for (unsigned j = 0; j < CZK_POREP_CIRCUIT_PARENTS; j++)
            if (p[j] >= cfg->nodes)
                return czk_errf(err, CZK_ERR_INVALID_ARG,
                                "porep public inputs: challenge %u parent %u is node %u of %llu", i,
                                j, p[j], (unsigned long long)cfg->nodes);
        czk_fr_from_u64(o++, c); /* comm_d path */
        for (unsigned j = 0; j < CZK_POREP_CIRCUIT_PARENTS; j++)
            czk_fr_from_u64(o++, p[j]); /* TreeC paths of the parents */
        czk_fr_from_u64(o++, c);        /* UInt64 challenge */
        czk_fr_from_u64(o++, c);        /* comm_r_last path */
        czk_fr_from_u64(o++, c);        /* comm_c path */
    }
    return CZK_OK;
}

czk_status czk_porep_public_inputs_graph(czk_fr *out, const czk_porep_config *cfg,
                                         const czk_porep_graph *graph, const uint8_t replica_id[32],
                                         const uint8_t comm_d[32], const uint8_t comm_r[32],
                                         const uint64_t *challenges, czk_err *err) {
    czk_status st = czk_porep_config_check(cfg, NULL, NULL, err);
    if (st) return st;
    if (czk_porep_graph_nodes(graph) != cfg->nodes)
        return czk_errf(
            err, CZK_ERR_MISMATCH, "porep public inputs: graph of %llu nodes for a circuit of %llu",
            (unsigned long long)czk_porep_graph_nodes(graph), (unsigned long long)cfg->nodes);
    if (cfg->challenges && !challenges)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "porep public inputs: no challenges");
    uint32_t *parents =
        malloc(((size_t)CZK_POREP_CIRCUIT_PARENTS * cfg->challenges + 1) * sizeof *parents);
    if (!parents) return czk_errf(err, CZK_ERR_NOMEM, "porep public inputs: parents");
    for (unsigned i = 0; i < cfg->challenges && st == CZK_OK; i++) {
        if (challenges[i] >= cfg->nodes)
            st = czk_errf(err, CZK_ERR_INVALID_ARG,
                          "porep public inputs: challenge %u is node %llu of %llu", i,
                          (unsigned long long)challenges[i], (unsigned long long)cfg->nodes);
        else
            st = czk_porep_graph_parents(graph, challenges[i],
                                         parents + (size_t)CZK_POREP_CIRCUIT_PARENTS * i, err);
    }
    if (st == CZK_OK)
        st =
            czk_porep_public_inputs(out, cfg, replica_id, comm_d, comm_r, challenges, parents, err);
    free(parents);
    return st;
}
