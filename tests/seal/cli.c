/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * `czk gen-vanilla`: a 2KiB run writes the same bytes twice, the JSON has the
 * C1 shape of porep-circuit.md §6 (checked by key, in order), the sparse
 * 32GiB form runs, and bad options are refused with exit status 2.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "czk/porep_c1.h"

static const char *cli(void) {
    const char *c = getenv("CZK_TEST_CLI");
    if (!c) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    return c;
}

static int run(const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' gen-vanilla %s 2>/dev/null", cli(), args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void tmp_path(char *out, size_t cap, const char *name) {
    const char *d = getenv("TMPDIR");
    snprintf(out, cap, "%s/czk_seal_cli_%d_%s", d ? d : "/tmp", (int)getpid(), name);
}

static void test_deterministic_2k(void **state) {
    (void)state;
    char a[256], b[256], args[700];
    tmp_path(a, sizeof a, "a.json");
    tmp_path(b, sizeof b, "b.json");
    const char *common =
        "--sector-size 2KiB --miner-id 1000 --sector-num 7 "
        "--ticket 1111111111111111111111111111111111111111111111111111111111111111 "
        "--seed 2222222222222222222222222222222222222222222222222222222222222222 "
        "--random 5";
    snprintf(args, sizeof args, "%s --out '%s'", common, a);
    assert_int_equal(run(args), 0);
    snprintf(args, sizeof args, "%s --threads 1 --out '%s'", common, b);
    assert_int_equal(run(args), 0);
    size_t na, nb;
    char *ja = slurp(a, &na), *jb = slurp(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(ja, jb, na);
    /* The top-level keys in serde order, the variant key without _1, Single proofs. */
    const char *keys[] = {
        "{\"registered_proof\":\"StackedDrg2KiBV1_1\"",
        ",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{\"comm_d_proofs\":{\"data\":{\"Single\":",
        ",\"comm_r\":[",
        ",\"comm_d\":[",
        ",\"replica_id\":[",
        ",\"seed\":[34,34,",
        ",\"ticket\":[17,17,"};
    const char *at = ja;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *p = strstr(at, keys[i]);
        if (!p) fail_msg("C1 JSON: '%s' missing or out of order", keys[i]);
        at = p;
    }
    assert_non_null(strstr(ja, "\"labeling_proofs\":[{\"parents\":["));
    assert_non_null(strstr(ja, "\"_h\":null"));
    assert_int_equal(ja[na - 1], '}');
    /* It parses (czk_c1_parse) with the 2KiB shape: 1 × 2 challenges, 2 layers, 8-0-0. */
    czk_c1 *c1 = NULL;
    czk_err err;
    czk_assert_ok(czk_c1_parse(&c1, (const uint8_t *)ja, na, &err), &err);
    assert_int_equal(c1->registered_proof, 5);
    assert_int_equal(c1->num_partitions, 1);
    assert_int_equal(c1->challenges_per_partition, 2);
    for (int i = 0; i < 2; i++) {
        const czk_vanilla_proof *v = &c1->proofs[i];
        assert_int_equal(v->num_labeling, 2);
        assert_int_equal(v->c_x.num_rows, 2);
        assert_int_equal(v->comm_d_proof.num_levels, 6);
        assert_int_equal(v->comm_r_last_proof.kind, CZK_MERKLE_SINGLE);
        assert_int_equal(v->comm_r_last_proof.num_levels, 2);
        assert_int_equal(v->comm_r_last_proof.arity[1], 8);
        assert_int_equal(v->labeling[1].num_parents, 37);
    }
    assert_int_equal(c1->seed.b[0], 0x22);
    czk_c1_free(c1);
    free(ja);
    free(jb);
    /* Another seed: other bytes. */
    snprintf(args, sizeof args, "--sector-size 2KiB --random 6 --out '%s'", b);
    assert_int_equal(run(args), 0);
    jb = slurp(b, &nb);
    ja = slurp(a, &na);
    assert_true(na != nb || memcmp(ja, jb, na) != 0);
    free(ja);
    free(jb);
    unlink(a);
    unlink(b);
}

static void test_sparse_32g_cli(void **state) {
    (void)state;
    char a[256], args[400];
    tmp_path(a, sizeof a, "s.json");
    snprintf(args, sizeof args, "--sector-size 32GiB --sparse --out '%s'", a);
    assert_int_equal(run(args), 0);
    size_t n;
    char *j = slurp(a, &n);
    assert_non_null(strstr(j, "{\"registered_proof\":\"StackedDrg32GiBV1_1\""));
    assert_non_null(
        strstr(j, "\"comm_r_last_proof\":{\"data\":{\"Sub\":{\"base_proof\":{\"path\":["));
    free(j);
    unlink(a);
}

static void test_refusals(void **state) {
    (void)state;
    assert_int_equal(run("--sector-size 2KiB"), 2);                 /* no --out */
    assert_int_equal(run("--sector-size 3KiB --out /dev/null"), 2); /* no such size */
    assert_int_equal(run("--sector-size 2KiB --registered-proof 8 --out /dev/null"), 2);
    assert_int_equal(run("--sector-size 2KiB --ticket 12 --out /dev/null"), 2);
    assert_int_equal(run("--sector-size 2KiB --random 1 --data /dev/null --out /dev/null"), 2);
    assert_int_equal(run("--sector-size 2KiB --sparse --registered-proof 15 --out /dev/null"), 2);
    assert_int_equal(run("--bogus"), 2);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' gen-vanilla --help | grep -q 'FOR BENCHMARKS ONLY'", cli());
    assert_int_equal(system(cmd), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic_2k),
        cmocka_unit_test(test_sparse_32g_cli),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
