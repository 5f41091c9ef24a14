/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 900 */
/*
 * czk_porep_witness_from_c1 and czk_porep_chain_inputs on C1s made by the
 * test-sector generator (czk_seal_generate):
 *   - every path of the witness, walked natively in the circuit's order
 *     (level l has czk_por_tree_arity(l); the node goes in at positions[l]
 *     among that level's siblings), reaches the root the circuit compares
 *     it with (comm_d, comm_c, comm_r_last), and its positions spell the
 *     leaf index the chain expects (the challenge, or the graph's parent j
 *     of it) — for Single (2KiB), Sub (32GiB) and Top (64GiB) trees, so
 *     that the base, sub, top order and the index per level are checked;
 *   - the witness points into the C1 (no copies);
 *   - the 2KiB circuit is satisfied in CHECK mode and its public inputs
 *     equal the chain-derived ones (also for a non-interactive C1's last
 *     partition, whose challenges depend on comm_r and k);
 *   - the 2KiB witness written into caller buffers (czk_porep_witness_
 *     generate_into, twice into the same buffers) equals the malloc'ed
 *     czk_porep_witness_generate and the CHECK-mode values byte for byte,
 *     leaves the bytes after it untouched, and buffers one value short are
 *     refused with a message naming the counts;
 *   - structural refusals (partition out of range, a path with a level
 *     missing, a column with a row missing, an unknown proof id).
 */
#include "support.h"

#include "../gadgets/native_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/seal.h"
#include "sector.h"

static czk_c1 *gen(uint64_t proof, bool sparse) {
    czk_test_sector ts = {.registered_proof = proof,
                          .sector_num = 7,
                          .ticket = 3,
                          .seed = 5,
                          .data_seed = 11,
                          .sparse = sparse};
    czk_c1 *c1 = NULL;
    czk_err err;
    czk_assert_ok(czk_test_seal(&c1, &ts, NULL, &err), &err);
    return c1;
}

static void fr_of(czk_fr *out, const uint8_t *b) {
    czk_err err;
    czk_assert_ok(czk_fr_from_bytes(out, b, &err), &err);
}

/* Walks a witness path up from leaf; returns the root, *index = the leaf index. */
static void walk(const czk_por_tree *t, const czk_fr *leaf, const czk_porep_path *p, czk_fr *root,
                 uint64_t *index) {
    czk_fr cur = *leaf, row[CZK_POR_MAX_ARITY];
    uint64_t idx = 0, scale = 1;
    const uint8_t *sib = p->siblings;
    for (unsigned l = 0; l < czk_por_tree_levels(t); l++) {
        unsigned a = czk_por_tree_arity(t, l), pos = p->positions[l];
        assert_true(pos < a);
        for (unsigned j = 0, s = 0; j < a; j++) {
            if (j == pos) {
                row[j] = cur;
            } else {
                fr_of(&row[j], sib + 32u * s);
                s++;
            }
        }
        sib += 32u * (a - 1);
        nt_hash(t->hash, a, row, &cur);
        idx += pos * scale;
        scale *= a;
    }
    *root = cur;
    *index = idx;
}

static void assert_root(const czk_fr *got, const uint8_t want[32], const char *what, unsigned i) {
    czk_fr w;
    fr_of(&w, want);
    if (!czk_fr_eq(got, &w)) fail_msg("challenge %u: %s does not reach its root", i, what);
}

/* Every path of partition k's witness against the roots and the chain's indices. */
static void check_paths(const czk_c1 *c1, unsigned k, const czk_porep_witness *w) {
    czk_err err;
    czk_porep_proof pr;
    czk_assert_ok(czk_porep_proof_lookup(c1->registered_proof, &pr, &err), &err);
    czk_por_tree td, trc;
    czk_assert_ok(czk_porep_config_check(&w->config, &td, &trc, &err), &err);
    assert_int_equal(w->config.challenges, pr.challenges_per_partition);
    assert_int_equal(w->config.layers, pr.shape->layers);
    czk_porep_graph *g = NULL;
    czk_assert_ok(czk_c1_graph(&g, c1, NULL, &err), &err);
    uint64_t ch[64];
    czk_assert_ok(
        czk_porep_challenges(ch, &pr, c1->replica_id.b, c1->seed.b, c1->comm_r.b, k, &err), &err);
    assert_memory_equal(w->replica_id, c1->replica_id.b, 32);
    assert_memory_equal(w->comm_d, c1->comm_d.b, 32);
    assert_memory_equal(w->comm_r, c1->comm_r.b, 32);
    unsigned L = w->config.layers;
    for (unsigned i = 0; i < w->config.challenges; i++) {
        const czk_porep_challenge_proof *cp = &w->challenges[i];
        const czk_vanilla_proof *v = &c1->proofs[(size_t)k * c1->challenges_per_partition + i];
        assert_int_equal(cp->challenge, ch[i]);
        /* no copies: the arrays are the C1's */
        assert_ptr_equal(cp->comm_d_path.positions, v->comm_d_proof.index);
        assert_ptr_equal(cp->comm_c_path.siblings, (const uint8_t *)v->c_x.inclusion.siblings);
        assert_ptr_equal(cp->exp_parents[7].rows, (const uint8_t *)v->exp_parents[7].rows);
        czk_fr leaf, root;
        uint64_t idx;
        fr_of(&leaf, cp->data_leaf);
        walk(&td, &leaf, &cp->comm_d_path, &root, &idx);
        assert_root(&root, w->comm_d, "comm_d path", i);
        assert_int_equal(idx, ch[i]);
        uint32_t par[CZK_POREP_DEGREE];
        czk_assert_ok(czk_porep_graph_parents(g, ch[i], par, &err), &err);
        czk_fr rows[16];
        for (unsigned j = 0; j < CZK_POREP_DEGREE; j++) {
            const czk_porep_column *col = j < 6 ? &cp->drg_parents[j] : &cp->exp_parents[j - 6];
            for (unsigned r = 0; r < L; r++)
                fr_of(&rows[r], col->rows + 32u * r);
            czk_assert_ok(czk_poseidon_hash(&leaf, rows, L, &err), &err);
            walk(&trc, &leaf, &col->path, &root, &idx);
            assert_root(&root, w->comm_c, "parent column path", i);
            assert_int_equal(idx, par[j]);
        }
        /* the challenged column: its labels, hashed, into comm_c; label_L + data into comm_r_last
         */
        for (unsigned r = 0; r < L; r++)
            fr_of(&rows[r], v->c_x.rows[r].b);
        czk_assert_ok(czk_poseidon_hash(&leaf, rows, L, &err), &err);
        walk(&trc, &leaf, &cp->comm_c_path, &root, &idx);
        assert_root(&root, w->comm_c, "comm_c path", i);
        assert_int_equal(idx, ch[i]);
        fr_of(&leaf, cp->data_leaf);
        czk_fr_add(&leaf, &leaf, &rows[L - 1]);
        walk(&trc, &leaf, &cp->comm_r_last_path, &root, &idx);
        assert_root(&root, w->comm_r_last, "comm_r_last path", i);
        assert_int_equal(idx, ch[i]);
    }
    czk_porep_graph_destroy(g);
}

/* CHECK mode: satisfied, and inputs 1.. equal the chain-derived inputs. */
static void check_circuit(const czk_c1 *c1, unsigned k, const czk_porep_witness *w) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_non_null(cs);
    czk_porep_circuit c = {&w->config, w};
    czk_assert_ok(czk_cs_run(cs, czk_porep_circuit_fn, &c, &err), &err);
    czk_witness wc;
    czk_assert_ok(czk_cs_take_witness(cs, &wc, &err), &err);
    czk_cs_free(cs);
    uint8_t rid[32];
    czk_assert_ok(czk_porep_chain_replica_id(rid, c1, 7, 1000, &err), &err);
    assert_memory_equal(rid, c1->replica_id.b, 32);
    uint32_t n = czk_c1_num_public_inputs(c1);
    assert_int_equal(wc.num_inputs, n + 1);
    czk_fr *in = malloc(n * sizeof *in);
    assert_non_null(in);
    czk_assert_ok(czk_porep_chain_inputs(in, c1, rid, NULL, k, &err), &err);
    for (uint32_t j = 0; j < n; j++)
        if (!czk_fr_eq(&in[j], &wc.inputs[j + 1])) fail_msg("input %u differs", j + 1);
    free(in);
    czk_witness_free(&wc);
}

/* WITNESS mode into caller buffers against the malloc'ed witness and the CHECK-mode values. */
static void check_into(const czk_porep_witness *w) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, &err);
    assert_non_null(cs);
    czk_porep_circuit c = {&w->config, w};
    czk_assert_ok(czk_cs_run(cs, czk_porep_circuit_fn, &c, &err), &err);
    czk_witness wc, wm;
    czk_assert_ok(czk_cs_take_witness(cs, &wc, &err), &err);
    czk_cs_free(cs);
    czk_assert_ok(czk_porep_witness_generate(&wm, &w->config, w, NULL, &err), &err);
    uint32_t ni = wm.num_inputs, na = wm.num_aux;
    assert_int_equal(ni, czk_porep_num_inputs(&w->config));
    assert_int_equal(wc.num_aux, na);
    const size_t fr = sizeof(czk_fr), guard = 64;
    uint8_t *bi = malloc(ni * fr + guard), *ba = malloc(na * fr + guard);
    assert_true(bi && ba);
    for (int round = 0; round < 2; round++) { /* the same buffers twice: reuse */
        memset(bi, round ? 0x00 : 0xee, ni * fr + guard);
        memset(ba, round ? 0x00 : 0xee, na * fr + guard);
        memset(bi + ni * fr, 0x5a, guard);
        memset(ba + na * fr, 0x5a, guard);
        czk_witness buf = {(czk_fr *)bi, (czk_fr *)ba, ni, na, NULL};
        czk_assert_ok(czk_porep_witness_generate_into(&buf, &w->config, w, NULL, &err), &err);
        assert_ptr_equal(buf.inputs, bi);
        assert_ptr_equal(buf.aux, ba);
        assert_int_equal(buf.num_inputs, ni);
        assert_int_equal(buf.num_aux, na);
        assert_memory_equal(bi, wm.inputs, ni * fr);
        assert_memory_equal(ba, wm.aux, na * fr);
        assert_memory_equal(bi, wc.inputs, ni * fr);
        assert_memory_equal(ba, wc.aux, na * fr);
        for (size_t i = 0; i < guard; i++) {
            assert_int_equal(bi[ni * fr + i], 0x5a);
            assert_int_equal(ba[na * fr + i], 0x5a);
        }
    }
    /* one aux short: refused, naming counts and capacities, nothing past the buffer */
    czk_witness small = {(czk_fr *)bi, (czk_fr *)ba, ni, na - 1, NULL};
    memset(ba + (na - 1) * fr, 0x5a, fr + guard);
    assert_int_equal(czk_porep_witness_generate_into(&small, &w->config, w, NULL, &err),
                     CZK_ERR_INVALID_ARG);
    char want[200];
    snprintf(want, sizeof want,
             "witness buffers too small: the circuit has %u inputs and %u aux, the buffers hold "
             "%u and %u",
             ni, na, ni, na - 1);
    assert_string_equal(err.msg, want);
    assert_int_equal(small.num_aux, na - 1); /* unchanged on failure */
    for (size_t i = 0; i < fr + guard; i++)
        assert_int_equal(ba[(na - 1) * fr + i], 0x5a);
    free(bi);
    free(ba);
    czk_witness_free(&wm);
    czk_witness_free(&wc);
}

static void test_2kib(void **state) {
    (void)state;
    czk_c1 *c1 = gen(5, false); /* StackedDrg2KiBV1_1 */
    czk_porep_witness *w = NULL;
    czk_err err;
    czk_assert_ok(czk_porep_witness_from_c1(&w, c1, 0, &err), &err);
    check_paths(c1, 0, w);
    check_circuit(c1, 0, w);
    check_into(w);
    czk_porep_witness_free(w);
    czk_c1_free(c1);
}

/* Non-interactive 2KiB: 13 partitions; the last one's challenges come from comm_r and k. */
static void test_2kib_ni_last_partition(void **state) {
    (void)state;
    czk_c1 *c1 = gen(15, false);
    assert_int_equal(c1->num_partitions, 13);
    czk_porep_witness *w = NULL;
    czk_err err;
    czk_assert_ok(czk_porep_witness_from_c1(&w, c1, 12, &err), &err);
    check_paths(c1, 12, w);
    check_circuit(c1, 12, w);
    czk_porep_witness_free(w);
    czk_c1_free(c1);
}

/* 32GiB (Sub: 9 octree levels, then one of 8) and 64GiB (Top: then one of 2), sparse C1s. */
static void test_sub_and_top_paths(void **state) {
    (void)state;
    const uint64_t ids[2] = {8, 9};
    for (int t = 0; t < 2; t++) {
        czk_c1 *c1 = gen(ids[t], true);
        czk_err err;
        for (unsigned k = 0; k < c1->num_partitions; k += 9) {
            czk_porep_witness *w = NULL;
            czk_assert_ok(czk_porep_witness_from_c1(&w, c1, k, &err), &err);
            check_paths(c1, k, w);
            czk_porep_witness_free(w);
        }
        czk_c1_free(c1);
    }
}

static void test_refusals(void **state) {
    (void)state;
    czk_c1 *c1 = gen(5, false);
    czk_porep_witness *w = NULL;
    czk_err err;
    assert_int_equal(czk_porep_witness_from_c1(&w, c1, 1, &err), CZK_ERR_INVALID_ARG);
    assert_null(w);
    assert_non_null(strstr(err.msg, "partition 1 of 1"));
    /* a comm_r_last path one level short */
    czk_vanilla_proof *v = &c1->proofs[1];
    v->comm_r_last_proof.num_levels--;
    v->comm_r_last_proof.levels_in_part[0]--;
    assert_int_equal(czk_porep_witness_from_c1(&w, c1, 0, &err), CZK_ERR_FORMAT);
    assert_null(w);
    assert_non_null(strstr(err.msg, "[0][1].comm_r_last_proof"));
    v->comm_r_last_proof.num_levels++;
    v->comm_r_last_proof.levels_in_part[0]++;
    /* a parent column with a row missing */
    v->exp_parents[3].num_rows = 1;
    assert_int_equal(czk_porep_witness_from_c1(&w, c1, 0, &err), CZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "exp_parents[3]"));
    v->exp_parents[3].num_rows = 2;
    /* an unknown registered proof */
    c1->registered_proof = 20;
    assert_int_equal(czk_porep_witness_from_c1(&w, c1, 0, &err), CZK_ERR_FORMAT);
    uint8_t rid[32];
    assert_int_equal(czk_porep_chain_replica_id(rid, c1, 7, 1000, &err), CZK_ERR_FORMAT);
    c1->registered_proof = 5;
    czk_assert_ok(czk_porep_witness_from_c1(&w, c1, 0, &err), &err);
    czk_porep_witness_free(w);
    /* public inputs of a partition that does not exist */
    czk_fr in[39];
    assert_int_equal(czk_porep_chain_inputs(in, c1, c1->replica_id.b, NULL, 1, &err),
                     CZK_ERR_INVALID_ARG);
    czk_c1_free(c1);
}

/* Key names and lookup: Filecoin's name first, then the test keys; neither is an I/O error. */
static void test_key_lookup(void **state) {
    (void)state;
    char dir[] = "/tmp/czk-keys-XXXXXX", name[256], path[512], fc[256];
    assert_non_null(mkdtemp(dir));
    /* the whole key search path in dir: no keys of this machine's caches are found */
    setenv("FIL_PROOFS_PARAMETER_CACHE", dir, 1);
    setenv("CZK_CACHE_DIR", dir, 1);
    czk_err err;
    const czk_porep_shape *s = czk_porep_shape_for_size(2048);
    czk_assert_ok(czk_porep_test_key_name(name, sizeof name, s, ".params", &err), &err);
    assert_string_equal(name, "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.params");
    czk_porep_key_kind kind;
    assert_int_equal(czk_porep_find_key(path, sizeof path, &kind, dir, s, ".params", &err),
                     CZK_ERR_IO);
    assert_non_null(strstr(err.msg, name));
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    czk_assert_ok(czk_porep_find_key(path, sizeof path, &kind, dir, s, ".params", &err), &err);
    assert_string_equal(path, p);
    assert_int_equal(kind, CZK_POREP_KEY_TEST);
    /* spec porep-circuit.md §1: the v28 2KiB file name */
    czk_assert_ok(czk_porep_param_file_name(fc, sizeof fc, s, ".params", &err), &err);
    assert_string_equal(fc,
                        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-"
                        "sha256_hasher-"
                        "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params");
    char q[600];
    snprintf(q, sizeof q, "%s/%s", dir, fc);
    f = fopen(q, "w");
    assert_non_null(f);
    fclose(f);
    czk_assert_ok(czk_porep_find_key(path, sizeof path, &kind, dir, s, ".params", &err), &err);
    assert_string_equal(path, q);
    assert_int_equal(kind, CZK_POREP_KEY_FILECOIN);
    unlink(q);
    unlink(p);
    rmdir(dir);
    unsetenv("CZK_CACHE_DIR");
    /* the cache directory: FIL_PROOFS_PARAMETER_CACHE, else filecoin-proofs' default */
    setenv("FIL_PROOFS_PARAMETER_CACHE", "/x/y", 1);
    czk_assert_ok(czk_porep_param_cache_dir(path, sizeof path, &err), &err);
    assert_string_equal(path, "/x/y");
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    czk_assert_ok(czk_porep_param_cache_dir(path, sizeof path, &err), &err);
    assert_string_equal(path, "/var/tmp/filecoin-proof-parameters");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2kib),
        cmocka_unit_test(test_2kib_ni_last_partition),
        cmocka_unit_test(test_sub_and_top_paths),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_key_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
