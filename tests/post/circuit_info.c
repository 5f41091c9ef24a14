/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 300 */
/*
 * `czk circuit-info --kind window-post|winning-post`: the printed counts
 * against spec/post-snap.md's literals (§0, §1.2: synthesized constraints,
 * prover n, inputs incl. ONE; the constants.rs comments 125,279,217 and
 * 129,887,900 for WindowPoSt 32GiB/64GiB) and the aux derived from
 * porep-circuit.md's gadget costs (tests/post/circuit_counts.c, [A]);
 * registered proofs picking the size, and the refusals with their exit
 * codes (1 no such size or proof, 2 usage).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int cli(const char *args, char *out, size_t cap) {
    const char *bin = getenv("CZK_TEST_CLI");
    if (!bin) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' circuit-info %s 2>&1", bin, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static unsigned long long value(const char *out, const char *key) {
    char k[64], buf[8200];
    snprintf(k, sizeof k, "\n%s: ", key);
    buf[0] = '\n';
    strncpy(buf + 1, out, sizeof buf - 2);
    buf[sizeof buf - 1] = 0;
    const char *p = strstr(buf, k);
    if (!p) fail_msg("no line '%s' in:\n%s", key, out);
    return strtoull(p + strlen(k), NULL, 10);
}

typedef struct row {
    const char *args;
    unsigned long long sectors, challenges, synth, inputs, aux, domain;
} row;

static const row rows[] = {
    {"--kind window-post --sector-size 2KiB", 2, 10, 21866, 23, 22128, 1ull << 15},
    {"--kind window-post --sector-size 8MiB", 2, 10, 64266, 23, 65088, 1ull << 16},
    {"--kind window-post --sector-size 512MiB", 2, 10, 85466, 23, 86568, 1ull << 17},
    {"--kind window-post --sector-size 32GiB", 2349, 10, 125279217, 25840, 126902376, 1ull << 27},
    {"--kind window-post --sector-size 64GiB", 2300, 10, 129887900, 25301, 131500200, 1ull << 27},
    {"--kind winning-post --sector-size 2KiB", 66, 1, 90750, 133, 91674, 1ull << 17},
    {"--kind winning-post --sector-size 8MiB", 66, 1, 230670, 133, 233442, 1ull << 18},
    {"--kind winning-post --sector-size 512MiB", 66, 1, 300630, 133, 304326, 1ull << 19},
    {"--kind winning-post --sector-size 32GiB", 66, 1, 370590, 133, 375210, 1ull << 19},
    {"--kind winning-post --sector-size 64GiB", 66, 1, 391314, 133, 396000, 1ull << 19},
    /* registered proofs: 8 = Window 32GiB V1, 13 = Window 32GiB V1_2, 3 = Winning 32GiB */
    {"--kind window-post --registered-proof 8", 2349, 10, 125279217, 25840, 126902376, 1ull << 27},
    {"--kind window-post --registered-proof 13 --sector-size 32GiB", 2349, 10, 125279217, 25840,
     126902376, 1ull << 27},
    {"--kind winning-post --registered-proof 3", 66, 1, 370590, 133, 375210, 1ull << 19},
};

static void test_counts(void **state) {
    (void)state;
    static char out[8192];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        if (cli(r->args, out, sizeof out) != 0) fail_msg("%s:\n%s", r->args, out);
        assert_int_equal(value(out, "sectors_per_partition"), r->sectors);
        assert_int_equal(value(out, "challenges_per_sector"), r->challenges);
        assert_int_equal(value(out, "synthesized_constraints"), r->synth);
        assert_int_equal(value(out, "constraints"), r->synth + r->inputs);
        assert_int_equal(value(out, "inputs"), r->inputs);
        assert_int_equal(value(out, "aux"), r->aux);
        assert_int_equal(value(out, "params_l"), r->aux);
        assert_int_equal(value(out, "domain"), r->domain);
        assert_int_equal(value(out, "params_h"), r->domain - 1);
        assert_int_equal(value(out, "b_input_density"), 1);
        assert_int_equal(value(out, "params_a"), r->inputs + value(out, "a_aux_density"));
        assert_int_equal(value(out, "params_b_g1"), 1 + value(out, "b_aux_density"));
    }
    /* spec §0 prover n: 125,305,057 / 129,913,201 / 370,723 */
    assert_int_equal(cli(rows[3].args, out, sizeof out), 0);
    assert_int_equal(value(out, "constraints"), 125305057);
    assert_int_equal(cli(rows[4].args, out, sizeof out), 0);
    assert_int_equal(value(out, "constraints"), 129913201);
    assert_int_equal(cli(rows[8].args, out, sizeof out), 0);
    assert_int_equal(value(out, "constraints"), 370723);
}

static void test_refusals(void **state) {
    (void)state;
    static char out[8192];
    assert_int_equal(cli("--kind window-post --sector-size 4KiB", out, sizeof out), 1);
    assert_non_null(strstr(out, "no PoSt sector size of 4096 bytes"));
    assert_int_equal(cli("--kind window-post --registered-proof 15", out, sizeof out), 1);
    assert_non_null(strstr(out, "registered PoSt proof 15"));
    assert_int_equal(cli("--kind window-post --registered-proof 3", out, sizeof out), 1);
    assert_non_null(strstr(out, "is a winning-post proof, not window-post"));
    assert_int_equal(
        cli("--kind winning-post --registered-proof 4 --sector-size 2KiB", out, sizeof out), 1);
    assert_non_null(strstr(out, "is for 64GiB sectors, not 2KiB"));
    assert_int_equal(cli("--kind ni-porep --sector-size 2KiB", out, sizeof out), 2);
    assert_non_null(
        strstr(out, "--kind takes porep, window-post, winning-post or snap, not 'ni-porep'"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
