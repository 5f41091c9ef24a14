/*
 * Reading `czk bench` output in the tests: the number after "<key>" at the
 * start of a summary line ("  s/proof   0.123"); fails the test when the
 * line is missing. Include after cmocka.h.
 */
#ifndef CZK_TESTS_BENCH_SUMMARY_H
#define CZK_TESTS_BENCH_SUMMARY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline double bench_summary(const char *out, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\n  %s ", key);
    const char *p = strstr(out, k);
    if (!p) fail_msg("no summary line '%s'", key);
    p += strlen(k);
    while (*p == ' ')
        p++;
    return strtod(p, NULL);
}

#endif
