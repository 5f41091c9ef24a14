/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 900 */
/*
 * Round trip with the pre-check of branch c1 (include/czk/porep_precheck.h,
 * `czk check-c1`), an implementation written apart from src/seal: C1s made by
 * czk_seal_generate — 2KiB and 8MiB sealed in full, 32GiB sparse — are
 * written as JSON, parsed back and pre-checked with replica_id recomputed
 * from the miner and sector; a changed byte in a label, a column row or a
 * Merkle sibling is refused naming the partition and challenge; and the CLI
 * pair gen-vanilla | check-c1 exits 0, and 1 on an edited file.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "czk/porep_precheck.h"
#include "czk/seal.h"
#include "sector.h"

static czk_pool *g_pool;

static czk_c1 *generate_and_reparse(uint64_t id, bool sparse) {
    czk_test_sector ts = {.registered_proof = id,
                          .miner_id = 1234,
                          .sector_num = 56,
                          .ticket = 0x31,
                          .seed = 0x42,
                          .data_seed = 8,
                          .sparse = sparse};
    czk_c1 *c1 = NULL, *back = NULL;
    czk_err err;
    czk_assert_ok(czk_test_seal(&c1, &ts, g_pool, &err), &err);
    char *json = NULL;
    size_t len = 0;
    czk_assert_ok(czk_c1_to_json(c1, &json, &len, &err), &err);
    czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)json, len, &err), &err);
    assert_int_equal(back->registered_proof, id);
    assert_memory_equal(back->comm_r.b, c1->comm_r.b, 32);
    free(json);
    czk_c1_free(c1);
    return back;
}

static void precheck_ok(const czk_c1 *c1) {
    czk_precheck_opts o = {.have_ids = true, .sector_num = 56, .miner_id = 1234};
    czk_err err;
    czk_assert_ok(czk_c1_precheck(c1, &o, g_pool, &err), &err);
}

static void precheck_refuses(const czk_c1 *c1, const char *where) {
    czk_err err;
    assert_int_equal(czk_c1_precheck(c1, NULL, g_pool, &err), CZK_ERR_VERIFY);
    if (!strstr(err.msg, where)) fail_msg("'%s' does not name '%s'", err.msg, where);
}

/* Flips one byte of a label, a parent column row and a sibling in turn. */
static void mutations(czk_c1 *c1, unsigned k, unsigned i) {
    char where[64];
    snprintf(where, sizeof where, "partition %u, challenge %u", k, i);
    czk_vanilla_proof *v = &c1->proofs[(size_t)k * c1->challenges_per_partition + i];
    uint32_t L = v->c_x.num_rows;
    v->c_x.rows[L - 1].b[5] ^= 1; /* a label */
    precheck_refuses(c1, where);
    v->c_x.rows[L - 1].b[5] ^= 1;
    v->exp_parents[7].rows[0].b[30] ^= 4; /* a column row */
    precheck_refuses(c1, where);
    v->exp_parents[7].rows[0].b[30] ^= 4;
    v->comm_d_proof.siblings[2].b[0] ^= 1; /* a TreeD sibling */
    precheck_refuses(c1, where);
    v->comm_d_proof.siblings[2].b[0] ^= 1;
    v->drg_parents[1].inclusion.siblings[3].b[8] ^= 0x20; /* a TreeC sibling */
    precheck_refuses(c1, where);
    v->drg_parents[1].inclusion.siblings[3].b[8] ^= 0x20;
    precheck_ok(c1);
}

static void test_full_2k(void **state) {
    (void)state;
    for (uint64_t id = 0; id < 20; id += 5) { /* V1, V1_1, synthetic, NI */
        czk_c1 *c1 = generate_and_reparse(id, false);
        precheck_ok(c1);
        mutations(c1, c1->num_partitions - 1, 1);
        czk_c1_free(c1);
    }
}

static void test_full_8m(void **state) {
    (void)state;
    czk_c1 *c1 = generate_and_reparse(6, false);
    precheck_ok(c1);
    mutations(c1, 0, 0);
    czk_c1_free(c1);
}

static void test_sparse(void **state) {
    (void)state;
    static const uint64_t ids[] = {5, 7, 8, 9};
    for (size_t n = 0; n < 4; n++) {
        czk_c1 *c1 = generate_and_reparse(ids[n], true);
        precheck_ok(c1);
        if (ids[n] == 8) mutations(c1, 9, 17);
        czk_c1_free(c1);
    }
}

static void test_cli_pair(void **state) {
    (void)state;
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    const char *d = getenv("TMPDIR");
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/czk_seal_check_%d.json", d ? d : "/tmp", (int)getpid());
    snprintf(cmd, sizeof cmd,
             "'%s' gen-vanilla --sector-size 32GiB --sparse --miner-id 9 --sector-num 3 --out '%s' "
             "2>/dev/null && '%s' check-c1 '%s' --miner-id 9 --sector-num 3 >/dev/null",
             cli, path, cli, path);
    assert_int_equal(system(cmd), 0);
    /* Edit byte 0 of the first row of the first c_x column: "rows":[[a, -> a ^ 1. */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    char *p = strstr(buf, "\"rows\":[[");
    assert_non_null(p);
    p += 9;
    while (p[1] >= '0' && p[1] <= '9')
        p++; /* the last digit: x ^ 1 keeps the value <= 255 */
    assert_true(*p >= '0' && *p <= '9');
    *p = (char)(*p ^ 1);
    fseek(f, 0, SEEK_SET);
    assert_int_equal(fwrite(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    free(buf);
    snprintf(cmd, sizeof cmd, "'%s' check-c1 '%s' 2>&1 | grep -q 'partition 0, challenge 0'", cli,
             path);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' check-c1 '%s' >/dev/null 2>&1", cli, path);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    unlink(path);
}

static int setup(void **state) {
    (void)state;
    g_pool = czk_pool_create(0, NULL);
    return g_pool ? 0 : -1;
}
static int teardown(void **state) {
    (void)state;
    czk_pool_destroy(g_pool);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_2k),
        cmocka_unit_test(test_full_8m),
        cmocka_unit_test(test_sparse),
        cmocka_unit_test(test_cli_pair),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
