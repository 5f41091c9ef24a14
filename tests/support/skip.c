/*
 * Skipped tests are reported to ctest as skipped, not passed (issue 20,
 * item 4). cmocka counts a skip() as neither failed nor passed and returns
 * 0, so ctest would say "Passed" for a program whose cases never ran (every
 * cuda.* case on a machine without a GPU, porep.e2e_v28 without
 * CZK_V28_PARAMS).
 *
 * Every test program is linked with -Wl,--wrap=_skip and
 * -Wl,--wrap=_cmocka_run_group_tests (cmake/tests.cmake): the wrappers count
 * the skip() calls of a group; a group that returned 0 (no case failed, its
 * setup and teardown succeeded) and whose every case called skip() returns
 * CZK_TEST_EXIT_SKIPPED instead, which ctest's SKIP_RETURN_CODE shows as
 * "Skipped". A group whose cases partly ran still returns 0 (passed), and a
 * non-zero result (a failure) is returned unchanged: a failure is never
 * turned into a skip. skip() leaves its case at once (a longjmp), so a case
 * that called it cannot fail afterwards.
 */
#include "support.h"

#include <stdio.h>

void __real__skip(const char *const file, const int line);
void __wrap__skip(const char *const file, const int line);
int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);

static size_t g_skipped;

void __wrap__skip(const char *const file, const int line) {
    g_skipped++;
    __real__skip(file, line);
}

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown) {
    size_t before = g_skipped;
    int rc =
        __real__cmocka_run_group_tests(group_name, tests, num_tests, group_setup, group_teardown);
    size_t skipped = g_skipped - before;
    if (rc == 0 && num_tests > 0 && skipped == num_tests) {
        fprintf(stderr, "%s: all %zu cases skipped: exit %d (ctest: Skipped)\n", group_name,
                num_tests, CZK_TEST_EXIT_SKIPPED);
        return CZK_TEST_EXIT_SKIPPED;
    }
    return rc;
}
