/* CZK_TEST_LABELS: e2e */
/*
 * What `czk` writes, seen from outside ($CZK_TEST_CLI, set by ctest):
 *   - order: with stdout and stderr into one pipe or one file, a line that
 *     `czk verify` printed on stdout ("vk: …") comes before the error it
 *     then printed on stderr (a vk with 3 inputs where a 2KiB partition has
 *     40): stdout is line-buffered in every command, not block-buffered;
 */
#include "support.h"

#include "../groth16/testkeys.h"
#include "../porep/c1_sector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static void path_of(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

/* Runs `[env] czk args` with stdout and stderr into one pipe; returns its exit status and its
 * output in out. */
static int run(const char *env, const char *args, char *out, size_t cap) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", env ? env : "", cli, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void write_c1(const char *name, char *path, size_t cap) {
    static const uint8_t ticket[32] = {3}, seed[32] = {4};
    ts_sector s;
    assert_true(ts_seal(&s, 5, 1000, 42, ticket, seed, 11, NULL, NULL));
    czk_c1 *c1 = ts_c1(&s);
    assert_non_null(c1);
    char *json;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &json, &len, &err), &err);
    path_of(path, cap, name);
    tk_write_file(path, (const uint8_t *)json, len);
    free(json);
    czk_c1_free(c1);
    ts_free(&s);
}

static int setup(void **state) {
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/czk_cli_output_XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    tk_rm_rf(dir);
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
    tk_write_file(proof, zero, sizeof zero);
    snprintf(args, sizeof args, "verify --c1 %s --vk %s --proof %s", c1, vk, proof);
    /* one pipe */
    assert_int_equal(run(NULL, args, out, sizeof out), 2);
    const char *a = strstr(out, "vk: "), *b = strstr(out, "has 3 inputs; a 2KiB partition has 40");
    if (!a || !b || a > b) fail_msg("expected \"vk: \" before the error:\n%s", out);
    /* one file */
    char log[512], cmd[4096];
    path_of(log, sizeof log, "verify.log");
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>&1", getenv("CZK_TEST_CLI"), args, log);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    size_t n;
    uint8_t *text = tk_read_file(log, &n);
    text = realloc(text, n + 1);
    text[n] = 0;
    a = strstr((char *)text, "vk: "), b = strstr((char *)text, "has 3 inputs");
    if (!a || !b || a > b) fail_msg("expected \"vk: \" before the error in the file:\n%s", text);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stdout_before_stderr),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
