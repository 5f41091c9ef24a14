/* CZK_TEST_LABELS: unit */
/*
 * How a test program's result reaches ctest (tests/support/skip.c): this
 * program runs itself (its /proc/self/exe) with a mode naming one group and
 * asserts the exit status of that run:
 *   all-skipped   every case calls skip()                  -> 77 (Skipped)
 *   some-skipped  one case passes, one skips               -> 0  (Passed)
 *   fail-skip     one case fails, one skips                -> 1  (cmocka's count of failures)
 *   all-fail      every case fails (none skipped)          -> 2
 *   setup-fails   the group setup fails, the cases would skip -> not 0, not 77
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void case_skips(void **state) {
    (void)state;
    skip();
}

static void case_passes(void **state) {
    (void)state;
    assert_int_equal(1 + 1, 2);
}

static void case_fails(void **state) {
    (void)state;
    fail_msg("this case fails on purpose (util.skip runs it in a child)");
}

static int setup_fails(void **state) {
    (void)state;
    return -1;
}

static int run_mode(const char *mode) {
    const struct CMUnitTest all_skipped[] = {cmocka_unit_test(case_skips),
                                             cmocka_unit_test(case_skips)};
    const struct CMUnitTest some_skipped[] = {cmocka_unit_test(case_passes),
                                              cmocka_unit_test(case_skips)};
    const struct CMUnitTest fail_skip[] = {cmocka_unit_test(case_fails),
                                           cmocka_unit_test(case_skips)};
    const struct CMUnitTest all_fail[] = {cmocka_unit_test(case_fails),
                                          cmocka_unit_test(case_fails)};
    if (!strcmp(mode, "all-skipped")) return cmocka_run_group_tests(all_skipped, NULL, NULL);
    if (!strcmp(mode, "some-skipped")) return cmocka_run_group_tests(some_skipped, NULL, NULL);
    if (!strcmp(mode, "fail-skip")) return cmocka_run_group_tests(fail_skip, NULL, NULL);
    if (!strcmp(mode, "all-fail")) return cmocka_run_group_tests(all_fail, NULL, NULL);
    if (!strcmp(mode, "setup-fails")) return cmocka_run_group_tests(all_skipped, setup_fails, NULL);
    fprintf(stderr, "util.skip: unknown mode %s\n", mode);
    return 100;
}

static char self[4096]; /* this program (/proc/self/exe) */

/* The exit status of this program run with mode. */
static int child(const char *mode) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", self, mode);
    int rc = system(cmd);
    assert_true(rc != -1 && WIFEXITED(rc));
    return WEXITSTATUS(rc);
}

static void test_all_skipped_is_skipped(void **state) {
    (void)state;
    assert_int_equal(child("all-skipped"), CZK_TEST_EXIT_SKIPPED);
    assert_int_equal(CZK_TEST_EXIT_SKIPPED, 77);
}

static void test_partly_run_is_passed(void **state) {
    (void)state;
    assert_int_equal(child("some-skipped"), 0);
}

static void test_failure_is_never_a_skip(void **state) {
    (void)state;
    assert_int_equal(child("fail-skip"), 1);
    assert_int_equal(child("all-fail"), 2);
    int rc = child("setup-fails");
    assert_true(rc != 0 && rc != CZK_TEST_EXIT_SKIPPED);
}

int main(int argc, char **argv) {
    if (argc > 1) return run_mode(argv[1]);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 1;
    self[n] = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_skipped_is_skipped),
        cmocka_unit_test(test_partly_run_is_passed),
        cmocka_unit_test(test_failure_is_never_a_skip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
