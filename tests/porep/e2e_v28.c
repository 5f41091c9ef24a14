/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1800 */
/*
 * Opt-in: PoRep C2 with Filecoin's real v28 2KiB keys. Runs only when
 * CZK_V28_PARAMS names a directory holding
 *   v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-
 *   032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.{params,vk}
 * (spec porep-circuit.md §1; `lotus fetch-params 2048`); otherwise it is
 * skipped. A 2KiB C1 from `czk gen-vanilla` is proved with the ceremony's
 * .params (recognised by its published digest) and verified with its .vk:
 * the proof is then one the chain's verifier accepts, which no test key can
 * show. The same proof against another seed must fail.
 */
#include "e2e_util.h"

static void test_real_keys(void **state) {
    (void)state;
    const char *keys = getenv("CZK_V28_PARAMS");
    if (!keys || !*keys) {
        fprintf(stderr, "CZK_V28_PARAMS is not set: skipped (README, \"With Filecoin's real "
                        "keys\")\n");
        skip();
    }
    char dir[700], args[1500], *out = NULL;
    czk_test_tmpdir(dir, sizeof dir, "e2e");
    assert_int_equal(e2e_czk(dir,
                             "gen-vanilla --sector-size 2KiB --miner-id 1000 --sector-num 1 "
                             "--random 5 --out c1.json",
                             NULL, NULL),
                     0);
    snprintf(args, sizeof args,
             "prove --c1 c1.json --param-cache '%s' --sector-num 1 --miner-id 1000 --out p.bin",
             keys);
    assert_int_equal(e2e_czk(dir, args, &out, NULL), 0);
    assert_non_null(strstr(out, "Filecoin v28 parameters"));
    assert_non_null(strstr(out, "published v28 digest"));
    free(out);
    snprintf(args, sizeof args,
             "verify --c1 c1.json --proof p.bin --param-cache '%s' --sector-num 1 --miner-id 1000",
             keys);
    assert_int_equal(e2e_czk(dir, args, &out, NULL), 0);
    assert_non_null(strstr(out, "Filecoin v28 verifying key"));
    free(out);
    /* another seed: other challenges, the proof must not verify */
    char path[800];
    snprintf(path, sizeof path, "%s/c1.json", dir);
    czk_c1 *c1 = e2e_c1_read(path);
    c1->seed.b[7] ^= 0x40;
    snprintf(path, sizeof path, "%s/seed.json", dir);
    e2e_c1_write(c1, path);
    czk_c1_free(c1);
    snprintf(
        args, sizeof args,
        "verify --c1 seed.json --proof p.bin --param-cache '%s' --sector-num 1 --miner-id 1000",
        keys);
    assert_int_equal(e2e_czk(dir, args, NULL, NULL), 1);
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_real_keys)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
