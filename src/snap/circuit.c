/*
 * The SnapDeals update circuit of one partition (storage-proofs-update
 * circuit.rs EmptySectorUpdateCircuit::synthesize and gadgets.rs apex_por,
 * gen_challenge_bits, get_challenge_high_bits, label_r_new; include/czk/
 * snap.h has the order), written once against the r1cs API for every cs
 * mode, and its counts.
 *
 * The challenges are drawn inside the circuit from comm_r_new, so the
 * vanilla proof supplies values only (leaves, siblings, apex leafs, comm_c
 * and the two TreeR roots); the index bits every path is hashed along are
 * the digest bits the circuit made. After the shared part (steps 1–7) every
 * challenge's body is alike and reads only variables made before the first
 * one: czk_snap_count records one and two bodies and extrapolates.
 *
 * Order matters to the last allocation (the Groth16 key fixes every
 * variable's column and every constraint's row); the namespaces are
 * upstream's, for CHECK reports.
 */
#include "snap/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct synth {
    czk_cs *cs;
    const czk_snap_shape *s;
    const czk_snap_vanilla *v;
    czk_por_tree tree_r;
    czk_poseidon_constants gr; /* GEN_RANDOMNESS */
    czk_num phi, comm_c, root_r_old, root_r_new, partition;
    czk_bool *kh_bits;  /* partition bits, then the 6 h_select bits */
    czk_num *apex;      /* apex_leafs */
    czk_bool *gen_bits; /* challenges × b random bits */
    czk_num *sib;       /* scratch: one path's siblings */
    uint64_t rows1;     /* constraints after the first challenge's body */
    uint32_t aux1;      /* aux after it */
} synth;

/* A value from a vanilla proof (NULL: zero); a non-canonical one fails the cs naming it. */
static czk_num alloc_bytes(synth *y, const uint8_t *bytes, long ch, const char *what) {
    czk_fr x = czk_fr_zero;
    if (bytes && czk_fr_from_bytes(&x, bytes, NULL)) {
        x = czk_fr_zero;
        if (ch < 0)
            czk_cs_fail(y->cs, CZK_ERR_FR_RANGE, "SnapDeals witness: %s is not below r", what);
        else
            czk_cs_fail(y->cs, CZK_ERR_FR_RANGE,
                        "SnapDeals witness: challenge %ld: %s is not below r", ch, what);
    }
    return czk_num_alloc(y->cs, &x);
}

/* bellperson: a(nother) AllocatedNum in its namespace. */
static czk_num alloc_named(synth *y, const uint8_t *bytes, long ch, const char *ns) {
    czk_cs_push_ns(y->cs, "%s", ns);
    czk_num n = alloc_bytes(y, bytes, ch, ns);
    czk_cs_pop_ns(y->cs);
    return n;
}

/* (Σ 2^i·bits_i) · ONE = x: the binary decompositions of k_and_h_select and of each digest. */
static void decomp(czk_cs *cs, const czk_bool *bits, unsigned n, const czk_num *x, const char *ns) {
    if (!czk_cs_records(cs)) return;
    czk_lc a = CZK_LC_INIT;
    for (unsigned i = 0; i < n; i++)
        czk_bool_lc(cs, &a, bits[i], czk_fr_pow2(i));
    czk_lc_equal(cs, &a, x, ns);
    czk_lc_free(&a);
}

/* n AllocatedBits of x's canonical value, least significant first (field_into_allocated_bits_le).
 */
static void alloc_bits(czk_cs *cs, const czk_fr *x, unsigned n, czk_bool *out) {
    uint64_t limbs[4];
    czk_fr_to_u64s(limbs, x);
    for (unsigned i = 0; i < n; i++)
        out[i] = czk_bit_alloc(cs, (limbs[i / 64] >> (i % 64)) & 1);
}

static czk_num poseidon2(synth *y, const czk_poseidon_constants *pc, const czk_num *a,
                         const czk_num *b, const char *ns, long idx) {
    czk_var in[2] = {a->var, b->var};
    czk_fr vals[2] = {a->value, b->value};
    czk_num out = {CZK_VAR_ONE, czk_fr_zero};
    if (idx < 0)
        czk_cs_push_ns(y->cs, "%s", ns);
    else
        czk_cs_push_ns(y->cs, "%s (c_index=%ld)", ns, idx);
    czk_status st = czk_poseidon_circuit_with(y->cs, pc, in, vals, &out.var, &out.value);
    (void)st; /* sticky in the cs */
    czk_cs_pop_ns(y->cs);
    return out;
}

/* Siblings of levels [from, from + n) of a path (all 32-byte values in order). */
static void alloc_siblings(synth *y, const czk_por_proof *p, unsigned from, unsigned n, long ch,
                           const char *what) {
    for (unsigned i = 0; i < n; i++) {
        czk_cs_push_ns(y->cs, "%s sibling (c_index=%ld, %u)", what, ch, i);
        y->sib[i] =
            alloc_bytes(y, p && p->siblings ? p->siblings + 32u * (from + i) : NULL, ch, what);
        czk_cs_pop_ns(y->cs);
    }
}

/* A binary SHA-256 tree of `levels` levels (TreeD's lower part, the partition tree). */
static czk_por_tree tree_d(unsigned levels) {
    return (czk_por_tree){CZK_POR_SHA256, 2, levels, 0, 0};
}

/* por_no_challenge_input through a binary SHA-256 tree; no levels: root · ONE = computed. */
static czk_status por_d(synth *y, unsigned levels, const czk_bool *bits, const czk_num *leaf,
                        const czk_num *root) {
    if (levels == 0) {
        czk_num_equal(y->cs, leaf, root);
        return czk_cs_status(y->cs);
    }
    czk_por_tree t = tree_d(levels);
    return czk_por_no_challenge_input(y->cs, &t, bits, leaf, y->sib, root);
}

/* apex_por: the apex tree over the apex leafs, then the partition path to comm_d_new. */
static czk_status apex_por(synth *y, const czk_num *comm_d_new, const czk_num *part_sib) {
    czk_cs *cs = y->cs;
    const czk_snap_shape *s = y->s;
    unsigned n = s->apex_leafs;
    czk_num *row = malloc(n * sizeof *row);
    if (!row) return czk_cs_fail(cs, CZK_ERR_NOMEM, "SnapDeals apex tree");
    memcpy(row, y->apex, n * sizeof *row);
    czk_cs_push_ns(cs, "apex_gadget");
    for (unsigned r = 0; r < s->apex_bits; r++, n /= 2)
        for (unsigned i = 0; i < n / 2; i++) {
            czk_cs_push_ns(cs, "apex_tree generation hash (tree_row=%u, siblings=%u)", r, i);
            czk_num out;
            czk_status st = czk_sha256_hash_multi_leaf(cs, &row[2 * i], 2, &out);
            czk_cs_pop_ns(cs);
            if (st) {
                czk_cs_pop_ns(cs);
                free(row);
                return st;
            }
            row[i] = out;
        }
    czk_num root = row[0];
    free(row);
    memcpy(y->sib, part_sib, s->partition_bits * sizeof *y->sib);
    czk_cs_push_ns(cs, "partition-tree por");
    czk_status st = por_d(y, s->partition_bits, y->kh_bits, &root, comm_d_new);
    czk_cs_pop_ns(cs);
    czk_cs_pop_ns(cs);
    return st;
}

/* gen_challenge_bits: y->gen_bits[j·b ..] for every challenge j. */
static czk_status gen_challenge_bits(synth *y, const czk_num *comm_r_new, uint64_t k) {
    czk_cs *cs = y->cs;
    unsigned b, per, digests;
    snap_challenge_layout(y->s, &b, &per, &digests);
    czk_bool bits[CZK_FR_NUM_BITS];
    czk_cs_push_ns(cs, "gen_challenge_bits");
    for (unsigned j = 0, n = 0; j < digests; j++) {
        czk_fr idx;
        czk_fr_from_u64(&idx, k * digests + j);
        czk_cs_push_ns(cs, "digest_index_%u", j);
        czk_num di = czk_num_alloc(cs, &idx);
        czk_cs_pop_ns(cs);
        if (czk_cs_records(cs)) {
            czk_lc la = CZK_LC_INIT;
            czk_fr dpp, jj;
            czk_fr_from_u64(&dpp, digests);
            czk_fr_from_u64(&jj, j);
            czk_lc_add(cs, &la, y->partition.var, &dpp);
            czk_lc_add(cs, &la, CZK_VAR_ONE, &jj);
            char ns[96];
            snprintf(ns, sizeof ns, "digest_index_%u == k * digests_per_partition + %u", j, j);
            czk_lc_equal(cs, &la, &di, ns);
            czk_lc_free(&la);
        }
        czk_cs_push_ns(cs, "digest_%u", j);
        czk_num digest = poseidon2(y, &y->gr, comm_r_new, &di, "hash", -1);
        czk_cs_pop_ns(cs);
        czk_cs_push_ns(cs, "digest_%u_bits", j);
        alloc_bits(cs, &digest.value, CZK_FR_NUM_BITS, bits);
        decomp(cs, bits, CZK_FR_NUM_BITS, &digest, "binary decomp");
        czk_cs_pop_ns(cs);
        for (unsigned i = 0; i < per && n < y->s->challenges; i++, n++)
            memcpy(y->gen_bits + (size_t)n * b, bits + i * b, b * sizeof *bits);
    }
    czk_cs_pop_ns(cs);
    return czk_cs_status(cs);
}

/* get_challenge_high_bits: c_high for the h that h_select picks. */
static czk_num challenge_high(synth *y, const czk_bool *c_bits, unsigned c_index) {
    czk_cs *cs = y->cs;
    const czk_snap_shape *s = y->s;
    const czk_bool *hsel = y->kh_bits + s->partition_bits;
    unsigned len = s->challenge_bits;
    czk_num parts[CZK_SNAP_HS];
    czk_cs_push_ns(cs, "get_challenge_high_bits (c_index=%u)", c_index);
    for (unsigned k = 0; k < CZK_SNAP_HS; k++) {
        unsigned h = s->hs[k];
        czk_cs_push_ns(cs, "c_high (h=%u, k=%u)", h, k);
        czk_num c_high = czk_pack_bits(cs, c_bits + len - h, h);
        czk_cs_pop_ns(cs);
        /* c_high · h_select_bit (the bit is allocated: its variable is the Boolean's lc) */
        czk_num bit = {hsel[k].var, hsel[k].value ? czk_fr_one : czk_fr_zero};
        czk_cs_push_ns(cs, "c_high_or_zero (h=%u, k=%u)", h, k);
        parts[k] = czk_num_mul(cs, &c_high, &bit);
        czk_cs_pop_ns(cs);
    }
    czk_cs_push_ns(cs, "c_high_selected");
    czk_num sel = czk_num_sum(cs, parts, CZK_SNAP_HS);
    czk_cs_pop_ns(cs);
    czk_cs_pop_ns(cs);
    return sel;
}

/* Step 8 for challenge j. */
static czk_status challenge_body(synth *y, unsigned j) {
    czk_cs *cs = y->cs;
    const czk_snap_shape *s = y->s;
    const czk_snap_challenge_proof *cp = y->v ? &y->v->proofs[j] : NULL;
    unsigned b = s->challenge_bits - s->partition_bits;
    czk_bool c_bits[64];
    memcpy(c_bits, y->gen_bits + (size_t)j * b, b * sizeof *c_bits);
    memcpy(c_bits + b, y->kh_bits, s->partition_bits * sizeof *c_bits);

    czk_num c_high = challenge_high(y, c_bits, j);
    czk_num rho = poseidon2(y, &y->gr, &y->phi, &c_high, "rho", j);
    czk_cs_push_ns(cs, "leaf_r_old (c_index=%u)", j);
    czk_num leaf_r_old = alloc_bytes(y, cp ? cp->r_old.leaf : NULL, j, "leaf_r_old");
    czk_cs_pop_ns(cs);
    czk_cs_push_ns(cs, "leaf_d_new (c_index=%u)", j);
    czk_num leaf_d_new = alloc_bytes(y, cp ? cp->d_new.leaf : NULL, j, "leaf_d_new");
    czk_cs_pop_ns(cs);
    /* label_r_new: leaf_r_new = leaf_r_old + leaf_d_new · rho */
    czk_cs_push_ns(cs, "leaf_r_new (c_index=%u)", j);
    czk_num prod = czk_num_mul(cs, &leaf_d_new, &rho);
    czk_num leaf_r_new = czk_num_add(cs, &leaf_r_old, &prod);
    czk_cs_pop_ns(cs);

    unsigned nsib = czk_por_tree_siblings(&y->tree_r);
    czk_status st;
    alloc_siblings(y, cp ? &cp->r_old : NULL, 0, nsib, j, "path_r_old");
    czk_cs_push_ns(cs, "por tree_r_old (c_index=%u)", j);
    st = czk_por_no_challenge_input(cs, &y->tree_r, c_bits, &leaf_r_old, y->sib, &y->root_r_old);
    czk_cs_pop_ns(cs);
    if (st) return st;
    alloc_siblings(y, cp ? &cp->r_new : NULL, 0, nsib, j, "path_r_new");
    czk_cs_push_ns(cs, "por tree_r_new (c_index=%u)", j);
    st = czk_por_no_challenge_input(cs, &y->tree_r, c_bits, &leaf_r_new, y->sib, &y->root_r_new);
    czk_cs_pop_ns(cs);
    if (st) return st;

    unsigned below = s->challenge_bits - s->partition_bits - s->apex_bits;
    czk_cs_push_ns(cs, "select_apex_leaf (c_index=%u)", j);
    czk_num apex_leaf = czk_select(cs, y->apex, c_bits + below, s->apex_bits);
    czk_cs_pop_ns(cs);
    alloc_siblings(y, cp ? &cp->d_new : NULL, 0, below, j, "path_to_apex_leaf");
    czk_cs_push_ns(cs, "por to_apex_leaf (c_index=%u)", j);
    st = por_d(y, below, c_bits, &leaf_d_new, &apex_leaf);
    czk_cs_pop_ns(cs);
    return st;
}

static czk_status check_inputs(const czk_snap_shape *s, const czk_snap_public *pub,
                               const czk_snap_vanilla *v, czk_por_tree *tree_r, czk_err *err) {
    czk_status st = czk_snap_trees(s, tree_r, NULL, err);
    if (st) return st;
    if (!pub != !v)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "SnapDeals circuit: the public values and the vanilla proof go together");
    if (pub) {
        czk_fr in[4];
        if ((st = czk_snap_public_inputs(in, s, pub, err))) return st;
    }
    if (v && (v->shape != s || v->challenges != s->challenges || v->apex_count != s->apex_leafs))
        return czk_errf(err, CZK_ERR_MISMATCH,
                        "SnapDeals circuit %s: the vanilla proof was parsed as %s", s->name,
                        v->shape ? v->shape->name : "nothing");
    return CZK_OK;
}

static czk_status synthesize(synth *y, const czk_snap_public *pub, unsigned bodies) {
    czk_cs *cs = y->cs;
    const czk_snap_shape *s = y->s;
    const czk_snap_vanilla *v = y->v;
    uint64_t k = pub ? pub->k : 0, h_select = 0;
    czk_err e;
    if (czk_snap_h_select(s, pub ? pub->h : s->h_default, &h_select, &e))
        return czk_cs_fail(cs, e.code, "%s", e.msg);

    /* 1. k_and_h_select, its bits, the partition */
    czk_fr khs;
    czk_fr_from_u64(&khs, k | h_select << s->partition_bits);
    czk_cs_push_ns(cs, "k_and_h_select");
    czk_num kh = czk_num_alloc(cs, &khs);
    czk_cs_pop_ns(cs);
    czk_cs_push_ns(cs, "k_and_h_select (public input)");
    czk_num_inputize(cs, &kh);
    czk_cs_pop_ns(cs);
    unsigned nkh = s->partition_bits + CZK_SNAP_HS;
    alloc_bits(cs, &khs, nkh, y->kh_bits);
    decomp(cs, y->kh_bits, nkh, &kh, "k_and_h_select binary decomp");
    czk_cs_push_ns(cs, "pack partition bits");
    y->partition = czk_pack_bits(cs, y->kh_bits, s->partition_bits);
    czk_cs_pop_ns(cs);

    /* 2. the commitments */
    czk_num comm[3];
    const uint8_t *cv[3] = {pub ? pub->comm_r_old : NULL, pub ? pub->comm_d_new : NULL,
                            pub ? pub->comm_r_new : NULL};
    static const char *const cname[3] = {"comm_r_old", "comm_d_new", "comm_r_new"};
    for (int i = 0; i < 3; i++) {
        comm[i] = alloc_named(y, cv[i], -1, cname[i]);
        czk_cs_push_ns(cs, "%s_input", cname[i]);
        czk_num_inputize(cs, &comm[i]);
        czk_cs_pop_ns(cs);
    }
    /* 3. phi = H(comm_d_new, comm_r_old) */
    y->phi = poseidon2(y, &y->gr, &comm[1], &comm[0], "phi", -1);

    /* 4. the private values */
    y->comm_c = alloc_named(y, v ? v->comm_c : NULL, -1, "comm_c");
    y->root_r_old = alloc_named(y, v ? v->proofs[0].r_old.root : NULL, -1, "root_r_old");
    y->root_r_new = alloc_named(y, v ? v->proofs[0].r_new.root : NULL, -1, "root_r_new");
    for (unsigned i = 0; i < s->apex_leafs; i++) {
        czk_cs_push_ns(cs, "apex_leaf_%u", i);
        y->apex[i] = alloc_bytes(y, v ? v->apex_leafs[i] : NULL, -1, "an apex leaf");
        czk_cs_pop_ns(cs);
    }
    czk_num part_sib[64];
    unsigned first = s->challenge_bits - s->partition_bits;
    const uint8_t *d0 = v ? v->proofs[0].d_new.siblings : NULL;
    for (unsigned i = 0; i < s->partition_bits; i++) {
        czk_cs_push_ns(cs, "partition_path_sibling_%u", i);
        part_sib[i] = alloc_bytes(y, d0 ? d0 + 32u * (first + i) : NULL, -1, "partition path");
        czk_cs_pop_ns(cs);
    }

    /* 5. comm_r_old = H(comm_c, root_r_old), comm_r_new = H(comm_c, root_r_new) */
    const czk_poseidon_constants *tr = czk_poseidon_constants_get(2, &e);
    if (!tr) return czk_cs_fail(cs, e.code, "%s", e.msg);
    czk_num calc = poseidon2(y, tr, &y->comm_c, &y->root_r_old, "comm_r_old_calc", -1);
    czk_cs_push_ns(cs, "enforce comm_r_old_calc == comm_r_old");
    czk_num_equal(cs, &calc, &comm[0]);
    czk_cs_pop_ns(cs);
    calc = poseidon2(y, tr, &y->comm_c, &y->root_r_new, "comm_r_new_calc", -1);
    czk_cs_push_ns(cs, "enforce comm_r_new_calc == comm_r_new");
    czk_num_equal(cs, &calc, &comm[2]);
    czk_cs_pop_ns(cs);

    /* 6. the apex tree and the partition path to comm_d_new */
    czk_status st = apex_por(y, &comm[1], part_sib);
    if (st) return st;
    /* 7. the challenges' bits */
    if ((st = gen_challenge_bits(y, &comm[2], k))) return st;
    /* 8. the challenges */
    for (unsigned j = 0; j < s->challenges && j < bodies && st == CZK_OK; j++) {
        st = challenge_body(y, j);
        if (j == 0) {
            y->rows1 = czk_cs_num_constraints(cs);
            y->aux1 = czk_cs_num_aux(cs);
        }
    }
    return st ? st : czk_cs_status(cs);
}

czk_status snap_synthesize_bodies(czk_cs *cs, const czk_snap_shape *s, const czk_snap_public *pub,
                                  const czk_snap_vanilla *v, unsigned bodies, uint64_t *rows1,
                                  uint32_t *aux1) {
    synth y = {.cs = cs, .s = s, .v = v};
    czk_err e;
    if (check_inputs(s, pub, v, &y.tree_r, &e) || snap_gen_randomness(&y.gr, &e))
        return czk_cs_fail(cs, e.code, "%s", e.msg);
    unsigned b = s->challenge_bits - s->partition_bits;
    unsigned nsib = czk_por_tree_siblings(&y.tree_r);
    if (nsib < s->challenge_bits) nsib = s->challenge_bits;
    y.kh_bits = malloc((s->partition_bits + CZK_SNAP_HS) * sizeof *y.kh_bits);
    y.apex = malloc(s->apex_leafs * sizeof *y.apex);
    y.gen_bits = malloc((size_t)s->challenges * b * sizeof *y.gen_bits);
    y.sib = malloc(nsib * sizeof *y.sib);
    czk_status st = y.kh_bits && y.apex && y.gen_bits && y.sib
                        ? synthesize(&y, pub, bodies)
                        : czk_cs_fail(cs, CZK_ERR_NOMEM, "SnapDeals circuit scratch");
    if (rows1) *rows1 = y.rows1;
    if (aux1) *aux1 = y.aux1;
    free(y.kh_bits);
    free(y.apex);
    free(y.gen_bits);
    free(y.sib);
    return st;
}

czk_status czk_snap_synthesize(czk_cs *cs, const czk_snap_shape *s, const czk_snap_public *pub,
                               const czk_snap_vanilla *v) {
    return snap_synthesize_bodies(cs, s, pub, v, UINT32_MAX, NULL, NULL);
}

/* The context of czk_cs_run for a part of the circuit. */
typedef struct part {
    czk_snap_circuit c;
    unsigned bodies;
    uint64_t rows1; /* out: constraints after the first body */
    uint32_t aux1;  /* out: aux after the first body */
} part;

static czk_status part_fn(czk_cs *cs, void *ctx) {
    part *p = ctx;
    return snap_synthesize_bodies(cs, p->c.shape, p->c.pub, p->c.vanilla, p->bodies, &p->rows1,
                                  &p->aux1);
}

czk_status czk_snap_circuit_fn(czk_cs *cs, void *ctx) {
    const czk_snap_circuit *c = ctx;
    return czk_snap_synthesize(cs, c->shape, c->pub, c->vanilla);
}

static czk_status record_part(czk_shape **out, part *p, const atomic_int *cancel, czk_err *err) {
    czk_por_tree t;
    czk_status st = check_inputs(p->c.shape, p->c.pub, p->c.vanilla, &t, err);
    return st ? st : czk_cs_record(out, part_fn, p, cancel, err);
}

czk_status czk_snap_record(czk_shape **out, const czk_snap_shape *s, const atomic_int *cancel,
                           czk_err *err) {
    part p = {{s, NULL, NULL}, UINT32_MAX, 0, 0};
    return record_part(out, &p, cancel, err);
}

/* WITNESS mode into malloc'ed arrays (into false) or the caller's (true). */
static czk_status witness(czk_witness *out, bool into, const czk_snap_shape *s,
                          const czk_snap_public *pub, const czk_snap_vanilla *v,
                          const atomic_int *cancel, czk_err *err) {
    part p = {{s, pub, v}, UINT32_MAX, 0, 0};
    czk_por_tree t;
    czk_status st = check_inputs(s, pub, v, &t, err);
    if (st) return st;
    return into ? czk_cs_witness_into(out, part_fn, &p, cancel, err)
                : czk_cs_witness(out, part_fn, &p, cancel, err);
}

czk_status czk_snap_witness_generate(czk_witness *out, const czk_snap_shape *s,
                                     const czk_snap_public *pub, const czk_snap_vanilla *v,
                                     const atomic_int *cancel, czk_err *err) {
    return witness(out, false, s, pub, v, cancel, err);
}

czk_status czk_snap_witness_generate_into(czk_witness *buf, const czk_snap_shape *s,
                                          const czk_snap_public *pub, const czk_snap_vanilla *v,
                                          const atomic_int *cancel, czk_err *err) {
    return witness(buf, true, s, pub, v, cancel, err);
}

/*
 * The counts the circuit with only its first challenge's body would have,
 * from the recording with two: its rows are the first rows1 rows and its
 * aux the first aux1 (nothing of the second body comes before), then the
 * same finalization rows (all inputs exist before the bodies); densities
 * by scanning A and B up to rows1.
 */
static czk_status counts_of_prefix(czk_shape_counts *out, const czk_shape *sh, uint64_t rows1,
                                   uint32_t aux1, czk_err *err) {
    uint64_t rows2 = sh->num_constraints - sh->num_inputs; /* synthesized rows */
    out->synthesized_constraints = rows1;
    out->inputs = sh->num_inputs;
    out->constraints = rows1 + sh->num_inputs;
    out->aux = aux1;
    for (int m = 0; m < 3; m++)
        out->nnz[m] = sh->m[m].row_ptr[rows1] + (sh->m[m].nnz - sh->m[m].row_ptr[rows2]);
    uint64_t words = ((uint64_t)sh->num_inputs + aux1 + 63) / 64;
    uint64_t *seen = calloc(words ? words : 1, sizeof *seen);
    if (!seen) return czk_errf(err, CZK_ERR_NOMEM, "SnapDeals count: density scan");
    uint64_t *pops[2] = {&out->a_aux, &out->b_aux};
    for (int m = 0; m < 2; m++) {
        memset(seen, 0, words * sizeof *seen);
        const czk_csr *csr = &sh->m[m];
        for (uint64_t e = 0; e < csr->row_ptr[rows1]; e++) {
            uint64_t col = csr->col[e];
            seen[col / 64] |= 1ull << (col % 64);
        }
        uint64_t in = 0, ax = 0;
        for (uint64_t col = 0; col < (uint64_t)sh->num_inputs + aux1; col++)
            if (seen[col / 64] >> (col % 64) & 1) *(col < sh->num_inputs ? &in : &ax) += 1;
        *pops[m] = ax;
        if (m == 1) out->b_input = in;
    }
    free(seen);
    /* the finalization rows hold inputs in A only: no density of their own */
    return CZK_OK;
}

czk_status czk_snap_count(czk_shape_counts *out, const czk_snap_shape *s, czk_err *err) {
    part p = {{s, NULL, NULL}, 2, 0, 0};
    czk_shape *sh = NULL;
    czk_status st = record_part(&sh, &p, NULL, err);
    if (st) return st;
    czk_shape_counts c[2];
    czk_shape_counts_of(&c[1], sh);
    st = counts_of_prefix(&c[0], sh, p.rows1, p.aux1, err);
    czk_shape_free(sh);
    if (st) return st;
    czk_shape_counts_extrapolate(out, &c[0], &c[1], s->challenges - 1);
    return CZK_OK;
}
