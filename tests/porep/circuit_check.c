/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * The StackedDRG circuit in CHECK mode on consistent witnesses sealed here
 * natively, without any gadget:
 *   - parents from the SDR graph (czk_porep_graph, tested against published
 *     parent caches in porep.graph);
 *   - labels as storage-proofs-porep vanilla create_label / graph.rs
 *     copy_parents_data compute them: SHA-256 (blst) of replica_id ‖ layer
 *     (BE u32) ‖ node (BE u64) ‖ 20 zero bytes ‖ the parents' labels (layer
 *     1: the 6 DRG parents six times, then the first; later layers: DRG
 *     parents of this layer and expander parents of the previous one, the 14
 *     twice, then the first 9); node 0 hashes no parents; the digest's last
 *     byte & 0x3f;
 *   - TreeD (binary SHA-256 over the data), TreeC (Poseidon over the
 *     Poseidon-L column hashes), TreeR (Poseidon over label_L + data),
 *     comm_r = Poseidon2(comm_c, comm_r_last), native hashes
 *     (tests/gadgets/native_tree.h);
 *   - challenges from czk_porep_interactive_challenges.
 * The circuit must be satisfied, its public inputs must equal
 * czk_porep_public_inputs_graph's (upstream's stacked_circuit.rs checks the
 * same), WITNESS mode must assign exactly what CHECK assigned, and
 * corrupted witnesses must be refused.
 */
#include "support.h"

#include "../gadgets/native_tree.h"

#include <stdlib.h>
#include <string.h>

#include "czk/porep_circuit.h"
#include "czk/porep_graph.h"

typedef struct sealed {
    czk_porep_config cfg;
    czk_por_tree tree_d, tree_rc;
    czk_porep_graph *graph;
    uint8_t replica_id[32];
    czk_fr *data;   /* nodes */
    czk_fr *labels; /* layers × nodes */
    nt_tree td, tc, tr;
    uint8_t comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
    uint64_t challenges[64];
} sealed;

static void label_of(sealed *s, unsigned layer, uint64_t v, czk_fr *out) {
    uint8_t msg[64 + 37 * 32], d[32];
    size_t len = 64;
    memcpy(msg, s->replica_id, 32);
    memset(msg + 32, 0, 32);
    for (int i = 0; i < 4; i++)
        msg[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        msg[36 + i] = (uint8_t)(v >> (56 - 8 * i));
    if (v > 0) {
        uint32_t p[CZK_POREP_DEGREE];
        czk_err err;
        czk_assert_ok(czk_porep_graph_parents(s->graph, v, p, &err), &err);
        uint8_t pl[CZK_POREP_DEGREE][32];
        unsigned np = layer == 1 ? CZK_POREP_BASE_DEGREE : CZK_POREP_DEGREE;
        for (unsigned j = 0; j < np; j++) {
            unsigned from = j < CZK_POREP_BASE_DEGREE ? layer : layer - 1;
            czk_fr_to_bytes(pl[j], &s->labels[(size_t)(from - 1) * s->cfg.nodes + p[j]]);
        }
        for (unsigned k = 0; k < 37; k++, len += 32)
            memcpy(msg + len, pl[k % np], 32);
    }
    blst_sha256(d, msg, len);
    d[31] &= 0x3f;
    czk_err err;
    czk_assert_ok(czk_fr_from_bytes(out, d, &err), &err);
}

/* Seals a random sector for cfg: graph of proof `proof_id`, data, labels, trees. */
static void seal(sealed *s, const czk_porep_config *cfg, uint64_t proof_id, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    czk_err err;
    czk_assert_ok(czk_porep_config_check(cfg, &s->tree_d, &s->tree_rc, &err), &err);
    czk_porep_proof proof;
    czk_assert_ok(czk_porep_proof_lookup(proof_id, &proof, &err), &err);
    czk_assert_ok(
        czk_porep_graph_create(&s->graph, cfg->nodes, proof.porep_id, proof.api, NULL, &err), &err);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_fr id;
    nt_random_fr(&rng, &id);
    czk_fr_to_bytes(s->replica_id, &id);
    uint64_t n = cfg->nodes;
    unsigned L = cfg->layers;
    s->data = malloc(n * sizeof *s->data);
    s->labels = malloc(n * L * sizeof *s->labels);
    assert_non_null(s->data);
    assert_non_null(s->labels);
    for (uint64_t v = 0; v < n; v++)
        nt_random_fr(&rng, &s->data[v]);
    for (unsigned layer = 1; layer <= L; layer++)
        for (uint64_t v = 0; v < n; v++)
            label_of(s, layer, v, &s->labels[(layer - 1) * n + v]);
    czk_fr *leaves = malloc(n * sizeof *leaves);
    assert_non_null(leaves);
    nt_build(&s->td, &s->tree_d, s->data, n);
    czk_fr col[CZK_POSEIDON_MAX_ARITY];
    for (uint64_t v = 0; v < n; v++) {
        for (unsigned l = 0; l < L; l++)
            col[l] = s->labels[l * n + v];
        czk_assert_ok(czk_poseidon_hash(&leaves[v], col, L, &err), &err);
    }
    nt_build(&s->tc, &s->tree_rc, leaves, n);
    for (uint64_t v = 0; v < n; v++)
        czk_fr_add(&leaves[v], &s->labels[(L - 1) * n + v], &s->data[v]);
    nt_build(&s->tr, &s->tree_rc, leaves, n);
    free(leaves);
    czk_fr_to_bytes(s->comm_d, nt_root(&s->td));
    czk_fr_to_bytes(s->comm_c, nt_root(&s->tc));
    czk_fr_to_bytes(s->comm_r_last, nt_root(&s->tr));
    czk_fr h, in[2] = {*nt_root(&s->tc), *nt_root(&s->tr)};
    czk_assert_ok(czk_poseidon_hash(&h, in, 2, &err), &err);
    czk_fr_to_bytes(s->comm_r, &h);
    uint8_t ticket_seed[32];
    for (int i = 0; i < 32; i++)
        ticket_seed[i] = (uint8_t)(seed + i);
    assert_true(cfg->challenges <= 64);
    czk_assert_ok(czk_porep_interactive_challenges(s->challenges, n, s->replica_id, ticket_seed,
                                                   cfg->challenges, 0, &err),
                  &err);
}

static void unseal(sealed *s) {
    czk_porep_graph_destroy(s->graph);
    free(s->data);
    free(s->labels);
    nt_free(&s->td);
    nt_free(&s->tc);
    nt_free(&s->tr);
}

/* The partition's witness, as a C1 parser would fill it. */
static czk_porep_witness *witness_of(const sealed *s) {
    czk_porep_witness *w = NULL;
    czk_err err;
    czk_assert_ok(czk_porep_witness_alloc(&w, &s->cfg, &err), &err);
    memcpy(w->replica_id, s->replica_id, 32);
    memcpy(w->comm_d, s->comm_d, 32);
    memcpy(w->comm_r, s->comm_r, 32);
    memcpy(w->comm_c, s->comm_c, 32);
    memcpy(w->comm_r_last, s->comm_r_last, 32);
    uint64_t n = s->cfg.nodes;
    for (unsigned i = 0; i < s->cfg.challenges; i++) {
        czk_porep_challenge_proof *cp = &w->challenges[i];
        uint64_t c = s->challenges[i];
        cp->challenge = c;
        czk_fr_to_bytes(cp->data_leaf, &s->data[c]);
        nt_path_bytes(&s->td, c, cp->comm_d_path.positions, cp->comm_d_path.siblings);
        uint32_t p[CZK_POREP_DEGREE];
        czk_assert_ok(czk_porep_graph_parents(s->graph, c, p, &err), &err);
        for (unsigned j = 0; j < CZK_POREP_DEGREE; j++) {
            czk_porep_column *col = j < 6 ? &cp->drg_parents[j] : &cp->exp_parents[j - 6];
            for (unsigned l = 0; l < s->cfg.layers; l++)
                czk_fr_to_bytes(col->rows + 32 * l, &s->labels[l * n + p[j]]);
            nt_path_bytes(&s->tc, p[j], col->path.positions, col->path.siblings);
        }
        nt_path_bytes(&s->tr, c, cp->comm_r_last_path.positions, cp->comm_r_last_path.siblings);
        nt_path_bytes(&s->tc, c, cp->comm_c_path.positions, cp->comm_c_path.siblings);
    }
    return w;
}

static czk_cs *run(czk_cs_mode mode, const czk_porep_config *cfg, const czk_porep_witness *w,
                   czk_status want) {
    czk_err err;
    czk_cs *cs = czk_cs_create(mode, NULL, &err);
    assert_non_null(cs);
    czk_porep_circuit c = {cfg, w};
    czk_status st = czk_cs_run(cs, czk_porep_circuit_fn, &c, &err);
    if (st != want)
        fail_msg("czk_cs_run: %s (%s), expected %s", czk_status_name(st), err.msg,
                 czk_status_name(want));
    return cs;
}

/* Satisfied in CHECK; inputs as derived; WITNESS equal to CHECK. */
static void check_sealed(const czk_porep_config *cfg, uint64_t proof_id, uint64_t seed) {
    sealed s;
    seal(&s, cfg, proof_id, seed);
    czk_porep_witness *w = witness_of(&s);
    czk_err err;

    czk_cs *cs = run(CZK_CS_CHECK, cfg, w, CZK_OK);
    czk_witness wc, ww;
    czk_assert_ok(czk_cs_take_witness(cs, &wc, &err), &err);
    czk_cs_free(cs);

    uint32_t ni = czk_porep_num_inputs(cfg);
    assert_int_equal(wc.num_inputs, ni);
    czk_fr *pub = malloc((ni - 1) * sizeof *pub);
    assert_non_null(pub);
    czk_assert_ok(czk_porep_public_inputs_graph(pub, cfg, s.graph, s.replica_id, s.comm_d, s.comm_r,
                                                s.challenges, &err),
                  &err);
    assert_true(czk_fr_is_one(&wc.inputs[0]));
    for (uint32_t i = 1; i < ni; i++)
        if (!czk_fr_eq(&wc.inputs[i], &pub[i - 1])) fail_msg("public input %u differs", i);
    /* spot values: input 4 is challenge 0's TreeD path = c0; input 5 its first DRG parent */
    uint32_t p0[CZK_POREP_DEGREE];
    czk_assert_ok(czk_porep_graph_parents(s.graph, s.challenges[0], p0, &err), &err);
    czk_fr want;
    czk_fr_from_u64(&want, s.challenges[0]);
    assert_true(czk_fr_eq(&wc.inputs[4], &want));
    assert_true(czk_fr_eq(&wc.inputs[4 + 15], &want)); /* UInt64 challenge */
    czk_fr_from_u64(&want, p0[13]);
    assert_true(czk_fr_eq(&wc.inputs[4 + 14], &want)); /* last expander parent */
    free(pub);

    cs = run(CZK_CS_WITNESS, cfg, w, CZK_OK);
    czk_assert_ok(czk_cs_take_witness(cs, &ww, &err), &err);
    czk_cs_free(cs);
    assert_int_equal(ww.num_aux, wc.num_aux);
    assert_int_equal(ww.num_inputs, wc.num_inputs);
    assert_memory_equal(ww.aux, wc.aux, (size_t)wc.num_aux * sizeof(czk_fr));
    assert_memory_equal(ww.inputs, wc.inputs, (size_t)wc.num_inputs * sizeof(czk_fr));
    /* czk_porep_witness_generate is the same run */
    czk_witness wg;
    czk_assert_ok(czk_porep_witness_generate(&wg, cfg, w, NULL, &err), &err);
    assert_memory_equal(wg.aux, wc.aux, (size_t)wc.num_aux * sizeof(czk_fr));
    czk_witness_free(&wg);
    czk_witness_free(&wc);
    czk_witness_free(&ww);
    czk_porep_witness_free(w);
    unseal(&s);
}

/* A whole 2KiB partition (V1_1 graph, 2 challenges, 8-0-0, 2 layers). */
static void test_2kib_partition(void **state) {
    (void)state;
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, &czk_porep_shapes[0]);
    check_sealed(&cfg, 5, 1);
}

/* Sub and top levels (8-4-2 over 64 nodes), API 1.0 graph. */
static void test_tiny_8_4_2(void **state) {
    (void)state;
    czk_porep_config cfg = {
        .nodes = 64, .layers = 2, .challenges = 2, .base_arity = 8, .sub_arity = 4, .top_arity = 2};
    check_sealed(&cfg, 0, 2);
}

/* 11 layers (Poseidon-11 columns, expander parents from layer 2 on), 8-8-0. */
static void test_tiny_11_layers(void **state) {
    (void)state;
    czk_porep_config cfg = {.nodes = 64,
                            .layers = 11,
                            .challenges = 1,
                            .base_arity = 8,
                            .sub_arity = 8,
                            .top_arity = 0};
    check_sealed(&cfg, 8, 3);
}

/* Corrupted witnesses on the 8-4-2 configuration. */
static void test_rejects(void **state) {
    (void)state;
    czk_porep_config cfg = {
        .nodes = 64, .layers = 2, .challenges = 1, .base_arity = 8, .sub_arity = 4, .top_arity = 2};
    sealed s;
    seal(&s, &cfg, 5, 4);
    czk_porep_witness *w = witness_of(&s);
    czk_cs_free(run(CZK_CS_CHECK, &cfg, w, CZK_OK));

    /* comm_r not the hash of comm_c and comm_r_last: constraint 570, the
     * top level's last */
    w->comm_r[0] ^= 1;
    czk_cs *cs = run(CZK_CS_CHECK, &cfg, w, CZK_ERR_UNSATISFIED);
    assert_int_equal(czk_cs_first_unsatisfied(cs), 570);
    assert_non_null(strstr(czk_cs_first_unsatisfied_path(cs), "enforce comm_r"));
    czk_cs_free(cs);
    w->comm_r[0] ^= 1;

    /* a DRG parent's layer-1 label: its column is not in comm_c */
    czk_porep_challenge_proof *cp = &w->challenges[0];
    cp->drg_parents[2].rows[0] ^= 1;
    cs = run(CZK_CS_CHECK, &cfg, w, CZK_ERR_UNSATISFIED);
    assert_non_null(
        strstr(czk_cs_first_unsatisfied_path(cs), "challenge_0/drg_parent_2_inclusion/equal"));
    czk_cs_free(cs);
    cp->drg_parents[2].rows[0] ^= 1;

    /* another challenge: the labels differ, so the column is not in comm_c */
    cp->challenge ^= 1;
    cs = run(CZK_CS_CHECK, &cfg, w, CZK_ERR_UNSATISFIED);
    assert_non_null(strstr(czk_cs_first_unsatisfied_path(cs), "challenge_0/"));
    czk_cs_free(cs);
    cp->challenge ^= 1;

    /* the data leaf: TreeD fails first */
    cp->data_leaf[5] ^= 0x10;
    cs = run(CZK_CS_CHECK, &cfg, w, CZK_ERR_UNSATISFIED);
    assert_non_null(
        strstr(czk_cs_first_unsatisfied_path(cs), "challenge_0/comm_d_inclusion/equal"));
    czk_cs_free(cs);
    cp->data_leaf[5] ^= 0x10;

    /* a TreeR sibling */
    cp->comm_r_last_path.siblings[32 * 3 + 7] ^= 1;
    cs = run(CZK_CS_CHECK, &cfg, w, CZK_ERR_UNSATISFIED);
    assert_non_null(
        strstr(czk_cs_first_unsatisfied_path(cs), "challenge_0/comm_r_last_data_inclusion/equal"));
    czk_cs_free(cs);
    cp->comm_r_last_path.siblings[32 * 3 + 7] ^= 1;

    /* a value that is not an Fr: refused in every mode, named */
    memset(cp->exp_parents[4].rows + 32, 0xff, 32);
    czk_err err;
    czk_cs *c2 = czk_cs_create(CZK_CS_WITNESS, NULL, &err);
    czk_porep_circuit circ = {&cfg, w};
    assert_int_equal(czk_cs_run(c2, czk_porep_circuit_fn, &circ, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "challenge 0: exp_parent_4_num"));
    czk_cs_free(c2);
    czk_cs_free(run(CZK_CS_CHECK, &cfg, w, CZK_ERR_FR_RANGE));

    /* a witness for another configuration */
    czk_porep_config other = cfg;
    other.challenges = 2;
    czk_cs_free(run(CZK_CS_RECORD, &other, w, CZK_ERR_MISMATCH));

    /* a path position beyond its level's arity */
    czk_porep_witness_free(w);
    w = witness_of(&s);
    czk_por_tree rc;
    czk_assert_ok(czk_porep_config_check(&cfg, NULL, &rc, &err), &err);
    assert_int_equal(czk_por_tree_levels(&rc), 3);
    w->challenges[0].comm_c_path.positions[2] = 2; /* the top level, of arity 2 */
    czk_cs_free(run(CZK_CS_WITNESS, &cfg, w, CZK_ERR_INVALID_ARG));
    czk_porep_witness_free(w);
    unseal(&s);
}

/* Public inputs: layout, refusals. */
static void test_public_inputs(void **state) {
    (void)state;
    czk_porep_config cfg = {.nodes = 64, .layers = 2, .challenges = 2, .base_arity = 8};
    uint8_t id[32] = {1}, cd[32] = {2}, cr[32] = {3};
    uint64_t ch[2] = {7, 63};
    uint32_t parents[28];
    for (int i = 0; i < 28; i++)
        parents[i] = (uint32_t)(i + 10);
    czk_fr out[3 + 36], want;
    czk_err err;
    czk_assert_ok(czk_porep_public_inputs(out, &cfg, id, cd, cr, ch, parents, &err), &err);
    const uint64_t expect[3 + 36] = {
        1, 2,  3,  7,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 7,  7,
        7, 63, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 63, 63, 63,
    };
    for (int i = 0; i < 39; i++) {
        czk_fr_from_u64(&want, expect[i]);
        if (!czk_fr_eq(&out[i], &want)) fail_msg("input %d", i);
    }
    ch[1] = 64;
    assert_int_equal(czk_porep_public_inputs(out, &cfg, id, cd, cr, ch, parents, &err),
                     CZK_ERR_INVALID_ARG);
    ch[1] = 63;
    parents[20] = 64;
    assert_int_equal(czk_porep_public_inputs(out, &cfg, id, cd, cr, ch, parents, &err),
                     CZK_ERR_INVALID_ARG);
    parents[20] = 30;
    memset(cr, 0xff, 32);
    assert_int_equal(czk_porep_public_inputs(out, &cfg, id, cd, cr, ch, parents, &err),
                     CZK_ERR_FR_RANGE);
    /* a graph of another size */
    czk_porep_graph *g = NULL;
    uint8_t pid[32] = {5};
    czk_assert_ok(czk_porep_graph_create(&g, 128, pid, CZK_POREP_API_1_1, NULL, &err), &err);
    cr[0] = 3;
    memset(cr + 1, 0, 31);
    assert_int_equal(czk_porep_public_inputs_graph(out, &cfg, g, id, cd, cr, ch, &err),
                     CZK_ERR_MISMATCH);
    czk_porep_graph_destroy(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2kib_partition), cmocka_unit_test(test_tiny_8_4_2),
        cmocka_unit_test(test_tiny_11_layers), cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_public_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
