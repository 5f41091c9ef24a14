/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * `czk circuit-info`: the 2KiB partition's lines against spec/porep-circuit.md
 * §1 (n 2,687,961, 40 inputs, 2,685,673 aux, a_aux 2,674,908, b_aux 685,521,
 * b_input 1, domain 2^22) and the predicted 2KiB .params size of §1 "Size
 * formulas", 1,114,707,768 bytes, rebuilt from the printed vector lengths;
 * the shape cache (written, read back, a corrupt file replaced); exit codes.
 * The engine's shape cache (srs.shape_cache): the PoRep kind made with a
 * directory keeps it as its own, and czk_porep_shape_load_in records the
 * 2KiB shape into that directory (made if missing) and reads it back there,
 * with the counts of §1; NULL records without a cache.
 */
#include "support.h"

#include "czk/engine.h"
#include "czk/kinds.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char cache[256];

/* Runs the CLI with CZK_CACHE_DIR=cache; returns the exit status, output in out. */
static int cli(const char *args, char *out, size_t cap) {
    char env[600], a[1024];
    snprintf(env, sizeof env, "CZK_CACHE_DIR='%s'", cache);
    snprintf(a, sizeof a, "circuit-info %s", args);
    return czk_test_cli(env, a, "2>/dev/null", out, cap);
}

static unsigned long long value(const char *out, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\n%s: ", key);
    char buf[8200];
    buf[0] = '\n';
    strncpy(buf + 1, out, sizeof buf - 2);
    buf[sizeof buf - 1] = 0;
    const char *p = strstr(buf, k);
    if (!p) fail_msg("no line '%s'", key);
    return strtoull(p + strlen(k), NULL, 10);
}

static const char *const expected_2kib = "sector_size: 2048\n"
                                         "partitions: 1\n"
                                         "challenges_per_partition: 2\n"
                                         "layers: 2\n"
                                         "constraints: 2687961\n"
                                         "inputs: 40\n"
                                         "aux: 2685673\n";

static void check_2kib(const char *out) {
    assert_memory_equal(out, expected_2kib, strlen(expected_2kib));
    assert_int_equal(value(out, "a_aux_density"), 2674908);
    assert_int_equal(value(out, "b_input_density"), 1);
    assert_int_equal(value(out, "b_aux_density"), 685521);
    assert_int_equal(value(out, "domain"), 1u << 22);
    assert_int_equal(value(out, "params_h"), (1u << 22) - 1);
    assert_int_equal(value(out, "params_l"), 2685673);
    assert_int_equal(value(out, "params_a"), 40 + 2674908);
    assert_int_equal(value(out, "params_b_g1"), 1 + 685521);
    assert_int_equal(value(out, "params_b_g2"), 1 + 685521);
    /* .params = vk (864 + 4 + 96·inputs) + five u32-prefixed vectors of G1 (96 B)
     * or G2 (192 B) points */
    unsigned long long size = 864 + 4 + 96 * value(out, "inputs") + 5 * 4 +
                              96 * (value(out, "params_h") + value(out, "params_l") +
                                    value(out, "params_a") + value(out, "params_b_g1")) +
                              192 * value(out, "params_b_g2");
    assert_int_equal(size, 1114707768ull);
    assert_true(value(out, "nnz_a") > 0 && value(out, "nnz_b") > 0 && value(out, "nnz_c") > 0);
}

static void test_2kib_and_cache(void **state) {
    (void)state;
    static char out[8192], again[8192];
    assert_int_equal(cli("--sector-size 2KiB", out, sizeof out), 0);
    check_2kib(out);
    char path[400];
    snprintf(path, sizeof path, "%s/shapes/porep-v28-2KiB.shape", cache);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    /* from the cache, by bytes and proof id: the same lines */
    assert_int_equal(cli("--sector-size 2048 --registered-proof 5", again, sizeof again), 0);
    assert_non_null(strstr(again, "registered_proof: 5\n"));
    assert_string_equal(strstr(again, "constraints:"), strstr(out, "constraints:"));
    assert_int_equal(cli("--registered-proof 15", again, sizeof again), 0); /* NI: 13 partitions */
    assert_non_null(strstr(again, "partitions: 13\n"));
    assert_string_equal(strstr(again, "constraints:"), strstr(out, "constraints:"));
    /* a corrupt cache file is recorded again and replaced */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 100, SEEK_SET);
    fputc(0x5a, f);
    fclose(f);
    assert_int_equal(cli("--sector-size 2KiB", again, sizeof again), 0);
    assert_string_equal(again, out);
    assert_int_equal(cli("--sector-size 2KiB", again, sizeof again), 0);
    assert_string_equal(again, out);
    /* --no-cache records without the cache */
    unlink(path);
    assert_int_equal(cli("--sector-size 2k --no-cache", again, sizeof again), 0);
    assert_string_equal(again, out);
    assert_int_not_equal(stat(path, &st), 0);
}

static void test_exit_codes(void **state) {
    (void)state;
    static char out[8192];
    assert_int_equal(cli("--help", out, sizeof out), 0);
    assert_non_null(strstr(out, "usage: czk circuit-info"));
    assert_int_equal(cli("", out, sizeof out), 2);
    assert_int_equal(cli("--sector-size", out, sizeof out), 2);
    assert_int_equal(cli("--sector-size 2KiB --bogus", out, sizeof out), 2);
    assert_int_equal(cli("--sector-size lots", out, sizeof out), 2);
    assert_int_equal(cli("--registered-proof x", out, sizeof out), 2);
    assert_int_equal(cli("--sector-size 4096", out, sizeof out), 1);
    assert_int_equal(cli("--registered-proof 20", out, sizeof out), 1);
    assert_int_equal(cli("--sector-size 2KiB --registered-proof 8", out, sizeof out), 1);
    assert_string_equal(out, "");
}

static void test_shape_cache_dir(void **state) {
    (void)state;
    char dir[400], file[500];
    snprintf(dir, sizeof dir, "%s/engine/shapes", cache);
    snprintf(file, sizeof file, "%s/porep-v28-2KiB.shape", dir);
    czk_err err;
    czk_proof_kind k;
    czk_assert_ok(czk_kind_porep(&k, dir, &err), &err);
    assert_string_equal((const char *)k.ctx, dir);
    k.destroy(k.ctx);
    czk_assert_ok(czk_kind_porep(&k, "", &err), &err);
    assert_null(k.ctx);
    const czk_porep_shape *ps = czk_porep_shape_for_size(2048);
    czk_shape *s = NULL;
    bool recorded = false;
    assert_int_not_equal(access(file, R_OK), 0);
    czk_assert_ok(czk_porep_shape_load_in(&s, &recorded, ps, dir, &err), &err);
    assert_true(recorded);
    assert_int_equal(access(file, R_OK), 0);
    assert_int_equal(s->num_constraints, 2687961); /* n of §1 */
    assert_int_equal(s->num_inputs, 40);
    czk_shape_free(s);
    czk_assert_ok(czk_porep_shape_load_in(&s, &recorded, ps, dir, &err), &err);
    assert_false(recorded);
    assert_int_equal(s->num_inputs, 40);
    czk_shape_free(s);
    czk_assert_ok(czk_porep_shape_load_in(&s, &recorded, ps, NULL, &err), &err);
    assert_true(recorded);
    czk_shape_free(s);
}

static int setup(void **state) {
    (void)state;
    czk_test_tmpdir(cache, sizeof cache, "circuit-info");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    czk_test_rm_rf(cache);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2kib_and_cache),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_shape_cache_dir),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
