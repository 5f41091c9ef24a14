/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1800 */
/* CZK_TEST_FIXTURES_SETUP: porep_2kib_keys */
/*
 * Fixture: 2KiB test keys for the PoRep end-to-end tests, made by
 * `czk setup --sector-size 2KiB` once, in its default directory, czk's
 * test keys ($CZK_CACHE_DIR/test-keys, else ~/.cache/czk/test-keys: the
 * keys dir of e2e_util.h), outside the repository. A later run finds them
 * and keeps them. The
 * files must have the lengths of the 2KiB partition circuit (spec
 * porep-circuit.md §1: .params 1,114,707,768 bytes, .vk 4,708 bytes), and
 * a second setup must keep them as they are.
 */
#include "e2e_util.h"

static void test_keys(void **state) {
    (void)state;
    char dir[600], p[800], v[800];
    e2e_keys_dir(dir, sizeof dir);
    char args[1000];
    /* no --out-dir: czk setup writes test keys to czk's test-key directory, which is dir */
    snprintf(args, sizeof args, "setup --sector-size 2KiB");
    char tmp[700];
    czk_test_tmpdir(tmp, sizeof tmp, "e2e");
    assert_int_equal(e2e_czk(tmp, args, NULL, NULL), 0);
    snprintf(p, sizeof p, "%s/czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.params", dir);
    snprintf(v, sizeof v, "%s/czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.vk", dir);
    struct stat sp, sv, sp2;
    assert_int_equal(stat(p, &sp), 0);
    assert_int_equal(stat(v, &sv), 0);
    assert_int_equal(sp.st_size, 1114707768);
    assert_int_equal(sv.st_size, 4708);
    /* kept, not remade */
    char *out = NULL;
    assert_int_equal(e2e_czk(tmp, args, &out, NULL), 0);
    assert_non_null(strstr(out, "kept"));
    assert_non_null(strstr(out, p)); /* the default directory's file */
    free(out);
    assert_int_equal(stat(p, &sp2), 0);
    assert_int_equal(sp2.st_mtim.tv_sec, sp.st_mtim.tv_sec);
    assert_int_equal(sp2.st_mtim.tv_nsec, sp.st_mtim.tv_nsec);
    czk_test_rm_rf(tmp);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_keys)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
