/*
 * `czk daemon --config CFG` as a child process of a test: stderr into LOG, the key search path
 * made of the test's own directories (FIL_PROOFS_PARAMETER_CACHE and CZK_CACHE_DIR), killed
 * when the test dies.
 */
#ifndef CZK_TESTS_RPC_SPAWN_H
#define CZK_TESTS_RPC_SPAWN_H

#include "support.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

/* The child's pid; fil_cache and czk_cache become its FIL_PROOFS_PARAMETER_CACHE and
 * CZK_CACHE_DIR. */
static inline pid_t spawn_czk_daemon(const char *cfg, const char *log, const char *fil_cache,
                                     const char *czk_cache) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run under ctest)");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test, even when it fails */
        setenv("FIL_PROOFS_PARAMETER_CACHE", fil_cache, 1);
        setenv("CZK_CACHE_DIR", czk_cache, 1);
        FILE *e = freopen(log, "w", stderr);
        (void)e;
        execl(cli, cli, "daemon", "--config", cfg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

#endif
