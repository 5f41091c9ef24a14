/*
 * `czk daemon [--config FILE] [--listen ADDR]...`: the proving engine behind
 * the gRPC service cuzk.v1.ProvingEngine (include/czk/rpc.h), configured by
 * a cuzk.toml (cuzk-engine.md §3; czk.example.toml lists every key).
 *
 * Start: the engine (keys of srs.preload load in the background), then the
 * gRPC listeners, so GetStatus answers at once. Stop (SIGINT or SIGTERM):
 * new calls are refused; with daemon.shutdown_drain (default, as cuzk) the
 * proofs in flight finish, at most daemon.shutdown_grace (0 = no limit),
 * else they are cancelled at once; what is left after the grace, or at a
 * second signal, is cancelled. Each step logs the jobs it waits for.
 * Cancelled work stops at its next checkpoint; the daemon waits for it at
 * most daemon.shutdown_cancel_grace, then exits anyway (status 1) naming
 * what it abandoned, without waiting for those workers. The timeline file
 * is written line by line and closed when the engine is destroyed.
 */
#include "cli/cli.h"

#include "czk/cuda.h"
#include "czk/engine.h"
#include "czk/httpstatus.h"
#include "czk/keys.h"
#include "czk/kinds.h"
#ifdef CZK_HAVE_RPC
#include "czk/rpc.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMD "daemon"

static const char USAGE[] =
    "usage: czk daemon [--config FILE] [--listen ADDR]... [--log-level LEVEL]\n\n"
    "Serves the gRPC service cuzk.v1.ProvingEngine (Curio's cuzk protocol) until\n"
    "SIGINT or SIGTERM.\n\n"
    "  -c, --config FILE    cuzk.toml (default /data/zk/cuzk.toml when it exists,\n"
    "                       else the defaults; czk.example.toml lists every key)\n"
    "  -l, --listen ADDR    gRPC address, \"unix:///path\" (socket mode 0660) or\n"
    "                       \"host:port\"; repeat for several; overrides daemon.listen\n"
    "                       (which may list several, comma-separated)\n"
    "      --log-level L    error, warn, info, debug, trace (overrides logging.level)\n\n"
    "Shutdown: new calls are refused; daemon.shutdown_drain = true (default) lets the\n"
    "proofs in flight finish (at most daemon.shutdown_grace), false cancels them; a\n"
    "second signal cancels at once. Cancelled work stops at its next checkpoint, within\n"
    "daemon.shutdown_cancel_grace (10 s), else the daemon exits anyway and names what\n"
    "it abandoned. exit status: 0 after a clean shutdown, 1 when work was abandoned,\n"
    "2 when the daemon cannot start (the reason is printed)\n";

#ifndef CZK_HAVE_RPC

int czk_cmd_daemon(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    return czk_cli_fail(CMD, "this czk was built without gRPC (-DCZK_RPC=OFF)");
}

#else

static void warn_line(void *ctx, const char *msg) {
    (void)ctx;
    fprintf(stderr, "czk daemon: config: %s\n", msg);
}

typedef struct sig_ctx {
    sigset_t set;
    czk_engine *engine;
    czk_rpc_server *server; /* until main destroys it (under mu) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int signals; /* received so far */
} sig_ctx;

/* Waits for SIGINT/SIGTERM: the first wakes main, the second cancels everything. */
static void *sig_main(void *arg) {
    sig_ctx *s = arg;
    for (;;) {
        int sig = 0;
        if (sigwait(&s->set, &sig) != 0) continue;
        pthread_mutex_lock(&s->mu);
        int n = ++s->signals;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        if (n == 1) {
            fprintf(stderr, "czk daemon: %s: shutting down (again to cancel what runs)\n",
                    strsignal(sig));
        } else {
            fprintf(stderr, "czk daemon: %s: cancelling every job\n", strsignal(sig));
            czk_engine_shutdown(s->engine, false);
            /* calls still waiting end now, whatever the drain's grace */
            pthread_mutex_lock(&s->mu);
            if (s->server) czk_rpc_server_shutdown(s->server, 0);
            pthread_mutex_unlock(&s->mu);
        }
    }
    return NULL;
}

/* One line naming the jobs in flight (none: nothing printed). */
static void log_jobs(czk_engine *e, const char *what) {
    czk_engine_status *st = NULL;
    if (czk_engine_status_get(e, &st, NULL) != CZK_OK) return;
    char line[800] = "";
    size_t n = 0;
    for (size_t i = 0; i < st->num_jobs && n < sizeof line; i++) {
        const czk_job_info *j = &st->jobs[i];
        int w = snprintf(line + n, sizeof line - n, "%s%s (%s, %u of %u partitions done)",
                         i ? ", " : "", j->job_id, czk_job_state_name(j->state), j->finalized,
                         j->partitions);
        if (w > 0) n += (size_t)w;
    }
    if (st->num_jobs)
        fprintf(stderr, "czk daemon: %s: %zu job%s: %s\n", what, st->num_jobs,
                st->num_jobs == 1 ? "" : "s", line);
    czk_engine_status_free(st);
}

static void daemon_log(void *ctx, const char *level, const char *line) {
    (void)ctx;
    fprintf(stderr, "czk daemon: %s: %s\n", level, line);
}

int czk_cmd_daemon(int argc, char **argv) {
    static const struct option LONG[] = {{"config", required_argument, NULL, 'c'},
                                         {"listen", required_argument, NULL, 'l'},
                                         {"log-level", required_argument, NULL, 'L'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *config = NULL, *log_level = NULL;
    const char *listen_args[CZK_RPC_MAX_LISTEN];
    unsigned num_listen_args = 0;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    int ch;
    while ((ch = getopt_long(argc, argv, "c:l:h", LONG, NULL)) != -1) {
        switch (ch) {
        case 'c':
            config = optarg;
            break;
        case 'l':
            if (num_listen_args == CZK_RPC_MAX_LISTEN)
                return czk_cli_fail(CMD, "at most %d --listen addresses", CZK_RPC_MAX_LISTEN);
            listen_args[num_listen_args++] = optarg;
            break;
        case 'L':
            log_level = optarg;
            break;
        case 'h':
            fputs(USAGE, stdout);
            return CZK_EXIT_OK;
        default:
            fputs(USAGE, stderr);
            return CZK_EXIT_ERROR;
        }
    }
    if (optind < argc) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "unexpected argument '%s'", argv[optind]);
    }

    czk_engine_opts eo;
    czk_engine_opts_default(&eo);
    eo.gpu = &czk_cuda_provider; /* BACKEND REGISTRATION (composition root): gpus.backend */
    czk_err err;
    czk_err_clear(&err);
    if (!config && access("/data/zk/cuzk.toml", R_OK) == 0) config = "/data/zk/cuzk.toml";
    czk_daemon_config dc; /* [daemon]: the server's table, read in the same pass */
    czk_daemon_config_default(&dc);
    czk_config_table daemon_table = czk_daemon_config_table(&dc);
    if (config && czk_config_load(&eo.config, &daemon_table, 1, config, warn_line, NULL, &err))
        return czk_cli_fail(CMD, "%s", err.msg);
    if (log_level) {
        if (strcmp(log_level, "error") && strcmp(log_level, "warn") && strcmp(log_level, "info") &&
            strcmp(log_level, "debug") && strcmp(log_level, "trace"))
            return czk_cli_fail(CMD, "--log-level %s: error, warn, info, debug or trace",
                                log_level);
        snprintf(eo.config.log_level, sizeof eo.config.log_level, "%s", log_level);
    }

    /* The addresses: --listen, else daemon.listen split at commas. */
    char listen_buf[sizeof dc.listen];
    czk_rpc_server_opts so;
    czk_rpc_server_opts_default(&so);
    if (num_listen_args) {
        for (unsigned i = 0; i < num_listen_args; i++)
            so.listen[so.num_listen++] = listen_args[i];
    } else {
        snprintf(listen_buf, sizeof listen_buf, "%s", dc.listen);
        char *save = NULL;
        for (char *t = strtok_r(listen_buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
            if (so.num_listen == CZK_RPC_MAX_LISTEN)
                return czk_cli_fail(CMD, "daemon.listen: at most %d addresses", CZK_RPC_MAX_LISTEN);
            so.listen[so.num_listen++] = t;
        }
        if (!so.num_listen) return czk_cli_fail(CMD, "daemon.listen is empty");
    }
    so.max_recv_bytes = dc.max_message_bytes;
    so.log = daemon_log;

    /* Signals go to the signal thread only: block them before any thread starts. */
    static sig_ctx sc; /* the detached signal thread outlives this function */
    memset(&sc, 0, sizeof sc);
    sigemptyset(&sc.set);
    sigaddset(&sc.set, SIGINT);
    sigaddset(&sc.set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sc.set, NULL);
    signal(SIGPIPE, SIG_IGN);
    pthread_mutex_init(&sc.mu, NULL);
    pthread_cond_init(&sc.cv, NULL);

    czk_engine *e = NULL;
    if (czk_engine_create(&e, &eo, &err)) /* most of its messages begin with "engine: " */
        return czk_cli_fail(CMD, "%s%s", strncmp(err.msg, "engine: ", 8) ? "engine: " : "",
                            err.msg);
    /* the kinds this daemon serves: one line each */
    if (czk_kinds_register_porep(e, &err) || czk_kinds_register_post(e, &err) ||
        czk_kinds_register_snap(e, &err) || czk_kinds_register_test(e, &err)) {
        czk_engine_destroy(e);
        return czk_cli_fail(CMD, "engine: %s", err.msg);
    }
    sc.engine = e;
    czk_rpc_server *srv = NULL;
    if (czk_rpc_server_start(&srv, e, &so, &err)) {
        czk_engine_destroy(e);
        return czk_cli_fail(CMD, "%s", err.msg);
    }
    sc.server = srv;
    czk_httpstatus *http = NULL; /* daemon.status_listen: GET /status and /metrics */
    if (dc.status_listen[0] && czk_httpstatus_start(e, dc.status_listen, &http, &err) != CZK_OK) {
        czk_rpc_server_destroy(srv);
        czk_engine_destroy(e);
        return czk_cli_fail(CMD, "daemon.status_listen %s: %s", dc.status_listen, err.msg);
    }
    if (http) { /* the port bound (status_listen may say 0) */
        const char *colon = strrchr(dc.status_listen, ':');
        int host = colon ? (int)(colon - dc.status_listen) : (int)strlen(dc.status_listen);
        fprintf(stderr, "czk daemon: info: GET /status and /metrics on http://%.*s:%u\n", host,
                dc.status_listen, (unsigned)czk_httpstatus_port(http));
    }
    czk_key_path kp; /* where the SRS cache finds keys: the one rule of keys.h */
    if (czk_key_path_get(&kp, eo.config.param_cache, NULL) == CZK_OK) {
        fprintf(stderr, "czk daemon: info: keys searched in");
        for (unsigned i = 0; i < kp.n; i++)
            fprintf(stderr, "%s %s", i ? (i + 1 == kp.n ? " and" : ",") : "", kp.dir[i]);
        fputc('\n', stderr);
    }
    pthread_t sig_thread;
    if (pthread_create(&sig_thread, NULL, sig_main, &sc) != 0) {
        czk_rpc_server_destroy(srv);
        czk_httpstatus_stop(http);
        czk_engine_destroy(e);
        return czk_cli_fail(CMD, "cannot start the signal thread");
    }
    pthread_detach(sig_thread);
    fprintf(stderr, "czk daemon: serving (pid %ld)\n", (long)getpid());

    pthread_mutex_lock(&sc.mu);
    while (sc.signals == 0)
        pthread_cond_wait(&sc.cv, &sc.mu);
    pthread_mutex_unlock(&sc.mu);

    /* Stop intake; drain or cancel. */
    double t_stop = czk_cli_now(), t_log = t_stop;
    uint64_t grace_ms = dc.shutdown_grace_ms;
    char what[160];
    if (grace_ms)
        snprintf(what, sizeof what,
                 "draining, at most daemon.shutdown_grace %.1f s (again to "
                 "cancel), for",
                 (double)grace_ms / 1000);
    else
        snprintf(what, sizeof what, "draining (again to cancel) for");
    log_jobs(e, dc.shutdown_drain ? what : "cancelling");
    if (!dc.shutdown_drain) czk_engine_shutdown(e, false);
    czk_rpc_server_shutdown(srv, dc.shutdown_drain ? (grace_ms ? (int64_t)grace_ms : -1) : 2000);
    uint64_t calls = czk_rpc_server_calls(srv);
    pthread_mutex_lock(&sc.mu);
    sc.server = NULL;
    pthread_mutex_unlock(&sc.mu);
    czk_rpc_server_destroy(srv);
    if (dc.shutdown_drain) {
        /* jobs submitted without a waiting call finish too, within the grace */
        for (;;) {
            czk_engine_status *st = NULL;
            bool busy = true;
            if (czk_engine_status_get(e, &st, NULL) == CZK_OK) {
                busy = st->jobs_queued + st->jobs_running + st->jobs_cancelling > 0;
                czk_engine_status_free(st);
            }
            pthread_mutex_lock(&sc.mu);
            bool again = sc.signals > 1;
            pthread_mutex_unlock(&sc.mu);
            double now = czk_cli_now();
            if (!busy || again || (grace_ms && (now - t_stop) * 1000 >= (double)grace_ms)) break;
            if (now - t_log >= 10) {
                log_jobs(e, "still draining");
                t_log = now;
            }
            usleep(100 * 1000);
        }
    }
    czk_engine_shutdown(e, false); /* cancels what is left */
    /* cancelled work stops at its next checkpoint: wait for it, within a bound */
    uint64_t cg = dc.shutdown_cancel_grace_ms;
    bool abandoned = czk_engine_wait_stopped(e, cg ? (int64_t)cg : -1, &err) != CZK_OK;
    czk_engine_status *st = NULL;
    if (czk_engine_status_get(e, &st, NULL) == CZK_OK) {
        char refused[64] = "";
        if (st->proofs_refused)
            snprintf(refused, sizeof refused, " (%llu of them refused at intake)",
                     (unsigned long long)st->proofs_refused);
        fprintf(stderr,
                "czk daemon: stopped: %llu proof%s completed, %llu failed%s, %llu cancelled; "
                "%llu call%s served\n",
                (unsigned long long)st->proofs_completed, st->proofs_completed == 1 ? "" : "s",
                (unsigned long long)st->proofs_failed, refused,
                (unsigned long long)st->proofs_cancelled, (unsigned long long)calls,
                calls == 1 ? "" : "s");
        czk_engine_status_free(st);
    }
    czk_httpstatus_stop(http);
    if (abandoned) {
        /* the workers holding it may never return: exit without waiting for them (the
         * timeline file is written line by line; nothing of it is lost) */
        fprintf(stderr,
                "czk daemon: exiting with work abandoned, daemon.shutdown_cancel_grace (%.1f s) "
                "has passed: %s\n",
                (double)cg / 1000, err.msg);
        fflush(NULL);
        _exit(CZK_EXIT_NO);
    }
    czk_engine_destroy(e); /* closes the timeline */
    return CZK_EXIT_OK;
}

#endif
