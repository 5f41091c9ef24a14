/* CZK_TEST_LABELS: unit */
/*
 * The PoSt circuit's sectors as parts (czk_post_record, czk_post_witness_
 * generate[_into] on pools) against the serial run of the whole circuit
 * (czk_cs_record / czk_cs_witness of czk_post_circuit_fn: every sector
 * synthesized in order on one cs, the naive implementation):
 *   - shapes equal byte for byte (the shape file's encoding, checksums and
 *     all) for 2KiB WindowPoSt (2 sectors), WinningPoSt of 2KiB and 32GiB
 *     trees (66 sectors), upstream's 8-4-2 test tree (3 × 5), and several
 *     sectors of the 32GiB (8-8-0) and 64GiB (8-8-2) TreeR shapes;
 *   - assignments equal value for value for witnesses of distinct random
 *     sectors (WITNESS mode evaluates no constraint, so any canonical values
 *     with positions below the arity do), into malloc'ed and caller arrays;
 *   - a value ≥ r in a sector fails with the serial run's message, naming
 *     the first such sector, whichever thread meets it first.
 * The satisfied witnesses of circuit_check.c are checked on pools there.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/pool.h"
#include "czk/post.h"
#include "r1cs/r1cs_internal.h"

static czk_pool *pool1, *pool2, *pool4;

static int setup(void **state) {
    (void)state;
    czk_err err;
    pool1 = czk_pool_create(1, &err);
    pool2 = czk_pool_create(2, &err);
    pool4 = czk_pool_create(4, &err);
    return pool1 && pool2 && pool4 ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    czk_pool_destroy(pool1);
    czk_pool_destroy(pool2);
    czk_pool_destroy(pool4);
    return 0;
}

static void assert_bytes_equal(const czk_shape *x, const czk_shape *y) {
    czk_err err;
    uint8_t *bx, *by;
    size_t lx, ly;
    czk_assert_ok(czk_shape_encode(x, &bx, &lx, &err), &err);
    czk_assert_ok(czk_shape_encode(y, &by, &ly, &err), &err);
    assert_int_equal(lx, ly);
    assert_memory_equal(bx, by, lx);
    free(bx);
    free(by);
}

static void record_equals_serial(const czk_post_config *cfg) {
    czk_err err;
    czk_post_circuit c = {cfg, NULL};
    czk_shape *ref = NULL, *a = NULL, *b = NULL;
    czk_assert_ok(czk_cs_record(&ref, czk_post_circuit_fn, &c, NULL, &err), &err);
    czk_assert_ok(czk_post_record(&a, cfg, pool2, NULL, &err), &err);
    czk_assert_ok(czk_post_record(&b, cfg, NULL, NULL, &err), &err);
    assert_bytes_equal(a, ref);
    assert_bytes_equal(b, ref);
    assert_true(czk_shape_equal(a, ref));
    czk_shape_free(ref);
    czk_shape_free(a);
    czk_shape_free(b);
}

static void test_record(void **state) {
    (void)state;
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(2048));
    assert_int_equal(cfg.sectors, 2);
    record_equals_serial(&cfg);
    czk_post_config_for(&cfg, CZK_POST_WINNING, czk_post_shape_for_size(2048));
    assert_int_equal(cfg.sectors, 66);
    record_equals_serial(&cfg);
    czk_post_config_for(&cfg, CZK_POST_WINNING, czk_post_shape_for_size(32ull << 30));
    record_equals_serial(&cfg);
    czk_post_config u = {4096, 8, 4, 2, 3, 5}; /* upstream's 8-4-2 test tree */
    record_equals_serial(&u);
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(32ull << 30));
    assert_int_equal(cfg.sub_arity, 8);
    cfg.sectors = 5;
    record_equals_serial(&cfg);
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(64ull << 30));
    assert_int_equal(cfg.top_arity, 2);
    cfg.sectors = 4;
    record_equals_serial(&cfg);
}

/* Canonical random bytes of an Fr (the top byte masked below r's). */
static void random_value(czk_rng *rng, uint8_t out[32]) {
    for (int i = 0; i < 32; i += 8) {
        uint64_t x = czk_rng_u64(rng);
        memcpy(out + i, &x, 8);
    }
    out[31] &= 0x3f;
}

/* A witness of distinct random sectors (not a satisfying one: WITNESS mode checks nothing). */
static czk_post_witness *random_witness(const czk_post_config *cfg, uint64_t seed) {
    czk_err err;
    czk_por_tree t;
    czk_assert_ok(czk_post_config_check(cfg, &t, &err), &err);
    czk_post_witness *w = NULL;
    czk_assert_ok(czk_post_witness_alloc(&w, cfg, &err), &err);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    unsigned levels = czk_por_tree_levels(&t), nsib = czk_por_tree_siblings(&t);
    for (unsigned i = 0; i < cfg->sectors; i++) {
        czk_post_sector *s = &w->sectors[i];
        s->sector_id = 1000 + i;
        random_value(&rng, s->comm_r);
        random_value(&rng, s->comm_c);
        random_value(&rng, s->comm_r_last);
        for (unsigned j = 0; j < cfg->challenges; j++) {
            random_value(&rng, s->leaves[j]);
            for (unsigned l = 0; l < levels; l++)
                s->paths[j].positions[l] =
                    (uint32_t)(czk_rng_u64(&rng) % czk_por_tree_arity(&t, l));
            for (unsigned k = 0; k < nsib; k++)
                random_value(&rng, s->paths[j].siblings + 32u * k);
        }
    }
    return w;
}

static void assert_witness_equal(const czk_witness *x, const czk_witness *y) {
    assert_int_equal(x->num_inputs, y->num_inputs);
    assert_int_equal(x->num_aux, y->num_aux);
    assert_memory_equal(x->inputs, y->inputs, x->num_inputs * sizeof(czk_fr));
    assert_memory_equal(x->aux, y->aux, (size_t)x->num_aux * sizeof(czk_fr));
}

static void witness_equals_serial(const czk_post_config *cfg, uint64_t seed) {
    czk_err err;
    czk_post_witness *pw = random_witness(cfg, seed);
    czk_post_circuit c = {cfg, pw};
    czk_witness ref;
    czk_assert_ok(czk_cs_witness(&ref, czk_post_circuit_fn, &c, NULL, &err), &err);
    assert_int_equal(ref.num_inputs, czk_post_num_inputs(cfg));
    czk_pool *pools[4] = {NULL, pool1, pool2, pool4};
    for (int p = 0; p < 4; p++) {
        czk_witness w;
        czk_assert_ok(czk_post_witness_generate(&w, cfg, pw, pools[p], NULL, &err), &err);
        assert_witness_equal(&w, &ref);
        czk_witness_free(&w);
        czk_witness buf = {calloc(ref.num_inputs, sizeof(czk_fr)),
                           calloc(ref.num_aux, sizeof(czk_fr)), ref.num_inputs, ref.num_aux, NULL};
        czk_fr *bi = buf.inputs, *ba = buf.aux;
        czk_assert_ok(czk_post_witness_generate_into(&buf, cfg, pw, pools[p], NULL, &err), &err);
        assert_ptr_equal(buf.inputs, bi);
        assert_witness_equal(&buf, &ref);
        free(bi);
        free(ba);
    }
    czk_witness_free(&ref);
    czk_post_witness_free(pw);
}

static void test_witness(void **state) {
    (void)state;
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(2048));
    witness_equals_serial(&cfg, 1);
    czk_post_config_for(&cfg, CZK_POST_WINNING, czk_post_shape_for_size(2048));
    witness_equals_serial(&cfg, 2);
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(32ull << 30));
    cfg.sectors = 7;
    witness_equals_serial(&cfg, 3);
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(64ull << 30));
    cfg.sectors = 5;
    witness_equals_serial(&cfg, 4);
}

/* Values ≥ r in sectors 3 and 9 (of 12): sector 3's message, as serially; any pool. */
static void test_witness_bad_value(void **state) {
    (void)state;
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(32ull << 30));
    cfg.sectors = 12;
    const char *want[2] = {"sector 3 (id 1003): challenge 4: sibling 2 is not below r",
                           "sector 3 (id 1003): comm_c is not below r"};
    for (int k = 0; k < 2; k++) {
        czk_post_witness *pw = random_witness(&cfg, 5);
        if (k == 0)
            memset(pw->sectors[3].paths[4].siblings + 64, 0xff, 32);
        else
            memset(pw->sectors[3].comm_c, 0xff, 32);
        memset(pw->sectors[9].comm_r, 0xff, 32);
        czk_post_circuit c = {&cfg, pw};
        czk_witness w;
        czk_err e0, e1;
        assert_int_equal(czk_cs_witness(&w, czk_post_circuit_fn, &c, NULL, &e0), CZK_ERR_FR_RANGE);
        if (!strstr(e0.msg, want[k])) fail_msg("serial: '%s', expected '%s'", e0.msg, want[k]);
        czk_pool *pools[3] = {pool1, pool2, pool4};
        for (int p = 0; p < 3; p++) {
            assert_int_equal(czk_post_witness_generate(&w, &cfg, pw, pools[p], NULL, &e1),
                             CZK_ERR_FR_RANGE);
            assert_string_equal(e1.msg, e0.msg);
        }
        czk_post_witness_free(pw);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record),
        cmocka_unit_test(test_witness),
        cmocka_unit_test(test_witness_bad_value),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
