/* CZK_TEST_LABELS: e2e */
/*
 * What `czk` writes, seen from outside ($CZK_TEST_CLI, set by ctest):
 *   - order: with stdout and stderr into one pipe or one file, a line that
 *     `czk verify` printed on stdout ("vk: …") comes before the error it
 *     then printed on stderr (a vk with 3 inputs where a 2KiB partition has
 *     40): stdout is line-buffered in every command, not block-buffered;
 *   - the C1 size cap: /dev/zero as --c1 (prove, verify, check-c1) is
 *     refused within seconds naming the default cap of 1 GiB and
 *     CZK_C1_MAX_SIZE; with CZK_C1_MAX_SIZE=1MiB also for verify and
 *     check-c1; a regular file one byte over a cap is refused by its size
 *     ("N bytes, over the C1 size cap of N-1 bytes"), the 2KiB C1 under a cap
 *     of its own size is read (and then refused for its replica_id, as
 *     without the variable); a value below 4096 bytes or not a size is
 *     refused naming the variable.
 */
#include "support.h"

#include "../groth16/testkeys.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static void path_of(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

/* A 2KiB C1 (czk_test_seal: miner 1000, sector 42) written as JSON to <dir>/name. */
static void write_c1(const char *name, char *path, size_t cap) {
    czk_test_sector ts = {.registered_proof = 5, .sector_num = 42};
    czk_c1 *c1 = NULL;
    char *json;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_test_seal(&c1, &ts, NULL, &err), &err);
    czk_assert_ok(czk_c1_to_json(c1, &json, &len, &err), &err);
    path_of(path, cap, name);
    czk_test_write(path, json, len);
    free(json);
    czk_c1_free(c1);
}

static int setup(void **state) {
    (void)state;
    czk_test_tmpdir(dir, sizeof dir, "cli-output");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    czk_test_rm_rf(dir);
    return 0;
}

static void test_stdout_before_stderr(void **state) {
    (void)state;
    char c1[512], vk[512], proof[512], args[2048], out[1 << 14];
    write_c1("c1.json", c1, sizeof c1);
    czk_params *p = tk_random_params(7, 3, 1, 1, 1, 1);
    path_of(vk, sizeof vk, "three.vk");
    czk_err err;
    czk_assert_ok(czk_vk_write(&p->vk, vk, &err), &err);
    czk_params_free(p);
    uint8_t zero[192] = {0};
    path_of(proof, sizeof proof, "p.bin");
    czk_test_write(proof, zero, sizeof zero);
    snprintf(args, sizeof args, "verify --c1 %s --vk %s --proof %s", c1, vk, proof);
    /* one pipe */
    assert_int_equal(czk_test_cli(NULL, args, "2>&1", out, sizeof out), 2);
    const char *a = strstr(out, "vk: "), *b = strstr(out, "has 3 inputs; a 2KiB partition has 40");
    if (!a || !b || a > b) fail_msg("expected \"vk: \" before the error:\n%s", out);
    /* one file */
    char log[512], cmd[4096];
    path_of(log, sizeof log, "verify.log");
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>&1", getenv("CZK_TEST_CLI"), args, log);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    char *text = czk_test_slurp(log, NULL);
    assert_non_null(text);
    a = strstr(text, "vk: "), b = strstr(text, "has 3 inputs");
    if (!a || !b || a > b) fail_msg("expected \"vk: \" before the error in the file:\n%s", text);
    free(text);
}

static void test_c1_size_cap(void **state) {
    (void)state;
    double t0 = czk_now();
    czk_test_cli_expect(
        NULL, "prove --c1 /dev/zero --out x.bin", 2,
        "czk prove: /dev/zero: more than the C1 size cap of 1 GiB; CZK_C1_MAX_SIZE raises it");
    double s = czk_now() - t0;
    if (s > 20) fail_msg("/dev/zero took %.1f s to refuse", s);
    czk_test_cli_expect(
        "CZK_C1_MAX_SIZE=1MiB", "verify --c1 /dev/zero --proof x.bin", 2,
        "czk verify: /dev/zero: more than the C1 size cap of 1 MiB; CZK_C1_MAX_SIZE raises it");
    czk_test_cli_expect("CZK_C1_MAX_SIZE=1MiB", "check-c1 /dev/zero", 2,
                        "czk check-c1: /dev/zero: more than the C1 size cap of 1 MiB");

    char c1[512], big[512], args[2048];
    write_c1("c1.json", c1, sizeof c1);
    size_t n;
    uint8_t *b = czk_test_read(c1, &n);
    assert_true(n > 4096);
    free(b);
    char env[64];
    /* the file itself is under a cap of its size: read, then refused for its replica_id */
    snprintf(env, sizeof env, "CZK_C1_MAX_SIZE=%zu", n);
    snprintf(args, sizeof args, "check-c1 %s --miner-id 1000 --sector-num 43", c1);
    czk_test_cli_expect(env, args, 1, "refused: replica_id");
    /* one byte over a cap: refused by its size, before a read */
    snprintf(env, sizeof env, "CZK_C1_MAX_SIZE=%zu", n - 1);
    char want[700];
    snprintf(want, sizeof want,
             "czk check-c1: %s: %zu bytes, over the C1 size cap of %zu bytes; "
             "CZK_C1_MAX_SIZE raises it",
             c1, n, n - 1);
    snprintf(args, sizeof args, "check-c1 %s", c1);
    czk_test_cli_expect(env, args, 2, want);
    /* over a cap in MiB, as client prove reads it */
    path_of(big, sizeof big, "big.json");
    uint8_t *zeros = calloc(1, (1 << 20) + 1);
    assert_non_null(zeros);
    czk_test_write(big, zeros, (1 << 20) + 1);
    free(zeros);
    snprintf(args, sizeof args, "check-c1 %s", big);
    snprintf(want, sizeof want, "%s: 1048577 bytes, over the C1 size cap of 1 MiB", big);
    czk_test_cli_expect("CZK_C1_MAX_SIZE=1MiB", args, 2, want);

    czk_test_cli_expect("CZK_C1_MAX_SIZE=12", "check-c1 x.json", 2,
                        "czk env: CZK_C1_MAX_SIZE=12: expected a size of at least 4096 bytes");
    czk_test_cli_expect("CZK_C1_MAX_SIZE=lots", "check-c1 x.json", 2,
                        "CZK_C1_MAX_SIZE=lots: expected a size");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stdout_before_stderr),
        cmocka_unit_test(test_c1_size_cap),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
