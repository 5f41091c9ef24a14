/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1200 */
/* CZK_TEST_FIXTURES_SETUP: snap_2kib_keys */
/*
 * Fixture: the 2KiB SnapDeals TEST keys of the SnapDeals end-to-end tests
 * (snap.prove, rpc.python_client), made by `czk setup --kind snap
 * --sector-size 2KiB` once, in its default directory, czk's test keys
 * ($CZK_CACHE_DIR/test-keys, else ~/.cache/czk/test-keys), under czk's
 * test-key name (czk_snap_key_names); a later run finds them and keeps
 * them. The files must have the lengths bellperson's layout gives the
 * update circuit's counts, computed here from czk_snap_count (one
 * recording of two challenges, extrapolated; not the whole circuit that
 * setup recorded): .vk 864 + 4 + 96·5 bytes, .params that plus five
 * vectors (h = domain − 1, l = aux, a = inputs + a_aux, b_g1 = b_g2 =
 * b_input + b_aux; 4-byte lengths, 96-byte G1 and 192-byte G2 points);
 * the .vk must read back with 5 inputs, and a second setup must keep the
 * files as they are. Refusals: a test size of upstream's (no parameter
 * file exists for it) and a registered update proof that does not exist.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "czk/groth16.h"
#include "czk/snap.h"
#include "util/cache.h"

static void test_keys(void **state) {
    (void)state;
    const czk_snap_shape *s = czk_snap_shape_for_size(2048);
    char dir[600], name[CZK_SNAP_KEY_NAME_MAX], p[800], v[800];
    if (!czk_cache_dir(dir, sizeof dir, "test-keys")) fail_msg("no CZK_CACHE_DIR or HOME");
    czk_err err;
    czk_assert_ok(czk_snap_key_names(s, NULL, name, &err), &err);
    assert_string_equal(name, "czk-test-v28-empty-sector-update-8-0-0-2KiB");
    snprintf(p, sizeof p, "%s/%s.params", dir, name);
    snprintf(v, sizeof v, "%s/%s.vk", dir, name);

    static char out[16384];
    /* no --out-dir: czk setup writes to czk's test-key directory */
    int rc = czk_test_cli(NULL, "setup --kind snap --sector-size 2KiB --seed 18", "2>&1", out,
                          sizeof out);
    if (rc) fail_msg("czk setup --kind snap: exit %d\n%s", rc, out);
    fprintf(stderr, "%s", out);
    assert_true(strstr(out, "kept") || strstr(out, "stamped as checked"));

    czk_shape_counts c;
    czk_assert_ok(czk_snap_count(&c, s, &err), &err);
    assert_int_equal(c.synthesized_constraints, 1705039); /* storage-proofs-update circuit.rs */
    uint64_t domain = 1;
    while (domain < c.constraints)
        domain <<= 1;
    uint64_t h = domain - 1, l = c.aux, a = c.inputs + c.a_aux, b = c.b_input + c.b_aux;
    uint64_t vk_len = 864 + 4 + 96 * 5;
    uint64_t params_len = vk_len + 5 * 4 + 96 * (h + l + a + b) + 192 * b;
    struct stat sp, sv, sp2;
    assert_int_equal(stat(p, &sp), 0);
    assert_int_equal(stat(v, &sv), 0);
    assert_int_equal((uint64_t)sv.st_size, vk_len);
    assert_int_equal((uint64_t)sp.st_size, params_len);
    czk_vk vk;
    czk_assert_ok(czk_vk_read(&vk, v, &err), &err);
    assert_int_equal(vk.ic_len, CZK_SNAP_INPUTS);
    czk_vk_free(&vk);

    /* kept, not remade */
    rc = czk_test_cli(NULL, "setup --kind snap --registered-proof 0", "2>&1", out, sizeof out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "kept"));
    assert_non_null(strstr(out, p));
    assert_int_equal(stat(p, &sp2), 0);
    assert_int_equal(sp2.st_mtim.tv_sec, sp.st_mtim.tv_sec);
    assert_int_equal(sp2.st_mtim.tv_nsec, sp.st_mtim.tv_nsec);

    czk_test_cli_expect(NULL, "setup --kind snap --sector-size 1KiB", 2,
                        "no SnapDeals sector size of 1024 bytes");
    czk_test_cli_expect(NULL, "setup --kind snap --registered-proof 7", 2,
                        "registered update proof 7: known are 0-4");
    czk_test_cli_expect(NULL, "setup --kind snap --registered-proof 1 --sector-size 2KiB", 2,
                        "registered update proof 1 is for 8MiB sectors, not 2KiB");
    czk_test_cli_expect(NULL, "setup --kind snapp --sector-size 2KiB", 2,
                        "--kind takes porep, window-post, winning-post or snap");
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_keys)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
