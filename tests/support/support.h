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

#endif
