/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * The SnapDeals commands, seen from outside ($CZK_TEST_CLI):
 *   - `czk circuit-info --kind snap`: the printed counts against upstream's
 *     literals (storage-proofs-update tests/circuit.rs: 1KiB 1,248,389,
 *     2KiB 1,705,039, 4KiB 2,165,109, 32GiB 81,049,499 synthesized; 5
 *     inputs; spec §0 prover n 81,049,504, domain 2^27), by size and by
 *     RegisteredUpdateProof, and the refusals with their exit codes;
 *   - `czk gen-vanilla --snap`: the JSON array of base64 blobs Curio
 *     stores, equal blob for blob to the bincode files of --out-dir, each
 *     partition parsed and pre-checked with the commitments of update.json
 *     (the request file of czk prove --kind snap, naming the bincode files)
 *     (a sealed 2KiB sector key; a sparse 8MiB one of 4 partitions), and
 *     its refusals.
 */
#include "support.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "czk/snap.h"

typedef struct row {
    const char *args;
    unsigned long long partitions, challenges, synth, domain;
} row;

static const row rows[] = {
    {"--kind snap --sector-size 2KiB", 1, 10, 1705039, 1ull << 21},
    {"--kind snap --sector-size 1KiB", 1, 10, 1248389, 1ull << 21},
    {"--kind snap --sector-size 4096", 1, 10, 2165109, 1ull << 22},
    {"--kind snap --registered-proof 3", 16, 86, 81049499, 1ull << 27},
    {"--kind snap --registered-proof 0 --sector-size 2KiB", 1, 10, 1705039, 1ull << 21},
};

static void test_circuit_info(void **state) {
    (void)state;
    static char out[8192];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        char args[256];
        snprintf(args, sizeof args, "circuit-info %s", r->args);
        if (czk_test_cli(NULL, args, "2>&1", out, sizeof out) != 0) fail_msg("%s:\n%s", args, out);
        assert_int_equal(czk_test_value(out, "partitions"), r->partitions);
        assert_int_equal(czk_test_value(out, "challenges_per_partition"), r->challenges);
        assert_int_equal(czk_test_value(out, "synthesized_constraints"), r->synth);
        assert_int_equal(czk_test_value(out, "constraints"), r->synth + 5);
        assert_int_equal(czk_test_value(out, "inputs"), 5);
        assert_int_equal(czk_test_value(out, "domain"), r->domain);
        assert_int_equal(czk_test_value(out, "params_h"), r->domain - 1);
        assert_int_equal(czk_test_value(out, "params_l"), czk_test_value(out, "aux"));
        assert_int_equal(czk_test_value(out, "params_a"), 5 + czk_test_value(out, "a_aux_density"));
        assert_int_equal(czk_test_value(out, "params_b_g1"),
                         1 + czk_test_value(out, "b_aux_density"));
    }
    czk_test_cli_expect(NULL, "circuit-info --kind snap --sector-size 4GiB", 1,
                        "no SnapDeals sector size of 4294967296 bytes");
    czk_test_cli_expect(NULL, "circuit-info --kind snap --registered-proof 5", 1,
                        "registered update proof 5: known are 0-4");
    czk_test_cli_expect(NULL, "circuit-info --kind snap --registered-proof 1 --sector-size 2KiB", 1,
                        "registered update proof 1 is for 8MiB sectors, not 2KiB");
    czk_test_cli_expect(NULL, "circuit-info --kind snap --registered-proof x", 2,
                        "--registered-proof takes a number");
}

static void hex32(uint8_t out[32], const char *s) {
    assert_non_null(s);
    assert_int_equal(strlen(s), 64);
    czk_test_hex(out, 32, s);
}

/* Runs gen-vanilla --snap into dir; checks the JSON against the files and pre-checks each. */
static void gen_and_check(const char *dir, const char *size_args, const czk_snap_shape *s) {
    char args[1024], path[800];
    snprintf(args, sizeof args,
             "gen-vanilla --snap %s --random 11 --out '%s/v.json' --out-dir '%s'", size_args, dir,
             dir);
    czk_test_cli_expect(NULL, args, 0, "comm_r_new");
    snprintf(path, sizeof path, "%s/update.json", dir);
    char *info = czk_test_slurp(path, NULL);
    assert_non_null(info);
    char e[256];
    yajl_val u = yajl_tree_parse(info, e, sizeof e);
    if (!u) fail_msg("update.json: %s", e);
    static const char *p_k[] = {"partitions", NULL}, *p_h[] = {"h", NULL},
                      *p_ro[] = {"comm_r_old", NULL}, *p_d[] = {"comm_d_new", NULL},
                      *p_rn[] = {"comm_r_new", NULL}, *p_id[] = {"registered_proof", NULL};
    assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(u, p_k, yajl_t_number)), s->partitions);
    assert_int_equal(YAJL_GET_INTEGER(yajl_tree_get(u, p_id, yajl_t_number)), s->registered_proof);
    czk_snap_public pub;
    memset(&pub, 0, sizeof pub);
    pub.h = (unsigned)YAJL_GET_INTEGER(yajl_tree_get(u, p_h, yajl_t_number));
    assert_int_equal(pub.h, s->h_default);
    hex32(pub.comm_r_old, YAJL_GET_STRING(yajl_tree_get(u, p_ro, yajl_t_string)));
    hex32(pub.comm_d_new, YAJL_GET_STRING(yajl_tree_get(u, p_d, yajl_t_string)));
    hex32(pub.comm_r_new, YAJL_GET_STRING(yajl_tree_get(u, p_rn, yajl_t_string)));
    yajl_tree_free(u);
    free(info);

    snprintf(path, sizeof path, "%s/v.json", dir);
    char *json = czk_test_slurp(path, NULL);
    assert_non_null(json);
    yajl_val arr = yajl_tree_parse(json, e, sizeof e);
    if (!arr) fail_msg("v.json: %s", e);
    assert_true(YAJL_IS_ARRAY(arr));
    assert_int_equal(YAJL_GET_ARRAY(arr)->len, s->partitions);
    for (unsigned k = 0; k < s->partitions; k++) {
        const char *b64 = YAJL_GET_STRING(YAJL_GET_ARRAY(arr)->values[k]);
        assert_non_null(b64);
        size_t n64 = strlen(b64);
        uint8_t *blob = malloc(n64);
        assert_non_null(blob);
        int n = EVP_DecodeBlock(blob, (const unsigned char *)b64, (int)n64);
        assert_true(n > 0);
        n -= (n64 > 0 && b64[n64 - 1] == '=') + (n64 > 1 && b64[n64 - 2] == '=');
        snprintf(path, sizeof path, "%s/partition-%u.vproof", dir, k);
        size_t flen = 0;
        uint8_t *file = czk_test_read(path, &flen);
        assert_int_equal((size_t)n, flen);
        assert_memory_equal(blob, file, flen);
        czk_snap_vanilla *v = NULL;
        czk_err err;
        czk_assert_ok(czk_snap_vanilla_parse(&v, file, flen, s, k, &err), &err);
        pub.k = k;
        czk_assert_ok(czk_snap_precheck(v, s, &pub, &err), &err);
        czk_snap_vanilla_free(v);
        free(file);
        free(blob);
    }
    yajl_tree_free(arr);
    free(json);
}

static void test_gen_vanilla(void **state) {
    (void)state;
    char dir[700];
    czk_test_tmpdir(dir, sizeof dir, "snapcli");
    gen_and_check(dir, "--sector-size 2KiB", czk_snap_shape_for_size(2048));
    gen_and_check(dir, "--sector-size 8MiB --sparse", czk_snap_shape_for_size(8 << 20));
    char args[1024];
    snprintf(args, sizeof args, "gen-vanilla --snap --sector-size 2KiB --h 11 --out '%s/x'", dir);
    czk_test_cli_expect(NULL, args, 2, "h 11 is not one of the sector size's hs");
    czk_test_cli_expect(NULL, "gen-vanilla --snap --sector-size 2KiB", 2,
                        "--out or --out-dir is required");
    czk_test_cli_expect(NULL, "gen-vanilla --sector-size 2KiB --out-dir /tmp", 2,
                        "unknown option '--out-dir'");
    snprintf(args, sizeof args, "gen-vanilla --snap --sector-size 32GiB --out '%s/x'", dir);
    czk_test_cli_expect(NULL, args, 2, "use a sparse sector");
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circuit_info),
        cmocka_unit_test(test_gen_vanilla),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
