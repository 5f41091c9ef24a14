/*
 * Helpers for the tests that run `czk daemon` as a subprocess (the binary in
 * $CZK_TEST_CLI, set by ctest): start it with a config file, wait until it
 * serves, look for lines in its log and timeline files.
 */
#ifndef CZK_TEST_RPC_DAEMON_UTIL_H
#define CZK_TEST_RPC_DAEMON_UTIL_H

#include "support.h"

#include "czk/rpc.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static inline const char *cli(void) {
    const char *p = getenv("CZK_TEST_CLI");
    if (!p) fail_msg("CZK_TEST_CLI is not set (run under ctest)");
    return p;
}

/* Starts `czk daemon --config cfg`, its stderr into log; it dies with the test. */
static inline pid_t spawn_cli_daemon(const char *cfg, const char *log) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test, even when it fails */
        FILE *e = freopen(log, "w", stderr);
        (void)e;
        execl(cli(), cli(), "daemon", "--config", cfg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static inline void wait_serving(czk_rpc_client *c) {
    czk_err err;
    czk_assert_ok(czk_rpc_client_wait_ready(c, 20000, &err), &err);
}

/* A line of the file holds both a and b. */
static inline bool file_has(const char *path, const char *a, const char *b) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, a) && strstr(line, b);
    fclose(f);
    return found;
}

#endif
