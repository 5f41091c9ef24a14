/* CZK_TEST_LABELS: unit */
/*
 * The FallbackPoSt circuit in CHECK mode on witnesses built here from
 * native Poseidon trees (tests/gadgets/native_tree.h: czk_poseidon_hash,
 * no gadget): every constraint holds for true sectors; the inputs are, per
 * sector, comm_r then each challenged leaf index (the packed path bits),
 * which is what generate_public_inputs lists; a wrong sibling, leaf, comm_c
 * or comm_r makes a constraint of that sector fail, named by its namespace;
 * a value ≥ r is refused naming the sector and field. The WITNESS-mode
 * assignment equals CHECK mode's, serially and with the sectors on a pool.
 */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "../gadgets/native_tree.h"
#include "czk/pool.h"
#include "czk/post.h"

typedef struct fixture {
    czk_post_config cfg;
    czk_por_tree tree;
    nt_tree trees[4];
    czk_post_witness *w;
    uint64_t idx[4][8];
} fixture;

static void build(fixture *f, const czk_post_config *cfg, uint64_t seed) {
    memset(f, 0, sizeof *f);
    f->cfg = *cfg;
    czk_err err;
    czk_assert_ok(czk_post_config_check(cfg, &f->tree, &err), &err);
    czk_assert_ok(czk_post_witness_alloc(&f->w, cfg, &err), &err);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_fr *leaves = malloc(cfg->nodes * sizeof *leaves);
    assert_non_null(leaves);
    for (unsigned i = 0; i < cfg->sectors; i++) {
        for (uint64_t j = 0; j < cfg->nodes; j++)
            nt_random_fr(&rng, &leaves[j]);
        nt_build(&f->trees[i], &f->tree, leaves, cfg->nodes);
        czk_post_sector *s = &f->w->sectors[i];
        s->sector_id = 100 + i;
        czk_fr comm_c, pre[2], comm_r;
        nt_random_fr(&rng, &comm_c);
        pre[0] = comm_c;
        pre[1] = *nt_root(&f->trees[i]);
        czk_assert_ok(czk_poseidon_hash(&comm_r, pre, 2, &err), &err);
        czk_fr_to_bytes(s->comm_c, &comm_c);
        czk_fr_to_bytes(s->comm_r_last, nt_root(&f->trees[i]));
        czk_fr_to_bytes(s->comm_r, &comm_r);
        for (unsigned j = 0; j < cfg->challenges; j++) {
            uint64_t x = f->idx[i][j] = czk_rng_u64(&rng) % cfg->nodes;
            czk_fr_to_bytes(s->leaves[j], &f->trees[i].nodes[0][x]);
            nt_path_bytes(&f->trees[i], x, s->paths[j].positions, s->paths[j].siblings);
        }
    }
    free(leaves);
}

static void unbuild(fixture *f) {
    for (unsigned i = 0; i < f->cfg.sectors; i++)
        nt_free(&f->trees[i]);
    czk_post_witness_free(f->w);
}

static czk_status check(const fixture *f, czk_witness *out, char *path, size_t cap, czk_err *err) {
    czk_cs *cs = czk_cs_create(CZK_CS_CHECK, NULL, err);
    assert_non_null(cs);
    czk_post_circuit c = {&f->cfg, f->w};
    czk_status st = czk_cs_run(cs, czk_post_circuit_fn, &c, err);
    if (path) {
        const char *p = czk_cs_first_unsatisfied_path(cs);
        snprintf(path, cap, "%s", p ? p : "");
    }
    if (out) czk_assert_ok(czk_cs_take_witness(cs, out, err), err);
    czk_cs_free(cs);
    return st;
}

static void satisfied(const czk_post_config *cfg) {
    fixture f;
    build(&f, cfg, 7 + cfg->top_arity);
    czk_err err;
    czk_witness w;
    czk_assert_ok(check(&f, &w, NULL, 0, &err), &err);
    assert_int_equal(w.num_inputs, czk_post_num_inputs(cfg));
    /* inputs: per sector comm_r, then the leaf indices */
    size_t k = 1;
    for (unsigned i = 0; i < cfg->sectors; i++) {
        czk_fr comm_r, x;
        czk_assert_ok(czk_fr_from_bytes(&comm_r, f.w->sectors[i].comm_r, &err), &err);
        assert_true(czk_fr_eq(&w.inputs[k++], &comm_r));
        for (unsigned j = 0; j < cfg->challenges; j++) {
            czk_fr_from_u64(&x, f.idx[i][j]);
            assert_true(czk_fr_eq(&w.inputs[k++], &x));
        }
    }
    /* WITNESS mode gives the same assignment */
    czk_witness v;
    czk_assert_ok(czk_post_witness_generate(&v, cfg, f.w, NULL, NULL, &err), &err);
    assert_int_equal(v.num_inputs, w.num_inputs);
    assert_int_equal(v.num_aux, w.num_aux);
    assert_memory_equal(v.inputs, w.inputs, w.num_inputs * sizeof(czk_fr));
    assert_memory_equal(v.aux, w.aux, w.num_aux * sizeof(czk_fr));
    czk_witness_free(&v);
    /* and so do the sectors synthesized on a pool (czk_cs_run_parts) */
    czk_pool *pool = czk_pool_create(2, &err);
    assert_non_null(pool);
    czk_assert_ok(czk_post_witness_generate(&v, cfg, f.w, pool, NULL, &err), &err);
    czk_pool_destroy(pool);
    assert_int_equal(v.num_aux, w.num_aux);
    assert_memory_equal(v.inputs, w.inputs, w.num_inputs * sizeof(czk_fr));
    assert_memory_equal(v.aux, w.aux, w.num_aux * sizeof(czk_fr));
    czk_witness_free(&v);
    czk_witness_free(&w);
    unbuild(&f);
}

static void test_satisfied(void **state) {
    (void)state;
    czk_post_config a = {64, 8, 0, 0, 2, 3};  /* 2KiB tree */
    czk_post_config b = {512, 8, 4, 2, 3, 2}; /* upstream's 8-4-2 test tree */
    czk_post_config c = {256, 8, 4, 0, 1, 4};
    satisfied(&a);
    satisfied(&b);
    satisfied(&c);
}

static void expect_unsatisfied(fixture *f, const char *ns) {
    czk_err err;
    char path[256];
    assert_int_equal(check(f, NULL, path, sizeof path, &err), CZK_ERR_UNSATISFIED);
    if (!strstr(path, ns)) fail_msg("unsatisfied at '%s', expected '%s'", path, ns);
}

static void test_tampered(void **state) {
    (void)state;
    czk_post_config cfg = {64, 8, 0, 0, 2, 3};
    fixture f;
    /* a sibling of sector 1, challenge 2 */
    build(&f, &cfg, 11);
    f.w->sectors[1].paths[2].siblings[32 * 3] ^= 1;
    expect_unsatisfied(&f, "sector_1/challenge_inclusion_2");
    unbuild(&f);
    /* the leaf of sector 0, challenge 1 */
    build(&f, &cfg, 11);
    f.w->sectors[0].leaves[1][0] ^= 1;
    expect_unsatisfied(&f, "sector_0/challenge_inclusion_1");
    unbuild(&f);
    /* comm_c of sector 1: H(comm_c || comm_r_last) != comm_r */
    build(&f, &cfg, 11);
    f.w->sectors[1].comm_c[0] ^= 1;
    expect_unsatisfied(&f, "sector_1/enforce_comm_c_comm_r_last_hash_comm_r");
    unbuild(&f);
    /* a position moved: the path no longer hashes to comm_r_last */
    build(&f, &cfg, 11);
    f.w->sectors[0].paths[0].positions[0] ^= 1;
    expect_unsatisfied(&f, "sector_0/challenge_inclusion_0");
    unbuild(&f);
}

static void test_out_of_range(void **state) {
    (void)state;
    czk_post_config cfg = {64, 8, 0, 0, 2, 3};
    fixture f;
    build(&f, &cfg, 5);
    memset(f.w->sectors[1].comm_r_last, 0xff, 32);
    czk_err err;
    assert_int_equal(check(&f, NULL, NULL, 0, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "sector 1 (id 101)"));
    assert_non_null(strstr(err.msg, "comm_r_last"));
    unbuild(&f);
    build(&f, &cfg, 5);
    memset(f.w->sectors[0].paths[2].siblings + 32, 0xff, 32);
    assert_int_equal(check(&f, NULL, NULL, 0, &err), CZK_ERR_FR_RANGE);
    assert_non_null(strstr(err.msg, "sector 0 (id 100): challenge 2: sibling 1"));
    unbuild(&f);
    /* a witness of another configuration */
    build(&f, &cfg, 5);
    f.cfg.challenges = 2;
    assert_int_equal(check(&f, NULL, NULL, 0, &err), CZK_ERR_MISMATCH);
    f.cfg.challenges = 3;
    unbuild(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_satisfied),
        cmocka_unit_test(test_tampered),
        cmocka_unit_test(test_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
