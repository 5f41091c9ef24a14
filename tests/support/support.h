/* Helpers shared by czk's cmocka tests. */
#ifndef CZK_TEST_SUPPORT_H
#define CZK_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "czk/common.h"
#include "czk/ff.h"
#include "sector.h" /* test sectors and test keys (also for bench/) */

/*
 * The exit status of a test program all of whose cases were skipped
 * (skip.c); ctest's SKIP_RETURN_CODE (cmake/tests.cmake) shows it as Skipped.
 */
#define CZK_TEST_EXIT_SKIPPED 77

/* Parses a hex string into bytes; fails the test on bad input. */
void czk_test_hex(uint8_t *out, size_t len, const char *hex);
/* Fr from a big-endian hex integer (< r). */
void czk_test_fr_from_hex_be(czk_fr *out, const char *hex);
/* Asserts st == CZK_OK, printing err's message otherwise. */
#define czk_assert_ok(st, err)                                                                     \
    do {                                                                                           \
        czk_status st_ = (st);                                                                     \
        if (st_ != CZK_OK) fail_msg("%s: %s", czk_status_name(st_), (err)->msg);                   \
    } while (0)

/* ---- files (support.c) ---- */
/* A fresh directory $TMPDIR/czk-<tag>-XXXXXX (default /tmp) in out; fails the test if it cannot be
 * made. */
void czk_test_tmpdir(char *out, size_t cap, const char *tag);
/* Removes dir and everything below it; fails the test if that fails. */
void czk_test_rm_rf(const char *dir);
/* The whole file, malloc'ed with a NUL after it (*len, if not NULL, its size without the NUL);
 * NULL if it cannot be opened. */
char *czk_test_slurp(const char *path, size_t *len);
/* czk_test_slurp that fails the test when the file cannot be read. */
uint8_t *czk_test_read(const char *path, size_t *len);
/* Writes n bytes to path (created or truncated); fails the test on an error. */
void czk_test_write(const char *path, const void *b, size_t n);

/* ---- the czk command ($CZK_TEST_CLI, set by ctest) ---- */
/*
 * Runs `ENV $CZK_TEST_CLI ARGS REDIR` through the shell (env: NULL or "VAR=value ...", redir:
 * NULL or e.g. "2>&1", "2>/dev/null") and reads its stdout into out (NUL-terminated, at most
 * cap - 1 bytes); returns its exit status.
 */
int czk_test_cli(const char *env, const char *args, const char *redir, char *out, size_t cap);
/* czk_test_cli with stderr into the same pipe; fails the test unless it exits code and its
 * output holds substr. */
void czk_test_cli_expect(const char *env, const char *args, int code, const char *substr);

/*
 * The unsigned value of the line "KEY: VALUE" in out (`czk circuit-info`
 * style); fails the test when there is no such line.
 */
unsigned long long czk_test_value(const char *out, const char *key);

/* Fails the test unless every field of the two counts is equal. */
struct czk_shape_counts;
void czk_test_assert_counts_equal(const struct czk_shape_counts *a,
                                  const struct czk_shape_counts *b);

#endif
