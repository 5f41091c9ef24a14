/*
 * `czk client [--addr ADDR] [--deadline S] COMMAND ...`: an operator's
 * client of cuzk.v1.ProvingEngine (czk daemon, or cuzk itself) on czk's C
 * client (include/czk/rpc.h).
 */
#include "cli/cli.h"

#ifdef CZK_HAVE_RPC
#include "czk/engine.h"
#include "czk/porep_shapes.h"
#include "czk/rpc.h"

#include <openssl/evp.h>
#endif

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD "client"

static const char USAGE[] =
    "usage: czk client [--addr ADDR] [--deadline S] COMMAND [options]\n\n"
    "Calls a cuzk.v1.ProvingEngine daemon (czk daemon, or cuzk).\n\n"
    "  -a, --addr ADDR      \"unix:///path\" or \"host:port\" (default $CZK_ADDR, else\n"
    "                       unix:///run/curio/cuzk.sock)\n"
    "  -d, --deadline S     the call's deadline in seconds (default: none; status,\n"
    "                       metrics, cancel, evict: 30)\n"
    "  (--addr and --deadline go before or after COMMAND)\n\n"
    "commands:\n"
    "  prove FILE [--out F] [--kind porep|test] [--request-id ID] [--priority P]\n"
    "        [--sector-num N] [--miner-id N] [--sector-size N]\n"
    "                       submit and wait; FILE is cuzk's PoRep envelope or a raw C1\n"
    "                       JSON (wrapped in an envelope here), or a test-kind payload;\n"
    "                       writes the proof bytes to --out (192 per partition)\n"
    "  submit FILE [same options]   enqueue; prints the job id\n"
    "  await JOB [--timeout-ms N] [--out F]   wait for a job's result\n"
    "  cancel JOB           cancel a job\n"
    "  status               queues, devices, loaded SRS, counters, jobs in flight\n"
    "  metrics              the Prometheus text\n"
    "  preload CIRCUIT      load a circuit's SRS (porep-32g, test-10, ...)\n"
    "  evict CIRCUIT        drop it\n\n"
    "exit status: 0 success (proof COMPLETED), 1 the request was refused, the proof\n"
    "FAILED / was CANCELLED / TIMEOUT, or --deadline passed before the answer,\n"
    "2 usage, connection or other error\n";

#ifndef CZK_HAVE_RPC

int czk_cmd_client(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    return czk_cli_fail(CMD, "this czk was built without gRPC (-DCZK_RPC=OFF)");
}

#else

/* The options of every command, before or after it: where to call and how long to wait. */
typedef struct client {
    const char *addr;
    int64_t deadline; /* ms; -1: none */
    czk_rpc_client *c;
} client;

/* --addr and --deadline, in every option table of the client */
// clang-format off
#define OPT_ADDR {"addr", required_argument, NULL, 'a'}
#define OPT_DEADLINE {"deadline", required_argument, NULL, 'd'}
#define GLOBAL_OPTS OPT_ADDR, OPT_DEADLINE
// clang-format on

/* -a / -d (ch) with its value: CZK_EXIT_OK, or the error printed and CZK_EXIT_ERROR. */
static int global_opt(client *cl, int ch, const char *v) {
    if (ch == 'a') {
        cl->addr = v;
        return CZK_EXIT_OK;
    }
    uint64_t s;
    if (!czk_cli_parse_u64(v, &s) || s > 1000000)
        return czk_cli_fail(CMD, "--deadline: seconds, not '%s'", v);
    cl->deadline = (int64_t)s * 1000;
    return CZK_EXIT_OK;
}

static int connect_client(client *cl) {
    czk_err err;
    if (czk_rpc_client_connect(&cl->c, cl->addr, 0, &err)) return czk_cli_fail(CMD, "%s", err.msg);
    return CZK_EXIT_OK;
}

/*
 * A command's own words (argv[0] the command): the global options anywhere, the other words
 * into pos, exactly `want` of them. CZK_EXIT_OK, or the error printed.
 */
static int plain_args(client *cl, int argc, char **argv, int want, const char **pos,
                      const char *what) {
    static const struct option LONG[] = {GLOBAL_OPTS, {NULL, 0, NULL, 0}};
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch, rc;
    while ((ch = getopt_long(argc, argv, ":a:d:", LONG, NULL)) != -1) {
        if (ch != 'a' && ch != 'd') return czk_cli_getopt_fail(CMD, USAGE, ch, argv, LONG);
        if ((rc = global_opt(cl, ch, optarg))) return rc;
    }
    if (argc - optind != want) return czk_cli_fail(CMD, "%s takes %s", argv[0], what);
    for (int i = 0; i < want; i++)
        pos[i] = argv[optind + i];
    return CZK_EXIT_OK;
}

/* Exit status for a failed call: a refused request, and a deadline that passed, are a negative
 * answer (exit 1, as a job's TIMEOUT). */
static int call_fail(const client *cl, const char *what, czk_status st, const czk_err *err) {
    fprintf(stderr, "czk client %s: %s\n", what, err->msg);
    if (st == CZK_ERR_TIMEOUT && cl->deadline >= 0)
        fprintf(stderr, "czk client %s: no answer within the deadline of %lld s (--deadline)%s\n",
                what, (long long)(cl->deadline / 1000),
                !strcmp(what, "prove")   ? "; the daemon cancels the job of a Prove call it could "
                                           "not answer (submit, then await, keeps it)"
                : !strcmp(what, "await") ? "; the job keeps running: await it again"
                                         : "");
    return st == CZK_ERR_INVALID_ARG || st == CZK_ERR_UNSUPPORTED || st == CZK_ERR_MISMATCH ||
                   st == CZK_ERR_TIMEOUT
               ? CZK_EXIT_NO
               : CZK_EXIT_ERROR;
}

/* out: NULL, or the --out file opened before the call (committed here when the proof came). */
static int print_result(const czk_job_result *r, czk_cli_out *out) {
    printf("job %s: %s", r->job_id, czk_job_state_name(r->state));
    if (r->state == CZK_JOB_COMPLETED) printf(", %zu proof bytes", r->proof_len);
    printf("\n  queue_wait %llu ms, srs_load %llu ms, synthesis %llu ms, gpu %llu ms, total %llu "
           "ms\n",
           (unsigned long long)r->queue_wait_ms, (unsigned long long)r->srs_load_ms,
           (unsigned long long)r->synthesis_ms, (unsigned long long)r->gpu_compute_ms,
           (unsigned long long)r->total_ms);
    if (r->error[0]) printf("  error: %s\n", r->error);
    if (r->state != CZK_JOB_COMPLETED) return CZK_EXIT_NO;
    if (out) {
        int rc = czk_cli_out_commit(out, r->proof, r->proof_len);
        if (rc) return rc;
        printf("  wrote %s\n", out->path);
    }
    return CZK_EXIT_OK;
}

/* A raw C1 JSON (not an envelope) in cuzk's envelope; *buf replaced. */
static int wrap_c1(uint8_t **buf, size_t *len, uint64_t sector_num) {
    czk_c1 *c1 = NULL;
    bool envelope = false;
    uint64_t sn = 0;
    czk_err err;
    if (czk_cli_parse_c1(&c1, &envelope, &sn, *buf, *len, &err)) {
        fprintf(stderr, "czk client: the C1: %s\n", err.msg);
        return CZK_EXIT_NO;
    }
    if (envelope) {
        czk_c1_free(c1);
        return CZK_EXIT_OK;
    }
    czk_porep_proof proof;
    if (czk_porep_proof_lookup(c1->registered_proof, &proof, &err)) {
        czk_c1_free(c1);
        return czk_cli_fail(CMD, "the C1: %s", err.msg);
    }
    czk_c1_free(c1);
    if (*len > (size_t)INT32_MAX / 2) return czk_cli_fail(CMD, "the C1 is too large");
    size_t cap = 4 * ((*len + 2) / 3) + 128;
    uint8_t *e = malloc(cap);
    if (!e) return czk_cli_fail(CMD, "out of memory");
    int h = snprintf((char *)e, cap, "{\"SectorNum\":%llu,\"Phase1Out\":\"",
                     (unsigned long long)sector_num);
    int b = EVP_EncodeBlock(e + h, *buf, (int)*len);
    int t = snprintf((char *)e + h + b, cap - (size_t)(h + b), "\",\"SectorSize\":%llu}",
                     (unsigned long long)proof.shape->sector_size);
    free(*buf);
    *buf = e;
    *len = (size_t)(h + b + t);
    return CZK_EXIT_OK;
}

static bool parse_priority(const char *s, czk_priority *p) {
    static const char *const N[] = {"unspecified", "low", "normal", "high", "critical"};
    for (int i = 0; i < 5; i++)
        if (!strcasecmp(s, N[i])) {
            *p = (czk_priority)i;
            return true;
        }
    return false;
}

/* prove / submit */
static int cmd_prove(client *cl, bool wait, int argc, char **argv) {
    static const struct option LONG[] = {{"out", required_argument, NULL, 'o'},
                                         {"kind", required_argument, NULL, 'k'},
                                         {"request-id", required_argument, NULL, 'r'},
                                         {"priority", required_argument, NULL, 'p'},
                                         {"sector-num", required_argument, NULL, 's'},
                                         {"miner-id", required_argument, NULL, 'm'},
                                         {"sector-size", required_argument, NULL, 'z'},
                                         GLOBAL_OPTS,
                                         {NULL, 0, NULL, 0}};
    const char *what = wait ? "prove" : "submit";
    const char *out = NULL, *kind = "porep";
    czk_proof_request r;
    memset(&r, 0, sizeof r);
    r.request_id = "";
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch, rc;
    while ((ch = getopt_long(argc, argv, ":o:k:r:p:a:d:", LONG, NULL)) != -1) {
        uint64_t n = 0;
        if (ch == 's' || ch == 'm' || ch == 'z') {
            if (!czk_cli_parse_u64(optarg, &n))
                return czk_cli_fail(CMD, "%s: a number, not '%s'", what, optarg);
        }
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        case 'k':
            kind = optarg;
            break;
        case 'r':
            r.request_id = optarg;
            break;
        case 'p':
            if (!parse_priority(optarg, &r.priority))
                return czk_cli_fail(CMD, "--priority: low, normal, high or critical");
            break;
        case 's':
            r.sector_number = n;
            break;
        case 'm':
            r.miner_id = n;
            break;
        case 'z':
            r.sector_size = n;
            break;
        case 'a':
        case 'd':
            if ((rc = global_opt(cl, ch, optarg))) return rc;
            break;
        default:
            return czk_cli_getopt_fail(CMD, USAGE, ch, argv, LONG);
        }
    }
    if (optind + 1 != argc) return czk_cli_fail(CMD, "%s takes one FILE", what);
    if (!wait && out) return czk_cli_fail(CMD, "submit: --out belongs to prove and await");
    czk_cli_out of; /* checked before anything is submitted */
    if (out && (rc = czk_cli_out_open(&of, CMD, out, "submitted"))) return rc;
    if (!strcmp(kind, "porep"))
        r.kind = CZK_KIND_POREP_C2;
    else if (!strcmp(kind, "test"))
        r.kind = CZK_KIND_TEST;
    else
        return czk_cli_fail(CMD, "--kind: porep or test");
    uint8_t *buf = NULL;
    size_t len = 0;
    if ((rc = czk_cli_read_c1(CMD, argv[optind], &buf, &len))) {
        if (out) czk_cli_out_drop(&of);
        return rc;
    }
    if (r.kind == CZK_KIND_POREP_C2 && (rc = wrap_c1(&buf, &len, r.sector_number))) {
        free(buf);
        if (out) czk_cli_out_drop(&of);
        return rc;
    }
    r.vanilla_proof = buf;
    r.vanilla_proof_len = len;
    if ((rc = connect_client(cl))) {
        free(buf);
        if (out) czk_cli_out_drop(&of);
        return rc;
    }
    czk_err err;
    czk_err_clear(&err);
    czk_status st;
    if (wait) {
        czk_job_result res;
        double t0 = czk_cli_now();
        st = czk_rpc_prove(cl->c, &r, cl->deadline, &res, NULL, &err);
        free(buf);
        if (st) {
            if (out) czk_cli_out_drop(&of);
            return call_fail(cl, what, st, &err);
        }
        rc = print_result(&res, out ? &of : NULL);
        if (out) czk_cli_out_drop(&of); /* nothing left after a commit */
        printf("  call %.3f s\n", czk_cli_now() - t0);
        czk_job_result_free(&res);
        return rc;
    }
    char id[CZK_JOB_ID_MAX];
    uint32_t qp = 0;
    st = czk_rpc_submit(cl->c, &r, id, &qp, cl->deadline, NULL, &err);
    free(buf);
    if (st) return call_fail(cl, what, st, &err);
    printf("%s\t(queue position %u)\n", id, qp);
    return CZK_EXIT_OK;
}

static int cmd_await(client *cl, int argc, char **argv) {
    static const struct option LONG[] = {{"out", required_argument, NULL, 'o'},
                                         {"timeout-ms", required_argument, NULL, 't'},
                                         GLOBAL_OPTS,
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL;
    uint64_t timeout = 0;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch, rc;
    while ((ch = getopt_long(argc, argv, ":o:a:d:", LONG, NULL)) != -1) {
        if (ch == 'o') {
            out = optarg;
        } else if (ch == 't') {
            if (!czk_cli_parse_u64(optarg, &timeout))
                return czk_cli_fail(CMD, "--timeout-ms: a number, not '%s'", optarg);
        } else if (ch == 'a' || ch == 'd') {
            if ((rc = global_opt(cl, ch, optarg))) return rc;
        } else {
            return czk_cli_getopt_fail(CMD, USAGE, ch, argv, LONG);
        }
    }
    if (optind + 1 != argc) return czk_cli_fail(CMD, "await takes one JOB");
    czk_cli_out of; /* checked before the result is fetched */
    if (out && (rc = czk_cli_out_open(&of, CMD, out, "fetched"))) return rc;
    if ((rc = connect_client(cl))) {
        if (out) czk_cli_out_drop(&of);
        return rc;
    }
    czk_job_result res;
    czk_err err;
    czk_status st = czk_rpc_await(cl->c, argv[optind], timeout, cl->deadline, &res, NULL, &err);
    if (st) {
        if (out) czk_cli_out_drop(&of);
        return call_fail(cl, "await", st, &err);
    }
    rc = print_result(&res, out ? &of : NULL);
    if (out) czk_cli_out_drop(&of);
    czk_job_result_free(&res);
    return rc;
}

static int cmd_status(const client *cl, int64_t deadline) {
    czk_rpc_status *s;
    czk_err err;
    czk_status st = czk_rpc_get_status(cl->c, &s, deadline, NULL, &err);
    if (st) return call_fail(cl, "status", st, &err);
    printf("uptime %llu s, proofs completed %llu, failed %llu, pinned %llu / %llu bytes\n",
           (unsigned long long)s->uptime_seconds, (unsigned long long)s->total_proofs_completed,
           (unsigned long long)s->total_proofs_failed, (unsigned long long)s->pinned_memory_bytes,
           (unsigned long long)s->pinned_memory_limit_bytes);
    printf("devices:\n");
    for (size_t i = 0; i < s->num_gpus; i++) {
        const czk_rpc_gpu_status *g = &s->gpus[i];
        /* a GPU by its CUDA index; a CPU pseudo-device by its place */
        printf("  %u %-24s vram %llu free / %llu total  job %s %s\n",
               g->cpu_pseudo_device ? g->index : g->ordinal, g->name,
               (unsigned long long)g->vram_free_bytes, (unsigned long long)g->vram_total_bytes,
               g->current_job_id[0] ? g->current_job_id : "-", g->current_proof_kind);
        if (g->uuid[0] || g->pci_bus_id[0]) printf("      %s  PCI %s\n", g->uuid, g->pci_bus_id);
        if (g->failed)
            printf("      FAILED (%llu partitions requeued): %s\n",
                   (unsigned long long)g->partitions_requeued, g->error);
    }
    static const char *const TIER[] = {"HOT", "WARM", "COLD"};
    printf("SRS:\n");
    for (size_t i = 0; i < s->num_srs; i++) {
        const czk_rpc_srs_status *x = &s->loaded_srs[i];
        printf("  %-14s %-4s %llu bytes, %u job%s\n", x->circuit_id,
               (unsigned)x->tier < 3 ? TIER[x->tier] : "?", (unsigned long long)x->size_bytes,
               x->ref_count, x->ref_count == 1 ? "" : "s");
    }
    printf("queues:\n");
    for (size_t i = 0; i < s->num_queues; i++)
        printf("  %-14s pending %u, in progress %u\n", s->queues[i].proof_kind,
               s->queues[i].pending, s->queues[i].in_progress);
    if (s->num_jobs) printf("jobs:\n");
    for (size_t i = 0; i < s->num_jobs; i++) {
        const czk_rpc_job_status *j = &s->jobs[i];
        printf("  %-20s %-12s %-10s %u of %u partitions done, %u in flight, %.1f s\n", j->job_id,
               j->proof_kind, czk_job_state_name(j->state), j->finalized, j->partitions,
               j->in_flight, (double)j->age_ms / 1000);
    }
    czk_rpc_status_free(s);
    return CZK_EXIT_OK;
}

int czk_cmd_client(int argc, char **argv) {
    static const struct option LONG[] = {
        GLOBAL_OPTS, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    client cl = {getenv("CZK_ADDR"), -1, NULL};
    if (!cl.addr || !*cl.addr) cl.addr = "unix:///run/curio/cuzk.sock";
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch, rc;
    /* "+": stop at the command; its options (and these again) are parsed below */
    while ((ch = getopt_long(argc, argv, "+:a:d:h", LONG, NULL)) != -1) {
        switch (ch) {
        case 'a':
        case 'd':
            if ((rc = global_opt(&cl, ch, optarg))) return rc;
            break;
        case 'h':
            fputs(USAGE, stdout);
            return CZK_EXIT_OK;
        default:
            return czk_cli_getopt_fail(CMD, USAGE, ch, argv, LONG);
        }
    }
    if (optind >= argc) {
        fputs(USAGE, stderr);
        return czk_cli_fail(CMD, "which command?");
    }
    const char *cmd = argv[optind];
    int sub_argc = argc - optind;
    char **sub_argv = argv + optind;
    if (czk_cli_wants_help(sub_argc, sub_argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    const char *pos[1];
    czk_err err;
    czk_status st;
    int64_t dl; /* status, metrics, cancel, evict: 30 s without --deadline */
    if (!strcmp(cmd, "prove") || !strcmp(cmd, "submit")) {
        rc = cmd_prove(&cl, cmd[0] == 'p', sub_argc, sub_argv);
    } else if (!strcmp(cmd, "await")) {
        rc = cmd_await(&cl, sub_argc, sub_argv);
    } else if (!strcmp(cmd, "status") || !strcmp(cmd, "metrics")) {
        if (!(rc = plain_args(&cl, sub_argc, sub_argv, 0, pos, "no arguments")) &&
            !(rc = connect_client(&cl))) {
            dl = cl.deadline >= 0 ? cl.deadline : 30000;
            char *text = NULL;
            if (cmd[0] == 's')
                rc = cmd_status(&cl, dl);
            else if ((st = czk_rpc_get_metrics(cl.c, &text, dl, NULL, &err)))
                rc = call_fail(&cl, "metrics", st, &err);
            else
                fputs(text, stdout);
            free(text);
        }
    } else if (!strcmp(cmd, "cancel")) {
        bool was = false;
        if (!(rc = plain_args(&cl, sub_argc, sub_argv, 1, pos, "one JOB")) &&
            !(rc = connect_client(&cl))) {
            dl = cl.deadline >= 0 ? cl.deadline : 30000;
            if ((st = czk_rpc_cancel(cl.c, pos[0], &was, dl, NULL, &err)))
                rc = call_fail(&cl, "cancel", st, &err);
            else
                printf("%s: %s\n", pos[0],
                       was ? "cancelled (CANCELLING in status until its work has stopped)"
                           : "had already finished");
        }
    } else if (!strcmp(cmd, "preload")) {
        bool already = false;
        uint64_t ms = 0;
        if (!(rc = plain_args(&cl, sub_argc, sub_argv, 1, pos, "one CIRCUIT")) &&
            !(rc = connect_client(&cl))) {
            if ((st = czk_rpc_preload(cl.c, pos[0], &already, &ms, cl.deadline, NULL, &err)))
                rc = call_fail(&cl, "preload", st, &err);
            else
                printf("%s: %s (%llu ms)\n", pos[0], already ? "already loaded" : "loaded",
                       (unsigned long long)ms);
        }
    } else if (!strcmp(cmd, "evict")) {
        bool was = false;
        uint64_t freed = 0;
        if (!(rc = plain_args(&cl, sub_argc, sub_argv, 1, pos, "one CIRCUIT")) &&
            !(rc = connect_client(&cl))) {
            dl = cl.deadline >= 0 ? cl.deadline : 30000;
            if ((st = czk_rpc_evict(cl.c, pos[0], &was, &freed, dl, NULL, &err)))
                rc = call_fail(&cl, "evict", st, &err);
            else
                printf("%s: %s, %llu bytes freed\n", pos[0], was ? "evicted" : "was not loaded",
                       (unsigned long long)freed);
        }
    } else {
        fputs(USAGE, stderr);
        rc = czk_cli_fail(CMD, "unknown command '%s'", cmd);
    }
    czk_rpc_client_close(cl.c);
    return rc;
}

#endif
