/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 900 */
/* CZK_TEST_FIXTURES_REQUIRED: porep_2kib_keys */
/*
 * `czk daemon` with a configuration that names no key directory (the
 * default srs.param_cache, absent here) finds the 2KiB PoRep test keys of
 * the porep.e2e_keys fixture in czk's test-key directory,
 * $CZK_CACHE_DIR/test-keys, as czk prove does (keys.h: one search path):
 * `czk client preload porep-2k` loads them. The keys there are hard links
 * of the fixture's (another path: a stamp keyed by path would not find
 * them), so the load also shows the stamp keyed by content: no full
 * subgroup check is announced, the SRS is ready in well under the minutes
 * that check takes on two cores.
 */
#include "../porep/e2e_util.h"
#include "spawn.h"

static void test_default_keys(void **state) {
    (void)state;
    char dir[256], keys[600], cache[400], cfg[400], log[400], addr[320];
    czk_test_tmpdir(dir, sizeof dir, "keys-default");
    e2e_keys_dir(keys, sizeof keys);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    (void)e2e_keys_elsewhere(cache, keys);
    snprintf(cfg, sizeof cfg, "%s/cuzk.toml", dir);
    snprintf(log, sizeof log, "%s/daemon.log", dir);
    snprintf(addr, sizeof addr, "unix://%s/cuzk.sock", dir);
    FILE *f = fopen(cfg, "w");
    assert_non_null(f);
    fprintf(f, "[daemon]\nlisten = \"%s\"\n[gpus]\nbackend = \"cpu\"\n", addr);
    fclose(f);
    char fil[400];
    snprintf(fil, sizeof fil, "%s/no-params", dir);
    pid_t pid = spawn_czk_daemon(cfg, log, fil, cache);
    char cmd[1600], out[4096];
    snprintf(cmd, sizeof cmd, "client --addr '%s' --deadline 600 preload porep-2k", addr);
    int rc = -1;
    for (int i = 0; i < 100 && rc != 0; i++) { /* until the socket is up */
        rc = czk_test_cli(NULL, cmd, "2>&1", out, sizeof out);
        if (rc) usleep(100 * 1000);
    }
    fprintf(stderr, "$ czk %s  (exit %d)\n%s", cmd, rc, out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "porep-2k: loaded ("));
    assert_int_equal(kill(pid, SIGTERM), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    char *text = czk_test_slurp(log, NULL);
    assert_non_null(text);
    fprintf(stderr, "daemon log:\n%s", text);
    /* the default directory first, then the (absent) parameter cache, then the test keys */
    char want[1400];
    snprintf(want, sizeof want, "keys searched in /data/zk/params, %s/no-params and %s/test-keys\n",
             dir, cache);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "srs porep-2k: loaded in "));
    assert_null(strstr(text, "full check: "));
    free(text);
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_default_keys)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
