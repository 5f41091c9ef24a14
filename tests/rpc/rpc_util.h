/*
 * Helpers for the tests of the gRPC layer: a server of an in-process engine
 * with a quiet log; `czk daemon` as a subprocess (the binary in
 * $CZK_TEST_CLI, set by ctest): start it with a config file, wait until it
 * serves, look for lines in its log and timeline files; GetStatus's jobs.
 */
#ifndef CZK_TEST_RPC_UTIL_H
#define CZK_TEST_RPC_UTIL_H

#include "support.h"

#include "czk/rpc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static inline void quiet_rpc_log(void *ctx, const char *level, const char *line) {
    (void)ctx;
    if (getenv("CZK_TEST_VERBOSE")) fprintf(stderr, "[rpc %s] %s\n", level, line);
}

/* A server of e on addr, max_calls calls at once (0: the default), its log quiet. */
static inline czk_rpc_server *rpc_test_server(czk_engine *e, const char *addr, unsigned max_calls) {
    czk_rpc_server_opts o;
    czk_rpc_server_opts_default(&o);
    o.listen[0] = addr;
    o.num_listen = 1;
    if (max_calls) o.max_calls = max_calls;
    o.log = quiet_rpc_log;
    czk_rpc_server *s;
    czk_err err;
    czk_assert_ok(czk_rpc_server_start(&s, e, &o, &err), &err);
    return s;
}

/* Jobs e has cancelled since it started. */
static inline uint64_t engine_cancelled(czk_engine *e) {
    czk_engine_status *es;
    czk_err err;
    czk_assert_ok(czk_engine_status_get(e, &es, &err), &err);
    uint64_t n = es->proofs_cancelled;
    czk_engine_status_free(es);
    return n;
}

/* The state GetStatus's jobs give for id (UNKNOWN: not listed). */
static inline czk_job_state listed_state(czk_rpc_client *c, const char *id) {
    czk_rpc_status *s;
    czk_err err;
    czk_assert_ok(czk_rpc_get_status(c, &s, 5000, NULL, &err), &err);
    czk_job_state st = CZK_JOB_UNKNOWN;
    for (size_t i = 0; i < s->num_jobs; i++)
        if (!strcmp(s->jobs[i].job_id, id)) st = s->jobs[i].state;
    czk_rpc_status_free(s);
    return st;
}

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
