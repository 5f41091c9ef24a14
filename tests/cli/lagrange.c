/* CZK_TEST_LABELS: e2e */
/*
 * `czk lagrange` and `czk setup --lagrange` end to end on a recorded shape
 * (a small circuit written here; czk_shape_write): the form `czk setup
 * --lagrange` makes from the toxic waste and the one `czk lagrange`
 * derives from the keys' points (two NTTs over G1) are the same file byte
 * for byte, named czk-lagrange-<vk digest>.bin beside the .params; a second
 * run keeps it, --force derives it again, --out-dir writes elsewhere; keys
 * of another circuit and a missing --params are refused (exit 2) naming
 * why. The CLI is $CZK_TEST_CLI (set by ctest).
 */
#include "support.h"

#include "czk/groth16.h"
#include "czk/r1cs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* steps squarings with C = −3·y, 5·y or y, an input in A and C: a shape of steps + 4 rows */
static czk_status circ(czk_cs *cs, void *ctx) {
    unsigned steps = *(const unsigned *)ctx;
    czk_fr v;
    czk_fr_from_u64(&v, 3);
    czk_var x = czk_cs_alloc_input(cs, &v), in2 = czk_cs_alloc_input(cs, &v);
    czk_lc a = CZK_LC_INIT, b = CZK_LC_INIT, c = CZK_LC_INIT;
    czk_lc_add_var(cs, &a, in2);
    czk_lc_add_var(cs, &b, CZK_VAR_ONE);
    czk_lc_add_var(cs, &c, in2);
    czk_cs_enforce(cs, &a, &b, &c);
    for (unsigned i = 0; i < steps; i++) {
        czk_fr co, ci, y;
        czk_fr_from_u64(&co, i % 3 == 0 ? 1 : i % 3 == 1 ? 5 : 3);
        if (i % 3 == 2) czk_fr_neg(&co, &co);
        czk_fr_inv(&ci, &co);
        czk_fr_mul(&y, &v, &v);
        czk_fr_mul(&y, &y, &ci);
        czk_var yv = czk_cs_alloc(cs, &y);
        czk_lc_clear(&a), czk_lc_clear(&b), czk_lc_clear(&c);
        czk_lc_add_var(cs, &a, x);
        czk_lc_add_var(cs, &b, x);
        czk_lc_add(cs, &c, yv, &co);
        czk_cs_enforce(cs, &a, &b, &c);
        x = yv;
        v = y;
    }
    czk_lc_free(&a), czk_lc_free(&b), czk_lc_free(&c);
    return czk_cs_status(cs);
}

static void write_shape(unsigned steps, const char *path) {
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    assert_non_null(cs);
    czk_assert_ok(czk_cs_run(cs, circ, &steps, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    czk_assert_ok(czk_shape_write(s, path, &err), &err);
    czk_shape_free(s);
}

/* The one czk-lagrange-*.bin in dir (its path in out); fails unless there is exactly one. */
static void the_form(const char *dir, char *out, size_t cap) {
    char cmd[1200], line[1024];
    snprintf(cmd, sizeof cmd, "ls %s/czk-lagrange-*.bin 2>/dev/null", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        snprintf(out, cap, "%s", line);
        n++;
    }
    pclose(p);
    assert_int_equal(n, 1);
}

static void test_lagrange_cli(void **state) {
    (void)state;
    char dir[256], shape[512], shape2[512], other[512], prefix[512], args[4096];
    czk_test_tmpdir(dir, sizeof dir, "cli-lagrange");
    snprintf(shape, sizeof shape, "%s/c.shape", dir);
    snprintf(shape2, sizeof shape2, "%s/c2.shape", dir);
    snprintf(prefix, sizeof prefix, "%s/keys/k", dir);
    write_shape(500, shape);
    write_shape(300, shape2);
    char kdir[600];
    snprintf(kdir, sizeof kdir, "%s/keys", dir);
    assert_int_equal(mkdir(kdir, 0755), 0);
    /* setup --lagrange: keys and the form from the toxic waste */
    snprintf(args, sizeof args, "setup --shape %s --out %s --seed 9 --backend cpu --lagrange",
             shape, prefix);
    czk_test_cli_expect(NULL, args, 0, "the Lagrange form of H and L: h 512, l ");
    char f1[1200], f2[1200], moved[700];
    the_form(kdir, f1, sizeof f1);
    size_t n1, n2;
    char *b1 = czk_test_slurp(f1, &n1);
    assert_non_null(b1);
    snprintf(moved, sizeof moved, "%s/from-setup.bin", dir);
    assert_int_equal(rename(f1, moved), 0);
    /* czk lagrange derives the same file from the points */
    snprintf(args, sizeof args, "lagrange --shape %s --params %s.params --threads 2", shape,
             prefix);
    czk_test_cli_expect(NULL, args, 0, "two NTTs over G1 of 2^9 points");
    the_form(kdir, f2, sizeof f2);
    assert_string_equal(f2, f1);
    char *b2 = czk_test_slurp(f2, &n2);
    assert_non_null(b2);
    assert_int_equal(n2, n1);
    assert_memory_equal(b2, b1, n1);
    free(b2);
    /* kept, then derived again with --force, or written to --out-dir */
    czk_test_cli_expect(NULL, args, 0, "exists (the form of ");
    snprintf(args, sizeof args, "lagrange --shape %s --params %s.params --force", shape, prefix);
    czk_test_cli_expect(NULL, args, 0, "wrote ");
    snprintf(other, sizeof other, "%s/elsewhere", dir);
    snprintf(args, sizeof args, "lagrange --shape %s --params %s.params --out-dir %s", shape,
             prefix, other);
    czk_test_cli_expect(NULL, args, 0, "wrote ");
    the_form(other, f2, sizeof f2);
    b2 = czk_test_slurp(f2, &n2);
    assert_int_equal(n2, n1);
    assert_memory_equal(b2, b1, n1);
    free(b2);
    free(b1);
    /* refusals */
    snprintf(args, sizeof args, "lagrange --shape %s --params %s.params", shape2, prefix);
    czk_test_cli_expect(NULL, args, 2, "the keys are not for this circuit");
    snprintf(args, sizeof args, "lagrange --shape %s", shape);
    czk_test_cli_expect(NULL, args, 2, "give --sector-size (or --registered-proof), or --shape");
    czk_test_cli_expect(NULL, "lagrange --sector-size 3KiB", 2,
                        "no PoRep sector size of 3072 bytes");
    czk_test_rm_rf(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_lagrange_cli)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
