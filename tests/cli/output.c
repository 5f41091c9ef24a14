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
#include "../porep/c1_sector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

static void expect(const char *env, const char *args, int code, const char *substr) {
    static char out[1 << 16];
    int rc = run(env, args, out, sizeof out);
    if (rc != code || !strstr(out, substr))
        fail_msg("%s czk %s: expected exit %d with \"%s\", got %d:\n%s", env ? env : "", args,
                 code, substr, rc, out);
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

static void test_c1_size_cap(void **state) {
    (void)state;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    expect(NULL, "prove --c1 /dev/zero --out x.bin", 2,
           "czk prove: /dev/zero: more than the C1 size cap of 1 GiB; CZK_C1_MAX_SIZE raises it");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (s > 20) fail_msg("/dev/zero took %.1f s to refuse", s);
    expect("CZK_C1_MAX_SIZE=1MiB", "verify --c1 /dev/zero --proof x.bin", 2,
           "czk verify: /dev/zero: more than the C1 size cap of 1 MiB; CZK_C1_MAX_SIZE raises it");
    expect("CZK_C1_MAX_SIZE=1MiB", "check-c1 /dev/zero", 2,
           "czk check-c1: /dev/zero: more than the C1 size cap of 1 MiB");

    char c1[512], big[512], args[2048];
    write_c1("c1.json", c1, sizeof c1);
    size_t n;
    uint8_t *b = tk_read_file(c1, &n);
    assert_true(n > 4096);
    free(b);
    char env[64];
    /* the file itself is under a cap of its size: read, then refused for its replica_id */
    snprintf(env, sizeof env, "CZK_C1_MAX_SIZE=%zu", n);
    snprintf(args, sizeof args, "check-c1 %s --miner-id 1000 --sector-num 43", c1);
    expect(env, args, 1, "refused: replica_id");
    /* one byte over a cap: refused by its size, before a read */
    snprintf(env, sizeof env, "CZK_C1_MAX_SIZE=%zu", n - 1);
    char want[700];
    snprintf(want, sizeof want, "czk check-c1: %s: %zu bytes, over the C1 size cap of %zu bytes; "
                                "CZK_C1_MAX_SIZE raises it", c1, n, n - 1);
    snprintf(args, sizeof args, "check-c1 %s", c1);
    expect(env, args, 2, want);
    /* over a cap in MiB, as client prove reads it */
    path_of(big, sizeof big, "big.json");
    uint8_t *zeros = calloc(1, (1 << 20) + 1);
    assert_non_null(zeros);
    tk_write_file(big, zeros, (1 << 20) + 1);
    free(zeros);
    snprintf(args, sizeof args, "check-c1 %s", big);
    snprintf(want, sizeof want, "%s: 1048577 bytes, over the C1 size cap of 1 MiB", big);
    expect("CZK_C1_MAX_SIZE=1MiB", args, 2, want);

    expect("CZK_C1_MAX_SIZE=12", "check-c1 x.json", 2,
           "czk env: CZK_C1_MAX_SIZE=12: expected a size of at least 4096 bytes");
    expect("CZK_C1_MAX_SIZE=lots", "check-c1 x.json", 2, "CZK_C1_MAX_SIZE=lots: expected a size");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stdout_before_stderr),
        cmocka_unit_test(test_c1_size_cap),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
